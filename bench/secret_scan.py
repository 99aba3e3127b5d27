"""The secret scan alone: ``find_secrets`` over every line ``check`` searches, best of N runs.

    python bench/secret_scan.py [--runs N] [PATH…]    # default: ../shared/corpus/wild

Lines are read as ``check`` reads them (``read_lines``) and skipped as ``analyze_line`` skips them (a large
compacted record).  Prints the lines, the characters, the best time, and how many lines the exact patterns
ran on (with the prefilter: the lines it let through; without one: the lines holding a pattern's needle).
Run it with ``PYTHONPATH`` pointing at another checkout to time that checkout's scan.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

from analysis.jsonl import secrets  # noqa: E402
from analysis.jsonl.line_stream import read_lines  # noqa: E402
from analysis.jsonl.source import rollout_files  # noqa: E402
from analysis.session.compaction import LARGE_LINE, is_compacted_line  # noqa: E402

SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))


def scanned_lines(paths: list[str]) -> list[str]:
    out = []
    for path in rollout_files(paths):
        for line, _ in read_lines(path):
            if line.strip() and not (len(line) > LARGE_LINE and is_compacted_line(line)):
                out.append(line)
    return out


def exact_lines(lines: list[str]) -> int:
    """Lines the exact patterns run on: the prefilter's verdict where there is one, else the needles'."""
    candidates = getattr(secrets, "candidates", None)
    if candidates is not None:
        return sum(1 for line in lines if candidates(line))
    needles = [p.needle for p in secrets.BUILTIN_PATTERNS]
    return sum(1 for line in lines if any(n in line for n in needles))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("paths", nargs="*", default=[str(SHARED / "corpus" / "wild")])
    args = parser.parse_args()
    lines = scanned_lines(args.paths)
    find = secrets.find_secrets
    best = float("inf")
    found = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        found = sum(len(find(line)) for line in lines)
        best = min(best, time.perf_counter() - start)
    print(
        f"{secrets.__file__}: {len(lines)} lines, {sum(map(len, lines))} characters, {found} secrets, "
        f"best of {args.runs}: {best * 1000:.0f} ms; exact scan on {exact_lines(lines)} lines"
    )


if __name__ == "__main__":
    main()
