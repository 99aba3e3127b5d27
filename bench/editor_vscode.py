"""The first Outline in the real VS Code, the server started early, against `rollout-lsp outline` (issue 35).

    python bench/editor_vscode.py [--runs 2] [--trace] [FILE...]

code-server (the browser build of VS Code, `../shared/tools/code-server-setup.sh`) with the packaged linux-x64
.vsix (`make e2e` builds it) in headless Chromium, driven by Playwright, as `vscode-client/e2e` does.  The window
is a Codex user's: a Codex home with sessions (``CODEX_HOME``), so the extension starts the server once VS Code
has started (`rolloutLsp.server.startEarly`), before any rollout is opened; the bench waits for that server and
for it to be idle.  Then, for each file (copied into the workspace under Codex's own name, ``rollout-….jsonl``),
``--runs`` times: Quick Open, click, and from the click to the session's row in the Outline view:

- the wall time;
- the server process's CPU time (user + system, ``/proc/PID/stat`` read before the click and when the row
  shows), and the extension host's (the server's parent: the language client, the text sync);
- when the server first and last worked after the click (its CPU sampled every 50 ms): before its first work
  the time is VS Code's (reading the file, the model, syncing it to the extension host).

Before each open the server is restarted ("Rollout: Restart Server") and left to settle, so each open is the
first Outline of a server started before it.  Beside each open, ``rollout-lsp outline FILE`` as one process (this checkout's, bytecode compiled): its CPU
(``os.wait4``) and wall.  Files by default: the three largest rollouts of ``../shared/corpus/wild`` and the four
largest concatenated (14 MB, ``bench/out/wild-four-largest.jsonl``, as `bench/editor_first.py` makes it).
``--trace`` sets ``rolloutLsp.trace.server`` to ``verbose`` and prints, for the last open of each file, the
messages between VS Code and the server from the ``didOpen`` to the ``documentSymbol`` answer (the language
client's log; the trace costs the extension host time, so its times are not the table's).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "vscode-client" / "e2e"))

from bench.run import MB, OUT, WILD  # noqa: E402
from bench.versus import measure  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
TARGET = 1.5
SESSION_ID = re.compile(rb'"id":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"')


def cpu_of(pid: int) -> float:
    """User + system seconds of a live process and all its threads."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def server_pid(extensions: Path) -> int | None:
    """The language server the extension of this code-server started: the real-VS Code test's own lookup."""
    from test_first_outline_e2e import server_pid as started_by  # type: ignore[import-not-found]

    return started_by(extensions)


def wait_for_server(extensions: Path, timeout: float = 180) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        pid = server_pid(extensions)
        if pid is not None:
            return pid
        time.sleep(0.2)
    raise AssertionError("the extension started no language server")


def wait_idle(pid: int, quiet: float = 1.0, timeout: float = 120) -> None:
    """Until the process has used no CPU for ``quiet`` seconds (its start, the Sessions view's questions)."""
    deadline = time.time() + timeout
    last, since = cpu_of(pid), time.time()
    while time.time() < deadline:
        time.sleep(0.1)
        now = cpu_of(pid)
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= quiet:
            return


def session_of(path: Path) -> str:
    """The Outline's first row: the session of the file's first record."""
    with path.open("rb") as file:
        found = SESSION_ID.search(file.readline())
    assert found, f"{path} starts with no session id"
    return f"session {found[1].decode()}"


@dataclass
class Open:
    wall: float  # click → the session's row in the Outline
    shown: float  # click → the file's first line in the editor
    server_cpu: float  # the server's CPU meanwhile
    host_cpu: float  # the extension host's CPU meanwhile
    first_work: float  # seconds after the click the server was first seen working
    last_work: float
    timeline: str  # CPU seconds per half second after the click: server / extension host / browser


@contextmanager
def code_server(settings: dict[str, object], vsix: Path | None = None) -> Iterator[tuple[Any, Path, Path]]:
    """code-server with the packaged extension, a Codex home with a session, and a page on its workspace:
    yields the page, the workspace and the extensions folder."""
    from playwright.sync_api import sync_playwright
    from test_vscode_e2e import CHROMIUM_ARGS, SHARED, VSIX, free_port  # type: ignore[import-not-found]

    vsix = vsix or VSIX
    assert vsix.exists(), "build the extension first: make e2e (or make vsix-all)"
    setup = subprocess.run(
        ["bash", str(SHARED / "tools" / "code-server-setup.sh")], capture_output=True, text=True, check=True
    )
    binary = setup.stdout.strip().splitlines()[-1]
    base = Path(tempfile.mkdtemp(prefix="editor-vscode-"))
    env = dict(os.environ, PATH=f"{Path(binary).parents[3] / 'node' / 'bin'}:{os.environ['PATH']}")
    env.update(
        ROLLOUT_LSP_INDEX=str(base / "index.sqlite3"), ROLLOUT_LSP_INDEX_REFRESH="0", CODEX_HOME=str(base / "codex")
    )
    data, extensions, workspace = base / "data", base / "extensions", base / "workspace"
    day = base / "codex" / "sessions" / "2026" / "01" / "01"
    for folder in (data / "User", workspace, day):
        folder.mkdir(parents=True)
    demo = ROOT / "fixtures" / "rollout-demo.jsonl"
    shutil.copy(demo, day / "rollout-2026-01-01T00-00-00-019f0000-0000-7000-8000-000000000001.jsonl")
    (data / "User" / "settings.json").write_text(
        json.dumps(
            {
                "workbench.startupEditor": "none",
                "outline.collapseItems": "alwaysExpand",
                "workbench.tips.enabled": False,
                "telemetry.telemetryLevel": "off",
                "extensions.autoCheckUpdates": False,
                "extensions.autoUpdate": False,
                "security.workspace.trust.enabled": False,
                "editor.minimap.enabled": False,
                **settings,
            }
        )
    )
    common = ["--user-data-dir", str(data), "--extensions-dir", str(extensions)]
    subprocess.run([binary, *common, "--install-extension", str(vsix)], check=True, env=env, capture_output=True)
    port = free_port()
    with open(base / "code-server.log", "w") as log:
        server = subprocess.Popen(
            [binary, *common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry"]
            + ["--disable-workspace-trust", str(workspace)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.5)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                page.goto(f"http://127.0.0.1:{port}/?folder={workspace}")
                page.wait_for_selector(".monaco-workbench", timeout=90_000)
                page.wait_for_timeout(3000)
                secondary = page.get_by_role("button", name="Toggle Secondary Side Bar (Ctrl+Alt+B)")
                if secondary.get_attribute("aria-pressed") == "true":
                    secondary.click()
                try:
                    yield page, workspace, extensions
                finally:
                    browser.close()
        finally:
            server.terminate()
            server.wait(10)
            shutil.rmtree(base, ignore_errors=True)


def browser_pids() -> list[int]:
    """Chromium's processes (the page's renderer among them)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"chromium" in (entry / "cmdline").read_bytes().split(b"\0")[0]:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def cpu_sum(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            total += cpu_of(pid)
        except OSError:
            continue
    return total


def open_and_time(page, name: str, session: str, pid: int) -> Open:
    """Quick Open ``name`` and time it from the click to ``session``'s row in the Outline; with the CPU of
    the server, the extension host and the browser by half second (``Open.timeline``)."""
    from playwright.sync_api import expect
    from test_vscode_e2e import type_in_quick_input

    host = parent_of(pid)
    page.keyboard.press("Control+P")
    type_in_quick_input(page, name)
    row = page.locator(".quick-input-list .monaco-list-row").filter(has_text=re.compile(re.escape(name))).first
    expect(row).to_be_visible(timeout=30_000)
    wait_idle(pid)
    samples: list[tuple[float, float, float, float]] = []
    done = threading.Event()
    browser = browser_pids()
    server_before, host_before = cpu_of(pid), cpu_of(host)
    started = time.perf_counter()

    def sample() -> None:
        while not done.is_set():
            samples.append((time.perf_counter() - started, cpu_of(pid), cpu_of(host), cpu_sum(browser)))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    row.click()
    expect(page.locator(".editor-instance .view-lines").first).to_contain_text("session_meta", timeout=600_000)
    shown = time.perf_counter() - started
    expect(page.locator(".outline-pane .monaco-list-row").filter(has_text=session).first).to_be_visible(timeout=600_000)
    wall = time.perf_counter() - started
    server_after, host_after = cpu_of(pid), cpu_of(host)
    done.set()
    sampler.join()
    busy = [now[0] for now, before in zip(samples[1:], samples) if now[1] > before[1]]
    halves: dict[int, list[float]] = {}
    for now, before in zip(samples[1:], samples):
        into = halves.setdefault(int(now[0] * 2), [0.0, 0.0, 0.0])
        for n in range(3):
            into[n] += now[n + 1] - before[n + 1]
    timeline = " ".join(
        "{:.2f}/{:.2f}/{:.2f}".format(*halves.get(n, [0.0, 0.0, 0.0])) for n in range(int(wall * 2) + 1)
    )
    return Open(
        wall,
        shown,
        server_after - server_before,
        host_after - host_before,
        busy[0] if busy else float("nan"),
        busy[-1] if busy else float("nan"),
        timeline,
    )


def trace_lines(extensions_log: Path, since: int) -> list[str]:
    """The language client's trace after the ``since``-th line of its output channel's log."""
    logs = sorted(extensions_log.glob("**/*Rollout LSP*.log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return []
    return logs[-1].read_text(encoding="utf-8", errors="replace").splitlines()[since:]


def summarize_trace(lines: list[str]) -> list[str]:
    """The trace's messages from the didOpen to the documentSymbol answer, one line each."""
    kept: list[str] = []
    opened = False
    for line in lines:
        message = re.match(r"\[Trace - ([^\]]+)\] (.*)", line)
        if not message:
            continue
        text = message[2]
        if "textDocument/didOpen" in text:
            opened = True
        if opened:
            kept.append(f"{message[1]}  {text}")
    return kept


def default_files() -> list[Path]:
    wild = sorted(WILD.glob("*.jsonl"), key=lambda p: p.stat().st_size, reverse=True)
    OUT.mkdir(exist_ok=True)
    joined = OUT / "wild-four-largest.jsonl"
    if not joined.exists():
        joined.write_bytes(b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in wild[:4]))
    return [*wild[:3], joined]


def codex_name(path: Path, number: int) -> str:
    """A name Codex would give it (the extension's `rollout-*.jsonl`), unique per file."""
    found = re.search(r"rollout-[^/]*\.jsonl$", path.name)
    return found[0] if found else f"rollout-2026-01-01T00-00-{number:02d}-{path.stem[:40]}.jsonl"


def size(path: Path) -> str:
    return f"{path.stat().st_size / MB:.1f} MB"


def fresh_server(page, extensions: Path, old: int | None) -> int:
    """The server restarted ("Rollout: Restart Server") and idle: each open is the first of a server started
    before it, as `startEarly` makes it for the first rollout a Codex user opens."""
    from test_vscode_e2e import command

    if old is not None:
        command(page, "Rollout: Restart Server")
    deadline = time.time() + 180
    while time.time() < deadline:
        pid = server_pid(extensions)
        if pid is not None and pid != old:
            wait_idle(pid, quiet=2.5)  # its start, then the warm-up a second after `initialized`
            return pid
        time.sleep(0.2)
    raise AssertionError("the extension started no language server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--vsix", type=Path, help="the package to install (default: the one `make e2e` builds)")
    parser.add_argument("--trace", action="store_true", help="log and print VS Code's messages to the server")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=JSON", help="a user setting (to try what costs)"
    )
    args = parser.parse_args()
    for package in ("analysis", "lsp_server"):  # `outline` as users run it: bytecode compiled once
        compileall.compile_dir(ROOT / package, quiet=1)
    files = args.files or default_files()
    settings: dict[str, object] = {"rolloutLsp.trace.server": "messages"} if args.trace else {}
    settings.update((key, json.loads(value)) for key, value in (item.split("=", 1) for item in args.set))
    from playwright.sync_api import expect
    from test_vscode_e2e import command

    results: dict[Path, tuple[list[Open], list]] = {path: ([], []) for path in files}
    traces: dict[str, list[str]] = {}
    with code_server(settings, args.vsix) as (page, workspace, extensions):
        pid = fresh_server(page, extensions, None)  # started early: no rollout is open yet
        command(page, "Explorer: Focus on Outline View")
        # a copy of each file per run: a document VS Code still holds after its tab closed would reach the
        # restarted server before the click (the language client opens it again), and no new one is made then
        copies: list[list[tuple[Path, Path, str]]] = [[] for _ in range(args.runs)]
        for run in range(args.runs):
            for number, source in enumerate(files):
                copy = workspace / codex_name(source, number).replace(".jsonl", f"-run{run + 1}.jsonl")
                shutil.copy(source, copy)
                copies[run].append((source, copy, session_of(source)))
        page.wait_for_timeout(2000)  # Quick Open's file list sees the copies
        log_dir = extensions.parent / "data" / "logs"
        for run in range(args.runs):  # the files in turn, run after run: the load spreads over all of them
            for source, copy, session in copies[run]:
                if run or source != files[0]:
                    pid = fresh_server(page, extensions, pid)
                seen = len(trace_lines(log_dir, 0)) if args.trace else 0
                results[source][0].append(open_and_time(page, copy.name, session, pid))
                if args.trace:
                    page.wait_for_timeout(1500)  # the log is written a moment later
                    traces[copy.name] = summarize_trace(trace_lines(log_dir, seen))
                command(page, "View: Close All Editor Groups")
                expect(page.locator(".outline-pane .monaco-list-row").filter(has_text=session)).to_have_count(0)
                results[source][1].append(measure([sys.executable, "-m", "lsp_server", "outline", str(copy)], ROOT))
                opened = results[source][0][-1]
                print(
                    f"  {source.name[:50]}: server {opened.server_cpu:.2f} s CPU, {opened.wall:.2f} s wall; "
                    f"outline {results[source][1][-1].cpu:.2f} s CPU",
                    file=sys.stderr,
                    flush=True,
                )
    rows = []
    for source, (editor, outline) in results.items():
        o_cpu = statistics.median(s.cpu for s in outline)
        o_wall = statistics.median(s.wall for s in outline)
        server = statistics.median(o.server_cpu for o in editor)
        ratio = server / o_cpu
        rows.append(
            f"| {source.name[:40]}… ({size(source)}) | {o_cpu:.2f} s | {server:.2f} s | {ratio:.2f}× "
            f"({'met' if ratio <= TARGET else 'not met'}) | {o_wall:.2f} s "
            f"| {statistics.median(o.wall for o in editor):.2f} s "
            f"| {statistics.median(o.shown for o in editor):.2f} s "
            f"| {statistics.median(o.first_work for o in editor):.2f} s "
            f"| {statistics.median(o.host_cpu for o in editor):.2f} s |"
        )
    print(
        f"\nMedians of {args.runs} opens in code-server, each the first of a server started before it, and "
        f"{args.runs} `outline` runs.\n"
    )
    print(
        "| file | `outline` CPU | server CPU, click → Outline | ratio (target ≤ 1.5×) | `outline` wall "
        "| click → Outline wall | click → text shown | server's first work after the click "
        "| extension host CPU, click → Outline |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nCPU seconds per half second after the click, server / extension host / browser (last run):")
    for source, (editor, _) in results.items():
        print(f"  {source.name[:50]}: {editor[-1].timeline}")
    for name, trace in traces.items():
        print(f"\nVS Code ↔ server from the didOpen of {name} (last run):")
        print("\n".join(f"    {line}" for line in trace))


if __name__ == "__main__":
    main()
