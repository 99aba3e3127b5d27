"""The server's work for opening a large rollout in VS Code: the requests VS Code sends after ``didOpen``, each
one's CPU, and the whole sequence's (issue 35, point 2).

    python bench/open_requests.py [--runs 3] [--serial] [--profile OUT] [FILE]

A scripted client (``bench/editor_first.Client``) starts ``rollout-lsp serve`` in this tree (bytecode compiled,
its code cache written by a first session), sends ``initialize`` with VS Code's capabilities, and then exactly
what code-server's trace of an open shows: ``didOpen``, ``codeAction`` (1), ``documentSymbol`` (2),
``$/cancelRequest`` of 1, ``codeAction`` (3), ``documentSymbol`` (4), ``semanticTokens/full`` (5),
``semanticTokens/range`` (6), ``foldingRange`` (7), ``codeLens`` (8), ``semanticTokens/range`` (9),
``codeAction`` (10, 11).  It prints the server's CPU (``/proc``, all threads) from ``didOpen`` to the last answer.

``--serial`` sends the same requests one at a time instead, each after the previous answer, first waiting for
the file's diagnostics (the analysis and its publication): the CPU of each request on its own (10 ms ticks).
``--profile OUT`` runs the server under a cProfile of every thread (the analysis and semantic tokens run in
worker threads) and writes the merged stats to OUT (``python -m pstats OUT``).

File by default: the four largest of ``../shared/corpus/wild`` concatenated (14 MB, ``bench/out/``, made once as
``bench/editor_first.py`` makes it).  For instruction counts run the server under callgrind with ``--valgrind
OUT`` (one run; the whole process, its start included: compare trees by difference).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.editor_first import Client, cpu_of, default_files, first_start  # noqa: E402

CAPABILITIES = {
    "textDocument": {
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": False},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "semanticTokens": {
            "requests": {"range": True, "full": {"delta": True}},
            "tokenTypes": [],
            "tokenModifiers": [],
            "formats": ["relative"],
        },
        "foldingRange": {"lineFoldingOnly": True},
        "codeLens": {},
    },
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
    "general": {"positionEncodings": ["utf-16"]},
}

VISIBLE = {"start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}}  # the editor's first screen
CURSOR = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}


def sequence(uri: str) -> list[tuple[str, str, dict]]:
    """(label, method, params) of each request VS Code sends after ``didOpen``, in its order."""
    doc = {"textDocument": {"uri": uri}}
    action = {**doc, "range": CURSOR, "context": {"diagnostics": [], "triggerKind": 2}}
    return [
        ("codeAction(1)", "textDocument/codeAction", action),
        ("documentSymbol(2)", "textDocument/documentSymbol", doc),
        ("codeAction(3)", "textDocument/codeAction", action),
        ("documentSymbol(4)", "textDocument/documentSymbol", doc),
        ("semanticTokens/full(5)", "textDocument/semanticTokens/full", doc),
        ("semanticTokens/range(6)", "textDocument/semanticTokens/range", {**doc, "range": VISIBLE}),
        ("foldingRange(7)", "textDocument/foldingRange", doc),
        ("codeLens(8)", "textDocument/codeLens", doc),
        ("semanticTokens/range(9)", "textDocument/semanticTokens/range", {**doc, "range": VISIBLE}),
        ("codeAction(10)", "textDocument/codeAction", action),
        ("codeAction(11)", "textDocument/codeAction", action),
    ]


def _server(profile: Path | None, valgrind: Path | None) -> list[str]:
    serve = ["-m", "lsp_server", "serve"]
    if profile is not None:
        serve = [str(HERE / "open_requests.py"), "--serve-profiled", str(profile)]
    if valgrind is not None:
        return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={valgrind}", sys.executable, *serve]
    return [sys.executable, *serve]


def _start(
    path: Path, profile: Path | None = None, valgrind: Path | None = None, idle: float = 0.0
) -> tuple[Client, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    client = Client(_server(profile, valgrind), cwd=ROOT, env=env)
    number = client.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES})
    client.wait(lambda m: m.get("id") == number)
    client.notify("initialized", {})
    time.sleep(idle)  # a server started early: its warm-up done before the file is opened
    return client, path.resolve().as_uri()


def _answered(number: int):
    return lambda m: m.get("id") == number and "method" not in m


def at_once(path: Path, idle: float, profile: Path | None = None, valgrind: Path | None = None) -> dict[str, float]:
    """VS Code's order, each request sent without waiting: the CPU from ``didOpen`` to the answer of each."""
    client, uri = _start(path, profile, valgrind, idle)
    text = path.read_text(encoding="utf-8")
    try:
        opened = cpu_of(client.process.pid)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "codex-rollout", "version": 1, "text": text}},
        )
        numbers: dict[str, int] = {}
        for label, method, params in sequence(uri):
            numbers[label] = client.request(method, params)
            if label == "documentSymbol(2)":  # VS Code cancels its first codeAction at once
                client.notify("$/cancelRequest", {"id": numbers["codeAction(1)"]})
        found = {}
        for label, number in numbers.items():
            found[label] = client.wait(_answered(number))[1] - opened
        found["all"] = max(found.values())
        published = [cpu for _, cpu, m in client.arrived if m.get("method") == "textDocument/publishDiagnostics"]
        found["last publishDiagnostics"] = published[-1] - opened
    finally:
        client.close()
    return found


def serial(path: Path, idle: float) -> dict[str, float]:
    """The analysis and its diagnostics first, then each request alone: its own CPU."""
    client, uri = _start(path, idle=idle)
    text = path.read_text(encoding="utf-8")
    found = {}
    try:
        before = cpu_of(client.process.pid)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "codex-rollout", "version": 1, "text": text}},
        )
        # the analysis, asked by a request that costs nothing more; then its diagnostics published
        number = client.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})
        client.wait(_answered(number))
        time.sleep(0.5)
        now = cpu_of(client.process.pid)
        found["didOpen → analysis, diagnostics"], before = now - before, now
        for label, method, params in sequence(uri):
            number = client.request(method, params)
            _, now, _ = client.wait(_answered(number))
            found[label], before = now - before, now
    finally:
        client.close()
    return found


def serve_profiled(out: str) -> None:
    """The server, each of its threads under its own cProfile; the stats merged into ``out`` at exit."""
    import atexit
    import cProfile
    import pstats
    import threading

    profiles: list[cProfile.Profile] = []

    def per_thread(*_args) -> None:
        sys.setprofile(None)
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.enable()

    def dump() -> None:
        profiles[0].disable()  # the main thread's; the others' are read as they are (their threads are idle)
        stats = None
        for profile in profiles:
            profile.snapshot_stats()
            if profile.stats:
                stats = pstats.Stats(profile) if stats is None else stats.add(profile)
        if stats is not None:
            stats.dump_stats(out)

    threading.setprofile(per_thread)
    atexit.register(dump)
    main_profile = cProfile.Profile()
    profiles.insert(0, main_profile)
    sys.argv = ["rollout-lsp", "serve"]
    from lsp_server.__main__ import main as serve_main

    main_profile.enable()
    try:
        serve_main()
    except SystemExit:
        pass


def in_process(path: Path, passes: int) -> dict[str, list[float]]:
    """The open's work without the protocol: the analysis as the store runs it, then what each request of the
    sequence computes, called on the features of a server made in this process (CPU seconds of each step, per
    pass; first the server's warm-up and a pass on the demo fixture, so that no step pays an import, the price
    table or a compiled query)."""
    found: dict[str, list[float]] = {}
    for number, source in enumerate([ROOT / "fixtures" / "rollout-demo.jsonl"] + [path] * passes):
        for label, seconds in _one_pass(source, warm=number == 0):
            if number:
                found.setdefault(label, []).append(seconds)
    return found


def _one_pass(source: Path, warm: bool) -> list[tuple[str, float]]:
    from lsprotocol import types
    from pygls.workspace import Workspace

    from analysis.jsonl.lines import split_lines
    from analysis.session.rollout import LineCache, analyze_lines
    from lsp_server.features import lenses as lenses_module
    from lsp_server.features.changed_files import ChangedFileFeature
    from lsp_server.features.diagnostics import DiagnosticsFeature
    from lsp_server.features.lenses import FoldingFeature, LensFeature
    from lsp_server.features.semantic_tokens import SemanticTokensFeature
    from lsp_server.features.symbols import SymbolFeature
    from lsp_server.features.warm_up import warm_up
    from lsp_server.server import create_server
    from lsp_server.store import DocumentAnalysis
    from lsp_server.wire import install_workspace

    uri = source.resolve().as_uri()
    server = create_server()
    server.protocol._workspace = Workspace(None)
    install_workspace(server.protocol)
    if warm:  # as a server started early, idle before the open: its warm-up done
        warm_up(server.protocol)
    server.store._states[uri] = None  # type: ignore[assignment] # open, as semantic tokens keep open documents'
    features = server.features
    encoding = server.encoding
    lines = split_lines(source.read_text(encoding="utf-8"))
    visible = types.Range(types.Position(0, 0), types.Position(40, 0))
    cost_lenses = lenses_module.cost_lenses
    out: list[tuple[str, float]] = []

    def timed(label: str, step: Callable[[], object]) -> None:
        started = time.process_time()
        step()
        out.append((label, time.process_time() - started))

    result: list[DocumentAnalysis] = []
    timed("analysis", lambda: result.append(DocumentAnalysis(uri, 1, analyze_lines(lines, LineCache()), True, 0.0)))
    analysis = result[0].analysis
    timed("diagnostics", lambda: features[DiagnosticsFeature].encoded(result[0]))
    timed("documentSymbol", lambda: features[SymbolFeature].outline_parts(analysis, encoding, source.name, str(source)))
    tokens = features[SemanticTokensFeature]
    timed(
        "semanticTokens full + 2 ranges",
        lambda: [tokens.full(uri, analysis, encoding)] + [tokens.range(uri, analysis, visible, encoding)] * 2,
    )

    def lenses() -> None:
        features[LensFeature].code_lenses(analysis, uri, encoding)
        features[ChangedFileFeature].code_lenses(analysis, uri)

    lenses_module.cost_lenses = lambda analysis: []
    try:
        timed("codeLens without the cost lens", lenses)
    finally:
        lenses_module.cost_lenses = cost_lenses
    timed("codeLens (the cost lens added)", lenses)
    timed("foldingRange", lambda: features[FoldingFeature].folding_ranges(analysis))
    return out


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-profiled":
        serve_profiled(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serial", action="store_true")
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--valgrind", type=Path)
    parser.add_argument("--in-process", action="store_true", help="the features called in this process")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds between initialized and didOpen")
    args = parser.parse_args()
    path = args.file or default_files()[-1]
    if args.in_process:
        steps = in_process(path, args.runs)
        print(f"{path.name}: CPU seconds of each step in this process, medians of {args.runs} passes\n")
        for label, values in steps.items():
            print(f"{label:32} {statistics.median(values):6.3f}   [{' '.join(f'{v:.3f}' for v in values)}]")
        return
    for package in ("analysis", "lsp_server"):
        compileall.compile_dir(ROOT / package, quiet=1)
    first_start()
    if args.profile or args.valgrind:
        found = at_once(path, args.idle, args.profile, args.valgrind)
        print("\n".join(f"{label}: {cpu:.2f} s" for label, cpu in found.items()))
        return
    runs = [serial(path, args.idle) if args.serial else at_once(path, args.idle) for _ in range(args.runs)]
    what = "each request alone" if args.serial else "from didOpen to each answer, requests sent at once"
    print(f"{path.name}: server CPU seconds, {what}; medians of {args.runs} runs (each run's in brackets)\n")
    for label in runs[0]:
        values = [run[label] for run in runs]
        print(f"{label:32} {statistics.median(values):6.2f}   [{' '.join(f'{v:.2f}' for v in values)}]")
    if args.serial:
        total = [sum(run.values()) for run in runs]
        print(f"{'whole sequence':32} {statistics.median(total):6.2f}   [{' '.join(f'{v:.2f}' for v in total)}]")


if __name__ == "__main__":
    main()
