"""Where `rollout-lsp index --jobs 1` spends its CPU: the analysis, the rows made from it, and the rest.

    python bench/index_split.py [--runs 3] [FOLDER]      # FOLDER: ../shared/corpus/wild by default

In one process, best of ``--runs`` (CPU time, ``time.process_time``): (1) each file decoded and analysed as
the index analyses it (``planning._analyse``: no secret scan, no unknown-record findings); (2) ``prepare_file`` of each file, what a worker
does (reading, the analysis, and the rows of calls, changes, usage and the session); then (3) the whole
``index --jobs 1`` process into a fresh database (start-up, writing and the full-text index too), as
``bench/versus.py`` measures it.  (2) − (1) is what the index does per file beyond the analysis; (3) − (2)
is the process's start-up and the database.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.jsonl.source import decode  # noqa: E402
from analysis.reports.index.planning import _analyse  # noqa: E402
from analysis.reports.index.workers import prepare_file  # noqa: E402


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


def process_cpu(folder: str) -> float:
    with tempfile.TemporaryDirectory(prefix="index-split-") as temp:
        child = subprocess.Popen(
            [sys.executable, "-m", "lsp_server", "index", folder, "--db", str(Path(temp) / "i.sqlite3"), "--jobs", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folder",
        nargs="?",
        default=str(Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared")) / "corpus" / "wild"),
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.folder, "**", "*.jsonl"), recursive=True))
    size = sum(os.path.getsize(f) for f in files) / 1e6

    def analyse() -> None:
        for path in files:
            with open(path, "rb") as handle:
                _analyse(decode(path, handle.read()).text)

    def prepare() -> None:
        for path in files:
            prepare_file(path, None, [])

    analysis = best(args.runs, analyse)
    prepared = best(args.runs, prepare)
    whole = min(process_cpu(args.folder) for _ in range(args.runs))
    print(f"{len(files)} files, {size:.1f} MB, best of {args.runs} (CPU-s)")
    print(
        f"analysis {analysis:.2f} | rows beyond it {prepared - analysis:.2f} | start-up and database {whole - prepared:.2f}"
    )
    print(f"whole `index --jobs 1` process {whole:.2f}: {size / whole:.1f} MB per CPU-second")


if __name__ == "__main__":
    main()
