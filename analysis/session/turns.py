"""Turns as Codex writes them, each titled with the user's own words.

Codex marks where a turn starts: a ``task_started`` event (``turn_started`` in newer versions) with the
turn's ``turn_id``, and a ``turn_context`` record carrying the same ``turn_id``.  Rollouts written before
turn ids (2025) have neither: there a ``turn_context`` is written before every model request, and a turn
starts where the user speaks (``event_msg/user_message``, or the user's message where no such event is
written), including the context messages Codex sent just before it.  In paginated history (0.147 and
later) the user's words are an ``item_completed`` ``UserMessage`` item: it counts as the user_message event.

How a turn ended (:attr:`Turn.status`) is read from the events in it (:mod:`analysis.session.turn_events`):
``failed`` when a ``task_complete``/``turn_complete`` carries an ``error`` or an ``error`` event ended it,
``interrupted`` after ``turn_aborted``, ``completed`` after a plain ``task_complete``; ``rolled_back`` when a
later ``thread_rolled_back`` took it back (its ``num_turns`` last turns not already taken back, counted
back from the event); None while no event says (the turn is still running, or the file was cut).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .durations import seconds
from .record_analysis import LineAnalysis, turn_facts
from .turn_events import ABORTED, COMPLETE, ERROR, ROLLED_BACK, TurnEnd

NO_PROMPT = "(no user message)"
COMPLETED, FAILED, INTERRUPTED, ROLLED_BACK_STATUS = "completed", "failed", "interrupted", "rolled_back"


@dataclass(frozen=True, slots=True)
class Turn:
    line: int  # where it starts: its task_started or turn_context, or the user's first message
    end_line: int  # its last line
    title: str  # the user's own words, or NO_PROMPT
    turn_id: str | None = None
    status: str | None = None  # completed, failed, interrupted, rolled_back; None: no event says
    error: str | None = None  # a failed turn's error message
    error_info: str | None = None  # its codex_error_info in words (unauthorized, … (HTTP 429))
    error_line: int | None = None  # the record that says it failed
    reason: str | None = None  # an interrupted turn's reason (interrupted, replaced, …)
    ended_line: int | None = None  # the record that ended it (task_complete, turn_aborted, error)
    rolled_back_line: int | None = None  # the thread_rolled_back record that took it back
    duration_ms: int | None = None  # from turn_complete / turn_aborted
    time_to_first_token_ms: int | None = None

    @property
    def outcome(self) -> str | None:
        """``failed: unauthorized — Your access token expired``, ``interrupted``, ``rolled back``… in words."""
        if self.status is None:
            return None
        if self.status == FAILED:
            detail = " — ".join(p for p in (self.error_info, self.error) if p)
            return f"failed: {detail}" if detail else "failed"
        if self.status == ROLLED_BACK_STATUS:
            return "rolled back"
        if self.status == INTERRUPTED and self.reason and self.reason != "interrupted":
            return f"interrupted ({self.reason})"
        return self.status

    def timing(self) -> str | None:
        """``12.3 s, first token after 1.2 s`` (:func:`~analysis.session.durations.seconds`: ``20 s``, not ``20.0 s``)."""
        parts = []
        if self.duration_ms is not None:
            parts.append(seconds(self.duration_ms / 1000))
        if self.time_to_first_token_ms is not None:
            parts.append(f"first token after {seconds(self.time_to_first_token_ms / 1000)}")
        return ", ".join(parts) or None

    def to_json(self) -> dict:
        return {
            "line": self.line,
            "end_line": self.end_line,
            "title": self.title,
            "turn_id": self.turn_id,
            "status": self.status,
            "error": self.error,
            "codex_error_info": self.error_info,
            "reason": self.reason,
            "duration_ms": self.duration_ms,
            "time_to_first_token_ms": self.time_to_first_token_ms,
        }


def read_turns(records: Sequence[LineAnalysis], lines: Sequence[str], last: int | None = None) -> list[Turn]:
    """The turns of a rollout, in order; lines before the first turn (``session_meta``) belong to none.
    ``last``: the last line that is not blank, when ``lines`` are not kept."""
    starts = _starts(records)
    last = last_written_line(lines) if last is None else last
    turns = []
    for i, (line, turn_id) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else max(line, last)
        turns.append(_ended(records, Turn(line, end, _title(records, line, end), turn_id)))
    return _rolled_back(records, turns)


def _ended(records: Sequence[LineAnalysis], turn: Turn) -> Turn:
    """``turn`` with how its events say it ended."""
    status = error = info = error_line = reason = ended = duration = first = None
    for number in range(turn.line, turn.end_line + 1):
        end: TurnEnd | None = records[number].turn_end
        if end is None or end.kind == ROLLED_BACK:
            continue
        if end.turn_id is not None and turn.turn_id is not None and end.turn_id != turn.turn_id:
            continue  # another turn's late event
        if end.failed:
            if status != FAILED:
                error_line = number
            status, error, info = FAILED, end.error or error, end.error_info or info
        elif end.kind == ABORTED and status != FAILED:
            status, reason = INTERRUPTED, end.reason
        elif end.kind == COMPLETE and status is None:
            status = COMPLETED
        if end.kind in (COMPLETE, ABORTED, ERROR):
            ended = number if ended is None or end.kind != ERROR else ended
        duration = end.duration_ms if end.duration_ms is not None else duration
        first = end.time_to_first_token_ms if end.time_to_first_token_ms is not None else first
    return Turn(
        turn.line,
        turn.end_line,
        turn.title,
        turn.turn_id,
        status,
        error,
        info,
        error_line,
        reason,
        ended,
        None,
        duration,
        first,
    )


def _rolled_back(records: Sequence[LineAnalysis], turns: list[Turn]) -> list[Turn]:
    """``turns`` with those a ``thread_rolled_back`` took back marked so."""
    events = [
        (n, r.turn_end.num_turns or 1)
        for n, r in enumerate(records)
        if r.turn_end is not None and r.turn_end.kind == ROLLED_BACK
    ]
    if not events or not turns:
        return turns
    out = list(turns)
    for line, count in events:
        live = [i for i, t in enumerate(out) if t.line <= line and t.rolled_back_line is None]
        for i in live[-count:]:
            t = out[i]
            out[i] = Turn(
                t.line,
                t.end_line,
                t.title,
                t.turn_id,
                ROLLED_BACK_STATUS,
                t.error,
                t.error_info,
                t.error_line,
                t.reason,
                t.ended_line,
                line,
                t.duration_ms,
                t.time_to_first_token_ms,
            )
    return out


def scan_turns(lines: Iterable[str]) -> list[Turn]:
    """The turns of a rollout read line by line, keeping only what turns read of each line (for a file read as a
    stream: ``rollout-lsp outline --json``); the same turns as :attr:`RolloutAnalysis.turns` of the whole file."""
    records: list[LineAnalysis] = []
    last = 0
    for number, line in enumerate(lines):
        records.append(turn_facts(line))
        if line.strip():
            last = number
    return read_turns(records, (), last)


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
        if (
            has_events
            and not record.prompt_event
            or not has_events
            and (record.prompt is None or not _is_user_message(record))
        ):
            continue
        start = number
        while start > 0 and _is_user_message(records[start - 1]) and (not starts or start - 1 > starts[-1][0]):
            start -= 1
        starts.append((start, None))
    return starts


def _is_user_message(record: LineAnalysis) -> bool:
    return record.kind == "message" and getattr(getattr(record.record, "item", None), "role", None) == "user"


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


__all__ = ["NO_PROMPT", "COMPLETED", "FAILED", "INTERRUPTED", "ROLLED_BACK_STATUS", "Turn", "read_turns", "scan_turns"]
