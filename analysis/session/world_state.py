"""``world_state`` records (Codex 0.158 and later), summarised: whether the record is a full snapshot or a
patch, the state's first-level keys and the record's size; the state itself is never kept.

Codex writes one per turn, between the turn's opening messages and its ``turn_context``: ``{"full": true,
"state": {…}}`` is a snapshot, ``"full": false`` a patch of the keys it names.  It is often the largest
payload of a file, so a line longer than :data:`~analysis.session.compaction.LARGE_LINE` is not decoded
whole: its state is cut out of the text (its span found by a scan) before the rest is read, and only its
size is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..jsonl.jsonspans import locate
from ..jsonl.pickling import pickled_by_fields

WORLD_STATE = "world_state"
_STATE = ("payload", "state")


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class WorldStateSummary:
    full: bool | None  # a full snapshot (True), a patch (False), or not said
    keys: tuple[str, ...] | None  # the state's first-level keys (None: not read, the line is too large)
    chars: int  # the record's line, in characters
    state_chars: int  # the state's JSON text, in characters

    def words(self) -> str:
        """``full snapshot of files, env · 2.1 kB``."""
        kind = "full snapshot" if self.full else "patch" if self.full is False else "world state"
        if self.keys:
            kind += " of " + ", ".join(self.keys[:8]) + (", …" if len(self.keys) > 8 else "")
        return f"{kind} · {size(self.state_chars)}"


def size(chars: int) -> str:
    if chars < 1000:
        return f"{chars} characters"
    if chars < 1_000_000:
        return f"{chars / 1000:.1f} kB"
    return f"{chars / 1_000_000:.1f} MB"


def is_world_state_line(line: str) -> bool:
    head = line[:256]
    return '"type":"world_state"' in head or '"type": "world_state"' in head


def without_state(line: str) -> tuple[str, int]:
    """The line with its state replaced by ``null`` (found by a scan, not decoded), and the state's length."""
    found = locate(line, [_STATE]).get(_STATE)
    if found is None:
        return line, 0
    start, end = found
    return line[:start] + "null" + line[end:], end - start


def summarise_world_state(payload: Any, chars: int, state_chars: int | None = None) -> WorldStateSummary | None:
    """The summary of a ``world_state`` payload (``state_chars``: the state's length when it was cut out)."""
    if not isinstance(payload, dict):
        return None
    full = payload.get("full")
    state = payload.get("state")
    keys = tuple(str(k) for k in state) if isinstance(state, dict) else None
    if state_chars is None:
        import json

        state_chars = len(json.dumps(state, ensure_ascii=False)) if state is not None else 0
    return WorldStateSummary(full if isinstance(full, bool) else None, keys, chars, state_chars)


__all__ = ["WORLD_STATE", "WorldStateSummary", "is_world_state_line", "summarise_world_state", "without_state"]
