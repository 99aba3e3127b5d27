"""Turns as Codex writes them, each titled with the user's own words.

Codex marks where a turn starts: a ``task_started`` event (``turn_started`` in newer versions) with the
turn's ``turn_id``, and a ``turn_context`` record carrying the same ``turn_id``.  Rollouts written before
turn ids (2025) have neither: there a ``turn_context`` is written before every model request, and a turn
starts where the user speaks (``event_msg/user_message``, or the user's message where no such event is
written), including the context messages Codex sent just before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .record_analysis import LineAnalysis

NO_PROMPT = "(no user message)"


@dataclass(frozen=True, slots=True)
class Turn:
    line: int  # where it starts: its task_started or turn_context, or the user's first message
    end_line: int  # its last line
    title: str  # the user's own words, or NO_PROMPT
    turn_id: str | None = None


def read_turns(records: Sequence[LineAnalysis], lines: Sequence[str]) -> list[Turn]:
    """The turns of a rollout, in order; lines before the first turn (``session_meta``) belong to none."""
    starts = _starts(records)
    last = last_written_line(lines)
    turns = []
    for i, (line, turn_id) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else max(line, last)
        turns.append(Turn(line, end, _title(records, line, end), turn_id))
    return turns


def last_written_line(lines: Sequence[str]) -> int:
    """The last line that is not blank (0 when all are): where the last turn ends."""
    last = len(lines) - 1
    while last > 0 and not lines[last].strip():
        last -= 1
    return last


def _starts(records: Sequence[LineAnalysis]) -> list[tuple[int, str | None]]:
    if any(r.turn_start and r.kind == "event_msg" for r in records):
        return _marked(records, events=True)
    if any(r.turn_start and r.turn_id for r in records):
        return _marked(records, events=False)
    return _spoken(records)


def _marked(records: Sequence[LineAnalysis], events: bool) -> list[tuple[int, str | None]]:
    """Starts at task_started events (``events``), and at a turn_context of a turn id not seen yet."""
    starts: list[tuple[int, str | None]] = []
    current: str | None = None
    adopt = False  # a task_started without a turn id: the turn_context that follows names its turn
    for number, record in enumerate(records):
        if not record.turn_start:
            continue
        if record.kind == "event_msg":
            if events:
                starts.append((number, record.turn_id))
                current, adopt = record.turn_id, record.turn_id is None
        elif record.turn_id and record.turn_id != current:
            if adopt and starts:
                starts[-1] = (starts[-1][0], record.turn_id)
            else:
                starts.append((number, record.turn_id))
            current, adopt = record.turn_id, False
    return starts


def _spoken(records: Sequence[LineAnalysis]) -> list[tuple[int, str | None]]:
    """Starts where the user speaks, moved back over the user messages Codex sent just before."""
    has_events = any(r.prompt_event for r in records)
    starts: list[tuple[int, str | None]] = []
    for number, record in enumerate(records):
        if has_events and not record.prompt_event or not has_events and (record.prompt is None or not
                                                                         _is_user_message(record)):
            continue
        start = number
        while start > 0 and _is_user_message(records[start - 1]) and (not starts or start - 1 > starts[-1][0]):
            start -= 1
        starts.append((start, None))
    return starts


def _is_user_message(record: LineAnalysis) -> bool:
    return record.kind == "message" and getattr(record.record.item, "role", None) == "user"


def _title(records: Sequence[LineAnalysis], start: int, end: int) -> str:
    """The first user_message event's words in the turn, else the first user message's own words."""
    fallback = None
    for number in range(start, end + 1):
        record = records[number]
        if record.prompt is None:
            continue
        if record.prompt_event:
            return record.prompt
        if fallback is None and _is_user_message(record):
            fallback = record.prompt
    return fallback or NO_PROMPT


__all__ = ["NO_PROMPT", "Turn", "read_turns"]
