"""Where `rollout-lsp check --jobs 1` spends its time: a cProfile of the whole process, top functions by own time.

    python bench/profile_check.py [FILE...] [--top 10]

By default on bench's generated dense rollout (20 MB, ``bench/corpus.py``, seed 1, the ``dense`` input of
``bench/versus.py``).  The process runs under cProfile timed by the process's CPU clock (``time.process_time``;
start-up, reading, analysis and the JSON written, all in one process with ``--jobs 1``); the table gives each function's own time (``tottime``) and its
share of the profile's total, with the number of calls.  cProfile's overhead falls most on small functions
called often, so shares are a guide to where the time goes, not exact CPU.
"""

from __future__ import annotations

import argparse
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.run import MB, corpus_file  # noqa: E402

# cProfile with the process's CPU clock (not its default wall clock, which counts the time other processes of a
# loaded machine hold the cores): the main thread's work, as with ``--jobs 1`` all of it is
_RUN = """
import cProfile, runpy, sys, time
sys.argv = {arguments!r}
profiler = cProfile.Profile(time.process_time)
try:
    profiler.runcall(runpy.run_module, "lsp_server", run_name="__main__")
except SystemExit:
    pass
profiler.dump_stats({out!r})
"""


def top(files: list[str], count: int) -> tuple[float, list[tuple[str, int, float, float]]]:
    with tempfile.TemporaryDirectory(prefix="profile-check-") as temp:
        out = Path(temp) / "check.prof"
        arguments = ["rollout-lsp", "check", "--json", "--jobs", "1", *files]
        program = _RUN.format(out=str(out), arguments=arguments)
        subprocess.run([sys.executable, "-c", program], cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        stats = pstats.Stats(str(out))
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:count]  # type: ignore[attr-defined]
    named = []
    for (path, line, name), (_, calls, own, _, _) in rows:
        where = name if path == "~" else f"{Path(path).parent.name}/{Path(path).name}:{line} {name}"
        named.append((where, calls, own, own / total * 100))
    return total, named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    files = args.files or [str(corpus_file(20 * MB))]
    total, rows = top(files, args.top)
    print(
        f"Profiled CPU time in all: {total:.2f} s (cProfile's overhead included); the top {len(rows)} hold "
        f"{sum(row[3] for row in rows):.0f}% of it.\n"
    )
    print("| function | calls | own CPU time | share |")
    print("|---|---|---|---|")
    for where, calls, own, share in rows:
        print(f"| `{where}` | {calls:,} | {own:.2f} s | {share:.1f}% |")


if __name__ == "__main__":
    main()
