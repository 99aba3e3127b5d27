"""What one line costs, by kind (issue 35, point 1): the CPU time of ``analyze_line`` (the whole analysis) and of
the stream's per-line work (``thinning.analyze_chunk``: each line read and thinned, unknown types) for each kind of
line of a corpus, and the stages of a streamed ``check`` beside them (reading lines, analysing chunks, the window:
``window._Stream.take``/``finish``).

    PYTHONPATH=TREE python bench/line_kinds.py [FOLDER] [--repeat 5] [--top 14]

A line's kind is its record's: a ``response_item`` by its payload's type, an ``event_msg`` by its event's
(``event_msg/token_count``), any other by its envelope's type.  Each kind's lines are analysed as one batch, timed
by the process's CPU clock (``time.process_time``), best of ``--repeat``; µs per line and the kind's share of the
lines' total.  Run it with ``PYTHONPATH`` set to the tree whose code is measured (run it on both trees, one after
the other, a few times: other processes' load moves single runs).
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import os
import sys
import time
from collections import defaultdict
from functools import partial

from analysis.jsonl.line_stream import read_lines, read_raw_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.reports.stream.collect import Streamed
from analysis.reports.stream.reading import CHUNK_CHARS, FORCE_LINES, MARGIN, _chunks
from analysis.reports.stream.thinning import analyze_chunk
from analysis.reports.stream.window import _Stream
from analysis.session.record_analysis import analyze_line

WILD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "corpus", "wild")


def kind_of(line: str) -> str:
    try:
        value = json.loads(line)
    except ValueError:
        return "invalid" if line.strip() else "blank"
    if not isinstance(value, dict):
        return "other"
    kind, payload = value.get("type"), value.get("payload")
    if kind in ("response_item", "event_msg") and isinstance(payload, dict):
        sub = payload.get("type")
        return f"{kind}/{sub}" if isinstance(sub, str) else str(kind)
    return str(kind)


def clear_caches() -> None:
    """Empties every ``functools`` cache of the analysis (the strict-module check's, literals'): each run is
    measured as a first reading of the lines."""
    for name, module in list(sys.modules.items()):
        if name.startswith("analysis."):
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        clear_caches()
        gc.collect()
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=WILD)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--top", type=int, default=14)
    args = parser.parse_args()
    gc.set_threshold(100_000, 50, 100)  # as the command line runs (analysis.cli)
    paths = sorted(glob.glob(os.path.join(args.folder, "**", "*.jsonl"), recursive=True))
    files = [[line for line, _ in read_lines(p)] for p in paths]
    by_kind: dict[str, list[str]] = defaultdict(list)
    for lines in files:
        for line in lines:
            by_kind[kind_of(line)].append(line)
    total_lines = sum(len(v) for v in by_kind.values())

    def analyse(lines: list[str]) -> None:
        for line in lines:
            analyze_line(line)

    rows = []
    for kind, lines in by_kind.items():
        a = best(partial(analyse, lines), args.repeat)
        t = best(partial(analyze_chunk, lines), args.repeat)
        rows.append((kind, len(lines), a, t))
    rows.sort(key=lambda r: r[3], reverse=True)
    all_a = sum(r[2] for r in rows)
    all_t = sum(r[3] for r in rows)
    print(f"{len(paths)} files, {total_lines:,} lines; analyze_line {all_a:.3f} s, analyze_chunk {all_t:.3f} s\n")
    print("| kind | lines | analyze_line µs/line | analyze_chunk µs/line | share of analyze_chunk's CPU |")
    print("|---|---|---|---|---|")
    for kind, n, a, t in rows[: args.top]:
        print(f"| {kind} | {n:,} | {a / n * 1e6:.1f} | {t / n * 1e6:.1f} | {t / all_t * 100:.1f}% |")
    rest = rows[args.top :]
    if rest:
        n = sum(r[1] for r in rest)
        t = sum(r[3] for r in rest)
        print(
            f"| {len(rest)} other kinds | {n:,} | {sum(r[2] for r in rest) / n * 1e6:.1f} | {t / n * 1e6:.1f} | {t / all_t * 100:.1f}% |"
        )

    def read_all() -> None:
        for p in paths:
            for _ in read_lines(p):
                pass

    def chunks_all() -> list:
        out = []
        for p in paths:
            for texts, bad, encoded in _chunks(read_raw_lines(p), CHUNK_CHARS):
                out.append((p, texts, bad, analyze_chunk(texts, encoded=encoded)))
        return out

    analysed = chunks_all()

    def windows() -> None:
        from analysis.reports.stream.collect import _ReferredBack

        by_path: dict[str, list] = defaultdict(list)
        for p, texts, bad, facts in analysed:
            by_path[p].append((texts, bad, facts))
        for p, chunks in by_path.items():
            state = _Stream(PositionEncoding.UTF16, None, False, MARGIN, FORCE_LINES)
            base = 0
            try:
                for texts, bad, facts in chunks:
                    state.take(texts, bad, facts, base)
                    base += len(texts)
                state.finish(Streamed(p))
            except _ReferredBack:
                pass

    print("\n| stage (all files) | CPU |")
    print("|---|---|")
    print(f"| reading lines | {best(read_all, args.repeat):.3f} s |")
    print(f"| reading + analyze_chunk | {best(chunks_all, args.repeat):.3f} s |")
    print(f"| the window (take, link, settle, finish) | {best(windows, args.repeat):.3f} s |")


if __name__ == "__main__":
    main()
