"""A whole rollout: every line analysed, calls paired with outputs, turns, findings.

``analyze_text`` is the entry point.  Line analyses come from a :class:`LineCache`
so that re-analysing an edited document redoes only the lines whose text changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from .calls import COMMAND, PATCH, ToolCall
from .continuations import CallOutput, RecordOutputs
from .events import ToolEvent, match_events
from .findings import UNPAIRED_CALL, Finding
from .lines import split_lines
from .positions import LineColumns, PositionEncoding, Range, Span, span_to_range
from .record_analysis import LineAnalysis, analyze_line, call_id_span
from .records import KNOWN_TYPES
from .turns import Turn, read_turns
from .vocabulary import unknown_record_findings


class LineCache:
    """Line analyses by line text; :meth:`keep_only` drops those no line uses any more."""

    def __init__(self, extra_secrets: tuple[re.Pattern[str], ...] = ()) -> None:
        self.extra_secrets = extra_secrets
        self._by_text: dict[str, LineAnalysis] = {}

    def get(self, line: str) -> LineAnalysis:
        found = self._by_text.get(line)
        if found is None:
            found = self._by_text[line] = analyze_line(line, self.extra_secrets)
        return found

    def fill(self, lines: list[str], analyses: list[LineAnalysis]) -> None:
        """Takes analyses made elsewhere (by worker processes) for ``lines``."""
        self._by_text.update(zip(lines, analyses))

    def keep_only(self, lines: Iterable[str]) -> None:
        keep = set(lines)
        self._by_text = {k: v for k, v in self._by_text.items() if k in keep}


@dataclass(frozen=True, slots=True)
class LocatedCall:
    """A tool call on its line, with the record it belongs to, its paired output and the event reporting it."""

    line: int
    index: int  # its position among the calls of its record
    call: ToolCall
    record: LineAnalysis
    output: CallOutput | None
    event: tuple[int, ToolEvent] | None = None  # (line, event) of the event_msg that reports this call

    @property
    def span(self) -> Span:
        return Span(self.line, self.call.start, self.call.end)


@dataclass
class RolloutAnalysis:
    lines: list[str]
    records: list[LineAnalysis]
    calls: list[LocatedCall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    outputs_by_call_id: dict[str, list[int]] = field(default_factory=dict)
    calls_by_call_id: dict[str, int] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    call_records: list[int] = field(default_factory=list)  # the lines of every call record, in order
    record_outputs: dict[int, CallOutput] = field(default_factory=dict)  # call record line → its output
    events: list[tuple[int, ToolEvent]] = field(default_factory=list)  # every call-reporting event
    matched_events: dict[int, tuple[int, int]] = field(default_factory=dict)  # event line → (call line, index)

    @property
    def is_rollout(self) -> bool:
        """Whether the text looks like a Codex rollout (so other JSONL files stay quiet)."""
        for record in self.records[:50]:
            if record.record is not None and record.record.envelope.type in KNOWN_TYPES:
                return True
        return False

    @property
    def session_id(self) -> str | None:
        return next((r.session.id for r in self.records if r.session is not None), None)

    def output_of(self, call_line: int) -> int | None:
        call_id = self.records[call_line].call_id
        lines = self.outputs_by_call_id.get(call_id or "", [])
        return lines[0] if lines else None

    def record_output(self, call_line: int) -> CallOutput | None:
        """What a call record's output says (followed through ``wait`` / ``write_stdin``), or None."""
        return self.record_outputs.get(call_line)

    def calls_on(self, line: int) -> list[LocatedCall]:
        index = self.__dict__.get("_calls_by_line")
        if index is None:
            index = self.__dict__["_calls_by_line"] = {}
            for located in self.calls:
                index.setdefault(located.line, []).append(located)
        return index.get(line, [])

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        text = self.lines[span.line] if 0 <= span.line < len(self.lines) else ""
        return span_to_range(span, text, encoding, self._columns(span.line))

    def _columns(self, line: int) -> LineColumns:
        cache = self.__dict__.setdefault("_column_cache", {})
        if line not in cache:
            cache[line] = LineColumns(self.lines[line] if 0 <= line < len(self.lines) else "")
        return cache[line]


class AnalysisCancelled(Exception):
    """Raised by :func:`analyze_text` when ``should_stop`` says a newer text has come."""


def analyze_text(text: str, cache: LineCache | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> RolloutAnalysis:
    """The analysis of a rollout's text; ``should_stop`` is asked, and ``progress`` told (lines read, all
    lines), between lines."""
    cache = cache or LineCache()
    lines = split_lines(text)
    records = []
    for number, line in enumerate(lines):
        if should_stop is not None and number % 64 == 0 and should_stop():
            raise AnalysisCancelled
        if progress is not None and number % 64 == 0:
            progress(number, len(lines))
        records.append(cache.get(line))
    analysis = RolloutAnalysis(lines, records)
    _index(analysis)
    _link(analysis)
    analysis.findings = sorted(analysis.findings + unknown_record_findings(analysis),  # analysis.vocabulary
                               key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))
    return analysis


def link_records(lines: list[str], records: list[LineAnalysis]) -> RolloutAnalysis:
    """Calls paired with outputs and events, and turns, over lines analysed elsewhere (the command line
    pairs a window of a rollout at a time, analysis.stream); unknown record types are left to the caller."""
    analysis = RolloutAnalysis(lines, records)
    _index(analysis)
    _link(analysis)
    return analysis


def _index(analysis: RolloutAnalysis) -> None:
    for number, record in enumerate(analysis.records):
        if record.is_output and record.call_id:
            analysis.outputs_by_call_id.setdefault(record.call_id, []).append(number)
        elif record.is_call:
            analysis.call_records.append(number)
            if record.call_id and record.call_id not in analysis.calls_by_call_id:
                analysis.calls_by_call_id[record.call_id] = number
        elif record.event is not None:
            analysis.events.append((number, record.event))


def _link(analysis: RolloutAnalysis) -> None:
    findings: list[Finding] = []
    for number, record in enumerate(analysis.records):
        findings.extend(f.moved_to(number) for f in record.findings)
    analysis.turns = read_turns(analysis.records, analysis.lines)
    continuations = RecordOutputs(analysis.records, analysis.outputs_by_call_id, analysis.call_records)
    for number in analysis.call_records:
        record = analysis.records[number]
        output = continuations.output_of(number, record)
        if output is not None:
            analysis.record_outputs[number] = output
        elif record.call_id:
            where = call_id_span(analysis.lines[number]) or Span(0, 0, len(analysis.lines[number]))
            findings.append(Finding(UNPAIRED_CALL, f"no output record for call {record.call_id}",
                                    Span(number, where.start, where.end)))
    matched = match_events(analysis, findings)
    for (number, _), (_, event) in matched.items():
        output = analysis.record_outputs.get(number)
        if output is not None and not analysis.records[number].is_exec:  # a top-level call: the event is its own
            analysis.record_outputs[number] = _corrected(output, event)
    for number in analysis.call_records:
        record = analysis.records[number]
        output = analysis.record_outputs.get(number)
        for index, call in enumerate(record.calls):
            event = matched.get((number, index))
            analysis.calls.append(pair_call(number, index, call, record, output, event))
    analysis.findings = sorted(findings, key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))


def pair_call(number: int, index: int, call: ToolCall, record: LineAnalysis, output: CallOutput | None,
             event: tuple[int, ToolEvent] | None) -> LocatedCall:
    """A call with its output and its event.  It ran (``executed: "yes"``) when an event reports it, or when
    it runs whenever its script completes (``unconditional``) and the script's final status is completed."""
    call_output = _call_output(record, call, output)
    if event is not None:
        call = replace(call, executed="yes")
        if call_output is not None and record.is_exec and event[1].exit_code is not None:
            call_output = replace(call_output, exit_code=event[1].exit_code)
    elif call.unconditional and call.executed == "unknown" and output is not None and \
            output.status == "completed" and output.output.error is None:
        call = replace(call, executed="yes")  # it runs whenever the script completes, and the script completed
    return LocatedCall(number, index, call, record, call_output, event)


def _corrected(output: CallOutput, event: ToolEvent) -> CallOutput:
    """A top-level call's output as its event says it ended: a patch not applied failed; the exit code."""
    status = "failed" if event.kind == PATCH and event.success is False else output.status
    exit_code = event.exit_code if event.exit_code is not None else output.exit_code
    return replace(output, status=status, exit_code=exit_code)


def _call_output(record: LineAnalysis, call: ToolCall, output: CallOutput | None) -> CallOutput | None:
    if output is None:
        return None
    exit_code = output.exit_code
    if exit_code is None and record.is_exec:
        # a script's result blocks can be told apart only when one call produced the only one
        producers = [c for c in record.calls if c.kind == COMMAND or c.tool == "write_stdin"]
        if len(producers) == 1 and producers[0] is call and len(output.output.results) == 1:
            exit_code = output.output.results[0].exit_code
    return replace(output, exit_code=exit_code) if exit_code != output.exit_code else output


__all__ = ["AnalysisCancelled", "LineCache", "RolloutAnalysis", "LocatedCall", "CallOutput", "Turn", "analyze_text",
           "link_records", "pair_call"]
