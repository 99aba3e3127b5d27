"""A whole rollout: every line analysed, calls paired with outputs, turns, findings.

``analyze_text`` is the entry point.  Line analyses come from a :class:`LineCache`
so that re-analysing an edited document redoes only the lines whose text changed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .calls import COMMAND, ToolCall
from .findings import UNPAIRED_CALL, Finding
from .lines import split_lines
from .outputs import ToolOutput
from .positions import LineColumns, PositionEncoding, Range, Span, span_to_range
from .record_analysis import LineAnalysis, analyze_line, call_id_span
from .records import KNOWN_TYPES
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
class CallOutput:
    """The output paired with a call: its line and what it says about this call."""

    line: int
    status: str | None
    exit_code: int | None
    wall_time: float | None
    output: ToolOutput

    def to_json(self) -> dict:
        return {"status": self.status, "exit_code": self.exit_code, "wall_time": self.wall_time,
                "line": self.line}


@dataclass(frozen=True, slots=True)
class LocatedCall:
    """A tool call on its line, with the record it belongs to and its paired output."""

    line: int
    index: int  # its position among the calls of its record
    call: ToolCall
    record: LineAnalysis
    output: CallOutput | None

    @property
    def span(self) -> Span:
        return Span(self.line, self.call.start, self.call.end)


@dataclass(frozen=True, slots=True)
class Turn:
    line: int  # the user message that starts it
    end_line: int  # its last line
    title: str


@dataclass
class RolloutAnalysis:
    lines: list[str]
    records: list[LineAnalysis]
    calls: list[LocatedCall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    outputs_by_call_id: dict[str, list[int]] = field(default_factory=dict)
    calls_by_call_id: dict[str, int] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)

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
                 should_stop: Callable[[], bool] | None = None) -> RolloutAnalysis:
    """The analysis of a rollout's text; ``should_stop`` is asked between lines."""
    cache = cache or LineCache()
    lines = split_lines(text)
    records = []
    for number, line in enumerate(lines):
        if should_stop is not None and number % 64 == 0 and should_stop():
            raise AnalysisCancelled
        records.append(cache.get(line))
    analysis = RolloutAnalysis(lines, records)
    _index(analysis)
    _link(analysis)
    analysis.findings = sorted(analysis.findings + unknown_record_findings(analysis),  # analysis.vocabulary
                               key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))
    return analysis


def _index(analysis: RolloutAnalysis) -> None:
    for number, record in enumerate(analysis.records):
        if record.is_output and record.call_id:
            analysis.outputs_by_call_id.setdefault(record.call_id, []).append(number)
        elif record.is_call and record.call_id and record.call_id not in analysis.calls_by_call_id:
            analysis.calls_by_call_id[record.call_id] = number


def _link(analysis: RolloutAnalysis) -> None:
    findings: list[Finding] = []
    turn_start: tuple[int, str] | None = None
    last_line = len(analysis.lines) - 1
    while last_line > 0 and not analysis.lines[last_line].strip():
        last_line -= 1
    for number, record in enumerate(analysis.records):
        findings.extend(f.moved_to(number) for f in record.findings)
        title = record.turn_title
        if title is not None:
            if turn_start is not None:
                analysis.turns.append(Turn(turn_start[0], number - 1, turn_start[1]))
            turn_start = (number, title)
        if not record.is_call:
            continue
        output = _paired_output(analysis, record)
        if output is None and record.call_id:
            where = call_id_span(analysis.lines[number]) or Span(0, 0, len(analysis.lines[number]))
            findings.append(Finding(UNPAIRED_CALL, f"no output record for call {record.call_id}",
                                    Span(number, where.start, where.end)))
        for index, call in enumerate(record.calls):
            analysis.calls.append(LocatedCall(number, index, call, record, _call_output(record, call, output)))
    if turn_start is not None:
        analysis.turns.append(Turn(turn_start[0], max(turn_start[0], last_line), turn_start[1]))
    analysis.findings = sorted(findings, key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))


def _paired_output(analysis: RolloutAnalysis, record: LineAnalysis) -> tuple[int, ToolOutput] | None:
    lines = analysis.outputs_by_call_id.get(record.call_id or "")
    if not lines:
        return None
    number = lines[0]
    output = analysis.records[number].output
    if output is None:
        return None
    if output.status == "running" and output.cell_id:
        final = _waited(analysis, output.cell_id, after=number)
        if final is not None:
            return final
    return number, output


def _waited(analysis: RolloutAnalysis, cell_id: str, after: int) -> tuple[int, ToolOutput] | None:
    """The last ``wait`` output of a cell that kept running in the background."""
    last = None
    for number in range(after + 1, len(analysis.records)):
        record = analysis.records[number]
        if record.kind != "function_call" or record.name != "wait" or not record.text:
            continue
        try:
            args = json.loads(record.text)
        except ValueError:
            continue
        if isinstance(args, dict) and str(args.get("cell_id")) == cell_id:
            lines = analysis.outputs_by_call_id.get(record.call_id or "")
            if lines and analysis.records[lines[0]].output is not None:
                last = (lines[0], analysis.records[lines[0]].output)
    return last


def _call_output(record: LineAnalysis, call: ToolCall, paired: tuple[int, ToolOutput] | None) -> CallOutput | None:
    if paired is None:
        return None
    line, output = paired
    exit_code = output.exit_code
    if exit_code is None and record.is_exec:
        # a script's result blocks can be told apart only when one call produced the only one
        producers = [c for c in record.calls if c.kind == COMMAND or c.tool == "write_stdin"]
        if len(producers) == 1 and producers[0] is call and len(output.results) == 1:
            exit_code = output.results[0].exit_code
    return CallOutput(line, output.status, exit_code, output.wall_time, output)


__all__ = ["AnalysisCancelled", "LineCache", "RolloutAnalysis", "LocatedCall", "CallOutput", "Turn", "analyze_text"]
