"""`check --json` side by side with the acorn reader, in CPU time and in wall time: medians of runs taken in turn.

    python bench/versus.py                  # this working tree
    python bench/versus.py BASE [HEAD]      # BASE, then HEAD (a commit, or omitted for the working tree)
    python bench/versus.py --runs 3 --inputs wild,dense

CPU time is the user + system time of the child process and of the workers it waited for (``os.wait4``), which
stays stable on a loaded machine where wall time does not.  For each input, in turn and ``--runs`` times:
``check --json --jobs 1`` (its CPU time is the ratio that counts), ``check --json`` with the default jobs (its
wall time is what a user waits), and ``node bench/acorn_reference.mjs`` (one process).  Ratios are of medians.

Inputs: ``wild`` (``../shared/corpus/wild``, when at hand); ``dense``, bench's generated rollout of about 5,000
small scripts (20 MB, ``bench/corpus.py``, seed 1); ``large``, 20 generated scripts of about 200 KB each
(``bench/corpus.py large_scripts``).  ``index`` adds ``rollout-lsp index --jobs 1`` of wild into a fresh database,
in MB per CPU-second.  Generated files are made once under ``bench/out/``.  Each commit runs from a temporary
worktree with this checkout's Python environment (as ``bench/same_outputs.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.corpus import large_scripts  # noqa: E402
from bench.run import MB, OUT, WILD, corpus_file, exec_scripts  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402

ACORN = ["node", str(HERE / "acorn_reference.mjs")]
TARGETS = {"wild": 1.6, "dense": 3.0}  # issue 35: CPU ratio with --jobs 1; unseen real rollouts 2.0×
INDEX_TARGET = 25.0  # MB per CPU-second


@dataclass
class Sample:
    cpu: float  # user + system seconds of the child and the descendants it waited for
    wall: float


def measure(command: list[str], tree: Path | None = None) -> Sample:
    """One run of ``command`` (output discarded): its CPU time from ``os.wait4`` and its wall time."""
    env = dict(os.environ, PYTHONPATH=str(tree)) if tree is not None else None
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tree or HERE,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    # check exits 1 when it reports findings; acorn's reader exits 0 (1 is a failure, e.g. no bench/node_modules)
    if child.returncode not in ((0,) if command[: len(ACORN)] == ACORN else (0, 1)):
        raise RuntimeError(f"{command[:4]}… exited {child.returncode}")
    return Sample(usage.ru_utime + usage.ru_stime, wall)


def large_file() -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / "rollout-large-scripts.jsonl"
    if not path.exists():
        path.write_text(large_scripts(count=20, script_bytes=200_000, seed=1), encoding="utf-8")
    return path


def inputs(names: list[str]) -> list[tuple[str, list[str]]]:
    found = []
    for name in names:
        if name == "wild" and not WILD.is_dir():
            # a benchmark asked for wild must not print a table without it (a worktree has no ../shared beside it)
            raise SystemExit(f"bench: wild asked for but {WILD} is not a folder (the corpus is read from ../shared)")
        if name == "wild":
            files = sorted(WILD.glob("*.jsonl"))
            size = sum(p.stat().st_size for p in files) / MB
            found.append((f"wild ({len(files)} real rollouts, {size:.0f} MB)", [str(p) for p in files]))
        elif name == "dense":
            path = corpus_file(20 * MB)
            found.append((f"dense (generated, {len(exec_scripts(path)):,} scripts, 20 MB)", [str(path)]))
        elif name == "large":
            path = large_file()
            scripts = exec_scripts(path)
            found.append(
                (
                    f"large (generated, {len(scripts)} scripts of ~{sum(map(len, scripts)) / len(scripts) / 1000:.0f}"
                    f" KB, {path.stat().st_size / MB:.0f} MB)",
                    [str(path)],
                )
            )
    return found


def versus(tree: Path, files: list[str], runs: int) -> dict[str, float]:
    ours = [sys.executable, "-m", "lsp_server", "check", "--json"]
    one: list[Sample] = []
    default: list[Sample] = []
    acorn: list[Sample] = []
    for _ in range(runs):
        one.append(measure([*ours, "--jobs", "1", *files], tree))
        default.append(measure([*ours, *files], tree))
        acorn.append(measure([*ACORN, *files]))

    def median(samples: list[Sample], attribute: str) -> float:
        return statistics.median(getattr(s, attribute) for s in samples)

    return {
        "cpu1": median(one, "cpu"),
        "wall1": median(one, "wall"),
        "cpu": median(default, "cpu"),
        "wall": median(default, "wall"),
        "acorn_cpu": median(acorn, "cpu"),
        "acorn_wall": median(acorn, "wall"),
    }


def index_rate(tree: Path, runs: int) -> tuple[float, float]:
    """``rollout-lsp index --jobs 1`` of wild into a fresh database: median CPU seconds and MB per CPU-second."""
    size = sum(p.stat().st_size for p in WILD.rglob("*.jsonl")) / MB
    cpu = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="versus-index-") as temp:
            db = str(Path(temp) / "index.sqlite3")
            command = [sys.executable, "-m", "lsp_server", "index", str(WILD), "--db", db, "--jobs", "1"]
            cpu.append(measure(command, tree).cpu)
    seconds = statistics.median(cpu)
    return seconds, size / seconds


def table(label: str, results: list[tuple[str, dict[str, float]]]) -> str:
    lines = [
        f"{label}",
        "",
        "| input | CPU, `--jobs 1` | acorn CPU | **CPU ratio, `--jobs 1`** | CPU ratio, default jobs "
        "| wall, default jobs | acorn wall | wall ratio, default jobs | target (CPU, `--jobs 1`) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results:
        key = name.split()[0]
        ratio = r["cpu1"] / r["acorn_cpu"]
        target = TARGETS.get(key)
        verdict = f"≤ {target}×: {'met' if ratio <= target else 'not met'}" if target else "none"
        lines.append(
            f"| {name} | {r['cpu1']:.2f} s | {r['acorn_cpu']:.2f} s | **{ratio:.2f}×** | "
            f"{r['cpu'] / r['acorn_cpu']:.2f}× | {r['wall']:.2f} s | {r['acorn_wall']:.2f} s | "
            f"{r['wall'] / r['acorn_wall']:.2f}× | {verdict} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", help="a commit to measure first (omitted: only the working tree)")
    parser.add_argument("head", nargs="?", help="a commit to measure next (omitted: the working tree)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--inputs", default="wild,dense,large,index", help="comma-separated: wild,dense,large,index")
    args = parser.parse_args()
    names = args.inputs.split(",")
    chosen = inputs(names)
    commits = [args.base, args.head] if args.base else [None]
    for commit in commits:
        with checkout(commit) as tree:
            label = f"`{commit}`" if commit else "working tree"
            results = []
            for name, files in chosen:
                results.append((name, versus(tree, files, args.runs)))
                print(f"  measured {name}", file=sys.stderr, flush=True)
            print(table(f"{label}: medians of {args.runs} alternating runs", results))
            if "index" in names and WILD.is_dir():
                seconds, rate = index_rate(tree, args.runs)
                print(
                    f"\n`index --jobs 1` of wild into a fresh database: {seconds:.2f} CPU-s, {rate:.1f} MB per "
                    f"CPU-second (target ≥ {INDEX_TARGET:.0f}: {'met' if rate >= INDEX_TARGET else 'not met'})\n",
                    flush=True,
                )


if __name__ == "__main__":
    main()
