"""Counts over a corpus of rollouts, computed per file and added up, on one core, many, or a Dask cluster.

:func:`census_of_file` is the whole work for one file and returns a small
:class:`Census`; censuses add up, so files can be spread over processes
(:func:`run_census` with ``jobs``) or a Dask cluster (``scheduler``) and the
result is the same as counting them one after another.  A file is read as a
stream (analysis.reports.stream), so its size does not matter; a large one is spread
too: its lines are analysed in chunks by the worker processes (a line's analysis
depends on no other line) and paired in the main process.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field

from ..jsonl.findings import SCRIPT_SYNTAX, Finding
from ..jsonl.line_stream import Unreadable
from ..jsonl.source import NOT_A_ROLLOUT
from ..session.finish import is_rollout_file
from ..session.record_analysis import LineAnalysis
from ..session.rollout import LocatedCall, RolloutAnalysis
from .session_census import SessionCensus
from .spread import CHUNK_BYTES, TASKS_IN_FLIGHT, file_tasks, in_window, pool_options, spread_by_lines
from .stream import stream_rollout

COUNT_KEYS = (
    "rollouts",
    "lines",
    "exec scripts",
    "scripts that do not parse",
    "literal commands",
    "computed commands",
    "computed commands with a known expansion",
    "JSON arguments",
    "JS-literal arguments",
)


@dataclass
class Census:
    counts: Counter = field(default_factory=Counter)
    calls_by_tool: Counter = field(default_factory=Counter)
    findings_by_code: Counter = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # JSON Lines files that are not rollouts
    problems: list[str] = field(default_factory=list)  # why each file was unreadable or skipped, for stderr
    sessions: SessionCensus = field(default_factory=SessionCensus)  # token totals, unknown record types

    def add(self, other: Census) -> Census:
        self.counts.update(other.counts)
        self.calls_by_tool.update(other.calls_by_tool)
        self.findings_by_code.update(other.findings_by_code)
        self.unreadable.extend(other.unreadable)
        self.skipped.extend(other.skipped)
        self.problems.extend(other.problems)
        self.sessions.merge(other.sessions)
        return self

    def to_json(self) -> dict:
        """Keys in a fixed order (most common first, ties by name), so equal censuses print equally."""
        return {
            "counts": {k: self.counts[k] for k in COUNT_KEYS if k in self.counts},
            "calls_by_tool": dict(_ordered(self.calls_by_tool)),
            "findings_by_code": dict(_ordered(self.findings_by_code)),
            **self.sessions.to_json(),
            "unreadable_files": len(self.unreadable),
            "skipped_files": len(self.skipped),
        }


def _ordered(counter: Counter) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))


def count_record(census: Census, record: LineAnalysis) -> None:
    """Counts a call record (exec scripts, and those that do not parse)."""
    if record.is_exec:
        census.counts["exec scripts"] += 1
        if any(f.code == SCRIPT_SYNTAX for f in record.findings):
            census.counts["scripts that do not parse"] += 1


def count_call(census: Census, located: LocatedCall) -> None:
    """Counts a tool call (by tool; commands literal, computed and expanded; argument forms)."""
    counts, call = census.counts, located.call
    census.calls_by_tool[call.tool or "(computed)"] += 1
    if call.kind == "command" and (call.computed or call.command is not None):
        counts["computed commands" if call.computed else "literal commands"] += 1
        if call.expansion:
            counts["computed commands with a known expansion"] += 1
    if call.json_arguments is True and located.record.is_exec:
        counts["JSON arguments"] += 1
    elif call.json_arguments is False:
        counts["JS-literal arguments"] += 1


def census_of_analysis(analysis: RolloutAnalysis, findings: list[Finding]) -> Census:
    census = Census()
    census.counts["rollouts"] += 1
    lines = analysis.lines
    census.counts["lines"] += len(lines) - (1 if lines and lines[-1] == "" else 0)  # text after the last newline only
    for record in analysis.records:
        if record.is_call:
            count_record(census, record)
    for located in analysis.calls:
        count_call(census, located)
    census.findings_by_code.update(f.code for f in findings)
    census.sessions.add(analysis)
    return census


class _Counter:
    """Counts the records and calls of a streamed rollout as they are settled (analysis.reports.stream)."""

    def __init__(self) -> None:
        self.census = Census()

    def record(self, line: int, record: LineAnalysis, output) -> None:
        count_record(self.census, record)

    def call(self, located: LocatedCall, ranges) -> None:
        count_call(self.census, located)


def census_of_file(path: str, pool: Executor | None = None, jobs: int = 1) -> Census:
    """The census of one file, read as a stream (analysis.reports.stream); with a ``pool``, a large file's lines are
    analysed by its workers."""
    use_pool = pool if pool is not None and jobs > 1 and _size(path) >= CHUNK_BYTES else None
    try:
        streamed = stream_rollout(path, make_sink=_Counter, sessions=True, pool=use_pool, jobs=jobs)
    except Unreadable as problem:
        return Census(unreadable=[path], problems=[str(problem)])
    if not is_rollout_file(path, streamed.is_rollout):  # as the server: other JSON Lines files stay quiet
        return Census(skipped=[path], problems=[f"{path}: {NOT_A_ROLLOUT}"])
    census = streamed.sink.census
    census.counts["rollouts"] += 1
    census.counts["lines"] += streamed.lines - (1 if streamed.last_line_empty else 0)
    census.findings_by_code.update(f.code for f in streamed.findings.findings())
    census.sessions.add(streamed.sessions)
    return census


def run_census(paths: Iterable[str], jobs: int = 1, scheduler: str | None = None) -> Census:
    """The census of ``paths`` (files), on ``jobs`` local processes or on the Dask cluster at ``scheduler``."""
    paths = list(paths)
    total = Census()
    if scheduler is not None:
        for part in _on_dask(paths, scheduler):
            total.add(part)
        return total
    if jobs <= 1:
        for path in paths:
            total.add(census_of_file(path))
        return total
    sizes = {path: _size(path) for path in paths}
    large = set(spread_by_lines(sizes, jobs))
    # the largest files first: the last tasks to finish are then short ones, and no worker is left reading a
    # large file while the others are idle
    order = sorted((p for p in paths if p not in large), key=lambda path: (-sizes[path], path))
    listed: dict[str, Census] = {}  # the lists of files that have any, added in the order of ``paths`` at the end
    with ProcessPoolExecutor(max_workers=jobs, **pool_options()) as pool:
        for part in in_window(pool, census_of_files, file_tasks(order, sizes, jobs), jobs * TASKS_IN_FLIGHT):
            for path, census in part:
                if census.unreadable or census.skipped or census.problems:
                    listed[path] = Census(
                        unreadable=census.unreadable, skipped=census.skipped, problems=census.problems
                    )
                    census.unreadable, census.skipped, census.problems = [], [], []
                total.add(census)
        for path in (p for p in paths if p in large):  # one at a time, its lines spread over the workers
            listed[path] = census_of_file(path, pool, jobs)
    for path in paths:
        if path in listed:
            total.add(listed[path])
    return total


def census_of_files(paths: list[str]) -> list[tuple[str, Census]]:
    """The census of each of ``paths`` (one task of a worker process)."""
    return [(path, census_of_file(path)) for path in paths]


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _on_dask(paths: list[str], scheduler: str) -> list[Census]:
    """Runs :func:`census_of_file` on a Dask cluster; the files must be readable at the same paths there."""
    from distributed import Client  # the optional `dask` extra

    with Client(scheduler) as client:
        futures = client.map(census_of_file, paths, pure=False)
        return client.gather(futures)


__all__ = ["COUNT_KEYS", "Census", "census_of_analysis", "census_of_file", "count_call", "count_record", "run_census"]
