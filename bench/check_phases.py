"""Where the whole `check --json --jobs 1` process spends its CPU (issue 35, point 1): start-up, the command's
imports, the per-line analysis, the window, the rest of the reading, the output, and the garbage collector.

    python bench/check_phases.py [FILE...] [--runs 3] [--lines] [--commit C]

By default on ``../shared/corpus/wild``'s rollouts.  Each run is a fresh process of this checkout's code (or of
commit ``C``'s, in a temporary worktree), its bytecode compiled as an install's is (``bench/same_outputs.py``'s
``checkout``, as ``bench/ab_cpu.py`` runs), with CPU timers (``time.process_time``) around a few functions
called once per chunk or per file, so the timers cost nothing measurable; medians of ``--runs``.  The rows add
up to the process's CPU.  With ``--lines``, the same lines are also analysed in one process in two orders,
alternating, to tell whether the stream's order costs more than the batches by kind ``bench/line_kinds.py``
adds up: as the stream reads them (file by file, in chunks), and grouped by kind, with the sum of each kind's
best run beside them (how ``line_kinds`` totals its table).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.run import WILD  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402

_CHILD = r"""
import gc, json, os, sys, time
pt = time.process_time
acc = {"gc": 0.0, "gc_count": 0}
marks = {}
def wrap(owner, name, key):
    function = getattr(owner, name)
    def timed(*a, **k):
        start = pt()
        try:
            return function(*a, **k)
        finally:
            acc[key] = acc.get(key, 0.0) + pt() - start
    setattr(owner, name, timed)
gc_start = [0.0]
def collected(phase, info):
    if phase == "start":
        gc_start[0] = pt()
    else:
        acc["gc"] += pt() - gc_start[0]
        acc["gc_count"] += 1
import lsp_server.__main__ as entry
import analysis.cli as cli
build = cli.build_parser
def built(*a, **k):
    parser = build(*a, **k)
    marks["imports"] = pt()
    import analysis.cli.check as check
    import analysis.reports.stream.reading as reading
    import analysis.reports.stream.window as window
    wrap(reading, "analyze_chunk", "lines")
    wrap(window._Stream, "take", "window")
    wrap(window._Stream, "finish", "window")
    wrap(reading, "_whole", "whole")
    wrap(check, "_findings", "files")
    wrap(check.json, "dumps", "output")
    return parser
cli.build_parser = built
sys.argv = ["rollout-lsp", "check", "--json", "--jobs", "1", *FILES]
marks["main"] = pt()
gc.callbacks.append(collected)
with open(os.devnull, "w") as sink:
    sys.stdout = sink
    try:
        entry.main()
    except SystemExit:
        pass
    sys.stdout = sys.__stdout__
marks["end"] = pt()
print(json.dumps({**acc, **marks}))
"""

_LINES = r"""
import gc, glob, json, statistics, sys, time
from collections import defaultdict
from line_kinds import clear_caches, kind_of
from analysis.cli import tune_gc
from analysis.jsonl.line_stream import read_lines
from analysis.reports.stream.reading import CHUNK_CHARS, _chunks
from analysis.reports.stream.thinning import analyze_chunk
tune_gc()
gc.freeze()
pt = time.process_time
chunks = [texts for path in FILES for texts, _ in _chunks(read_lines(path), CHUNK_CHARS)]
by_kind = defaultdict(list)
for texts in chunks:
    for line in texts:
        by_kind[kind_of(line)].append(line)
def stream():
    for texts in chunks:
        analyze_chunk(texts)
def kinds():
    for lines in by_kind.values():
        analyze_chunk(lines)
times = defaultdict(list)
best = {}
for _ in range(RUNS):
    for name, function in (("stream", stream), ("kinds", kinds)):
        clear_caches()
        gc.collect()
        start = pt()
        function()
        times[name].append(pt() - start)
    for kind, lines in by_kind.items():
        clear_caches()
        start = pt()
        analyze_chunk(lines)
        best[kind] = min(best.get(kind, 1e9), pt() - start)
print(json.dumps({
    "lines": sum(map(len, chunks)),
    "stream": statistics.median(times["stream"]),
    "kinds": statistics.median(times["kinds"]),
    "stream_min": min(times["stream"]),
    "kinds_min": min(times["kinds"]),
    "sum_of_best": sum(best.values()),
}))
"""


def _run(program: str, tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    # bench/line_kinds.py is this checkout's (a commit before it has none): its directory is put on the path
    program = f"import sys; sys.path.append({str(HERE)!r})\n" + program
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lines", action="store_true", help="also the lines' two orders, in one process")
    parser.add_argument("--commit", help="measure this commit's code (default: this working tree)")
    args = parser.parse_args()
    files = args.files or [str(p) for p in sorted(WILD.glob("*.jsonl"))]
    with checkout(args.commit) as tree:
        report(files, args, tree)


def report(files: list[str], args: argparse.Namespace, tree: Path) -> None:
    runs = [_run(f"FILES = {files!r}\n" + _CHILD, tree) for _ in range(args.runs)]
    rows = []
    for r in runs:
        files_cpu = r["files"]
        rows.append(
            {
                "interpreter and entry point": r["main"],
                "the command's imports (parser built)": r["imports"] - r["main"],
                "per-line analysis (analyze_chunk)": r["lines"],
                "window: pairing, settling, findings (take, finish)": r["window"],
                "whole-file fallback": r.get("whole", 0.0),
                "reading, chunking, head, parents (rest of the files)": files_cpu
                - r["lines"]
                - r["window"]
                - r.get("whole", 0.0),
                "output (the JSON written)": r.get("output", 0.0),
                "rest (arguments, files found, exit)": r["end"] - r["imports"] - files_cpu - r.get("output", 0.0),
                "whole process": r["end"],
            }
        )
    print(f"`check --json --jobs 1` of {len(files)} files, {args.commit or 'this tree'}, medians of {args.runs} runs\n")
    print("| phase | CPU | share |")
    print("|---|---|---|")
    total = statistics.median(row["whole process"] for row in rows)
    for name in rows[0]:
        value = statistics.median(row[name] for row in rows)
        print(f"| {name} | {value:.3f} s | {value / total * 100:.0f}% |")
    collections = statistics.median(r["gc_count"] for r in runs)
    print(
        f"\ngarbage collections after the entry point: {collections:.0f} "
        f"({statistics.median(r['gc'] for r in runs) * 1000:.1f} ms)"
    )
    if args.lines:
        r = _run(f"FILES = {files!r}\nRUNS = {max(args.runs, 5)}\n" + _LINES, tree)
        print(f"\nthe same {r['lines']:,} lines in one process, {max(args.runs, 5)} rounds alternating (CPU-s):\n")
        print("| order | median | best |")
        print("|---|---|---|")
        print(f"| as the stream reads them (file by file, in chunks) | {r['stream']:.3f} | {r['stream_min']:.3f} |")
        print(f"| grouped by kind (one batch a kind) | {r['kinds']:.3f} | {r['kinds_min']:.3f} |")
        print(f"| sum of each kind's best batch (line_kinds' total) | | {r['sum_of_best']:.3f} |")


if __name__ == "__main__":
    main()
