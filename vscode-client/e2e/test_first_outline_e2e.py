"""The first Outline of a real 3 MB rollout in a real VS Code (code-server), against `rollout-lsp outline` of the
same file (issue 35, point 2).  It prints the times; it asserts what the Outline shows, never how fast (speed is
shown by numbers printed, bench/editor_first.py's and these, not by timed tests).

Two opens of a real rollout of ../shared/corpus/wild (the one closest to 3 MB, as bench/editor_first.py picks):
with the server already running (the extension starts it when the workspace opens), and after "Rollout: Restart
Server" (the server's start included).  For each: the wall time from the click in Quick Open to the session's row
in the Outline view, and the CPU time the server process spent meanwhile (user + system, from /proc).  Beside
them `rollout-lsp outline FILE` as one process.  The fixtures (code-server with the packaged .vsix, the page) are
test_vscode_e2e.py's, imported: this module gets its own code-server.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import test_vscode_e2e as shared
from playwright.sync_api import Page, expect
from test_vscode_e2e import WILD, command, type_in_quick_input

code_server, page = shared.code_server, shared.page  # the fixtures, module-scoped: this module's own code-server

TICK = os.sysconf("SC_CLK_TCK")
MB = 1 << 20


def closest_to_3mb() -> Path:
    return min(WILD.glob("*.jsonl"), key=lambda p: abs(p.stat().st_size - 3 * MB))


def server_pid(extensions: Path) -> int | None:
    """The language server this code-server's extension started: `-m lsp_server serve` run from its bundle."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"lsp_server" in cmdline and b"serve" in cmdline and str(extensions).encode() in environ:
            return int(entry.name)
    return None


def cpu_of(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def wait_for_server(extensions: Path, other_than: int | None = None, timeout: float = 120) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        pid = server_pid(extensions)
        if pid is not None and pid != other_than:
            return pid
        time.sleep(0.2)
    raise AssertionError("the extension started no language server")


def open_and_time(page: Page, name: str, session: str, extensions: Path) -> tuple[float, ...]:
    """Quick Open ``name``; from the click to the session's row in the Outline: wall seconds, the server's CPU
    seconds meanwhile, its CPU seconds since it started, and when (seconds after the click) the server was first
    and last seen working."""
    page.keyboard.press("Control+P")
    type_in_quick_input(page, name)
    row = page.locator(".quick-input-list .monaco-list-row").filter(has_text=re.compile(re.escape(name))).first
    expect(row).to_be_visible(timeout=30_000)
    pid = server_pid(extensions)
    before = cpu_of(pid) if pid is not None else 0.0
    samples: list[tuple[float, float]] = []
    done = threading.Event()
    started = time.perf_counter()

    def sample() -> None:  # the server's CPU every 50 ms: when it worked between the click and the Outline
        while not done.is_set():
            samples.append((time.perf_counter() - started, cpu_of(server_pid(extensions) if pid is None else pid)))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    row.click()
    outline = page.locator(".outline-pane")
    expect(outline).to_contain_text(session, timeout=300_000)
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    total = cpu_of(pid if pid is not None else wait_for_server(extensions))
    busy = [t for (t, c), (_, previous) in zip(samples[1:], samples) if c > previous]
    # the server's CPU by half second after the click: where it waited and where it worked
    by_half: dict[int, float] = {}
    for (t, c), (_, previous) in zip(samples[1:], samples):
        by_half[int(t * 2)] = by_half.get(int(t * 2), 0.0) + c - previous
    print(
        "\n  server CPU per half second after the click:",
        " ".join(f"{by_half.get(n, 0):.2f}" for n in range(int(wall * 2) + 1)),
    )
    return wall, total - before, total, busy[0] if busy else float("nan"), busy[-1] if busy else float("nan")


def outline_process(path: Path) -> tuple[float, float]:
    """`rollout-lsp outline FILE` as one process: its wall and CPU seconds (start-up included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lsp_server", "outline", str(path)], stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def test_the_first_outline_of_a_3mb_rollout(page: Page):
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    extensions = folder.parent / "extensions"
    source = closest_to_3mb()
    copy = folder / source.name.split("__")[-1]  # under Codex's own name: rollout-….jsonl
    shutil.copy(source, copy)
    session = "session " + re.search(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", copy.name)[1]
    try:
        first = wait_for_server(extensions)
        command(page, "Explorer: Focus on Outline View")
        warm = open_and_time(page, copy.name, session, extensions)
        command(page, "View: Close All Editor Groups")
        command(page, "Rollout: Restart Server")
        wait_for_server(extensions, other_than=first)
        command(page, "Explorer: Focus on Outline View")
        cold = open_and_time(page, copy.name, session, extensions)
        cli = [outline_process(copy) for _ in range(3)]
        cli_wall = sorted(w for w, _ in cli)[1]
        cli_cpu = sorted(c for _, c in cli)[1]
        size = copy.stat().st_size / MB
        print(
            f"\nfirst Outline of {copy.name} ({size:.1f} MB) in code-server: "
            f"server running {warm[0]:.2f} s wall / {warm[1]:.2f} s server CPU; "
            f"after a restart {cold[0]:.2f} s wall / {cold[1]:.2f} s server CPU ({cold[2]:.2f} s with its start); "
            f"`rollout-lsp outline`: {cli_wall:.2f} s wall / {cli_cpu:.2f} s CPU (median of 3); "
            f"CPU ratio, start + first Outline ÷ outline: {cold[2] / cli_cpu:.2f}×, "
            f"server running: {warm[1] / cli_cpu:.2f}×"
        )
        for name, run in (("server running", warm), ("after a restart", cold)):
            print(
                f"  {name}: the server worked from {run[3]:.2f} s to {run[4]:.2f} s after the click; "
                f"the Outline showed at {run[0]:.2f} s"
            )
        command(page, "View: Close All Editor Groups")
    finally:
        copy.unlink()
