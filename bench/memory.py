"""Peak memory and wall time of the streaming commands on large generated rollouts.

Writes rollouts of each size with bench/corpus.py's generator (a turn at a time, into bench/out/, which git
ignores; kept for the next run), then runs `rollout-lsp check`, `census` and `outline --json` on each in a
fresh process under /usr/bin/time and prints a table: wall seconds and peak resident memory (the largest
VmHWM of the command's processes, as /usr/bin/time reports it).

    python bench/memory.py                      # 50MB 200MB 1GB
    python bench/memory.py --sizes 20MB 100MB --jobs 1
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.corpus import parse_size, write  # noqa: E402

OUT = HERE / "out"
MB = 1 << 20


def rollout(size: int, seed: int = 1) -> Path:
    """A generated rollout of about ``size`` bytes in bench/out (written once)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"memory-{size // MB}MB-seed{seed}.jsonl"
    if not path.exists():
        partial = path.with_suffix(".partial")
        write(partial, size, seed)
        partial.rename(path)
    return path


def measured(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak MB, exit status) of one run in a fresh process; its output is thrown away."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        done = subprocess.run(
            ["/usr/bin/time", "-o", report.name, "-f", "%e %M", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall, kilobytes = report.read().split()[-2:]
    return float(wall), int(kilobytes) / 1024, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["50MB", "200MB", "1GB"])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="--jobs of check and census")
    parser.add_argument(
        "--commands", nargs="+", default=["check", "census", "outline"], choices=["check", "census", "outline"]
    )
    args = parser.parse_args()
    cli = [sys.executable, "-m", "lsp_server"]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; --jobs {args.jobs}")
    print("| rollout | lines | command | wall s | peak MB |")
    print("|---|---|---|---|---|")
    for text in args.sizes:
        path = rollout(parse_size(text))
        with open(path, "rb") as handle:
            lines = sum(block.count(b"\n") for block in iter(lambda: handle.read(MB), b""))
        commands = {
            "check": ["check", "--jobs", str(args.jobs), str(path)],
            "census": ["census", "--jobs", str(args.jobs), str(path)],
            "outline": ["outline", "--json", str(path)],
        }
        for name in args.commands:
            wall, peak, status = measured(cli + commands[name])
            shown = " ".join(commands[name][:-1])
            print(
                f"| {path.stat().st_size / MB:.0f} MB | {lines} | `{shown}` | {wall:.1f} | {peak:.0f} |"
                + ("" if status in (0, 1) else f" exit {status}"),
                flush=True,
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
