"""Reading a file as a stream: its lines in chunks, analysed (in worker processes for a large file), through
the window; or, when a line refers back to a settled one, the whole-file analysis (:func:`_whole`)."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ...jsonl.findings import Finding
from ...jsonl.limits import capped
from ...jsonl.line_stream import RawLine, Unreadable, opened, read_lines, read_raw_lines, reason
from ...jsonl.positions import PositionEncoding
from ...jsonl.source import STDIN, decode, decompressed_if_zstd, load, within_lines
from ...session.finish import sorted_findings
from ...session.record_analysis import LineAnalysis
from ...session.rollout import LineCache, analyze_text
from ...session.turns import scan_turns
from .collect import Reports, Sink, Streamed, _ReferredBack
from .thinning import ChunkFacts, analyze_chunk
from .window import _Stream

if TYPE_CHECKING:
    from concurrent.futures import Executor

MARGIN = 64  # lines at the end of the window that always wait (an event may follow its call's output)
FORCE_LINES = 20_000  # a line unsettled this many lines ago is settled anyway (and checked)
CHUNK_CHARS = 1 << 20  # a chunk of lines is about this many characters
# and holds at most this many lines: a line's analysis costs about 1 KB whatever its length, so a chunk of
# short lines (a bomb of `{}` lines, 2 characters each) must not hold half a million of them
CHUNK_LINES = 8192
PARALLEL_BYTES = 2 << 20  # a file this large is worth analysing in worker processes
_WEB_SEARCH = "web_search"  # in a web search's call or its end event: a file whose stream may turn to the whole


def _chunks(lines: Iterator[RawLine], chunk_chars: int) -> Iterator[tuple[list[str], list, list[bytes | None]]]:
    texts: list[str] = []
    bad: list[Finding | None] = []
    encoded: list[bytes | None] = []  # each line's UTF-8 as the file holds it: the secret prefilter reads it
    size = 0
    for text, finding, raw in lines:
        texts.append(text)
        bad.append(finding)
        encoded.append(raw)
        size += len(text)
        if size >= chunk_chars or len(texts) >= CHUNK_LINES:
            yield texts, bad, encoded
            texts, bad, encoded, size = [], [], [], 0
    if texts:
        yield texts, bad, encoded


def _analysed(
    chunks: Iterator[tuple[list[str], list, list[bytes | None]]],
    pool: Executor | None,
    jobs: int,
    sessions: bool,
    first: list[LineCache] | None = None,
) -> Iterator[tuple[list[str], list, ChunkFacts]]:
    """Chunks with their thin analyses, in order; with a pool, a few chunks ahead in its workers.  ``first``
    (without a pool) is given a cache of the whole analyses of the first chunk when it names a web search, and
    emptied when the second comes: should a line refer back to a settled one while only that chunk was read (a
    small file, most often: web searches paired by distance, the usual reason), the whole-file analysis finds
    its lines analysed already.  Any other chunk is read lean (``analyze_chunk`` without ``full``), which costs
    less than a whole analysis thinned: a file that refers back without a web search is analysed whole
    again."""
    if pool is None:
        for number, (texts, bad, encoded) in enumerate(chunks):
            full: list[LineAnalysis] | None = (
                [] if first is not None and number == 0 and any(_WEB_SEARCH in text for text in texts) else None
            )
            if first is not None and number == 1:
                first.clear()  # memory stays bounded: a large file's fallback analyses every line again
            facts = analyze_chunk(texts, sessions, full, encoded)
            if first is not None and full is not None:
                cache = LineCache()
                cache.fill(texts, full)
                first.append(cache)
            del full
            yield texts, bad, facts
        return
    pending: deque = deque()
    for texts, bad, _ in chunks:  # the bytes stay here: the workers would be sent every line twice
        pending.append((texts, bad, pool.submit(analyze_chunk, texts, sessions)))
        if len(pending) > jobs * 2:
            texts, bad, future = pending.popleft()
            yield texts, bad, future.result()
    while pending:
        texts, bad, future = pending.popleft()
        yield texts, bad, future.result()


def stream_rollout(
    path: str,
    encoding: PositionEncoding = PositionEncoding.UTF16,
    make_sink: Callable[[], Sink] | None = None,
    sessions: bool = False,
    pool: Executor | None = None,
    jobs: int = 1,
    margin: int = MARGIN,
    force_lines: int = FORCE_LINES,
    chunk_chars: int = CHUNK_CHARS,
    turns: bool = False,
    lines: Iterator[RawLine] | None = None,
) -> Streamed:
    """Findings (and, to ``make_sink()``'s sink, records and calls) of the rollout at ``path`` (``-``: standard
    input), exactly as the whole-file analysis gives them; with ``turns``, its turns too (read in a second, light
    pass: a turn spans windows).  ``lines``: its lines as :func:`read_raw_lines` gives them, when the caller has
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
                lines = read_raw_lines(readable, name, sniff)
            for texts, bad, facts in _analysed(
                _chunks(lines, chunk_chars), pool, jobs, sessions, None if pool is not None else first
            ):
                state.take(texts, bad, facts, base)
                base += len(texts)
            state.finish(result)
            if turns:
                result.turns = scan_turns(line for line, _ in read_lines(readable, name, sniff))
            return result
        except _ReferredBack as back:
            why = str(back)
        del state, result
        return _whole(
            path, readable, name, sniff, encoding, make_sink() if make_sink else None, why, first[0] if first else None
        )


def _whole(
    path: str,
    readable: str,
    name: str,
    sniff: bool,
    encoding: PositionEncoding,
    sink: Sink | None,
    why: str,
    cache: LineCache | None = None,
) -> Streamed:
    """The whole-file analysis (as ``check`` read every file before), given as a streamed one; ``cache``: the
    lines analysed already (a line's analysis depends on its text alone)."""
    if sniff:  # standard input, copied to ``readable``
        try:
            with open(readable, "rb") as handle:
                data = handle.read()
            loaded = within_lines(decode(path, decompressed_if_zstd(data)))
        except Exception as error:
            raise Unreadable(f"cannot read {name}: {reason(error)}") from error
    else:
        loaded = load(readable)
        if loaded.error:
            raise Unreadable(loaded.error)
    analysis = analyze_text(loaded.text, cache)
    findings = capped(sorted_findings(loaded.findings, analysis.findings))  # analysis.jsonl.limits
    result = Streamed(
        path,
        Reports([(f, analysis) for f in findings], encoding),
        len(analysis.lines),
        analysis.lines[-1] == "",
        analysis.is_rollout,
        whole=why,
        sink=sink,
        sessions=analysis,
        turns=analysis.turns,
    )
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


__all__ = ["CHUNK_CHARS", "FORCE_LINES", "MARGIN", "PARALLEL_BYTES", "parallel_worth_it", "stream_rollout"]
