"""One file read and planned as plain data, :func:`prepare_file`: what the ``--jobs`` worker processes run
(the main process too, for a file no worker prepared) and send back to be written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .planning import _plan
from .reading import _read, _reason, _Skip, within_lines
from .rows import _Work

FILES_IN_FLIGHT = 4  # files given to the worker processes ahead of the one written, per worker


@dataclass
class Prepared:
    """What reading and analysing one file gave, from the row and pending calls it was read against: work to
    write, a skip, a read error or an analysis failure (none of them: the file is unchanged).  Plain data, so a
    worker process can send it back."""

    row: dict[str, Any] | None
    pending: list[dict[str, Any]]
    work: _Work | None = None
    skip: _Skipped | None = None
    unreadable: str | None = None
    failed: str | None = None
    limited: str | None = None  # a limit cut the file (analysis.jsonl.limits): what is indexed is its start


@dataclass
class _Skipped:
    """A :class:`_Skip` as plain data (an exception with its own arguments does not pickle)."""

    size: int
    mtime_ns: int
    reason: str
    error: str | None
    remembered: bool


def prepare_file(path: str, row: dict[str, Any] | None, pending: list[dict[str, Any]]) -> Prepared:
    """Reads and analyses one file as its index ``row`` and ``pending`` calls say it stands (no database:
    this runs in worker processes too)."""
    prepared = Prepared(row, pending)
    try:
        size, mtime_ns, data = _read(path, row)
    except _Skip as skip:
        prepared.skip = _Skipped(skip.size, skip.mtime_ns, skip.reason, skip.error, skip.remembered)
        return prepared
    except Exception as error:
        prepared.unreadable = str(_reason(error))
        return prepared
    if data is None:
        return prepared
    data, prepared.limited = within_lines(data)
    try:
        prepared.work = _plan(path, row, pending, size, mtime_ns, data)
    except Exception as error:  # the analysis never fails on bad input; should it, one file is lost
        prepared.failed = f"{type(error).__name__}: {error}"
    return prepared


def prepare_files(tasks: list[tuple[str, dict[str, Any] | None, list[dict[str, Any]]]]) -> list[Prepared]:
    """:func:`prepare_file` of each (path, row, pending) (one task of a worker process)."""
    return [prepare_file(*task) for task in tasks]
