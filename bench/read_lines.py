"""Reading lines alone (issue 25, point 3): every file below a folder read through ``read_lines``, best of N.

    PYTHONPATH=TREE python bench/read_lines.py [FOLDER] [--repeat 5]

Prints two times in ms, each the best of ``--repeat`` runs over every file: ``lines``, every line of every file
read (what ``census`` and ``index`` read of a file); ``check``, what ``check`` read of each file besides the
stream itself, and the stream: before issue 25 the first 20 lines (is it an invocation log?), the whole file,
then the first 16 lines again (its parent references); after it, the whole file once (``check`` streams on from
the head it read).  Run it with ``PYTHONPATH`` set to the tree whose reader is measured.
"""

from __future__ import annotations

import argparse
import glob
import inspect
import os
import time
from itertools import islice

from analysis.cli import check
from analysis.jsonl.line_stream import read_lines

SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "corpus", "wild")


def read_all(paths: list[str]) -> None:
    for path in paths:
        for _ in read_lines(path):
            pass


def read_as_check(paths: list[str]) -> None:
    head_read_once = "lines=chain(head, lines)" in inspect.getsource(check)
    for path in paths:
        if head_read_once:
            for _ in read_lines(path):
                pass
            continue
        list(islice(read_lines(path), 20))
        for _ in read_lines(path):
            pass
        list(islice(read_lines(path), 16))


def best(run, paths: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run(paths)
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=SHARED)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    paths = sorted(
        glob.glob(os.path.join(args.folder, "**", "*.jsonl"), recursive=True)
        + glob.glob(os.path.join(args.folder, "**", "*.jsonl.zst"), recursive=True)
    )
    size = sum(os.path.getsize(p) for p in paths)
    read_all(paths)  # the page cache warm for both
    print(
        f"{len(paths)} files, {size / 1e6:.1f} MB: lines {best(read_all, paths, args.repeat):.0f} ms, "
        f"check {best(read_as_check, paths, args.repeat):.0f} ms"
    )


if __name__ == "__main__":
    main()
