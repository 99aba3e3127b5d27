"""The events of a rollout paired with the calls they report (:mod:`analysis.session.events` reads one event).

- by ``call_id`` when it is a top-level call's;
- for a call made inside an exec script (``call_id`` ``exec-<uuid>``), by the events written between the
  exec call and its final output, matched to the script's calls of the same kind in order, preferring
  the first whose content agrees (the patched files, the command text).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Protocol

from ..jsonl.findings import EVENT_CONTRADICTS, UNMATCHED_EVENT, Finding, Related
from ..jsonl.positions import Span
from .continuations import CallOutput
from .events import EXEC_END, WEB_END, ToolEvent, pick_call
from .record_analysis import LineAnalysis


class PairedRollout(Protocol):
    """What the pairing reads of a rollout's analysis (:class:`analysis.session.rollout.RolloutAnalysis`),
    and the one thing it writes: ``matched_events``."""

    lines: list[str]
    records: list[LineAnalysis]
    calls_by_call_id: dict[str, int]
    call_records: list[int]
    record_outputs: dict[int, CallOutput]
    events: list[tuple[int, ToolEvent]]
    matched_events: dict[int, tuple[int, int]]

    def file_line(self, line: int) -> int: ...


def match_events(analysis: PairedRollout, findings: list[Finding]) -> dict[tuple[int, int], tuple[int, ToolEvent]]:
    """(call line, call index) → (event line, event) for every event that reports a listed call; an event
    that reports none, or that reports a call the analysis found dead, is added to ``findings``."""
    matched: dict[tuple[int, int], tuple[int, ToolEvent]] = {}
    if not analysis.events:
        return matched
    windows = _Windows(_exec_windows(analysis))
    web_calls = [
        n for n in analysis.call_records if analysis.records[n].name == "web_search" and not analysis.records[n].call_id
    ]
    taken: dict[int, set[int]] = {}  # exec line → the indices of its calls already matched
    for line, event in analysis.events:
        target = _target(analysis, line, event, windows, web_calls, matched, taken)
        if target is None:
            findings.append(_unmatched(analysis, line, event))
            continue
        matched[target] = (line, event)
        taken.setdefault(target[0], set()).add(target[1])
        analysis.matched_events[line] = target
        call_line, index = target
        call = analysis.records[call_line].calls[index]
        if call.executed == "no":
            where = Span(call_line, call.start, call.end)
            findings.append(
                Finding(
                    EVENT_CONTRADICTS,
                    f"{event.type} on line {analysis.file_line(line) + 1} reports that "
                    f"{call.tool or 'this call'} ran, but the analysis found it in dead code",
                    where,
                    (Related(Span(line, 0, len(analysis.lines[line])), "the event"),),
                )
            )
    return matched


def _target(
    analysis: PairedRollout,
    line: int,
    event: ToolEvent,
    windows: _Windows,
    web_calls: list[int],
    matched: dict,
    taken: dict[int, set[int]],
) -> tuple[int, int] | None:
    if event.call_id and not event.nested:
        call_line = analysis.calls_by_call_id.get(event.call_id)
        if call_line is not None:
            calls = analysis.records[call_line].calls
            if len(calls) == 1 and (call_line, 0) not in matched:
                return call_line, 0
            return None
        if event.type != WEB_END:
            return None
    if event.type == WEB_END and not event.nested:  # a hosted web search: its call record has no call_id
        return _nearest_web_search(analysis, line, event, web_calls, matched)
    exec_line = windows.enclosing(line)
    if exec_line is None:
        return None
    exec_calls = list(analysis.records[exec_line].calls)
    index = pick_call(event, exec_calls, taken.get(exec_line, set()))
    return None if index is None else (exec_line, index)


def _exec_windows(analysis: PairedRollout) -> list[tuple[int, int]]:
    """(exec call line, last line of its run) for every exec record: a nested call's event is written
    between the exec call and its final output (for a cell that yielded, its last wait's output)."""
    windows = []
    last = len(analysis.records) - 1
    for number in analysis.call_records:
        if analysis.records[number].is_exec:
            output = analysis.record_outputs.get(number)
            windows.append((number, output.line if output is not None else last))
    return windows


def _enclosing_exec(windows: list[tuple[int, int]], line: int) -> int | None:
    """The latest exec call before ``line`` whose run is still going on at ``line``."""
    return _Windows(windows).enclosing(line)


class _Windows:
    """The exec windows of a rollout, sorted by start, with the latest end among each window and those
    before it: a search for the window around a line stops where no earlier window reaches that line (a
    rollout with thousands of events and scripts is not searched in quadratic time)."""

    def __init__(self, windows: list[tuple[int, int]]) -> None:
        self.windows = windows
        self.reach: list[int] = []
        furthest = -1
        for _, end in windows:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def enclosing(self, line: int) -> int | None:
        """The latest exec call before ``line`` whose run is still going on at ``line``."""
        windows, reach = self.windows, self.reach
        at = bisect_right(windows, (line, float("inf"))) - 1
        while at >= 0 and reach[at] >= line:
            start, end = windows[at]
            if start < line <= end:
                return start
            at -= 1
        return None


def _nearest_web_search(analysis: PairedRollout, line: int, event: ToolEvent, web_calls: list[int], matched: dict):
    """The closest web_search_call record not yet matched, preferring one whose query or page agrees."""
    free = [n for n in web_calls if (n, 0) not in matched]
    if not free:
        return None

    def agrees_with(n: int) -> bool:
        values = analysis.records[n].calls[0].arguments
        return event.query is not None and event.query in (values.get("query"), values.get("url"))

    best = min(free, key=lambda n: (not agrees_with(n), abs(n - line)))
    return best, 0


def _unmatched(analysis: PairedRollout, line: int, event: ToolEvent) -> Finding:
    where = Span(line, 0, len(analysis.lines[line]))
    if event.type == EXEC_END and event.source == "user_shell":
        command = event.command[-1] if event.command else "a command"
        what = (
            f"the user ran `{command}` in a shell"
            + (f" (exit {event.exit_code})" if event.exit_code is not None else "")
            + "; no call record lists it"
        )
    else:
        what = (
            f"{event.type} reports {'a call made inside a script' if event.nested else 'call'} "
            f"{event.call_id or '(no call_id)'} that no call record lists"
        )
    return Finding(UNMATCHED_EVENT, what, where)
