"""Envelope-less rollouts (Codex before 0.58), read as the records they stand for.

Before 0.58 a rollout had no envelope: a header ``{"id", "timestamp", "instructions"[, "git"]}``, then each
line a bare response item ``{"type": "message", …}`` between ``{"record_type": "state"}`` lines.  Each is read
with a made-up envelope and :attr:`~analysis.session.records.Record.bare` set: the header as the session's
``session_meta``, a bare item as its ``response_item``, a state line as a ``state`` record (known, not shown).
"""

from __future__ import annotations

from typing import Any

from .records import KNOWN_TYPES, RESPONSE_ITEMS, Envelope, OtherItem, Record, SessionMeta, _plain, _read

LEGACY_STATE = "state"
BARE_ITEM_TYPES = frozenset(
    {
        *RESPONSE_ITEMS,
        "local_shell_call_output",
        "web_search_call",
        "image_generation_call",
        "compaction",
        "compaction_summary",
        "context_compaction",
        "agent_message",
        "ghost_snapshot",
    }
)


def envelope_less(value: dict, kind: Any) -> Record | None:
    if kind is None:
        if "record_type" in value:
            return Record(_made_envelope(LEGACY_STATE, None), dict(value), bare=True)
        if (
            isinstance(value.get("id"), str)
            and isinstance(value.get("timestamp"), str)
            and ("instructions" in value or "git" in value)
        ):
            return Record(_made_envelope("session_meta", value["timestamp"]), _read(SessionMeta, value, ()), bare=True)
        return None
    model = RESPONSE_ITEMS.get(kind, OtherItem)
    return Record(_made_envelope("response_item", None), _read(model, value, ()), bare=True)


def _made_envelope(kind: str, timestamp: str | None) -> Envelope:
    envelope = _plain(Envelope, {"type": kind, "timestamp": timestamp})
    assert envelope is not None
    return envelope


def is_rollout_record(record: Record) -> bool:
    """Whether a record makes the file it is in a rollout: any envelope of a known type, or an envelope-less
    file's header or state line (a bare ``{"type": "message"}`` alone is any chat log's shape: not enough)."""
    if record.bare:
        return record.envelope.type in ("session_meta", LEGACY_STATE)
    return record.envelope.type in KNOWN_TYPES


def item_path(record: Record | None, *keys: Any) -> tuple:
    """The JSON path of ``keys`` inside a record's payload: under ``payload``, or at the top of a bare line."""
    return tuple(keys) if record is not None and record.bare else ("payload", *keys)


__all__ = ["envelope_less_record", "BARE_ITEM_TYPES", "LEGACY_STATE", "envelope_less", "is_rollout_record", "item_path"]


def envelope_less_record(value: Any) -> Record | None:
    """The record an envelope-less line stands for, else None (any other line: read by ``parse_record``)."""
    if not isinstance(value, dict) or "payload" in value:
        return None
    kind = value.get("type")
    if kind is not None and (not isinstance(kind, str) or kind not in BARE_ITEM_TYPES):
        return None  # a type that names no bare item (or is no string): an envelope, read (or refused) as one
    return envelope_less(value, kind)
