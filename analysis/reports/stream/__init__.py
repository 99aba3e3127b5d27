"""A rollout analysed as it is read, in memory that does not grow with the file (``check``, ``census``,
``outline --json``), with exactly the results of the whole-file analysis (:func:`analysis.session.rollout.analyze_text`).

Lines are read one at a time (:mod:`analysis.jsonl.line_stream`) in chunks.  Each line is analysed on its own
(:func:`analyze_line`, in worker processes for a large file) and *thinned* to what pairing needs: no script
text, escape map, decoded output or record payload (:func:`thin`, by the declared streaming contract).  The main process keeps a *window* of the
lines not settled yet and pairs it with the whole-file code (:func:`analysis.session.rollout.link_records`).  After
each chunk the window's settled prefix is reported (findings with their ranges, calls) and dropped.

A line is settled when nothing still to come should change what is said about it: every call before the cut
has its output, its continuations (``wait`` / ``write_stdin``) and its events before the cut, no output or
event before it waits for a call yet, and the last ``MARGIN`` lines always wait.  Settling is a bet on the
rest of the file, and it is checked: every later line that refers back to a settled one (an output, event or
call with a settled ``call_id``, a ``wait`` on a settled cell, a nested event while a settled script had no
output, web searches paired by distance) makes the file be analysed whole instead (:func:`.reading._whole`), so the
result is always the whole-file one.  Lines unsettled for ``FORCE_LINES`` lines are settled anyway (memory
stays bounded) and are checked the same way.

The package, along its seams: :mod:`.thinning` (what a line's analysis keeps, the streaming contract),
:mod:`.window` (settling), :mod:`.collect` (what the caller is given), :mod:`.sparse` (the records session counts
read), :mod:`.reading` (chunks, worker processes, the whole-file fallback).
"""

from __future__ import annotations

from ...jsonl.line_stream import Unreadable
from .collect import Ranges, Reports, Sink, Streamed
from .reading import CHUNK_CHARS, FORCE_LINES, MARGIN, PARALLEL_BYTES, parallel_worth_it, stream_rollout
from .thinning import DROPPED, KEPT, THINNED, ChunkFacts, RecordStub, analyze_chunk, thin

__all__ = [
    "CHUNK_CHARS",
    "ChunkFacts",
    "DROPPED",
    "FORCE_LINES",
    "KEPT",
    "MARGIN",
    "PARALLEL_BYTES",
    "Ranges",
    "RecordStub",
    "Reports",
    "Sink",
    "Streamed",
    "THINNED",
    "Unreadable",
    "analyze_chunk",
    "parallel_worth_it",
    "stream_rollout",
    "thin",
]
