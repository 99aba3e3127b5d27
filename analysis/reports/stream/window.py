"""The window: the lines of a streamed rollout not settled yet, paired as the whole-file analysis pairs them.

:class:`_Stream` takes the thin analyses of each chunk (:meth:`_Stream.take`), pairs its window with the
whole-file code (:func:`analysis.session.rollout.link_records`), reports the settled prefix (findings with their
ranges, call records and calls to the sink) and drops it.  Every later line is checked against what was
settled (:meth:`_Stream._check`): one that refers back raises :class:`_ReferredBack`, and the file is read
whole instead (:mod:`analysis.reports.stream.reading`).
"""

from __future__ import annotations

from bisect import bisect_left

from ...jsonl.findings import FILE_LIMIT, Finding
from ...jsonl.limits import max_findings, over_findings
from ...jsonl.positions import PositionEncoding, Span
from ...session.copies import replacer
from ...session.events import WEB_END
from ...session.finish import known_in_head, sorted_pairs
from ...session.record_analysis import LineAnalysis
from ...session.rollout import LocatedCall, RolloutAnalysis, failure_groups, link_records
from ...session.vocabulary import unknown_record_finding
from .collect import Reports, Sink, Streamed, _glob_finding, _glob_output, _Known, _ReferredBack, _Stored, _Window
from .sparse import _sparse_analysis
from .thinning import ChunkFacts

_copy_located = replacer(LocatedCall)  # dataclasses.replace's work without its lookups of the class (per call)


class _Stream:
    """The window of a rollout read as a stream, and what was settled before it (findings with their ranges,
    the call ids, cells and sessions a later line must not refer back to, session records)."""

    def __init__(
        self, encoding: PositionEncoding, sink: Sink | None, sessions: bool, margin: int, force_lines: int
    ) -> None:
        self.encoding, self.sink, self.sessions = encoding, sink, sessions
        self.margin, self.force_lines = margin, force_lines
        self.lines: list[str] = []
        self.records: list[LineAnalysis] = []
        self.numbers: list[int] = []
        self.findings: list[tuple[Finding, _Stored]] = []
        self.loaded: list[tuple[Finding, _Stored]] = []
        # at most max_findings() findings are kept (3 million bad lines are as many findings); the others are
        # counted, and one more finding, on the line of the first not kept, says how many
        self.most_findings = max_findings()
        self.kept = self.dropped = 0
        self.first_dropped: _Stored | None = None
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
        records, unknown, sessions = facts.records, facts.unknown, self.sessions
        for i, record in enumerate(records):
            # a line that is no call, no output and reports no event cannot refer back (_check finds nothing):
            # most lines, which skip the call
            if record.is_call or record.is_output or record.event is not None:
                self._check(record, count=True)
            finding = bad[i]
            if finding is not None:
                number, text = base + i, texts[i]
                if self._keeps(finding, _Window([text], [number])):
                    self.loaded.append((finding, _Stored(finding, _Window([text], [number]), self.encoding)))
            if i in unknown:
                self._unknown(base + i, texts[i], *unknown[i])
            if sessions:
                self._keep(base + i, record)
        # the chunk joins the window at once (a line that refers back ends the stream: the window is dropped)
        self.lines += texts
        self.records += records
        self.numbers += range(base, base + len(texts))
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
            from ...session.lineage import identity_of  # census only: check need not load it

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
                if (
                    record.name == "wait"
                    and str(arguments.get("cell_id")) in self.released_cells
                    or record.name == "write_stdin"
                    and str(arguments.get("session_id")) in self.released_sessions
                ):
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
        # without a sink the window's calls are never read (only its findings, outputs and events): not made
        a = link_records(self.lines, self.records, self.numbers, located=self.sink is not None)
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
            if self._keeps(finding, window):
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
                self.sink.call(
                    _copy_located(
                        located,
                        line=g[located.line],
                        output=_glob_output(located.output, g),
                        event=None if event is None else (g[event[0]], event[1]),
                    ),
                    window,
                )
        for call_id, outputs in a.outputs_by_call_id.items():
            if outputs[0] < cut:
                self.released.add(hash(call_id))
        for line, tool_event in a.events:
            if line >= cut:
                break
            if line not in a.matched_events and tool_event.call_id and not tool_event.nested:
                self.released.add(hash(tool_event.call_id))

    def _keeps(self, finding: Finding, window: _Window) -> bool:
        """Whether ``finding`` is kept (a ``file-limit`` one always is); one not kept is counted."""
        if finding.code == FILE_LIMIT:
            return True
        if self.kept < self.most_findings:
            self.kept += 1
            return True
        if self.first_dropped is None:
            place = over_findings(finding.span.line, 0, self.most_findings)
            self.first_dropped = _Stored(place, window, self.encoding)
        self.dropped += 1
        return False

    def finish(self, result: Streamed) -> None:
        """Settles what is left and gives ``result`` its findings (those of the lines read, the window's and the
        unknown record types', in the one order), its counts and whether the file is a rollout."""
        self._settle(final=True)
        unknown = []
        for name, (_first, span, where, count) in self.unknown.items():
            finding = unknown_record_finding(name, count, span)
            unknown.append((finding, _Stored(finding, _Known(where), self.encoding)))
        if self.first_dropped is not None:
            line = self.first_dropped.spans[0].line
            unknown.append((over_findings(line, self.dropped, self.most_findings), self.first_dropped))
        result.findings = Reports(sorted_pairs(self.loaded, sorted_pairs(self.findings, unknown)), self.encoding)
        result.lines, result.held = self.count, self.held
        result.last_line_empty = self.last_text == ""
        result.is_rollout = known_in_head(self.first_known)
        if self.sessions:
            result.sessions = _sparse_analysis(self.count, self.sparse, self.blank, self.unknown)


__all__ = ["_Stream"]
