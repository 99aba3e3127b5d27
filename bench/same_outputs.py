"""Whether two commits give the same outputs: a performance change must change no output.

For every rollout of ``fixtures/`` and of ``../shared/corpus/`` (when at hand), runs ``check --json`` (one call
on all files, and with ``--jobs 1``), ``census --json`` (one call, without its ``seconds``) and ``outline --json``
(one call per file) with the code of
each commit, and compares exit codes and standard output byte for byte.  The code of a commit is checked out
in a temporary worktree and run with this checkout's Python environment (``PYTHONPATH`` first), so both sides
have the same dependencies: a change that adds one is compared from its own checkout, whose environment has it.

    python bench/same_outputs.py BASE [HEAD]    # HEAD: a commit, or omitted for the working tree

Prints one line per difference and a summary; exits 1 when any output differs.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared")) / "corpus"  # as tests/helpers.py finds it


def rollouts() -> list[Path]:
    """Every JSON Lines file of the fixtures and the shared corpus, in a stable order."""
    roots = [ROOT / "fixtures"] + ([SHARED] if SHARED.is_dir() else [])
    found = []
    for root in roots:
        found += [p for p in root.rglob("*") if p.is_file() and p.name.endswith((".jsonl", ".jsonl.zst"))]
    return sorted(found)


@contextmanager
def checkout(commit: str | None) -> Iterator[Path]:
    """The code of ``commit`` in a temporary worktree (None: this working tree), its bytecode compiled."""
    if commit is None:
        compiled(ROOT)
        yield ROOT
        return
    with tempfile.TemporaryDirectory(prefix="same-outputs-") as temp:
        tree = Path(temp) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(tree), commit], check=True
        )
        try:
            compiled(tree)
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)


def compiled(tree: Path) -> None:
    """The tree's bytecode written, as ``pip install`` writes an installed package's: with ``PYTHONDONTWRITEBYTECODE``
    set (this machine's shells set it) a tree without ``__pycache__`` is compiled again by every process, 0.1-0.25
    CPU-s a ``check`` that no user's install pays, and that a benchmark would count."""
    for package in ("analysis", "lsp_server"):
        compileall.compile_dir(tree / package, quiet=1)


def run(tree: Path, arguments: list[str]) -> tuple[int, bytes]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", *arguments], capture_output=True, env=env, cwd=tempfile.gettempdir()
    )
    if arguments[0] == "census" and done.returncode == 0:  # its time taken is the one field meant to change
        report = json.loads(done.stdout)
        report.pop("seconds", None)
        return done.returncode, json.dumps(report).encode()
    return done.returncode, done.stdout


def commands(files: list[Path]) -> list[list[str]]:
    names = [str(f) for f in files]
    out = [["check", "--json", *names], ["check", "--json", "--jobs", "1", *names], ["census", "--json", *names]]
    return out + [["outline", "--json", name] for name in names]


def outputs(tree: Path, todo: list[list[str]], jobs: int) -> list[tuple[int, bytes]]:
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda arguments: run(tree, arguments), todo))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit before the change")
    parser.add_argument("head", nargs="?", help="the commit of the change (default: the working tree)")
    parser.add_argument("--jobs", type=int, default=2, help="commands run at once (default 2)")
    args = parser.parse_args()
    files = rollouts()
    todo = commands(files)
    with checkout(args.base) as base, checkout(args.head) as head:
        before = outputs(base, todo, args.jobs)
        after = outputs(head, todo, args.jobs)
    differences = 0
    for arguments, old, new in zip(todo, before, after):
        if old != new:
            differences += 1
            shown = " ".join(arguments) if len(arguments) <= 4 else " ".join(arguments[:4]) + " … (all files)"
            print(f"differs: {shown} (exit {old[0]} → {new[0]}, {len(old[1])} → {len(new[1])} bytes)")
    if not SHARED.is_dir():  # said, so that "identical" over the fixtures alone is not read as the corpus's
        print(f"no corpus at {SHARED} (set ROLLOUT_LSP_SHARED): fixtures only")
    print(
        f"{len(files)} files, {len(todo)} commands: "
        + ("every output identical" if differences == 0 else f"{differences} outputs differ")
    )
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
