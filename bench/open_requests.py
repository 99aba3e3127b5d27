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

As code-server opens it (``bench/editor_vscode.py``), each part on its own or all with ``--code-server``:
``--workspace`` copies the file into a workspace folder under Codex's name (``rollout-2026-01-01T00-00-00-….jsonl``)
and names that folder in ``initialize`` (``rootUri``, ``workspaceFolders``); ``--codex-home`` gives the server a
``CODEX_HOME`` whose sessions hold the demo rollout, and its own session index (``ROLLOUT_LSP_INDEX``, no refresh),
as editor_vscode.py prepares them; ``--configuration`` declares VS Code's workspace capabilities (configuration,
dynamic registration of lenses and hovers, refreshes) and answers ``workspace/configuration`` with the
``rolloutLsp`` section VS Code would (``vscode-client/package.json``'s defaults), then pushes it in
``workspace/didChangeConfiguration`` as the language client does once it has started.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.editor_first import Client, cpu_of, default_files, first_start  # noqa: E402
from bench.run import WILD  # noqa: E402

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


# what VS Code declares beyond CAPABILITIES (its language client's, read from a trace): only with --configuration
VSCODE_WORKSPACE = {
    "applyEdit": True,
    "configuration": True,
    "workspaceFolders": True,
    "didChangeConfiguration": {"dynamicRegistration": True},
    "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
    "executeCommand": {"dynamicRegistration": True},
    "semanticTokens": {"refreshSupport": True},
    "codeLens": {"refreshSupport": True},
    "inlayHint": {"refreshSupport": True},
    "diagnostics": {"refreshSupport": True},
}
DEMO_SESSION = "rollout-2026-01-01T00-00-00-019f0000-0000-7000-8000-000000000001.jsonl"


@dataclass
class Setup:
    """How the open is made: the scripted client's bare one, or parts of code-server's."""

    workspace: bool = False
    codex_home: bool = False
    configuration: bool = False
    others: int = 0  # documents the server holds already (VS Code sends a restarted server every one it holds)
    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="open-requests-")))

    def label(self) -> str:
        parts = [name for name in ("workspace", "codex_home", "configuration") if getattr(self, name)]
        parts += [f"{self.others} other documents open"] if self.others else []
        return ", ".join(parts) or "bare (no workspace, no Codex home, no configuration)"

    def file(self, source: Path) -> Path:
        """The file opened: the source itself, or its copy in the workspace under Codex's name."""
        if not self.workspace:
            return source
        folder = self.base / "workspace"
        folder.mkdir(exist_ok=True)
        copy = folder / f"rollout-2026-01-01T00-00-00-{source.stem[:40]}.jsonl"
        if not copy.exists():
            shutil.copy(source, copy)
        return copy

    def other_files(self) -> list[Path]:
        """Wild's largest after the four joined in the default file (none of their lines is in it)."""
        return sorted(WILD.glob("*.jsonl"), key=lambda p: p.stat().st_size, reverse=True)[4 : 4 + self.others]

    def env(self) -> dict[str, str]:
        if not self.codex_home:
            return {}
        day = self.base / "codex" / "sessions" / "2026" / "01" / "01"
        day.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "fixtures" / "rollout-demo.jsonl", day / DEMO_SESSION)
        return {
            "CODEX_HOME": str(self.base / "codex"),
            "ROLLOUT_LSP_INDEX": str(self.base / "index.sqlite3"),
            "ROLLOUT_LSP_INDEX_REFRESH": "0",
        }

    def initialize(self) -> dict:
        capabilities: dict = json.loads(json.dumps(CAPABILITIES))
        params: dict = {"processId": os.getpid(), "rootUri": None, "capabilities": capabilities}
        if self.configuration:
            capabilities["workspace"] = VSCODE_WORKSPACE
            for method in ("codeLens", "hover"):
                capabilities["textDocument"].setdefault(method, {})["dynamicRegistration"] = True
            params["initializationOptions"] = initialization_options(vscode_section())
        if self.workspace:
            folder = (self.base / "workspace").resolve()
            params["rootUri"] = folder.as_uri()
            params["workspaceFolders"] = [{"uri": folder.as_uri(), "name": "workspace"}]
        return params

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def vscode_section() -> dict:
    """``getConfiguration("rolloutLsp")`` of a user who set nothing: package.json's defaults, nested."""
    package = json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    groups = package["contributes"]["configuration"]
    section: dict = {}
    for group in groups if isinstance(groups, list) else [groups]:
        for key, spec in group["properties"].items():
            *parents, last = key.split(".")[1:]
            place = section
            for name in parents:
                place = place.setdefault(name, {})
            place[last] = spec.get("default")
    return section


def initialization_options(section: dict) -> dict:
    """What vscode-client/src/settings.ts's ``initializationOptions`` sends for these settings."""
    keys = ("severity", "secretPatterns", "hoverOutputLines", "files", "invocationLogs", "debounceMs")
    return {**{key: section[key] for key in keys}, "pullDiagnostics": False}


class EditorClient(Client):
    """The scripted client, answering ``workspace/configuration`` with the ``rolloutLsp`` section as VS Code does."""

    section: dict | None = None

    def send(self, message: dict) -> None:
        if self.section is not None and "result" in message and "method" not in message:
            asked = [m for _, _, m in self.arrived if m.get("id") == message["id"] and "method" in m]
            if asked and asked[-1]["method"] == "workspace/configuration":
                items = asked[-1]["params"]["items"]
                message = {**message, "result": [self._value(item.get("section")) for item in items]}
        super().send(message)

    def _value(self, section: str | None) -> object:
        if section == "rolloutLsp":
            return self.section
        return None

    exit_timeout = 30.0  # seconds the server has to exit (callgrind writes its file then: minutes)

    def close(self) -> None:
        try:
            number = self.request("shutdown", {})
            self.wait(lambda m: m.get("id") == number and "method" not in m, timeout=600)
            self.notify("exit", {})
            self.process.wait(timeout=self.exit_timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    def answer_for(self, seconds: float) -> None:
        """Answer the server's requests (configuration, registrations, progress) for ``seconds``."""
        try:
            self.wait(lambda m: False, timeout=seconds)
        except TimeoutError:
            pass


def _server(profile: Path | None, valgrind: Path | None) -> list[str]:
    serve = ["-m", "lsp_server", "serve"]
    if profile is not None:
        serve = [str(HERE / "open_requests.py"), "--serve-profiled", str(profile)]
    if valgrind is not None:
        return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={valgrind}", sys.executable, *serve]
    return [sys.executable, *serve]


def _start(
    path: Path, profile: Path | None = None, valgrind: Path | None = None, idle: float = 0.0, setup: Setup | None = None
) -> tuple[EditorClient, str]:
    setup = setup or Setup()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    env.update(setup.env())
    client = EditorClient(_server(profile, valgrind), cwd=ROOT, env=env)
    if valgrind is not None:
        client.exit_timeout = 900.0
    if setup.configuration:
        client.section = vscode_section()
    number = client.request("initialize", setup.initialize())
    client.wait(lambda m: m.get("id") == number)
    client.notify("initialized", {})
    if setup.configuration:  # the language client's first push of the synchronized section
        client.notify("workspace/didChangeConfiguration", {"settings": {"rolloutLsp": client.section}})
    client.answer_for(idle)  # a server started early: its warm-up done before the file is opened
    for other in setup.other_files():
        uri = setup.file(other).resolve().as_uri()
        text = other.read_text(encoding="utf-8")
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "codex-rollout", "version": 1, "text": text}},
        )
        client.wait(_answered(client.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})))
    if setup.others:
        client.answer_for(2.0)  # their diagnostics published, the server idle again
    return client, path.resolve().as_uri()


def _answered(number: int):
    return lambda m: m.get("id") == number and "method" not in m


def at_once(
    path: Path, idle: float, profile: Path | None = None, valgrind: Path | None = None, setup: Setup | None = None
) -> dict[str, float]:
    """VS Code's order, each request sent without waiting: the CPU from ``didOpen`` to the answer of each."""
    client, uri = _start(path, profile, valgrind, idle, setup)
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


def serial(path: Path, idle: float, setup: Setup | None = None) -> dict[str, float]:
    """The analysis and its diagnostics first, then each request alone: its own CPU."""
    client, uri = _start(path, idle=idle, setup=setup)
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
        client.answer_for(0.5)
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
    parser.add_argument("--workspace", action="store_true", help="the file in a workspace folder, Codex's name")
    parser.add_argument("--codex-home", action="store_true", help="a CODEX_HOME with sessions, an index")
    parser.add_argument("--configuration", action="store_true", help="VS Code's workspace capabilities, settings")
    parser.add_argument("--code-server", action="store_true", help="all three, as editor_vscode.py opens it")
    parser.add_argument("--others", type=int, default=0, help="open N of wild's largest first, kept open")
    args = parser.parse_args()
    every = args.code_server
    setup = Setup(args.workspace or every, args.codex_home or every, args.configuration or every, args.others)
    try:
        _main(args, setup)
    finally:
        setup.close()


def _main(args: argparse.Namespace, setup: Setup) -> None:
    source = args.file or default_files()[-1]
    path = setup.file(source)
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
        found = at_once(path, args.idle, args.profile, args.valgrind, setup)
        print("\n".join(f"{label}: {cpu:.2f} s" for label, cpu in found.items()))
        return
    runs = [
        serial(path, args.idle, setup) if args.serial else at_once(path, args.idle, setup=setup)
        for _ in range(args.runs)
    ]
    what = "each request alone" if args.serial else "from didOpen to each answer, requests sent at once"
    print(f"{source.name} ({setup.label()}): server CPU seconds, {what}; medians of {args.runs} runs\n")
    for label in runs[0]:
        values = [run[label] for run in runs]
        print(f"{label:32} {statistics.median(values):6.2f}   [{' '.join(f'{v:.2f}' for v in values)}]")
    if args.serial:
        total = [sum(run.values()) for run in runs]
        print(f"{'whole sequence':32} {statistics.median(total):6.2f}   [{' '.join(f'{v:.2f}' for v in total)}]")


if __name__ == "__main__":
    main()
