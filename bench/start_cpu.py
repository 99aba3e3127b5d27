"""The CPU time of starting a process (issue 35), two commits side by side, run for run: `check --json --jobs 1`
of one small fixture, `outline` of it, and the language server from its spawn to its ``initialize`` answer.

    python bench/start_cpu.py BASE [HEAD] [--runs 15] [--file fixtures/rollout-demo.jsonl]

A small file, so that what is measured is the start: the interpreter, the imports, what modules build when
imported (regular expressions, dataclasses, the converter), the parser.  BASE and HEAD alternate within each
round; the table gives medians of the rounds (CPU time: user + system, from ``os.wait4`` for the commands and
from ``/proc/PID/stat`` for the server when its ``initialize`` answer arrives).  Each tree's bytecode is compiled
first, as ``pip install`` compiles an installed one, and each tree's server started once before the rounds, as
a user's first start (bench/editor_first.py says why), and its ``check`` run once, as a user's first command
writes the command line's code cache (lsp_server/code_cache.py, ``install_for_commands``).

    python bench/start_cpu.py BASE [HEAD] --callgrind

counts instructions instead (valgrind's callgrind, one run each: load-independent): the two commands as above,
and the server from its spawn through ``initialize`` and ``shutdown`` to ``exit``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
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


def first_command(tree: Path, path: str) -> None:
    """One ``check`` as a user's first: with bytecode written, so that it writes the command line's code cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    command = [sys.executable, "-m", "lsp_server", "check", "--json", "--jobs", "1", path]
    subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def instructions(tree: Path, arguments: list[str], server: bool = False) -> int:
    """Instructions of one process under callgrind: a command of ``arguments``, or the server (``serve``) through
    ``initialize``, ``shutdown`` and ``exit``."""
    with tempfile.TemporaryDirectory(prefix="start-callgrind-") as temp:
        out = Path(temp) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m", "lsp_server"]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPATH"] = str(tree)
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE} if server else {"stdout": subprocess.DEVNULL}
        child = subprocess.Popen([*command, *arguments], cwd=tree, env=env, stderr=subprocess.PIPE, **pipes)
        if server:
            assert child.stdin is not None and child.stdout is not None
            for number, method in ((1, "initialize"), (2, "shutdown")):
                params = {"processId": os.getpid(), "rootUri": None, "capabilities": {}} if number == 1 else None
                _send(child.stdin, {"jsonrpc": "2.0", "id": number, "method": method, "params": params})
                while _answer(child.stdout).get("id") != number:
                    pass
            _send(child.stdin, {"jsonrpc": "2.0", "method": "exit"})
        _, errors = child.communicate()
        found = re.search(rb"Collected : (\d+)", errors)
        if found is None:
            raise RuntimeError(f"callgrind said no count: {errors[-500:]!r}")
        return int(found.group(1))


def _send(stream, message: dict) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _answer(stream) -> dict:
    length = 0
    while True:
        header = stream.readline()
        if not header:
            raise RuntimeError("the server exited before its answer")
        if header in (b"\r\n", b"\n"):
            if length:
                return json.loads(stream.read(length))
            continue
        name, _, value = header.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("head", nargs="?")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--file", type=Path, default=ROOT / "fixtures" / "rollout-demo.jsonl")
    parser.add_argument("--callgrind", action="store_true", help="count instructions (one run each) instead")
    args = parser.parse_args()
    path = str(args.file.resolve())
    cpu: dict[tuple[str, str], list[float]] = {}
    with checkout(args.base) as base, checkout(args.head) as head:
        for tree in (base, head):
            for package in ("analysis", "lsp_server"):
                compileall.compile_dir(tree / package, quiet=1)
            first_start(tree)
            first_command(tree, path)
        if args.callgrind:
            _print_instructions(base, head, path, args)
            return
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


def _print_instructions(base: Path, head: Path, path: str, args: argparse.Namespace) -> None:
    print(f"instructions (callgrind), BASE {args.base}, HEAD {args.head or 'working tree'}, {args.file.name}\n")
    print("| process | BASE | HEAD | HEAD ÷ BASE |")
    print("|---|---|---|---|")
    for label, arguments, server in (
        ("`check --json --jobs 1` (whole process)", ["check", "--json", "--jobs", "1", path], False),
        ("`outline` (whole process)", ["outline", path], False),
        ("server: spawn → `initialize` → `shutdown` → `exit`", ["serve"], True),
    ):
        b, h = instructions(base, arguments, server), instructions(head, arguments, server)
        print(f"| {label} | {b / 1e6:,.1f} M | {h / 1e6:,.1f} M | {h / b:.3f} |")


if __name__ == "__main__":
    main()
