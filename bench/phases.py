"""Where `rollout-lsp check` spends its time, by phase: each function's own time (cProfile) summed by the
phase its module belongs to, as shares of the whole process.

    python bench/phases.py [FILE …]     # default: ../shared/corpus/wild/*.jsonl; one process, --jobs 1

Run it with ``PYTHONPATH`` at a worktree of another commit to compare before and after (docs/benchmarks.md).
"""

from __future__ import annotations

import cProfile
import glob
import io
import pstats
import sys
from contextlib import redirect_stdout
from pathlib import Path

WILD = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "wild"

# (phase, what a function's file name or function name holds), first match wins
PHASES = [
    ("start-up and imports", ("<frozen importlib", "importlib", "<frozen zipimport", "site.py", "argparse")),
    ("reading and decoding lines", ("line_stream.py", "source.py", "lines.py", "'decode' of 'bytes'", "codecs")),
    ("secret scan", ("secrets.py", "pattern_set.py", "re2")),
    ("JSON decode", ("json/decoder.py", "json/__init__.py", "scanstring")),
    ("escape map and span of each script", ("jsonspans.py", "positions.py")),
    ("tree-sitter parse and query (C)", ("tree_sitter.Parser", "QueryCursor", "tree_sitter.Query")),
    ("strict-module check", ("module_syntax.py", "syntax_problem.py", "esprima")),
    ("per-script Python analysis", ("/analysis/script/", "tree_sitter.Node")),
    (
        "record shapes, outputs, events, stream pairing",
        ("/analysis/session/", "/analysis/reports/", "copies.py", "dataclasses.py"),
    ),
    ("findings and report", ("/analysis/cli/", "/analysis/jsonl/", "display.py")),
]


def phase_of(file: str, function: str) -> str:
    where = f"{file}:{function}"
    for phase, marks in PHASES:
        if any(mark in where for mark in marks):
            return phase
    return "other (builtins, containers, regex)"


def shares(files: list[str]) -> list[tuple[str, float, float]]:
    """(phase, seconds of own time, share) for one `check --json --jobs 1` of ``files``, in this process."""
    from lsp_server.__main__ import main

    profiler = cProfile.Profile()
    with redirect_stdout(io.StringIO()):
        profiler.runcall(main, ["check", "--json", "--jobs", "1", *files])
    stats = pstats.Stats(profiler)
    totals: dict[str, float] = {}
    for (file, _, function), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        phase = phase_of(file, function)
        totals[phase] = totals.get(phase, 0.0) + own
    whole = sum(totals.values())
    return sorted(((p, s, s / whole) for p, s in totals.items()), key=lambda row: -row[1])


def main() -> None:
    files = sys.argv[1:] or sorted(glob.glob(str(WILD / "*.jsonl")))
    rows = shares(files)
    print(f"{len(files)} files; own time under cProfile, by phase:")
    for phase, seconds, share in rows:
        print(f"  {phase:<50} {seconds:6.3f} s  {share * 100:5.1f} %")


if __name__ == "__main__":
    main()
