"""Two commits' CPU time side by side, run for run: `check --json --jobs 1` of each input and `index --jobs 1`
of wild, with BASE and HEAD alternating within each round, and acorn's CPU once a round.

    python bench/ab_cpu.py BASE [HEAD] [--runs 3] [--inputs wild,dense,index]

``bench/versus.py BASE HEAD`` measures every run of BASE before any of HEAD, so a change in the machine's load
between them (other sessions' tests) lands on one side only; here each round runs BASE, HEAD and acorn one
after the other, and the table gives medians of the rounds (CPU time: user + system from ``os.wait4``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.run import MB, WILD  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402
from bench.versus import ACORN, inputs, measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("head", nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--inputs", default="wild,dense,index")
    args = parser.parse_args()
    names = args.inputs.split(",")
    found = inputs([n for n in names if n != "index"])
    if "index" in names and not WILD.is_dir():
        raise SystemExit(f"bench: index of wild asked for but {WILD} is not a folder")
    size = sum(p.stat().st_size for p in WILD.rglob("*.jsonl")) / MB
    cpu: dict[tuple[str, str], list[float]] = {}
    with checkout(args.base) as base, checkout(args.head) as head:
        for _ in range(args.runs):
            for name, files in found:
                for side, tree in (("base", base), ("head", head)):
                    command = [sys.executable, "-m", "lsp_server", "check", "--json", "--jobs", "1", *files]
                    cpu.setdefault((name, side), []).append(measure(command, tree).cpu)
                cpu.setdefault((name, "acorn"), []).append(measure([*ACORN, *files]).cpu)
            if "index" in names:
                for side, tree in (("base", base), ("head", head)):
                    with tempfile.TemporaryDirectory(prefix="ab-index-") as temp:
                        db = str(Path(temp) / "index.sqlite3")
                        command = [sys.executable, "-m", "lsp_server", "index", str(WILD), "--db", db, "--jobs", "1"]
                        cpu.setdefault(("index", side), []).append(measure(command, tree).cpu)
    median = {key: statistics.median(values) for key, values in cpu.items()}
    print(f"medians of {args.runs} rounds, BASE {args.base}, HEAD {args.head or 'working tree'} (CPU-s)\n")
    print("| input | BASE CPU | HEAD CPU | HEAD ÷ BASE | acorn CPU | BASE ÷ acorn | HEAD ÷ acorn |")
    print("|---|---|---|---|---|---|---|")
    for name, _ in found:
        b, h, a = median[(name, "base")], median[(name, "head")], median[(name, "acorn")]
        print(f"| {name} | {b:.2f} s | {h:.2f} s | {h / b:.3f} | {a:.2f} s | {b / a:.2f}× | {h / a:.2f}× |")
    if ("index", "base") in median:
        b, h = median[("index", "base")], median[("index", "head")]
        print(
            f"| `index --jobs 1` of wild ({size:.1f} MB) | {b:.2f} s: {size / b:.1f} MB/CPU-s | {h:.2f} s: "
            f"{size / h:.1f} MB/CPU-s | {h / b:.3f} | | | |"
        )
    print("\nruns (CPU-s):", {f"{k[0].split()[0]} {k[1]}": [round(v, 2) for v in vs] for k, vs in cpu.items()})


if __name__ == "__main__":
    main()
