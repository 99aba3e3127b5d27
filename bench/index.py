"""The session index (analysis/index.py): indexing from scratch, again unchanged, after an append, and queries.

    python bench/index.py                 # over ../shared/corpus/wild/; prints the table
    python bench/index.py --write         # and writes it into docs/benchmarks.md (the session index section)
    python bench/index.py --corpus DIR    # over another folder of rollouts

Each index run is a fresh ``rollout-lsp index`` process (start-up included), as a user runs it; queries are
timed inside one process, with and without opening the database (the language server opens it per request).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.jsonl.lines import split_lines  # noqa: E402
from analysis.reports.index import RolloutIndex  # noqa: E402

WILD = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared")) / "corpus" / "wild"
QUERIES = [
    ("git push", {}),
    ("apply_patch", {}),
    ("git", {"failed": True}),
    ("rg ", {"tool": "exec_command"}),
    ("src/", {"since": "2026-01-01"}),
    ("ls", {}),
    ("", {"limit": 1000}),
]
START, END = "<!-- index results -->", "<!-- end index results -->"


def index_process(folder: Path, db: Path, jobs: int | None = None) -> float:
    """Seconds of one ``rollout-lsp index`` process (``jobs``: its ``--jobs``, else the default)."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "lsp_server",
            "index",
            str(folder),
            "--db",
            str(db),
            *(["--jobs", str(jobs)] if jobs is not None else []),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def appended(folder: Path, work: Path) -> dict:
    """The largest plain rollout, indexed at half its lines, then grown to all of them."""
    largest = max((p for p in folder.rglob("*.jsonl")), key=lambda p: p.stat().st_size)
    data = largest.read_bytes()
    lines = data.split(b"\n")
    half = b"\n".join(lines[: len(lines) // 2]) + b"\n"
    grown = work / "grown"
    grown.mkdir()
    target = grown / largest.name
    target.write_bytes(half)
    db = work / "grown.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(grown)])
    target.write_bytes(data)
    with RolloutIndex.open(db) as index:
        started = time.perf_counter()
        stats = index.update([str(grown)])
        append_s = time.perf_counter() - started
    with RolloutIndex.open(work / "whole.sqlite3") as index:
        started = time.perf_counter()
        index.update([str(grown)])
        whole_s = time.perf_counter() - started
    return {
        "file": largest.name,
        "mb": len(data) / 2**20,
        "lines": len(split_lines(data.decode("utf-8", "replace"))),
        "new_lines": stats.lines_analysed,
        "append_s": append_s,
        "whole_s": whole_s,
    }


def queries(db: Path, repeats: int) -> list[dict]:
    out = []
    for query, options in QUERIES:
        with RolloutIndex.open_existing(db) as index:
            hits = len(index.search(query, **options))
            warm = []
            for _ in range(repeats):
                started = time.perf_counter()
                index.search(query, **options)
                warm.append(time.perf_counter() - started)
        opened = []
        for _ in range(repeats):
            started = time.perf_counter()
            with RolloutIndex.open_existing(db) as index:
                index.search(query, **options)
            opened.append(time.perf_counter() - started)
        label = (query or '""') + "".join(f" --{k} {v}" if v is not True else f" --{k}" for k, v in options.items())
        out.append(
            {
                "query": label,
                "hits": hits,
                "median_ms": statistics.median(warm) * 1000,
                "p95_ms": _p95(warm) * 1000,
                "max_ms": max(warm) * 1000,
                "open_median_ms": statistics.median(opened) * 1000,
                "open_p95_ms": _p95(opened) * 1000,
                "open_max_ms": max(opened) * 1000,
            }
        )
    return out


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[18]


def report(
    folder: Path,
    scratch: list[float],
    again: list[float],
    unchanged_s: float,
    files: int,
    calls: int,
    size_mb: float,
    db_mb: float,
    grown: dict,
    found: list[dict],
    one_core: list[float],
) -> str:
    ratio = statistics.median(again) / statistics.median(scratch)
    rate = size_mb / statistics.median(one_core)
    lines = [
        f"Machine: {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end: other work shared "
        f"them), Linux {platform.release()}, CPython {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}. Corpus: `{folder.name}/` ({files} rollouts, {size_mb:.1f} MB of 2^20 bytes, "
        f"{calls} tool calls; index {db_mb:.1f} MB).",
        "",
        "| measure | median | runs | target | met |",
        "|---|---|---|---|---|",
        f"| `rollout-lsp index --jobs 1` from scratch (process, one core) | {statistics.median(one_core):.2f} s, "
        f"{rate:.1f} MB/s | {len(one_core)} | ≥ 20 MB/s (issue 25) | {'yes' if rate >= 20 else 'no'} |",
        f"| `rollout-lsp index` from scratch (process, `--jobs {os.cpu_count()}`, the default) | "
        f"{statistics.median(scratch):.2f} s, {size_mb / statistics.median(scratch):.1f} MB/s | {len(scratch)} | | |",
        f"| `rollout-lsp index` again, nothing changed (process) | {statistics.median(again):.3f} s | {len(again)} | "
        f"a small fraction of the first | {ratio:.1%} of it |",
        f"| the same, inside the process (no start-up, no imports) | {unchanged_s * 1000:.1f} ms | 1 | | |",
        f"| a {grown['mb']:.1f} MB rollout grown from half its lines to all {grown['lines']}: append | "
        f"{grown['append_s']:.2f} s ({grown['new_lines']} lines read) | 1 | less than reading it whole | "
        f"{'yes' if grown['append_s'] < grown['whole_s'] else 'no'} ({grown['whole_s']:.2f} s whole) |",
        "",
        "Queries, 50 times each, in one process; then opening the database and querying, 50 times (what the "
        "server does for each `workspace/symbol`). The target is on the p95 of the second.",
        "",
        "| query | hits | median | p95 | max | opening and query: median | p95 | max | target | met |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for q in found:
        met = "yes" if q["open_p95_ms"] < 50 else "no"
        lines.append(
            f"| `{q['query']}` | {q['hits']} | {q['median_ms']:.2f} ms | {q['p95_ms']:.2f} ms | "
            f"{q['max_ms']:.2f} ms | {q['open_median_ms']:.2f} ms | {q['open_p95_ms']:.2f} ms | "
            f"{q['open_max_ms']:.2f} ms | < 50 ms p95 | {met} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=WILD)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    folder = args.corpus.resolve()
    if not folder.is_dir():
        sys.exit(f"no corpus at {folder}")
    work = Path(tempfile.mkdtemp(prefix="rollout-index-bench-"))
    try:
        scratch, again, one_core = [], [], []
        for run in range(args.runs):  # one core and the default in turn, each into a fresh database
            one_core.append(index_process(folder, work / f"one{run}.sqlite3", jobs=1))
            db = work / f"run{run}.sqlite3"
            scratch.append(index_process(folder, db))
            again.append(index_process(folder, db))
        with RolloutIndex.open(work / "run0.sqlite3") as index:
            files, calls = index.count()
            unchanged_s = index.update([str(folder)]).seconds
        size_mb = sum(p.stat().st_size for p in folder.rglob("*.jsonl*")) / 2**20
        db_mb = sum(p.stat().st_size for p in work.glob("run0.sqlite3*")) / 2**20
        grown = appended(folder, work)
        found = queries(work / "run0.sqlite3", repeats=50)
        table = report(folder, scratch, again, unchanged_s, files, calls, size_mb, db_mb, grown, found, one_core)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table)
    if args.write:
        doc = ROOT / "docs" / "benchmarks.md"
        text = doc.read_text()
        head, rest = text.split(START)
        doc.write_text(head + START + "\n" + table + END + rest.split(END, 1)[1])


if __name__ == "__main__":
    main()
