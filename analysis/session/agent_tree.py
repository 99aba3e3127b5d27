"""Subagent trees in words (Codex 0.158 and later, v2 multi-agent): the child's own name, its path in the
tree, its parent's name, each labelled so that nobody reads one for the other.

A v2 subagent's ``session_meta`` carries ``session_id`` (the root thread of the tree), ``parent_thread_id``
(its direct parent), ``agent_path`` (its address in the tree, ``/root/review_retry``), ``agent_nickname``,
``agent_role`` and the depth (:class:`~analysis.session.lineage.Identity`).  The parent's name is read from
the parent's own rollout when it is found (its first ``session_meta``: the nickname, else "root thread" for
a thread with no parent); without the file, the parent's path is the child's path less its last segment.
This reads another file: the CLI and the server call it, never the file-local analysis.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .lineage import Identity, find_session_file, search_roots

_HEAD_BYTES = 1 << 20  # a session_meta line is read from the first MiB of the parent's file at most


@dataclass(frozen=True, slots=True)
class ParentName:
    """What is known of a subagent's direct parent."""

    id: str
    nickname: str | None  # the parent's agent_nickname, from its file
    path: str | None  # its agent_path (from its file, else the child's path less its last segment)
    is_root: bool  # the parent is the tree's root thread (started by the user)
    file: str | None  # the parent's rollout, when found

    def words(self) -> str:
        """``Hypatia, path /root/review_retry`` or ``root thread, path /root``."""
        name = self.nickname or ("root thread" if self.is_root else None)
        parts = [p for p in (name, f"path {self.path}" if self.path else None) if p]
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "nickname": self.nickname, "path": self.path, "root": self.is_root, "file": self.file}


def agent_words(ident: Identity) -> str | None:
    """``Hypatia (reviewer)``: the child's own name and role, else None."""
    if not ident.nickname and not ident.role:
        return None
    if ident.nickname and ident.role:
        return f"{ident.nickname} ({ident.role})"
    return ident.nickname or f"({ident.role})"


def parent_path(agent_path: str | None) -> str | None:
    """``/root/review_retry`` → ``/root``; ``/root`` → None."""
    if not agent_path or "/" not in agent_path.strip("/"):
        return None
    return agent_path.rstrip("/").rsplit("/", 1)[0] or None


def parent_name(ident: Identity, path: str | None = None, workspace: Iterable[str] = ()) -> ParentName | None:
    """The direct parent of a subagent, named from its rollout when ``path``'s relatives hold it."""
    if not ident.parent:
        return None
    guessed = parent_path(ident.agent_path)
    is_root = ident.root is not None and ident.root == ident.parent
    found = find_session_file(ident.parent, search_roots(path, workspace), exclude=path) if path else None
    meta = _first_meta(found) if found else None
    if meta is None:
        return ParentName(ident.parent, None, guessed, is_root or (ident.depth == 1), found)
    nickname = _text(meta.get("agent_nickname")) or _text(_spawn(meta).get("agent_nickname"))
    own_path = _text(meta.get("agent_path")) or _text(_spawn(meta).get("agent_path"))
    has_parent = bool(_text(meta.get("parent_thread_id")) or _text(_spawn(meta).get("parent_thread_id")))
    return ParentName(ident.parent, nickname, own_path or guessed, not has_parent, found)


def in_tree(ident: Identity | None) -> bool:
    """A member of a subagent tree: a subagent, or a thread whose ``session_meta`` names its tree or path."""
    if ident is None:
        return False
    return bool(ident.parent or ident.agent_path or (ident.root and ident.root != ident.id))


def tree_words(ident: Identity, path: str | None = None, workspace: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Labelled facts about a tree member: ``agent``, ``agent path``, ``subagent of``, ``session tree``, depth."""
    out: list[tuple[str, str]] = []
    own = agent_words(ident)
    if own:
        out.append(("agent", own))
    if ident.agent_path:
        out.append(("agent path", ident.agent_path))
    if ident.depth is not None:
        out.append(("depth", str(ident.depth)))
    parent = parent_name(ident, path, workspace)
    if parent is not None:
        words = parent.words()
        out.append(("subagent of", f"session {parent.id}" + (f" ({words})" if words else "")))
    if ident.root and ident.root not in (ident.id, ident.parent):
        out.append(("session tree", f"root session {ident.root}"))
    return out


def tree_json(ident: Identity, path: str | None = None, workspace: Iterable[str] = ()) -> dict[str, Any]:
    """The same for ``outline --json``: the child's own name, its path, its parent, each under its own key."""
    parent = parent_name(ident, path, workspace)
    return {
        "id": ident.id,
        "session_id": ident.root,
        "agent": {"nickname": ident.nickname, "role": ident.role, "path": ident.agent_path, "depth": ident.depth},
        "parent": parent.to_json() if parent is not None else None,
        "forked_from_id": ident.forked_from,
        "thread_source": ident.thread_source,
        "multi_agent_version": ident.multi_agent_version,
        "cli_version": ident.cli_version,
    }


def _first_meta(path: str) -> dict | None:
    """The payload of the first ``session_meta`` line of a rollout (plain JSON lines only)."""
    if path.endswith(".zst"):
        return None
    try:
        with open(path, "rb") as handle:
            for _, line in zip(range(50), handle):
                if len(line) > _HEAD_BYTES:
                    continue
                try:
                    value = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if isinstance(value, dict) and value.get("type") == "session_meta":
                    payload = value.get("payload")
                    return payload if isinstance(payload, dict) else None
    except OSError:
        return None
    return None


def _spawn(meta: dict) -> dict:
    source = meta.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    return spawn if isinstance(spawn, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


__all__ = ["ParentName", "agent_words", "in_tree", "parent_name", "parent_path", "tree_json", "tree_words"]
