"""A rollout analysed as it is read, in memory that does not grow with the file (``check``, ``census``,
``outline --json``), with exactly the results of the whole-file analysis (:func:`analysis.session.rollout.analyze_text`).

Lines are read one at a time (:mod:`analysis.jsonl.line_stream`) in chunks.  Each line is analysed on its own
(:func:`analyze_line`, in worker processes for a large file) and *thinned* to what pairing needs: no script
text, escape map, decoded output or record payload (:func:`thin`).  The main process keeps a *window* of the
lines not settled yet and pairs it with the whole-file code (:func:`analysis.session.rollout.link_records`).  After
each chunk the window's settled prefix is reported (findings with their ranges, calls) and dropped.

A line is settled when nothing still to come should change what is said about it: every call before the cut
has its output, its continuations (``wait`` / ``write_stdin``) and its events before the cut, no output or
event before it waits for a call yet, and the last ``MARGIN`` lines always wait.  Settling is a bet on the
rest of the file, and it is checked: every later line that refers back to a settled one (an output, event or
call with a settled ``call_id``, a ``wait`` on a settled cell, a nested event while a settled script had no
output, web searches paired by distance) makes the file be analysed whole instead (:func:`_whole`), so the
result is always the whole-file one.  Lines unsettled for ``FORCE_LINES`` lines are settled anyway (memory
stays bounded) and are checked the same way.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from ..script.calls import ToolCall
from ..session.continuations import CallOutput
from ..session.copies import replacer
from ..session.events import WEB_END
from ..jsonl.findings import Finding, Related
from ..jsonl.jsonspans import locate
from ..jsonl.line_stream import Unreadable, opened, read_lines, reason
from ..session.outputs import ToolOutput, thrown_error, thrown_exit
from ..jsonl.positions import LineColumns, PositionEncoding, Range, Span, span_to_range
from ..session.record_analysis import LineAnalysis, analyze_line
from ..session.records import KNOWN_TYPES
from .report import finding_json
from ..session.rollout import LineCache, LocatedCall, RolloutAnalysis, analyze_text, failure_groups, link_records
from ..jsonl.source import STDIN, decode, decompressed_if_zstd, load
from ..session.vocabulary import unknown_record_finding, unknown_records, unknown_type_of
from ..session.turns import scan_turns

if TYPE_CHECKING:
    from concurrent.futures import Executor

MARGIN = 64  # lines at the end of the window that always wait (an event may follow its call's output)
FORCE_LINES = 20_000  # a line unsettled this many lines ago is settled anyway (and checked)
CHUNK_CHARS = 1 << 20  # a chunk of lines is about this many characters
PARALLEL_BYTES = 2 << 20  # a file this large is worth analysing in worker processes


def _order(finding: Finding) -> tuple:
    return finding.span.line, finding.span.start, finding.span.end, finding.code


# -- thin line analyses --------------------------------------------------------------------------------------

class _Envelope:
    __slots__ = ("type", "timestamp", "payload")

    def __init__(self, type: str, timestamp: str | None = None) -> None:
        self.type, self.timestamp, self.payload = type, timestamp, None


class _Role:
    __slots__ = ("role",)

    def __init__(self, role: str | None) -> None:
        self.role = role


class RecordStub:
    """The little of a record that pairing and session counts read: its type and a small payload."""

    __slots__ = ("envelope", "item")

    def __init__(self, envelope: _Envelope, item: Any) -> None:
        self.envelope, self.item = envelope, item


_MESSAGE_STUBS: dict[str | None, RecordStub] = {}
_PLAIN: dict[tuple, LineAnalysis] = {}
_ERROR = "error"  # an output's error text: pairing asks only whether there is one


def _message_stub(role: str | None) -> RecordStub:
    stub = _MESSAGE_STUBS.get(role)
    if stub is None:
        stub = _MESSAGE_STUBS[role] = RecordStub(_Envelope("response_item"), _Role(role))
    return stub


def _small_payload(record: Any, keys: tuple[str, ...]) -> RecordStub | None:
    item = record.item if isinstance(record.item, dict) else record.envelope.payload
    if not isinstance(item, dict):
        dump = getattr(record.item, "model_dump", None)
        item = dump() if dump is not None else None
    if not isinstance(item, dict):
        return None
    return RecordStub(_Envelope(record.envelope.type, record.envelope.timestamp),
                      {k: item[k] for k in keys if k in item})


def _token_count(record: Any) -> RecordStub | None:
    stub = _small_payload(record, ("type", "info"))
    if stub is None or stub.item.get("type") != "token_count":
        return None
    info = stub.item.get("info")
    if isinstance(info, dict):
        stub.item["info"] = {k: info[k] for k in ("last_token_usage", "total_token_usage", "model_context_window")
                             if k in info}
    return stub


_copy_line = replacer(LineAnalysis)
_copy_call = replacer(ToolCall)
_copy_output = replacer(ToolOutput)


def _thin_output(output: ToolOutput | None) -> ToolOutput | None:
    if output is None:
        return None
    thrown = thrown_exit(output.error)  # kept: it tells how the script's one command ended
    error = thrown_error(thrown) if thrown is not None else _ERROR if output.error is not None else None
    if output.kept_texts == () and output.line is None and output.error is error:
        return output  # thin already
    return _copy_output(output, kept_texts=(), line=None, error=error)


def _thin_call(call: ToolCall, keep_arguments: bool) -> ToolCall:
    if keep_arguments:
        if not call.source and call.patch is None and call.computed_expression is None:
            return call  # thin already
        return _copy_call(call, source="", patch=None, computed_expression=None)
    return _copy_call(call, source="", patch=None, computed_expression=None, arguments={}, computed_arguments={})


def thin(la: LineAnalysis, sessions: bool = False) -> LineAnalysis:
    """``la`` without what pairing does not read (``sessions``: keeping what session counts read)."""
    record = None
    rec = la.record
    if rec is not None:
        if la.kind == "message":
            record = _message_stub(getattr(rec.item, "role", None))
        elif sessions and la.kind == "session_meta":
            record = rec
        elif sessions and la.turn_start:
            record = _small_payload(rec, ("type", "turn_id", "started_at"))
        elif sessions and la.kind == "event_msg" and la.event is None:
            record = _token_count(rec)
        elif sessions and la.kind == "token_usage_record":
            record = rec  # a few numbers: session counts read them as token_count records
    if not (la.is_call or la.is_output or la.findings or la.event or la.turn_start or la.prompt_event or
            la.turn_end is not None) and \
            (record is None or la.kind == "message"):
        key = (la.kind, record)
        plain = _PLAIN.get(key)
        if plain is None:
            plain = _PLAIN[key] = LineAnalysis(la.kind, record=record)
        return plain
    calls = la.calls
    if calls:
        keep_arguments = not la.is_exec  # wait, write_stdin and web searches are paired by their arguments
        calls = tuple([_thin_call(c, keep_arguments) for c in calls])
    return _copy_line(la, record=record, calls=calls, script=None, script_map=None, text=None, prompt=None,
                   output=_thin_output(la.output))


@dataclass(slots=True)
class ChunkFacts:
    """What a worker sends back for a chunk of lines: small, quick to pickle."""

    records: list[LineAnalysis]
    unknown: dict[int, tuple[str, int, int]]  # line in the chunk → (unknown type, where its type is)
    first_known: int | None  # the first line of a known record type (is it a rollout?)


def analyze_chunk(lines: list[str], sessions: bool = False, full: list[LineAnalysis] | None = None) -> ChunkFacts:
    """The thin analyses of a chunk of lines (run in worker processes); ``full``, when given, receives the
    whole analyses too."""
    records, unknown, first_known = [], {}, None
    for i, line in enumerate(lines):
        la = analyze_line(line)
        if full is not None:
            full.append(la)
        rec = la.record
        if rec is not None:
            if first_known is None and rec.envelope.type in KNOWN_TYPES:
                first_known = i
            # a line with a record is neither blank nor invalid
            name = unknown_type_of(la)
            if name is not None:
                path = ("type",) if "/" not in name else ("payload", "type")
                found = locate(line, [path]).get(path)
                unknown[i] = (name, *(found or (0, len(line))))
        records.append(thin(la, sessions))
    return ChunkFacts(records, unknown, first_known)


# -- what a caller collects ----------------------------------------------------------------------------------

class Sink(Protocol):
    """Receives the call records and calls of a rollout in line order, with their ranges."""

    def record(self, line: int, record: LineAnalysis, output: CallOutput | None) -> None: ...

    def call(self, located: LocatedCall, ranges: "Ranges") -> None: ...


class Ranges(Protocol):
    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range: ...


class _Window:
    """Ranges of spans on the window's lines (numbered as in the file)."""

    def __init__(self, lines: list[str], numbers: list[int]) -> None:
        self.lines, self.numbers = lines, numbers
        self._columns: dict[int, LineColumns] = {}

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        local = bisect_left(self.numbers, span.line)
        columns = self._columns.get(local)
        if columns is None:
            columns = self._columns[local] = LineColumns(self.lines[local])
        return span_to_range(span, self.lines[local], encoding, columns)


class _Stored:
    """The ranges of one finding and its related places, computed while its lines were at hand."""

    __slots__ = ("spans", "ranges")

    def __init__(self, finding: Finding, ranges: Ranges, encoding: PositionEncoding) -> None:
        self.spans = (finding.span, *(r.span for r in finding.related))
        self.ranges = tuple(ranges.range_of(span, encoding) for span in self.spans)

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        return self.ranges[self.spans.index(span)]


class Reports:
    """Findings in order, each given with its JSON form (``finding_json``), made as it is asked for: a
    range is kept per finding, not its JSON."""

    def __init__(self, items: list[tuple[Finding, Any]], encoding: PositionEncoding) -> None:
        self.items, self.encoding = items, encoding

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[tuple[Finding, dict]]:
        for finding, ranges in self.items:
            yield finding, finding_json(ranges, finding, self.encoding)

    def findings(self) -> list[Finding]:
        return [finding for finding, _ in self.items]


@dataclass
class Streamed:
    """The result: findings (sorted as the whole-file analysis sorts them) with their JSON form."""

    path: str
    findings: Reports = field(default_factory=lambda: Reports([], PositionEncoding.UTF16))
    lines: int = 0  # as many as split_lines gives
    last_line_empty: bool = True
    is_rollout: bool = False
    held: int = 0  # the most lines the window held at once (what memory grows with)
    whole: str | None = None  # why it was analysed whole after all (a later line referred back to a settled one)
    sink: Any = None
    sessions: RolloutAnalysis | None = None  # what session counts read (a sparse analysis when streamed)
    turns: list | None = None  # the file's turns (``turns=True``), as the whole-file analysis reads them


class _ReferredBack(Exception):
    """A line refers back to a settled one: analyse the file whole."""


def _glob_output(output: CallOutput | None, g: list[int]) -> CallOutput | None:
    if output is None:
        return None
    return replace(output, line=g[output.line], first_line=None if output.first_line is None else
                   g[output.first_line], continued_by=tuple(g[c] for c in output.continued_by))


def _glob_finding(finding: Finding, g: list[int]) -> Finding:
    span = finding.span
    return replace(finding, span=Span(g[span.line], span.start, span.end),
                   related=tuple(Related(Span(g[r.span.line], r.span.start, r.span.end), r.message)
                                 for r in finding.related))


class _Stream:
    def __init__(self, encoding: PositionEncoding, sink: Sink | None, sessions: bool, margin: int,
                 force_lines: int) -> None:
        self.encoding, self.sink, self.sessions = encoding, sink, sessions
        self.margin, self.force_lines = margin, force_lines
        self.lines: list[str] = []
        self.records: list[LineAnalysis] = []
        self.numbers: list[int] = []
        self.findings: list[tuple[Finding, _Stored]] = []
        self.loaded: list[tuple[Finding, _Stored]] = []
        self.unknown: dict[str, list] = {}  # type → [first line, span, range json, count]
        # call ids settled (of calls, outputs and unmatched events), as hashes: a line with one of them
        # refers back (a hash met by chance only makes the file be read whole, never a wrong result)
        self.released: set[int] = set()
        self.released_unpaired: set[str] = set()  # calls settled without an output
        self.released_cells: set[str] = set()
        self.released_sessions: set[str] = set()
        self.open_exec_released = False
        self.web_calls = self.web_events = 0
        self.first_known: int | None = None
        self.count = self.held = 0
        self.last_text = ""
        self.sparse: dict[int, LineAnalysis] = {}  # session records by line (``sessions``)
        self.blank: set[int] = set()
        self.no_origin: bool | None = None  # the session is no fork or subagent (None: not known yet)

    # intake ---------------------------------------------------------------------------------------------
    def take(self, texts: list[str], bad: list[Finding | None], facts: ChunkFacts, base: int) -> None:
        if self.first_known is None and facts.first_known is not None:
            self.first_known = base + facts.first_known
        for i, (text, record) in enumerate(zip(texts, facts.records)):
            number = base + i
            self._check(record, count=True)
            if bad[i] is not None:
                finding = bad[i]
                self.loaded.append((finding, _Stored(finding, _Window([text], [number]), self.encoding)))
            if i in facts.unknown:
                self._unknown(number, text, *facts.unknown[i])
            if self.sessions:
                self._keep(number, record)
            self.lines.append(text)
            self.records.append(record)
            self.numbers.append(number)
        self.held = max(self.held, len(self.lines))
        self.count = base + len(texts)
        if texts:
            self.last_text = texts[-1]
        if len(self.lines) > self.margin:
            self._settle(final=False)

    def _keep(self, number: int, record: LineAnalysis) -> None:
        """Keeps what session counts read: session metas, token counts, and turn starts, which only a fork's
        or a subagent's rollout needs (where its inherited history ends)."""
        if record.kind == "blank":
            self.blank.add(number)
            return
        if record.record is None or record.kind == "message" or record.turn_start and self.no_origin:
            return
        self.sparse[number] = record
        if self.no_origin is None and record.session is not None:  # the first session_meta: who is this?
            from ..session.lineage import identity_of  # census only: check need not load it

            self.no_origin = identity_of(record.session, number).origin is None
            if self.no_origin:
                self.sparse = {n: r for n, r in self.sparse.items() if not r.turn_start}

    def _unknown(self, number: int, text: str, name: str, start: int, end: int) -> None:
        entry = self.unknown.get(name)
        if entry is None:
            span = Span(number, start, end)
            self.unknown[name] = [number, span, _Window([text], [number]).range_of(span, self.encoding), 1]
        else:
            entry[3] += 1

    def _check(self, record: LineAnalysis, count: bool) -> None:
        """Raises :class:`_ReferredBack` when ``record`` refers to a line already settled."""
        call_id = record.call_id
        if record.is_call:
            if call_id and hash(call_id) in self.released:
                raise _ReferredBack(f"call {call_id}")
            if count and record.name == "web_search" and not call_id:
                self.web_calls += 1
            if not record.is_exec and record.kind == "function_call" and len(record.calls) == 1:
                arguments = record.calls[0].arguments
                if record.name == "wait" and str(arguments.get("cell_id")) in self.released_cells or \
                        record.name == "write_stdin" and str(arguments.get("session_id")) in self.released_sessions:
                    raise _ReferredBack(f"{record.name} on a settled cell or session")
        elif record.is_output and call_id and call_id in self.released_unpaired:
            raise _ReferredBack(f"output of {call_id}")
        event = record.event
        if event is not None:
            if event.nested:
                if self.open_exec_released:
                    raise _ReferredBack("a nested event after a script without output")
            elif event.call_id and hash(event.call_id) in self.released:
                raise _ReferredBack(f"event of {event.call_id}")
            if count and event.type == WEB_END:
                self.web_events += 1
        if self.web_calls and self.web_events:
            raise _ReferredBack("web searches paired by distance")

    # settling -------------------------------------------------------------------------------------------
    def _settle(self, final: bool) -> None:
        a = link_records(self.lines, self.records, self.numbers)
        forced = False
        if final:
            cut = len(self.lines)
        else:
            cut, forced = self._cut(a)
        if cut <= 0:
            return
        self._report(a, cut)
        del self.lines[:cut], self.records[:cut], self.numbers[:cut]
        if forced:  # what stays may refer to what was settled early
            # a script settled early may still have nested events to come, which it can no longer be paired with
            self.open_exec_released = True
            for record in self.records:
                self._check(record, count=False)

    def _cut(self, a: RolloutAnalysis) -> tuple[int, bool]:
        n = len(self.lines)
        boundary = self.numbers[-1] - self.force_lines
        forced_cut = bisect_left(self.numbers, boundary)  # lines before it are settled whatever happens
        cut = n - self.margin
        for c in a.call_records:
            out = a.record_outputs.get(c)
            if out is None and a.records[c].call_id or out is not None and out.status == "running":
                cut = min(cut, c)
                break
        for call_id, outputs in a.outputs_by_call_id.items():
            if call_id not in a.calls_by_call_id:
                cut = min(cut, outputs[0])
        for line, event in a.events:
            if line not in a.matched_events and event.call_id and not event.nested:
                cut = min(cut, line)
                break
        groups = self._groups(a)
        changed = True
        while changed:
            changed = False
            for lo, hi in groups:
                if lo < cut <= hi:
                    cut, changed = lo, True
        if cut < forced_cut:
            return forced_cut, True
        return cut, False

    @staticmethod
    def _groups(a: RolloutAnalysis) -> list[tuple[int, int]]:
        """(first, last) line of each call record with its outputs, continuations and events."""
        events: dict[int, list[int]] = {}
        for event_line, (call_line, _) in a.matched_events.items():
            events.setdefault(call_line, []).append(event_line)
        groups = []
        for c in a.call_records:
            members = [c]
            call_id = a.records[c].call_id
            if call_id:
                members += a.outputs_by_call_id.get(call_id, ())
            out = a.record_outputs.get(c)
            if out is not None:
                members.append(out.line)
                if out.first_line is not None:
                    members.append(out.first_line)
                members += out.continued_by
            members += events.get(c, ())
            if len(members) > 1:
                groups.append((min(members), max(members)))
        return groups + failure_groups(a.records)

    def _report(self, a: RolloutAnalysis, cut: int) -> None:
        g = self.numbers
        window = _Window(self.lines, g)
        for finding in a.findings:
            if finding.span.line >= cut:
                break
            finding = _glob_finding(finding, g)
            self.findings.append((finding, _Stored(finding, window, self.encoding)))
        for c in a.call_records:
            if c >= cut:
                break
            record = a.records[c]
            out = a.record_outputs.get(c)
            call_id = record.call_id
            if call_id:
                self.released.add(hash(call_id))
                if out is None:
                    self.released_unpaired.add(call_id)
            if out is None and record.is_exec:
                self.open_exec_released = True
            if out is not None and out.status == "running":
                own = a.outputs_by_call_id.get(call_id or "")
                first = a.records[own[0]].output if own else record.output
                if first is not None and first.cell_id:
                    self.released_cells.add(first.cell_id)
                if first is not None and first.session_id:
                    self.released_sessions.add(first.session_id)
            if self.sink is not None:
                self.sink.record(g[c], record, _glob_output(out, g))
        if self.sink is not None:
            for located in a.calls:
                if located.line >= cut:
                    break
                event = located.event
                self.sink.call(replace(located, line=g[located.line], output=_glob_output(located.output, g),
                                       event=None if event is None else (g[event[0]], event[1])), window)
        for call_id, outputs in a.outputs_by_call_id.items():
            if outputs[0] < cut:
                self.released.add(hash(call_id))
        for line, event in a.events:
            if line >= cut:
                break
            if line not in a.matched_events and event.call_id and not event.nested:
                self.released.add(hash(event.call_id))

    def finish(self, result: Streamed) -> None:
        self._settle(final=True)
        unknown = []
        for name, (first, span, where, count) in self.unknown.items():
            finding = unknown_record_finding(name, count, span)
            unknown.append((finding, _Stored(finding, _Known(where), self.encoding)))
        findings = sorted(self.findings + unknown, key=lambda f: _order(f[0]))
        result.findings = Reports(sorted(self.loaded + findings, key=lambda f: _order(f[0])), self.encoding)
        result.lines, result.held = self.count, self.held
        result.last_line_empty = self.last_text == ""
        result.is_rollout = self.first_known is not None and self.first_known < 50
        if self.sessions:
            result.sessions = _sparse_analysis(self.count, self.sparse, self.blank, self.unknown)


class _Known:
    """The one range of a finding found while its line was at hand."""

    def __init__(self, where: Range) -> None:
        self.where = where

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        return self.where


class _SparseRecords:
    """Every line's record for session counts: the kept ones by line, a plain stand-in for the others."""

    _OTHER = LineAnalysis("other")
    _BLANK = LineAnalysis("blank")

    def __init__(self, count: int, kept: dict[int, LineAnalysis], blank: set[int]) -> None:
        self.count, self.kept, self.blank = count, kept, blank

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, line: int) -> LineAnalysis:
        if isinstance(line, slice):
            return [self[i] for i in range(*line.indices(self.count))]  # type: ignore[return-value]
        if line < 0:
            line += self.count
        if not 0 <= line < self.count:
            raise IndexError(line)
        found = self.kept.get(line)
        if found is not None:
            return found
        return self._BLANK if line in self.blank else self._OTHER

    def __iter__(self) -> Iterator[LineAnalysis]:
        return (self[i] for i in range(self.count))


def _sparse_analysis(count: int, kept: dict[int, LineAnalysis], blank: set[int],
                     unknown: dict[str, list]) -> RolloutAnalysis:
    """What :class:`analysis.reports.session_census.SessionCensus` reads of a rollout: session metas, turn starts,
    token counts and unknown record types (turns are not counted there, and are left empty)."""
    analysis = RolloutAnalysis([], _SparseRecords(count, kept, blank))  # type: ignore[arg-type]
    unknown_records.keep(analysis, {name: _Lines(entry[0], entry[3]) for name, entry in unknown.items()})
    return analysis


class _Lines:
    """The lines of an unknown type's records, of which session counts read the first and how many."""

    def __init__(self, first: int, count: int) -> None:
        self.first, self.count = first, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> int:
        if index != 0:
            raise IndexError(index)
        return self.first


# -- reading a file ------------------------------------------------------------------------------------------

def _chunks(lines: Iterator[tuple[str, Finding | None]], chunk_chars: int) -> Iterator[tuple[list[str], list]]:
    texts: list[str] = []
    bad: list[Finding | None] = []
    size = 0
    for text, finding in lines:
        texts.append(text)
        bad.append(finding)
        size += len(text)
        if size >= chunk_chars:
            yield texts, bad
            texts, bad, size = [], [], 0
    if texts:
        yield texts, bad


def _analysed(chunks: Iterator[tuple[list[str], list]], pool: Executor | None, jobs: int,
              sessions: bool, first: list[LineCache] | None = None) -> Iterator[tuple[list[str], list, ChunkFacts]]:
    """Chunks with their thin analyses, in order; with a pool, a few chunks ahead in its workers.  ``first``
    (without a pool) is given a cache of the whole analyses of the first chunk, and emptied when the second
    comes: should a line refer back to a settled one while only that chunk was read (a small file, most
    often), the whole-file analysis finds its lines analysed already."""
    if pool is None:
        for number, (texts, bad) in enumerate(chunks):
            full: list[LineAnalysis] | None = [] if first is not None and number == 0 else None
            if first is not None and number == 1:
                first.clear()  # memory stays bounded: a large file's fallback analyses every line again
            facts = analyze_chunk(texts, sessions, full)
            if first is not None and full is not None:
                cache = LineCache()
                cache.fill(texts, full)
                first.append(cache)
            del full
            yield texts, bad, facts
        return
    pending: deque = deque()
    for texts, bad in chunks:
        pending.append((texts, bad, pool.submit(analyze_chunk, texts, sessions)))
        if len(pending) > jobs * 2:
            texts, bad, future = pending.popleft()
            yield texts, bad, future.result()
    while pending:
        texts, bad, future = pending.popleft()
        yield texts, bad, future.result()


def stream_rollout(path: str, encoding: PositionEncoding = PositionEncoding.UTF16,
                   make_sink: Callable[[], Sink] | None = None, sessions: bool = False,
                   pool: Executor | None = None, jobs: int = 1, margin: int = MARGIN,
                   force_lines: int = FORCE_LINES, chunk_chars: int = CHUNK_CHARS, turns: bool = False,
                   lines: Iterator[tuple[str, Finding | None]] | None = None) -> Streamed:
    """Findings (and, to ``make_sink()``'s sink, records and calls) of the rollout at ``path`` (``-``: standard
    input), exactly as the whole-file analysis gives them; with ``turns``, its turns too (read in a second, light
    pass: a turn spans windows).  ``lines``: its lines as :func:`read_lines` gives them, when the caller has
    begun reading them (its head, read once).  Raises :class:`Unreadable`."""
    with opened(path) as readable:
        name = "standard input" if path == STDIN else path
        sniff = path == STDIN
        sink = make_sink() if make_sink else None
        state = _Stream(encoding, sink, sessions, margin, force_lines)
        result = Streamed(path, sink=sink)
        first: list[LineCache] = []  # the first chunk's whole analyses, while it is the last chunk read
        try:
            base = 0
            if lines is None:
                lines = read_lines(readable, name, sniff)
            for texts, bad, facts in _analysed(_chunks(lines, chunk_chars), pool, jobs, sessions,
                                               None if pool is not None else first):
                state.take(texts, bad, facts, base)
                base += len(texts)
            state.finish(result)
            if turns:
                result.turns = scan_turns(line for line, _ in read_lines(readable, name, sniff))
            return result
        except _ReferredBack as back:
            why = str(back)
        del state, result
        return _whole(path, readable, name, sniff, encoding, make_sink() if make_sink else None, why,
                      first[0] if first else None)


def _whole(path: str, readable: str, name: str, sniff: bool, encoding: PositionEncoding,
           sink: Sink | None, why: str, cache: LineCache | None = None) -> Streamed:
    """The whole-file analysis (as ``check`` read every file before), given as a streamed one; ``cache``: the
    lines analysed already (a line's analysis depends on its text alone)."""
    if sniff:  # standard input, copied to ``readable``
        try:
            with open(readable, "rb") as handle:
                data = handle.read()
            loaded = decode(path, decompressed_if_zstd(data))
        except Exception as error:
            raise Unreadable(f"cannot read {name}: {reason(error)}") from error
    else:
        loaded = load(readable)
        if loaded.error:
            raise Unreadable(loaded.error)
    analysis = analyze_text(loaded.text, cache)
    findings = sorted(loaded.findings + analysis.findings, key=_order)
    result = Streamed(path, Reports([(f, analysis) for f in findings], encoding), len(analysis.lines),
                      analysis.lines[-1] == "", analysis.is_rollout, whole=why, sink=sink, sessions=analysis,
                      turns=analysis.turns)
    if sink is not None:
        for number in analysis.call_records:
            sink.record(number, analysis.records[number], analysis.record_output(number))
        for located in analysis.calls:
            sink.call(located, analysis)
    return result


def parallel_worth_it(path: str) -> bool:
    """Whether a file is large enough to analyse in worker processes."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return False
    return size * (5 if path.endswith(".zst") else 1) >= PARALLEL_BYTES


__all__ = ["ChunkFacts", "MARGIN", "FORCE_LINES", "Sink", "Streamed", "Unreadable", "analyze_chunk",
           "parallel_worth_it", "stream_rollout", "thin"]
