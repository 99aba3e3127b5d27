"""A whole rollout: every line analysed, calls paired with outputs, turns, findings.

``analyze_text`` is the entry point.  Line analyses come from a :class:`~analysis.session.memo.LineCache`
so that re-analysing an edited document redoes only the lines whose text changed; linking reuses what the
memo kept of the previous linking (its invariant: :mod:`analysis.session.memo`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..jsonl.findings import TURN_FAILED, UNPAIRED_CALL, Finding, finding_sort_key
from ..jsonl.jsonspans import locate
from ..jsonl.lines import split_lines
from ..jsonl.memo import cached_property
from ..jsonl.positions import LineColumns, PositionEncoding, Range, Span, span_to_range
from ..script.calls import PATCH, ToolCall
from .continuations import CallOutput, RecordOutputs
from .copies import replacer
from .event_pairing import match_events
from .events import ToolEvent
from .legacy_records import is_rollout_record
from .memo import CorrectedOutput, LineCache, PairedCalls, TurnsMade, same
from .memo import copy_call as _copy_call
from .memo import sole_producer_of as _sole_producer_of
from .record_analysis import LineAnalysis, call_id_span
from .turns import Turn, last_written_line, read_turns
from .vocabulary import unknown_record_findings


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
    # the file's line of each of ``lines`` when they are a window of it (analysis.reports.stream); None: the whole file
    file_lines: list[int] | None = None

    @property
    def is_rollout(self) -> bool:
        """Whether the text looks like a Codex rollout (so other JSONL files stay quiet)."""
        for record in self.records[:50]:
            if record.record is not None and is_rollout_record(record.record):
                return True
        return False

    @property
    def session_id(self) -> str | None:
        return next((r.session.id for r in self.records if r.session is not None), None)

    def file_line(self, line: int) -> int:
        """The line of the file that ``line`` is (they differ only for a window of a file)."""
        return line if self.file_lines is None else self.file_lines[line]

    def output_of(self, call_line: int) -> int | None:
        call_id = self.records[call_line].call_id
        lines = self.outputs_by_call_id.get(call_id or "", [])
        return lines[0] if lines else None

    def record_output(self, call_line: int) -> CallOutput | None:
        """What a call record's output says (followed through ``wait`` / ``write_stdin``), or None."""
        return self.record_outputs.get(call_line)

    def calls_on(self, line: int) -> list[LocatedCall]:
        return self._calls_by_line.get(line, [])

    @cached_property
    def _calls_by_line(self) -> dict[int, list[LocatedCall]]:
        index: dict[int, list[LocatedCall]] = {}
        for located in self.calls:
            index.setdefault(located.line, []).append(located)
        return index

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


def analyze_text(
    text: str,
    cache: LineCache | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RolloutAnalysis:
    """The analysis of a rollout's text; ``should_stop`` is asked, and ``progress`` told (lines read, all
    lines), between lines."""
    return analyze_lines(split_lines(text), cache, should_stop, progress)


def analyze_lines(
    lines: list[str],
    cache: LineCache | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    partial: Callable[[Callable[[], RolloutAnalysis]], None] | None = None,
) -> RolloutAnalysis:
    """The analysis of a rollout's lines (``split_lines`` of its text; the analysis keeps the list).  A line
    that is the same string object as one the cache analysed before is found without hashing it again.

    ``partial``, when given, is called between lines with a function that makes the :func:`partial_analysis`
    of the lines read so far (so a reader of a large rollout can show their findings before the end)."""
    cache = cache or LineCache()
    records: list[LineAnalysis] = []
    get = cache.get
    for number, line in enumerate(lines):
        if number % 64 == 0:
            if should_stop is not None and should_stop():
                raise AnalysisCancelled
            if progress is not None:
                progress(number, len(lines))
            if partial is not None and number:
                partial(lambda: partial_analysis(lines, records))
        records.append(get(line))
    analysis = RolloutAnalysis(lines, records)
    _link(analysis, cache, _index(analysis))
    analysis.findings = sorted(
        analysis.findings + unknown_record_findings(analysis, cache.unknown_type),
        key=finding_sort_key,
    )
    return analysis


def partial_analysis(lines: list[str], records: list[LineAnalysis]) -> RolloutAnalysis:
    """What is known before every line is read: the analyses of the first ``len(records)`` lines and their
    own findings (those of one line alone: syntax, dead code, patches, secrets, …).  Nothing is linked yet:
    no call is paired with its output or its event, so no finding of linking (``unpaired-call``,
    ``unmatched-event``, ``unknown-record``, …) is among them."""
    analysis = RolloutAnalysis(lines, records[:])
    for number, record in enumerate(analysis.records):
        if record.findings:
            analysis.findings.extend(f.moved_to(number) for f in record.findings)
    return analysis


def link_records(
    lines: list[str], records: list[LineAnalysis], file_lines: list[int] | None = None, located: bool = True
) -> RolloutAnalysis:
    """Calls paired with outputs and events, and turns, over lines analysed elsewhere (the command line
    pairs a window of a rollout at a time, analysis.reports.stream, whose lines are ``file_lines`` of the file);
    unknown record types are left to the caller.  Without ``located``, neither ``calls`` (each call with its
    output and event) nor ``turns`` is made: a window read only for its findings and its cut (a stream without a
    sink) reads neither, and no finding comes from them."""
    analysis = RolloutAnalysis(lines, records, file_lines=file_lines)
    _link(analysis, LineCache(), _index(analysis), located)
    return analysis


def _index(analysis: RolloutAnalysis) -> list[Finding]:
    """Indexes calls, outputs and events by line (one pass over the records); returns the lines' own findings."""
    findings: list[Finding] = []
    outputs, call_records, calls, events = (
        analysis.outputs_by_call_id,
        analysis.call_records,
        analysis.calls_by_call_id,
        analysis.events,
    )
    for number, record in enumerate(analysis.records):
        if record.findings:
            findings.extend(f.moved_to(number) for f in record.findings)
        if record.is_output and record.call_id:
            outputs.setdefault(record.call_id, []).append(number)
        elif record.is_call:
            call_records.append(number)
            if record.call_id and record.call_id not in calls:
                calls[record.call_id] = number
        elif record.event is not None:
            events.append((number, record.event))
    return findings


def _link(analysis: RolloutAnalysis, cache: LineCache, findings: list[Finding], located: bool = True) -> None:
    if located:
        analysis.turns = _turns(analysis, cache)
    findings.extend(failed_turn_findings(analysis))
    continuations = RecordOutputs(
        analysis.records, analysis.outputs_by_call_id, analysis.call_records, cache.outputs_made
    )
    for number in analysis.call_records:
        record = analysis.records[number]
        output = continuations.output_of(number, record)
        if output is not None:
            analysis.record_outputs[number] = output
        elif record.call_id:
            where = call_id_span(analysis.lines[number]) or Span(0, 0, len(analysis.lines[number]))
            findings.append(
                Finding(
                    UNPAIRED_CALL, f"no output record for call {record.call_id}", Span(number, where.start, where.end)
                )
            )
    cache.outputs_made = continuations.made
    matched = match_events(analysis, findings)
    corrected: dict[int, CorrectedOutput] = {}
    made = cache.outputs_corrected
    for (number, _), (_, own_event) in matched.items():
        output = analysis.record_outputs.get(number)
        if output is not None and not analysis.records[number].is_exec:  # a top-level call: the event is its own
            found = made.get(number)
            if not same(found, output) or found.event != own_event:
                found = CorrectedOutput(output, own_event, _corrected(output, own_event))
            corrected[number] = found
            analysis.record_outputs[number] = found.corrected
    cache.outputs_corrected = corrected
    if not located:  # the pairs below add no finding: only LocatedCalls, which this caller never reads
        analysis.findings = sorted(findings, key=finding_sort_key)
        return
    calls, records, record_outputs = analysis.calls, analysis.records, analysis.record_outputs
    events_at: dict[int, dict[int, tuple[int, ToolEvent]]] = {}  # call line → call index → its event
    for (number, index), event in matched.items():
        events_at.setdefault(number, {})[index] = event
    # a record whose output and events are the same as at the previous linking keeps its paired calls
    paired: dict[int, PairedCalls] = {}
    reuse = cache.calls_paired
    for number in analysis.call_records:
        record = records[number]
        output = record_outputs.get(number)
        events = events_at.get(number)
        kept = reuse.get(number)
        if not same(kept, record, output) or kept.events != events:
            kept = PairedCalls(record, output, events, _paired_calls(number, record, output, events or {}, cache))
        paired[number] = kept
        calls.extend(kept.calls)
    cache.calls_paired = paired
    analysis.findings = sorted(findings, key=finding_sort_key)


def failed_turn_findings(analysis: RolloutAnalysis) -> list[Finding]:
    """One ``turn-failed`` finding per failed turn, on the first record that says it failed (an ``error``
    event, or a ``task_complete`` / ``turn_complete`` with an ``error``).  Read from the records alone, not from
    :attr:`RolloutAnalysis.turns`, so that a window of a file (analysis.reports.stream) finds the same."""
    out = []
    reported = False
    for number, record in enumerate(analysis.records):
        end = record.turn_end
        if record.turn_start and record.kind == "event_msg":
            reported = False
        if end is None:
            continue
        if end.failed and not reported:
            out.append(_failed_finding(analysis, number, end.error_info, end.error))
            reported = True
        if end.kind in ("complete", "aborted"):
            reported = False
    return out


def failure_groups(records: list[LineAnalysis]) -> list[tuple[int, int]]:
    """(first, last) line of each failure and the end of its turn: a window of a file must not be cut
    between them (analysis.reports.stream), or the failure would be reported twice."""
    groups = []
    for number, record in enumerate(records):
        end = record.turn_end
        if end is None or not end.failed or end.kind != "error":
            continue
        close = next(
            (
                n
                for n in range(number + 1, len(records))
                if (later := records[n].turn_end) is not None
                and later.kind in ("complete", "aborted")
                or records[n].turn_start
                and records[n].kind == "event_msg"
            ),
            len(records),
        )
        groups.append((number, close))
    return groups


def _failed_finding(analysis: RolloutAnalysis, line: int, info: str | None, error: str | None) -> Finding:
    text = analysis.lines[line]
    path = (
        ("payload", "error")
        if '"error"' in text and _is_turn_complete(analysis.records[line])
        else ("payload", "message")
    )
    where = _span_at(text, path) or Span(0, 0, len(text))
    detail = " — ".join(p for p in (info, error) if p) or "no error message"
    # the message names no turn title: a streamed check (analysis.reports.stream) reads no user's words
    return Finding(TURN_FAILED, f"the turn failed: {detail}", Span(line, where.start, where.end))


def _is_turn_complete(record: LineAnalysis) -> bool:
    return record.turn_end is not None and record.turn_end.kind == "complete"


def _span_at(line: str, path: tuple) -> Span | None:
    found = locate(line, [path]).get(path)
    return Span(0, found[0], found[1]) if found else None


def _turns(analysis: RolloutAnalysis, cache: LineCache) -> list[Turn]:
    """:func:`read_turns`, reused from the previous linking when the records it reads (turn starts, user
    messages and their words) are the same objects on the same lines and the last non-blank line is too."""
    records, lines = analysis.records, analysis.lines
    relevant = [
        (n, r)
        for n, r in enumerate(records)
        if r.turn_start or r.prompt is not None or r.prompt_event or r.kind == "message" or r.turn_end is not None
    ]
    shape = (len(lines), last_written_line(lines))
    made = cache.turns_made
    if made is None or not made.fits(shape, relevant):
        made = cache.turns_made = TurnsMade(shape, relevant, read_turns(records, lines))
    return list(made.turns)


def _paired_calls(
    number: int,
    record: LineAnalysis,
    output: CallOutput | None,
    events: dict[int, tuple[int, ToolEvent]],
    cache: LineCache,
) -> list[LocatedCall]:
    """The calls of one call record, each with its output and its event."""
    sole = None
    if output is not None and output.exit_code is None and record.is_exec and len(output.output.results) == 1:
        sole = cache.sole_producer(record)
    out = []
    for index, call in enumerate(record.calls):
        call_output = _call_output(record, call, output) if call is sole else output
        out.append(_paired(number, index, call, record, output, call_output, events.get(index), cache.ran))
    return out


def pair_call(
    number: int,
    index: int,
    call: ToolCall,
    record: LineAnalysis,
    output: CallOutput | None,
    event: tuple[int, ToolEvent] | None,
    ran: Callable[[ToolCall], ToolCall] | None = None,
) -> LocatedCall:
    """A call with its output and its event.  It ran (``executed: "yes"``) when an event reports it, or when
    it runs whenever its script completes (``unconditional``) and the script's final status is completed.
    ``ran`` makes the call as it ran (:meth:`LineCache.ran` keeps one per call)."""
    return _paired(number, index, call, record, output, _call_output(record, call, output), event, ran)


def _paired(
    number: int,
    index: int,
    call: ToolCall,
    record: LineAnalysis,
    output: CallOutput | None,
    call_output: CallOutput | None,
    event: tuple[int, ToolEvent] | None,
    ran: Callable[[ToolCall], ToolCall] | None,
) -> LocatedCall:
    if event is not None:
        call = _ran(call) if ran is None or call.executed == "yes" else ran(call)
        if (
            call_output is not None
            and record.is_exec
            and event[1].exit_code is not None
            and call_output.exit_code != event[1].exit_code
        ):
            call_output = _with_exit_code(call_output, event[1].exit_code)
    elif (
        call.unconditional
        and call.executed == "unknown"
        and output is not None
        and output.status == "completed"
        and output.output.error is None
    ):
        # it runs whenever the script completes, and the script completed
        call = _ran(call) if ran is None else ran(call)
    return LocatedCall(number, index, call, record, call_output, event)


_copy_output = replacer(CallOutput)


def _ran(call: ToolCall) -> ToolCall:
    return call if call.executed == "yes" else _copy_call(call, executed="yes")


def _with_exit_code(output: CallOutput, exit_code: int | None) -> CallOutput:
    """``replace(output, exit_code=exit_code)``, without ``dataclasses.replace``'s cost (paid for every call)."""
    return CallOutput(
        output.line,
        output.status,
        exit_code,
        output.wall_time,
        output.output,
        output.first_line,
        output.continued_by,
        output.via,
    )


def _corrected(output: CallOutput, event: ToolEvent) -> CallOutput:
    """A top-level call's output as its event says it ended: a patch not applied failed; the exit code."""
    status = "failed" if event.kind == PATCH and event.success is False else output.status
    exit_code = event.exit_code if event.exit_code is not None else output.exit_code
    return _copy_output(output, status=status, exit_code=exit_code)


def _call_output(record: LineAnalysis, call: ToolCall, output: CallOutput | None) -> CallOutput | None:
    if output is None:
        return None
    exit_code = output.exit_code
    if exit_code is None and record.is_exec:
        # a script's result blocks can be told apart only when one call produced the only one
        if _sole_producer_of(record) is call and len(output.output.results) == 1:
            exit_code = output.output.results[0].exit_code
    return _with_exit_code(output, exit_code) if exit_code != output.exit_code else output


__all__ = [
    "AnalysisCancelled",
    "LineCache",
    "RolloutAnalysis",
    "LocatedCall",
    "CallOutput",
    "Turn",
    "analyze_text",
    "analyze_lines",
    "link_records",
    "partial_analysis",
    "pair_call",
    "failed_turn_findings",
    "failure_groups",
]
