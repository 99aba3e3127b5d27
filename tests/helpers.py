"""Helpers shared by the tests: reading fixtures and slicing documents by LSP ranges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from analysis.jsonl.lines import split_lines

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# CI lays shared/ beside the clone; ROLLOUT_LSP_SHARED points elsewhere when it is not
SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus" / "recorded"


def exec_inputs(lines: Iterable[str]) -> list[str]:
    """The script of each record whose payload is a call of the tool ``exec`` with text input, in order."""
    scripts = []
    for line in lines:
        try:
            payload = json.loads(line).get("payload")
        except (ValueError, AttributeError):
            continue
        if isinstance(payload, dict) and payload.get("name") == "exec" and isinstance(payload.get("input"), str):
            scripts.append(payload["input"])
    return scripts


def fixture(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("utf-8")


def corpus(name: str) -> str:
    return (CORPUS / name).read_bytes().decode("utf-8")


def utf16_slice(line: str, start: int, end: int) -> str:
    """``line[start:end]`` with UTF-16 columns, as an LSP client would cut it."""
    data = line.encode("utf-16-le", "surrogatepass")
    return data[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")


def range_text(text: str, rng: dict) -> str:
    """The document text an LSP range (a JSON dict, UTF-16) covers; ranges here are one line."""
    assert rng["start"]["line"] == rng["end"]["line"]
    line = split_lines(text)[rng["start"]["line"]]
    return utf16_slice(line, rng["start"]["character"], rng["end"]["character"])


def json_escaped(source: str) -> str:
    """How a JS source fragment appears inside a JSON string written by serde_json/json.dumps."""
    return json.dumps(source, ensure_ascii=False)[1:-1]


def run_cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=input,
        encoding="utf-8",
    )


# a program that runs the command line with its arguments and writes its peak memory (kB) to $PEAK_FILE:
# `python -c PEAK_SCRIPT index …`, for the tests that bound what a hostile input may cost
PEAK_SCRIPT = """
import atexit, os, sys
from lsp_server.__main__ import main

def peak():  # this process's own high-water mark (VmHWM; ru_maxrss would count the parent's before exec)
    with open(os.environ["PEAK_FILE"], "w") as out:
        out.write(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")))

atexit.register(peak)
sys.argv[0] = "rollout-lsp"
sys.exit(main())
"""


def inline_pool(given: list | None = None, broken: bool = False, workers: int | None = None) -> type:
    """A stand-in for ``ProcessPoolExecutor`` that runs each task at once in this process: ``given`` receives
    each task's first argument; ``broken`` makes every future fail as when a worker process dies; ``workers``,
    when given, is the ``max_workers`` it must be made with."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    class InlinePool:
        def __init__(self, max_workers: int, **options) -> None:  # initializer: nothing to set up here
            assert workers is None or max_workers == workers

        def __enter__(self) -> InlinePool:
            return self

        def __exit__(self, *exc) -> bool:
            return False

        def submit(self, function, *args) -> Future:
            if given is not None:
                given.append(args[0])
            future: Future = Future()
            if broken:
                future.set_exception(BrokenProcessPool("a worker died"))
            else:
                future.set_result(function(*args))
            return future

    return InlinePool
