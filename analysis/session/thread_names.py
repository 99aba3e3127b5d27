"""Thread names: what the user called a session, from ``$CODEX_HOME/session_index.jsonl``.

Codex appends ``{"id": <thread id>, "thread_name": <name>, "updated_at": <time>}`` to that file whenever a
thread is named or renamed (``codex-rs/rollout/src/session_index.rs``); the newest entry for an id wins
(by ``updated_at``, and for equal times the later line).  The index is found from where the rollout is: the
Codex home holding the ``sessions`` (or ``archived_sessions``) folder above it; else the one given (the
server's ``codexHome`` setting, the command line's ``--codex-home``), else ``$CODEX_HOME``, else ``~/.codex``.
Only a regular ``session_index.jsonl`` whose real path is in one of those Codex homes is read
(analysis.jsonl.access: a link to another file is not followed).  A missing or unreadable index, or a line that
is not an entry, names nothing: never an error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..jsonl.access import CODEX_INDEX, Access, codex_home_of

INDEX_NAME = "session_index.jsonl"
_CACHE: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}  # index path → ((mtime, size), names)


def index_path(rollout_path: str | None, home: str | None = None) -> Path | None:
    """The ``session_index.jsonl`` that names the threads of the rollout at ``rollout_path``, when one exists
    and may be read."""
    access = Access.create(codex_home=home)
    own = codex_home_of(rollout_path) if rollout_path and rollout_path != "-" else None
    if own is not None:
        access = access.with_home_of(rollout_path)
    for folder in dict.fromkeys([own, *access.codex_homes] if own else access.codex_homes):
        index = os.path.join(folder, INDEX_NAME)
        if access.readable_file(index, CODEX_INDEX) is not None:
            return Path(index)
    return None


def read_index(index: Path | str) -> dict[str, str]:
    """Thread id → its newest name, from one ``session_index.jsonl`` (read again only when it changed)."""
    key = str(index)
    try:
        stat = os.stat(key)
    except OSError:
        return {}
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    newest: dict[str, tuple[str, str]] = {}  # id → (updated_at, name)
    try:
        with open(key, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                entry = _entry(line)
                if entry is None:
                    continue
                thread, name, updated = entry
                if thread not in newest or updated >= newest[thread][0]:
                    newest[thread] = (updated, name)
    except OSError:
        return {}
    names = {thread: name for thread, (_, name) in newest.items()}
    _CACHE[key] = (stamp, names)
    return names


def thread_name(rollout_path: str | None, identity: Any, home: str | None = None) -> str | None:
    """The name of the thread a rollout is (``identity``: its :class:`~analysis.session.lineage.Identity`)."""
    if identity is None or not getattr(identity, "id", None):
        return None
    index = index_path(rollout_path, home)
    if index is None:
        return None
    return read_index(index).get(identity.id)


def name_of(rollout_path: str | None, session_id: str | None, home: str | None = None) -> str | None:
    """The name of thread ``session_id``, from the index of the rollout at ``rollout_path``'s Codex home."""
    if not session_id:
        return None
    index = index_path(rollout_path, home)
    return read_index(index).get(session_id) if index is not None else None


def _entry(line: str) -> tuple[str, str, str] | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    thread, name, updated = value.get("id"), value.get("thread_name"), value.get("updated_at")
    if not isinstance(thread, str) or not isinstance(name, str) or not name.strip():
        return None
    return thread, " ".join(name.split()), updated if isinstance(updated, str) else ""


__all__ = ["INDEX_NAME", "index_path", "read_index", "thread_name", "name_of"]
