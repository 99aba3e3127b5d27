"""What a streamed rollout gives its caller: findings with their ranges (:class:`Reports`), the result
(:class:`Streamed`), and the :class:`Sink` that receives call records and calls as they are settled.

A finding's ranges are computed while its lines are at hand (:class:`_Stored`, :class:`_Known`): the lines
themselves are not kept.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...jsonl.findings import Finding, Related
from ...jsonl.positions import LineColumns, PositionEncoding, Range, Span, span_to_range
from ...session.continuations import CallOutput
from ...session.copies import replacer
from ...session.finish import finding_json
from ...session.record_analysis import LineAnalysis
from ...session.rollout import LocatedCall, RolloutAnalysis


class Sink(Protocol):
    """Receives the call records and calls of a rollout in line order, with their ranges."""

    def record(self, line: int, record: LineAnalysis, output: CallOutput | None) -> None: ...

    def call(self, located: LocatedCall, ranges: Ranges) -> None: ...


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


# dataclasses.replace looks the class's fields up on every call: a settled window copies each output and call
# once (7,500 copies on wild's 56 files, a fifth of the window's CPU with it)
_copy_output = replacer(CallOutput)
_copy_finding = replacer(Finding)


def _glob_output(output: CallOutput | None, g: list[int]) -> CallOutput | None:
    if output is None:
        return None
    return _copy_output(
        output,
        line=g[output.line],
        first_line=None if output.first_line is None else g[output.first_line],
        continued_by=tuple(g[c] for c in output.continued_by),
    )


def _glob_finding(finding: Finding, g: list[int]) -> Finding:
    span = finding.span
    return _copy_finding(
        finding,
        span=Span(g[span.line], span.start, span.end),
        related=tuple(Related(Span(g[r.span.line], r.span.start, r.span.end), r.message) for r in finding.related),
    )


class _Known:
    """The one range of a finding found while its line was at hand."""

    def __init__(self, where: Range) -> None:
        self.where = where

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        return self.where


__all__ = ["Ranges", "Reports", "Sink", "Streamed"]
