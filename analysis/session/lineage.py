"""Sessions and their relatives: who a rollout is, the history it inherited, the agents it spawned.

A fork or a subagent's rollout starts with its own ``session_meta`` (with ``forked_from_id`` and,
for a subagent, ``source.subagent.thread_spawn.parent_thread_id``), then a copy of its parent's
records: the parent's ``session_meta`` line (another ``id``) and the parent's turns, written at
fork time.  That copy is the **inherited history**: it runs from the first ``session_meta`` line
with another ``id`` to the line before the first turn that started after this session was
created.  A turn's start is the time in its ``turn_id`` (a UUIDv7 carries its creation time in
milliseconds) or, without one, the ``started_at`` second of its ``task_started`` event; the
session's creation is its ``session_meta`` ``timestamp``.  A ``session_meta`` line repeating the
session's own ``id`` marks a resume (the thread was opened again): nothing is replayed there.

Spawned agents: a ``spawn_agent`` call names its child's thread in a ``sub_agent_activity`` or
``collab_agent_spawn_end`` event carrying the call's id, or in its output (``agent_id``,
``thread_id``).  :func:`find_session_file` finds another session's rollout by the id Codex puts
in every rollout's file name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..jsonl.access import ROLLOUT_BY_ID, Access
from ..jsonl.memo import once_per_object
from .record_analysis import bare_tool_name
from .records import SessionMeta
from .rollout import RolloutAnalysis

SPAWN_TOOLS = frozenset({"spawn_agent"})
_TURN_STARTS = frozenset({"task_started", "turn_started"})
_CHILD_EVENTS = frozenset({"sub_agent_activity", "collab_agent_spawn_end", "collab_agent_spawn_begin"})
_CHILD_KEYS = ("agent_thread_id", "new_thread_id", "thread_id", "agent_id", "receiver_thread_id")


@dataclass(frozen=True, slots=True)
class Identity:
    """What a rollout's first ``session_meta`` says about the session."""

    line: int
    id: str | None
    forked_from: str | None = None
    parent: str | None = None  # source.subagent.thread_spawn.parent_thread_id
    nickname: str | None = None
    role: str | None = None
    agent_path: str | None = None
    depth: int | None = None
    cli_version: str | None = None
    created_ms: int | None = None
    root: str | None = None  # session_id (0.158 and later): the root thread of the subagent tree
    thread_source: str | None = None  # "user" or "subagent" (0.158 and later)
    multi_agent_version: str | None = None  # "v2" (0.158 and later)

    @property
    def is_subagent(self) -> bool:
        return self.parent is not None

    @property
    def origin(self) -> str | None:
        """The session this one came from (its parent thread, else the one it was forked from)."""
        return self.parent or self.forked_from


@dataclass(frozen=True, slots=True)
class Inheritance:
    """Lines ``start``..``end`` replay the history of session ``session_id``."""

    start: int
    end: int
    session_id: str | None
    turns: int  # turns that start inside it

    def label(self) -> str:
        return f"inherited from session {self.session_id or '?'}"


@dataclass(frozen=True, slots=True)
class Spawn:
    """A ``spawn_agent`` call and the thread it started, when the rollout names it."""

    line: int
    call_id: str | None
    task: str | None
    child: str | None
    child_line: int | None  # the record that names the child


@dataclass
class Lineage:
    identity: Identity | None
    metas: list[tuple[int, str | None]] = field(default_factory=list)  # every session_meta line and its id
    inherited: Inheritance | None = None
    spawns: list[Spawn] = field(default_factory=list)

    @property
    def resumes(self) -> list[int]:
        """Lines of ``session_meta`` records repeating the session's own id after the first."""
        own = self.identity.id if self.identity else None
        return [line for line, sid in self.metas[1:] if own is not None and sid == own]

    def links_at(self, line: int) -> list[str]:
        """Session ids the record on ``line`` points to (go to definition)."""
        out: list[str] = []
        if self.identity is not None and line == self.identity.line:
            out += [s for s in (self.identity.parent, self.identity.forked_from, self.identity.root) if s]
            out = [s for s in out if s != self.identity.id]
        for spawn in self.spawns:
            if spawn.child and line in (spawn.line, spawn.child_line):
                out.append(spawn.child)
        for meta_line, sid in self.metas:
            if meta_line == line and sid and self.identity is not None and sid != self.identity.id:
                out.append(sid)
        return list(dict.fromkeys(out))

    def to_json(self) -> dict[str, Any]:
        ident = self.identity
        return {
            "id": ident.id if ident else None,
            "forked_from_id": ident.forked_from if ident else None,
            "parent_thread_id": ident.parent if ident else None,
            "agent_nickname": ident.nickname if ident else None,
            "agent_role": ident.role if ident else None,
            "agent_path": ident.agent_path if ident else None,
            "depth": ident.depth if ident else None,
            "session_id": ident.root if ident else None,
            "thread_source": ident.thread_source if ident else None,
            "inherited": {
                "start_line": self.inherited.start,
                "end_line": self.inherited.end,
                "session_id": self.inherited.session_id,
                "turns": self.inherited.turns,
            }
            if self.inherited
            else None,
            "resumed_at_lines": self.resumes,
            "spawned": [
                {"line": s.line, "call_id": s.call_id, "task": s.task, "thread_id": s.child} for s in self.spawns
            ],
        }


@once_per_object
def lineage(analysis: RolloutAnalysis) -> Lineage:
    """The lineage of a rollout (computed once per analysis)."""
    return _compute(analysis)


def identity_of(meta: SessionMeta, line: int, envelope_time: str | None = None) -> Identity:
    extra = meta.model_extra or {}
    spawn = _dig(meta.source, "subagent", "thread_spawn")
    spawn = spawn if isinstance(spawn, dict) else {}
    return Identity(
        line=line,
        id=meta.id,
        forked_from=_text(extra.get("forked_from_id")),
        parent=_text(spawn.get("parent_thread_id")) or _text(extra.get("parent_thread_id")),
        nickname=_text(extra.get("agent_nickname")) or _text(spawn.get("agent_nickname")),
        role=_text(extra.get("agent_role")) or _text(spawn.get("agent_role")),
        agent_path=_text(extra.get("agent_path")) or _text(spawn.get("agent_path")),
        depth=_count(spawn.get("depth")) if _count(spawn.get("depth")) is not None else _count(extra.get("depth")),
        cli_version=meta.cli_version,
        created_ms=_epoch_ms(meta.timestamp) or _epoch_ms(envelope_time),
        root=_text(extra.get("session_id")),
        thread_source=_text(extra.get("thread_source")),
        multi_agent_version=_text(extra.get("multi_agent_version")),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _compute(analysis: RolloutAnalysis) -> Lineage:
    result = Lineage(identity=None)
    for number, record in enumerate(analysis.records):
        meta = record.session if record.kind == "session_meta" else None
        if meta is None:
            continue
        if result.identity is None:
            result.identity = identity_of(meta, number, record.record.envelope.timestamp if record.record else None)
        result.metas.append((number, meta.id))
    result.inherited = _inherited(analysis, result)
    result.spawns = _spawns(analysis)
    return result


def _inherited(analysis: RolloutAnalysis, result: Lineage) -> Inheritance | None:
    ident = result.identity
    if ident is None or ident.origin is None:
        return None
    start = next((line for line, sid in result.metas if line > ident.line and sid != ident.id), None)
    if start is None:
        return None
    end, dated = start, False
    for number in range(start + 1, len(analysis.records)):
        began = _turn_start_ms(analysis, number)
        dated = dated or began is not None
        if began is not None and ident.created_ms is not None and began >= ident.created_ms:
            break
        end = number
    if not dated or ident.created_ms is None:  # no turn says when it began: only the parent's meta is known
        end = start
    while end > start and analysis.records[end].kind == "blank":
        end -= 1
    turns = sum(1 for t in analysis.turns if start <= t.line <= end)
    return Inheritance(start, end, _text(dict(result.metas).get(start)), turns)


def _turn_start_ms(analysis: RolloutAnalysis, line: int) -> int | None:
    """When the turn a ``task_started`` event or ``turn_context`` record opens began, if it says."""
    record = analysis.records[line].record
    if record is None:
        return None
    kind = record.envelope.type
    payload = _payload(record)
    if not isinstance(payload, dict):
        return None
    if kind == "event_msg" and payload.get("type") in _TURN_STARTS:
        from_id = _uuid7_ms(payload.get("turn_id"))
        if from_id is not None:
            return from_id
        started = payload.get("started_at")
        if isinstance(started, (int, float)) and not isinstance(started, bool):
            return int(started) * 1000 + 999  # a second's precision: any time in that second
        return None
    if kind == "turn_context":
        return _uuid7_ms(payload.get("turn_id"))
    return None


def _spawns(analysis: RolloutAnalysis) -> list[Spawn]:
    calls = [
        (n, r)
        for n, r in enumerate(analysis.records)
        if r.kind == "function_call" and bare_tool_name(r.name) in SPAWN_TOOLS
    ]
    if not calls:
        return []
    named: dict[str, tuple[str, int]] = {}  # call_id → (child thread, line)
    for number, record in enumerate(analysis.records):
        if record.kind != "event_msg" or record.record is None:
            continue
        payload = _payload(record.record)
        if isinstance(payload, dict) and payload.get("type") in _CHILD_EVENTS:
            call_id = _text(payload.get("event_id")) or _text(payload.get("call_id"))
            child = next((_text(payload.get(k)) for k in _CHILD_KEYS if _text(payload.get(k))), None)
            if call_id and child and call_id not in named:
                named[call_id] = (child, number)
    out = []
    for number, record in calls:
        args = _json_object(record.text)
        task = _text(args.get("task_name")) or _text(args.get("agent_type")) if args else None
        found = named.get(record.call_id or "")
        if found is None:
            found = _child_in_output(analysis, record.call_id)
        out.append(Spawn(number, record.call_id, task, found[0] if found else None, found[1] if found else None))
    return out


def _child_in_output(analysis: RolloutAnalysis, call_id: str | None) -> tuple[str, int] | None:
    for line in analysis.outputs_by_call_id.get(call_id or "", []):
        output = analysis.records[line].output
        for text in output.texts if output is not None else ():
            value = _json_object(text)
            child = next((_text(value.get(k)) for k in _CHILD_KEYS if _text(value.get(k))), None) if value else None
            if child:
                return child, line
    return None


def find_session_file(
    session_id: str, roots: Iterable[str], exclude: str | None = None, access: Access | None = None
) -> str | None:
    """The rollout of ``session_id`` below one of ``roots``: Codex names every rollout
    ``rollout-<time>-<id>.jsonl`` (``.jsonl.zst`` when compressed).  Only one ``access`` lets be read (by
    default: inside ``roots``, too wide ones aside; a link out of them is not followed)."""
    return first_rollout_named(session_id, f"*{session_id}*", roots, exclude, access)


def first_rollout_named(
    name: str, stem_pattern: str, roots: Iterable[str], exclude: str | None = None, access: Access | None = None
) -> str | None:
    """The first rollout (``.jsonl``, then ``.jsonl.zst``) whose name matches ``stem_pattern`` below one of
    ``roots`` that ``access`` lets be read, ``exclude`` aside; None when ``name`` is empty or holds a glob or
    path character (an id from a rollout must not widen the search)."""
    if not name or any(c in name for c in "*?[]/\\"):
        return None
    roots = list(roots)
    access = access if access is not None else Access.create(roots)
    skip = os.path.realpath(exclude) if exclude else None
    for root in dict.fromkeys(roots):
        if not root or not access.searchable(root) or not os.path.isdir(root):
            continue
        for pattern in (f"{stem_pattern}.jsonl", f"{stem_pattern}.jsonl.zst"):
            for path in sorted(Path(root).rglob(pattern)):
                readable = access.readable_file(str(path), ROLLOUT_BY_ID)
                if readable is not None and readable != skip:
                    return str(path)
    return None


def search_roots(path: str, workspace: Iterable[str] = ()) -> list[str]:
    """Where a rollout's relatives are looked for: the Codex sessions folder it is in (or its own
    folder), then the workspace folders."""
    folder = Path(path).resolve().parent
    home = codex_home(path)
    roots = [home / "sessions", home / "archived_sessions"] if home is not None else [folder]
    return [str(r) for r in roots] + [w for w in workspace if w]


def codex_home(path: str) -> Path | None:
    """The Codex home a rollout is in: the folder holding the ``sessions`` (or ``archived_sessions``) folder
    above it (``~/.codex``, or wherever ``$CODEX_HOME`` put it), else None."""
    for parent in Path(path).resolve().parents:
        if parent.name in ("sessions", "archived_sessions"):
            return parent.parent
    return None


# -- small readers ---------------------------------------------------------------------------------


def _payload(record) -> Any:
    item = record.item
    if isinstance(item, dict):
        return item
    payload = record.envelope.payload
    if isinstance(payload, dict):
        return payload
    dump = getattr(item, "model_dump", None)
    return dump() if dump is not None else None


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _json_object(text: str | None) -> dict | None:
    if not text or not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _epoch_ms(text: str | None) -> int | None:
    if not isinstance(text, str):
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _uuid7_ms(value: Any) -> int | None:
    """The millisecond time in a UUIDv7 (its first 48 bits), else None."""
    if not isinstance(value, str) or len(value) != 36 or value[14] != "7":
        return None
    try:
        return int(value[:8] + value[9:13], 16)
    except ValueError:
        return None


__all__ = [
    "Identity",
    "Inheritance",
    "Spawn",
    "Lineage",
    "lineage",
    "identity_of",
    "find_session_file",
    "first_rollout_named",
    "search_roots",
    "codex_home",
]
