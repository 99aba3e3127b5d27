"""`check --json` of two commits side by side with the acorn reader: medians of runs taken in turn.

    python bench/versus.py BASE [HEAD]    # HEAD: a commit, or omitted for the working tree

On ``../shared/corpus/wild`` (when at hand) and on bench's generated dense rollout (20 MB, made once). Each
commit runs from a temporary worktree with this checkout's Python environment (as ``bench/same_outputs.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.run import MB, WILD, corpus_file  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402


def seconds(command: list[str], tree: Path | None = None) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree)) if tree is not None else None
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, env=env, cwd=tree or HERE)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("head", nargs="?")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    inputs = [("dense rollout (20 MB)", [str(corpus_file(20 * MB))])]
    if WILD.is_dir():
        inputs.insert(
            0,
            (
                f"{WILD.name}/ ({len(list(WILD.glob('*.jsonl')))} rollouts)",
                sorted(str(p) for p in WILD.glob("*.jsonl")),
            ),
        )
    with checkout(args.base) as base, checkout(args.head) as head:
        for name, files in inputs:
            ours = [sys.executable, "-m", "lsp_server", "check", "--json", *files]
            before, after, acorn = [], [], []
            for _ in range(args.runs):
                before.append(seconds(ours, base))
                after.append(seconds(ours, head))
                acorn.append(seconds(["node", str(HERE / "acorn_reference.mjs"), *files]))
            b, a, r = (statistics.median(x) for x in (before, after, acorn))
            print(
                f"{name}: before {b:.2f} s ({b / r:.2f}× acorn), after {a:.2f} s ({a / r:.2f}× acorn), "
                f"acorn {r:.2f} s; medians of {args.runs}"
            )


if __name__ == "__main__":
    main()
