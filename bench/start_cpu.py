"""The CPU time of starting a process (issue 35), two commits side by side, run for run: `check --json --jobs 1`
of one small fixture, `outline` of it, and the language server from its spawn to its ``initialize`` answer.

    python bench/start_cpu.py BASE [HEAD] [--runs 15] [--file fixtures/rollout-demo.jsonl]

A small file, so that what is measured is the start: the interpreter, the imports, what modules build when
imported (regular expressions, dataclasses, the converter), the parser.  BASE and HEAD alternate within each
round; the table gives medians of the rounds (CPU time: user + system, from ``os.wait4`` for the commands and
from ``/proc/PID/stat`` for the server when its ``initialize`` answer arrives).  Each tree's bytecode is compiled
first, as ``pip install`` compiles an installed one, and each tree's server started once before the rounds, as
a user's first start (bench/editor_first.py says why).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.editor_first import cpu_of, first_start  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402
from bench.versus import measure  # noqa: E402


def server_start(tree: Path) -> float:
    """The server's CPU time from its spawn to its ``initialize`` answer (then it is stopped)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    server = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tree,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        params: dict[str, object] = {"processId": os.getpid(), "rootUri": None, "capabilities": {}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()
        length = 0
        while True:
            header = server.stdout.readline()
            if not header:
                raise RuntimeError("the server exited before its initialize answer")
            if header in (b"\r\n", b"\n"):
                if length:
                    break
                continue
            name, _, value = header.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        server.stdout.read(length)
        return cpu_of(server.pid)
    finally:
        server.kill()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("head", nargs="?")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--file", type=Path, default=ROOT / "fixtures" / "rollout-demo.jsonl")
    args = parser.parse_args()
    path = str(args.file.resolve())
    cpu: dict[tuple[str, str], list[float]] = {}
    with checkout(args.base) as base, checkout(args.head) as head:
        for tree in (base, head):
            for package in ("analysis", "lsp_server"):
                compileall.compile_dir(tree / package, quiet=1)
            first_start(tree)
        for _ in range(args.runs):
            for side, tree in (("base", base), ("head", head)):
                for name, arguments in (
                    ("check", ["check", "--json", "--jobs", "1", path]),
                    ("outline", ["outline", path]),
                ):
                    sample = measure([sys.executable, "-m", "lsp_server", *arguments], tree)
                    cpu.setdefault((name, side), []).append(sample.cpu)
                cpu.setdefault(("server", side), []).append(server_start(tree))
    print(f"medians of {args.runs} rounds, BASE {args.base}, HEAD {args.head or 'working tree'}, {args.file.name}\n")
    print("| start | BASE CPU | HEAD CPU | HEAD − BASE | HEAD ÷ BASE |")
    print("|---|---|---|---|---|")
    for name, label in (
        ("check", "`check --json --jobs 1` (whole process)"),
        ("outline", "`outline` (whole process)"),
        ("server", "server: spawn → `initialize` answer"),
    ):
        b, h = statistics.median(cpu[(name, "base")]), statistics.median(cpu[(name, "head")])
        print(f"| {label} | {b * 1000:.0f} ms | {h * 1000:.0f} ms | {(h - b) * 1000:+.0f} ms | {h / b:.3f} |")
    print("\nruns (CPU-ms):", {f"{k[0]} {k[1]}": [round(v * 1000) for v in vs] for k, vs in cpu.items()})


if __name__ == "__main__":
    main()
