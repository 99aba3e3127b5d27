"""A session's repository: its root found from the cwd (the nearest ``.git``) or said by ``session_meta``,
its remote, and a path as another machine finds it (relative to that root)."""

from __future__ import annotations

import os

from ...jsonl.access import denied
from ...session.changes import Place, relative_key


def repository_of(place: Place) -> tuple[str | None, str | None]:
    """The session's repository root and remote: the nearest folder of its cwd holding ``.git`` when the
    cwd exists here, else the cwd itself when ``session_meta`` has ``git`` fields (Codex ran in a
    repository, most often at its root); the remote is ``git.repository_url``."""
    url = place.git.get("repository_url") if place.git else None
    url = url if isinstance(url, str) and url else None
    if not place.cwd:
        return None, url
    root = find_repository_root(place.cwd)
    if root is None and place.git:
        root = place.cwd
    return root, url


def find_repository_root(path: str) -> str | None:
    """The nearest folder at or above ``path`` holding ``.git`` (a folder, or a worktree's file), or None.

    ``path`` may come from a rollout (a session's ``cwd``), which anyone may have written: it is tested for
    existence only when :func:`probeable`, so that a rollout never makes us touch a system folder, a folder of
    secrets or a network share (a UNC path's ``stat`` on Windows connects to the host and offers the user's
    credentials)."""
    if not probeable(path):
        return None
    try:
        current = os.path.abspath(path)
        if not os.path.isdir(current):
            return None
        while True:
            if os.path.exists(os.path.join(current, ".git")):
                return current
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
    except (OSError, ValueError):  # a path this system cannot hold (another machine's)
        return None


def probeable(path: str) -> bool:
    """Whether a folder named by a rollout may be tested for existence: an absolute path of this system, not
    a network share (``\\\\host\\share``, ``//host/share``) and not under a folder never read
    (:func:`analysis.jsonl.access.denied`: system folders, folders of secrets), decided on the text alone."""
    if not path or "\0" in path or not os.path.isabs(path):
        return False
    if path.startswith(("\\\\", "//")):
        return False
    return denied(os.path.normpath(path)) is None


def repository_key(path: str | None, root: str | None) -> str | None:
    """How a path is found from another machine: relative to its repository's root, in lower case (a
    Windows repository is case-insensitive; the lookup checks case where both sides are POSIX)."""
    if not path or not root:
        return None
    relative = relative_key(path, root)
    return relative.lower() if relative else None
