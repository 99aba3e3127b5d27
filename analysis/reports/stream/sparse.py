"""Sparse records: what session counts (:class:`analysis.reports.session_census.SessionCensus`) read of a
streamed rollout, without keeping every line: the few records they read by line, and a shared stand-in for
every other line, behind the list and analysis interfaces they read."""

from __future__ import annotations

from collections.abc import Iterator

from ...session.record_analysis import LineAnalysis
from ...session.rollout import RolloutAnalysis
from ...session.vocabulary import unknown_records


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
            return [self[i] for i in range(*line.indices(self.count))]
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


def _sparse_analysis(
    count: int, kept: dict[int, LineAnalysis], blank: set[int], unknown: dict[str, list]
) -> RolloutAnalysis:
    """What :class:`analysis.reports.session_census.SessionCensus` reads of a rollout: session metas, turn starts,
    token counts and unknown record types (turns are not counted there, and are left empty)."""
    analysis = RolloutAnalysis([], _SparseRecords(count, kept, blank))  # type: ignore[arg-type]
    # a _Lines stands in for the list of lines: session counts read only its first line and its length
    lines = {name: _Lines(entry[0], entry[3]) for name, entry in unknown.items()}
    unknown_records.keep(analysis, lines)  # type: ignore[arg-type]
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


__all__ = ["_sparse_analysis"]
