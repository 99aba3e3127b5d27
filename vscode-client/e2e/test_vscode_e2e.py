"""End to end in a real VS Code: code-server (VS Code 1.139) in headless Chromium, driven by Playwright.

Installs the packaged .vsix, opens a fixture rollout and a recorded Codex 0.157 rollout, and checks what a
person sees: the Outline view lists the exec calls, the Problems view lists the warnings, a hover over a
call shows its decoded command; the Outline of two real rollouts marks failed, non-zero and interrupted calls
and lists the exact commands of an expansion as children; a 20 MB rollout opens with no "Open Anyway" and lists
its lenses from the status bar; a 60 MB one is read into the Large Rollout view (by turn; its Problems leave when
it closes; a row opens a window of it); an invocation log is linked to a rollout from the palette; a rollout
under another name is found by its content; the editable script view with auto-save on writes nothing into the
rollout, completes `tools.`, and Ctrl+S refuses a script that does not parse and writes a valid one; a file two
generated sessions patched shows the blame lens, its quick pick and the hover of an attributed line; the Codex Sessions view lists a
session as project → day → session, opens and reveals its rollout, and filters.
Screenshots go to docs/images/.  Run with `make e2e`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import Page, expect, sync_playwright

CLIENT = Path(__file__).resolve().parent.parent
ROOT = CLIENT.parent
SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))
IMAGES = ROOT / "docs" / "images"
VSIX = CLIENT / "dist" / "codex-rollout-lsp-linux-x64.vsix"  # the package a linux-x64 user installs
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def code_server(tmp_path_factory):
    assert VSIX.exists(), "build the extension first: make e2e builds it, or make vsix-all"
    setup = subprocess.run(["bash", str(SHARED / "tools" / "code-server-setup.sh")], capture_output=True, text=True,
                           check=True)
    binary = setup.stdout.strip().splitlines()[-1]
    env = dict(os.environ, PATH=f"{Path(binary).parents[3] / 'node' / 'bin'}:{os.environ['PATH']}")
    base = tmp_path_factory.mktemp("code-server")
    data, extensions, workspace = base / "data", base / "extensions", base / "workspace"
    # the server's session index is the test's own (empty until a test builds it), never the user's cache
    env.update(ROLLOUT_LSP_INDEX=str(base / "index.sqlite3"), ROLLOUT_LSP_INDEX_REFRESH="0", CODEX_HOME=str(base / "codex"))
    (data / "User").mkdir(parents=True)
    workspace.mkdir()
    shutil.copy(ROOT / "fixtures" / "rollout-demo.jsonl", workspace / "rollout-demo.jsonl")
    shutil.copy(SHARED / "corpus" / "recorded" / "codex-0.157-custom-calls.jsonl",
                workspace / "rollout-recorded-0.157.jsonl")
    (data / "User" / "settings.json").write_text(json.dumps({
        "workbench.startupEditor": "none", "editor.wordWrap": "on", "outline.collapseItems": "alwaysExpand",
        "workbench.tips.enabled": False, "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False, "security.workspace.trust.enabled": False, "editor.minimap.enabled": False,
        "workbench.colorTheme": "Default Light Modern", "editor.hover.delay": 100,
    }))
    common = ["--user-data-dir", str(data), "--extensions-dir", str(extensions)]
    subprocess.run([binary, *common, "--install-extension", str(VSIX)], check=True, env=env, capture_output=True)
    port = free_port()
    log = open(base / "code-server.log", "w")
    server = subprocess.Popen([binary, *common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}",
                               "--disable-telemetry", "--disable-workspace-trust", str(workspace)],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.5)
    yield f"http://127.0.0.1:{port}/?folder={workspace}"
    server.terminate()
    server.wait(10)
    log.close()


@pytest.fixture(scope="module")
def page(code_server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(code_server)
        page.wait_for_selector(".monaco-workbench", timeout=90_000)
        page.wait_for_timeout(3000)  # let the workbench settle before typing
        secondary = page.get_by_role("button", name="Toggle Secondary Side Bar (Ctrl+Alt+B)")
        if secondary.get_attribute("aria-pressed") == "true":  # the chat panel takes half the window
            secondary.click()
        folders = page.get_by_role("button", name="Explorer Section: workspace")
        if folders.get_attribute("aria-expanded") == "true":  # give the Outline view the height
            folders.click()
        yield page
        browser.close()


def type_in_quick_input(page: Page, text: str) -> None:
    """Type ``text`` into the quick input just opened, once it has the focus.  Keys typed by the page went to
    the editor when the palette had not opened yet (its widget, still drawn from the last pick, passed for it),
    and edited the document: the invocation log lost its first line that way, a flaky failure of the link
    test.  Typing into the input itself can only ever edit the input."""
    box = page.locator(".quick-input-widget .quick-input-box input")
    expect(box).to_be_focused(timeout=10_000)
    box.press_sequentially(text)


def pick(page: Page, keys: str, text: str) -> None:
    """Open a quick pick with ``keys``, type ``text`` and click the row that shows it."""
    page.keyboard.press(keys)
    type_in_quick_input(page, text)
    row = page.locator(".quick-input-list .monaco-list-row").filter(has_text=text).first
    expect(row).to_be_visible(timeout=30_000)
    row.click()


def command(page: Page, name: str) -> None:
    """Run ``name`` from the command palette.  A command offered only in a context (an invocation log active)
    can be missing for a moment after the active editor changed, on a loaded machine: the palette is closed and
    opened again, rather than the test failing on the first look."""
    for attempt in range(4):
        page.keyboard.press("F1")
        row = page.locator(".quick-input-list .monaco-list-row").filter(has_text=name).first
        try:
            type_in_quick_input(page, name)
            expect(row).to_be_visible(timeout=10_000 if attempt < 3 else 30_000)
            row.click(timeout=10_000)  # the list may be drawn again between the look and the click
        except (AssertionError, PlaywrightTimeoutError):
            page.keyboard.press("Escape")
            continue
        page.wait_for_timeout(400)
        return
    raise AssertionError(f"the command palette never offered {name!r}")


def open_file(page: Page, name: str) -> None:
    """Quick Open ``name``.  A file the test has just written may not be in Quick Open's file list yet (its
    watcher lags on a loaded machine): the picker is closed and asked again, rather than left open to swallow
    the next test's keys."""
    for attempt in range(4):
        page.keyboard.press("Control+P")
        # the row of that very name: "calls.jsonl" is also the end of codex-0.157-custom-calls.jsonl's
        row = page.locator(".quick-input-list .monaco-list-row").filter(
            has_text=re.compile(r"(^|[\s/])" + re.escape(name))).first
        try:
            type_in_quick_input(page, name)
            expect(row).to_be_visible(timeout=20_000)
        except AssertionError:
            page.keyboard.press("Escape")
            if attempt == 3:
                raise
            page.wait_for_timeout(3_000)
            continue
        row.click()
        break
    expect(page.locator(".tab.active").filter(has_text=re.compile(r"^\s*" + re.escape(name))).first).to_be_visible(
        timeout=30_000)


def hover_at(page: Page, line: int, column: int) -> str:
    command(page, "Go to Line/Column")
    type_in_quick_input(page, f"{line}:{column}")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    command(page, "Show or Focus Hover")
    hover = page.locator(".monaco-hover:visible").filter(has_text="executed")
    expect(hover.first).to_be_visible(timeout=30_000)
    return hover.first.inner_text()


def column_of(path: Path, line: int, needle: str) -> int:
    text = path.read_text(encoding="utf-8").split("\n")[line - 1]
    return len(text[:text.index(needle)].encode("utf-16-le")) // 2 + 3


def test_fixture_outline_problems_and_hover(page: Page):
    open_file(page, "rollout-demo.jsonl")
    command(page, "Explorer: Focus on Outline View")
    outline = page.locator(".outline-pane")
    expect(outline).to_contain_text("pytest -q tests/test_greet.py", timeout=60_000)
    for name in ("session 019f0000-0000-7000-8000-000000000001", "turn 1 (line 3): Fix the failing greeting test",
                 "apply_patch: update src/greet.py", "git push --force"):
        expect(outline).to_contain_text(name)
    page.screenshot(path=str(IMAGES / "outline.png"))

    command(page, "View: Focus Problems (Errors, Warnings, Infos)")
    problems = page.locator(".markers-panel")
    expect(problems).to_contain_text("exec_command never runs: it is in dead code", timeout=30_000)
    expect(problems).to_contain_text("its 2 commands are known exactly")
    page.screenshot(path=str(IMAGES / "problems.png"))

    fixture = ROOT / "fixtures" / "rollout-demo.jsonl"
    text = hover_at(page, 5, column_of(fixture, 5, "tools.exec_command"))
    assert "pytest -q tests/test_greet.py" in text and "exit 1" in text
    page.screenshot(path=str(IMAGES / "hover.png"))
    page.keyboard.press("Escape")

    command(page, "Rollout: Show Decoded Script")  # the cursor is on line 5, an exec record
    expect(page.locator(".tab").filter(has_text="call_demo1.js")).to_be_visible(timeout=30_000)
    editor = page.locator(".editor-group-container.active .view-lines")
    expect(editor).to_contain_text('const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py"',
                                   timeout=30_000)
    page.screenshot(path=str(IMAGES / "decoded-script.png"))
    command(page, "View: Close All Editor Groups")


def test_recorded_rollout(page: Page):
    open_file(page, "rollout-recorded-0.157.jsonl")
    command(page, "Explorer: Focus on Outline View")
    outline = page.locator(".outline-pane")
    expect(outline).to_contain_text("rm node_modules", timeout=60_000)
    expect(outline).to_contain_text("git checkout -- src/CodexHeadless.ts")
    recorded = SHARED / "corpus" / "recorded" / "codex-0.157-custom-calls.jsonl"
    text = hover_at(page, 7, column_of(recorded, 7, "tools.exec_command({cmd:\\\"rg"))
    assert "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts" in text
    page.screenshot(path=str(IMAGES / "hover-recorded.png"))


WILD = SHARED / "corpus" / "wild"
MOTION = "seokhyeonhong__motion-jepa__rollout-2026-07-26T06-37-23-019f9b36-1e6d-7651-9801-5450483871e2.jsonl"
AGENTS = "doudouqie66__CommonTools__rollout-2026-07-11T10-22-29-019f4efb-ae76-7e30-b44e-3fa464c16193.jsonl"


def outline_rows(page: Page) -> list[tuple[int, str, str]]:
    """The rows the Outline draws, top to bottom: each row's depth, its text and its description (the detail)."""
    return [tuple(row) for row in page.locator(".outline-pane .monaco-list-row").evaluate_all(
        """rows => rows.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map(row => [
             Number(row.getAttribute('aria-level')),
             row.querySelector('.label-name')?.textContent ?? '',
             row.querySelector('.label-description')?.textContent ?? ''])""")]


def test_the_outline_of_real_rollouts_marks_failures_and_lists_expansions(page: Page):
    """Issue 22 in a real VS Code, on real rollouts copied into the workspace under Codex's own names: a command
    bwrap refused reads `[exit 1]` and its rerun reads plain; a command killed with Ctrl-C reads
    `[interrupted (exit 130)]`; an exec whose script failed reads `[failed] exec · <its first command>`, and its Promise.all over four
    known commands lists each exact command as a child row."""
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    motion, agents = folder / MOTION.split("__")[-1], folder / AGENTS.split("__")[-1]
    shutil.copy(WILD / MOTION, motion)
    shutil.copy(WILD / AGENTS, agents)
    pwd = "exec_command: pwd && rg --files -g 'AGENTS.md' -g '!**/.git/**' -g '!**/__pycache__/**' | head -50 && " \
          "rg --files | sed …"
    try:
        open_file(page, motion.name)
        command(page, "Explorer: Focus on Outline View")
        outline = page.locator(".outline-pane")
        expect(outline).to_contain_text("[interrupted (exit 130)] exec_command: ls -ld", timeout=120_000)
        rows = outline_rows(page)
        assert rows[:2] == [
            (1, "session 019f9b36-1e6d-7651-9801-5450483871e2",
             "in 26.15M (cached 25.04M) · out 107.4k (reasoning 22.1k) · context 66% of 258.4k · "
             "16 failed (first: line 16, exit 1)"),
            (2, "turn 1 (line 4): 이 프로젝트에 맞는 데이터셋을 처리할 거야. representation은 ardy의 representati…",
             "3 failed (first: line 16, exit 1) · in 1.12M (cached 1.03M) · out 7.4k (reasoning 2.1k) · "
             "context 38% of 258.4k")]
        assert rows[2:4] == [(3, f"[exit 1] {pwd}", "call_LNJlEkyCt3GRASC4mjROgppk · 0 s"),  # bwrap refused it
                             (3, pwd, "call_dlwMAzYqAQE8ycPydnckDckD · 0 s")]  # the rerun
        assert (3, "[exit 2] exec_command: rg -n '^def |^class |size_dict|SPLIT|fps|motion_dim|save|stats|canonical|"
                   "argparse|viser|inverse|skeleton'…", "call_k7sAdD5dpuJZwReDc0I7S6Cm · 0 s") in rows
        interrupted = (3, "[interrupted (exit 130)] exec_command: ls -ld dataset/BonesSeed/soma_* && test -d "
                          "dataset/BonesSeed/soma_uniform/bvh && echo uniform-present || …",
                       "call_C6JCNOg2gCGKJH3pWN2QwgdY · 10 s · after 1 write_stdin")
        assert interrupted in rows, rows
        assert rows[rows.index(interrupted) + 1] == (  # the Ctrl-C that ended it
            3, 'write_stdin: session 94014 "\\u0003"', "call_5LGqMxsm0xlapnX0DdHSh2DR · 0 s · continues line 85")
        go_to(page, 85, 1)
        command(page, "Explorer: Focus on Outline View")
        for _ in range(8):  # a side bar wide enough to read the rows in the screenshot
            command(page, "Increase Current View Size")
        page.screenshot(path=str(IMAGES / "outline-failures.png"))

        command(page, "View: Close All Editor Groups")
        open_file(page, agents.name)
        command(page, "Explorer: Focus on Outline View")
        expect(outline).to_contain_text("[failed] exec", timeout=120_000)
        rows = outline_rows(page)
        failed_exec = "[failed] exec · 4 commands: rg -n -i --glob '*.lua' '(timer|set…"
        assert (3, failed_exec, "1 command · 0.4 s") in rows, rows
        failed = rows.index((3, failed_exec, "1 command · 0.4 s"))
        rg = "shell_command: rg -n -i --glob '*.lua' "
        assert rows[failed - 2:failed + 2] == [
            (3, "exec · $files = rg --files; Write-Output ('FILE_COUNT=…", "1 command · 0.3 s"),
            (4, "shell_command: $files = rg --files; Write-Output ('FILE_COUNT=' + ($files | Measure-Object).Count); "
                "$files | Select-Obj…", "ran"),
            (3, failed_exec, "1 command · 0.4 s"),
            (4, "shell_command: 4 commands: rg -n -i --glob '*.lua' '(timer|settimeout|delay|tick|coroutine|loop|"
                "schedule|interval)' Scr…", "computed")]
        # each child is at its element of the list, so the Outline (sorted by position) keeps the list's order
        assert rows[failed + 2:failed + 6] == [
            (5, rg + "'(timer|settimeout|delay|tick|coroutine|loop|schedule|interval)' Script ExtendRe…",
             "element 1 of the list"),
            (5, rg + "'(rpc|server_|client_|multicast|send.*event|broad.?cast|net\\b|remote)' Script Ex…",
             "element 2 of the list"),
            (5, rg + "'(bind|unbind|listen|unlisten|subscribe|unsubscribe|add.*delegate|remove.*delega…",
             "element 3 of the list"),
            (5, "shell_command: $lua = rg --files -g '*.lua' Script ExtendResource; 'LUA_COUNT=' + ($lua | "
                "Measure-Object).Count; $lua |…", "element 4 of the list")]
        assert rows[failed + 6] == (3, "exec · $lua = rg --files -g '*.lua' Script; Write-Outp…", "1 command · 0.5 s")
        go_to(page, 35, 1)
        command(page, "Explorer: Focus on Outline View")
        page.screenshot(path=str(IMAGES / "outline-expansions.png"))
        for _ in range(8):
            command(page, "Decrease Current View Size")
        command(page, "View: Close All Editor Groups")
    finally:
        motion.unlink()
        agents.unlink()


def go_to(page: Page, line: int, column: int) -> None:
    command(page, "Go to Line/Column")
    type_in_quick_input(page, f"{line}:{column}")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)


def inspect_token(page: Page, line: int, column: int) -> str:
    """What VS Code's token inspector says about the character at ``line:column``."""
    go_to(page, line, column)
    command(page, "Developer: Inspect Editor Tokens and Scopes")
    widget = page.locator(".token-inspect-widget")
    expect(widget).to_contain_text("semantic token type", timeout=30_000)
    return widget.inner_text()


def test_colours_inside_the_script_and_the_editable_script(page: Page):
    fixture = ROOT / "fixtures" / "rollout-demo.jsonl"
    open_file(page, "rollout-demo.jsonl")
    command(page, "Explorer: Focus on Outline View")
    expect(page.locator(".outline-pane")).to_contain_text("apply_patch: update src/greet.py", timeout=60_000)
    text = inspect_token(page, 7, column_of(fixture, 7, "+    return"))
    assert "patchAdded" in text and "markup.inserted" in text, text
    page.keyboard.press("Escape")
    text = inspect_token(page, 7, column_of(fixture, 7, "tools.apply_patch") + 6)
    assert "function" in text and "defaultLibrary" in text, text
    page.screenshot(path=str(IMAGES / "script-colours.png"))
    page.keyboard.press("Escape")

    go_to(page, 5, 1)
    command(page, "Rollout: Edit Exec Script as JavaScript")
    expect(page.locator(".tab.active").filter(has_text="rollout-demo-call_demo1.js")).to_be_visible(timeout=30_000)
    expect(page.locator(".statusbar")).to_contain_text("JavaScript", timeout=30_000)
    editor = page.locator(".editor-group-container.active .view-lines")
    expect(editor).to_contain_text('const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py"',
                                   timeout=30_000)
    page.keyboard.press("Control+End")
    page.keyboard.insert_text('text("edited in VS Code");')
    page.keyboard.press("Control+S")
    # the save went through the server into the rollout as one edit of the record's input string, and VS Code
    # saved the rollout it changed
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    rollout = folder / "rollout-demo.jsonl"
    original = fixture.read_text(encoding="utf-8")
    deadline = time.time() + 30
    while "edited in VS Code" not in rollout.read_text(encoding="utf-8") and time.time() < deadline:
        page.wait_for_timeout(200)
    page.wait_for_timeout(500)  # the file is written whole: read it once the write is done
    old_lines, new_lines = original.split("\n"), rollout.read_text(encoding="utf-8").split("\n")
    assert [n for n, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [4]
    assert old_lines[:4] + old_lines[5:] == new_lines[:4] + new_lines[5:]
    assert new_lines[4] == old_lines[4].replace('text(r);\\n"', 'text(r);\\ntext(\\"edited in VS Code\\");"')
    expect(page.locator(".tab").filter(has_text="rollout-demo-call_demo1.js").first).not_to_have_class(
        "dirty", timeout=30_000)
    expect(page.get_by_text("not written back")).to_have_count(0)
    page.wait_for_timeout(6000)  # the new line's colours arrive with the next semantic tokens
    page.screenshot(path=str(IMAGES / "editable-script.png"))
    command(page, "View: Close Editor")
    page.locator(".tab").filter(has_text="rollout-demo.jsonl").first.click()
    go_to(page, 5, 1)
    command(page, "Rollout: Edit Exec Script as JavaScript")
    editor = page.locator(".editor-group-container.active .view-lines")
    expect(editor).to_contain_text('text("edited in VS Code");', timeout=30_000)
    command(page, "View: Close Editor")
    command(page, "View: Close All Editor Groups")
    rollout.write_text(original, encoding="utf-8")


def test_a_rollout_with_another_name_is_found_by_its_content(page: Page):
    """Any .jsonl goes to the server, which answers for rollouts: a copy under another name gets its outline."""
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    copy = folder / "attached-session.jsonl"
    shutil.copy(ROOT / "fixtures" / "rollout-demo.jsonl", copy)
    try:
        open_file(page, copy.name)
        command(page, "Explorer: Focus on Outline View")
        expect(page.locator(".outline-pane")).to_contain_text("apply_patch: update src/greet.py", timeout=60_000)
        command(page, "View: Close All Editor Groups")
    finally:
        copy.unlink()


def test_treat_as_rollout_and_a_compressed_rollout(page: Page):
    """A rollout saved as .json is not given to the server until Rollout: Treat as Rollout puts it in the rollout
    language; a .jsonl.zst tab goes to the Large Rollout view, which the server reads from disk."""
    import zstandard

    folder = Path(page.url.split("folder=")[1].split("&")[0])
    demo = (ROOT / "fixtures" / "rollout-demo.jsonl").read_bytes()
    odd = folder / "exported-session.json"
    odd.write_bytes(demo)
    packed = folder / "rollout-packed.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(demo))
    try:
        open_file(page, odd.name)
        command(page, "Rollout: Treat as Rollout")
        expect(page.locator(".statusbar")).to_contain_text("Codex Rollout", timeout=30_000)
        command(page, "Explorer: Focus on Outline View")
        # the server's outline (its session node; VS Code's JSON outline would list the keys of each record)
        expect(page.locator(".outline-pane")).to_contain_text("session 019f0000-0000-7000-8000-000000000001",
                                                              timeout=60_000)
        command(page, "View: Close All Editor Groups")
        open_file(page, packed.name)
        view = page.locator(".pane").filter(has=page.locator(".pane-header", has_text="Large Rollout"))
        expect(view).to_contain_text("rollout-packed.jsonl.zst", timeout=60_000)
        expect(view).to_contain_text("5 calls")
        command(page, "View: Close All Editor Groups")
    finally:
        odd.unlink()
        packed.unlink()


def test_the_script_view_is_written_on_an_explicit_save_only(page: Page):
    """With auto-save on, half-typed code in the .js view never reaches the rollout; the view completes
    `tools.`; Ctrl+S refuses a script that does not parse, and writes a valid one into the rollout and saves it."""
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    settings = folder.parent / "data" / "User" / "settings.json"
    before = settings.read_text(encoding="utf-8")
    rollout = folder / "rollout-autosave.jsonl"
    original = (ROOT / "fixtures" / "rollout-demo.jsonl").read_text(encoding="utf-8")
    rollout.write_text(original, encoding="utf-8")
    settings.write_text(json.dumps(dict(json.loads(before), **{"files.autoSave": "afterDelay",
                                                               "files.autoSaveDelay": 300})), encoding="utf-8")
    try:
        page.wait_for_timeout(2000)  # VS Code reads the changed settings file
        open_file(page, rollout.name)
        go_to(page, 5, 1)
        command(page, "Rollout: Edit Exec Script as JavaScript")
        expect(page.locator(".tab.active").filter(has_text="rollout-autosave-call_demo1.js")).to_be_visible(
            timeout=30_000)
        editor = page.locator(".editor-group-container.active .view-lines")
        expect(editor).to_contain_text("text(r);", timeout=30_000)
        page.keyboard.press("Control+End")
        page.keyboard.type("await tools.")
        suggest = page.locator(".suggest-widget")
        expect(suggest).to_contain_text("exec_command", timeout=30_000)
        expect(suggest).to_contain_text("write_stdin")
        page.screenshot(path=str(IMAGES / "script-view-completion.png"))
        page.keyboard.press("Escape")
        page.wait_for_timeout(3000)  # auto-save ran (300 ms): the half-typed script stays in the tab
        assert rollout.read_text(encoding="utf-8") == original
        page.keyboard.press("Control+S")
        expect(page.get_by_text("does not parse").first).to_be_visible(timeout=30_000)
        assert rollout.read_text(encoding="utf-8") == original
        page.keyboard.press("Shift+Home")
        page.keyboard.insert_text('await tools.exec_command({cmd: "ls"});')
        page.keyboard.press("Control+S")
        deadline = time.time() + 30
        while "exec_command({cmd: \\\"ls\\\"})" not in rollout.read_text(encoding="utf-8") and time.time() < deadline:
            page.wait_for_timeout(200)
        page.wait_for_timeout(500)
        lines = rollout.read_text(encoding="utf-8").split("\n")
        assert lines[4] == original.split("\n")[4].replace(
            'text(r);\\n"', 'text(r);\\nawait tools.exec_command({cmd: \\"ls\\"});"')
        command(page, "View: Close All Editor Groups")
    finally:
        settings.write_text(before, encoding="utf-8")
        rollout.unlink()


def test_link_an_invocation_log_to_a_rollout(page: Page):
    """Rollout: Link Invocation Log to a Rollout… is in the palette only while a log is active; it lists the open
    rollouts and Choose automatically, and the log's findings follow the link picked."""
    from tests.server.test_server_invocations import COMMANDS, LOG, rollout

    run = Path(page.url.split("folder=")[1].split("&")[0]) / "run-1"
    (run / "cli_mocks").mkdir(parents=True)
    # run 1 explains two invocations (one with another exit code), run 2 only the stale one
    (run / "rollout-run1.jsonl").write_text(rollout(COMMANDS), encoding="utf-8")
    (run / "rollout-run2.jsonl").write_text(rollout([("uip ixp projects delete proj-0", 0)]), encoding="utf-8")
    (run / "cli_mocks" / "calls.jsonl").write_text(LOG, encoding="utf-8")
    stale = "no command of the rollout runs `uip ixp projects delete proj-0`"
    current = "no command of the rollout runs `uip ixp projects delete proj-1`"
    exit_mismatch = "recorded exit 0, but the rollout shows exit code 7"
    try:
        open_file(page, "rollout-run2.jsonl")
        open_file(page, "rollout-run1.jsonl")
        page.keyboard.press("F1")  # a rollout is active: the command is not offered
        type_in_quick_input(page, "Link Invocation Log")
        page.wait_for_timeout(1000)
        expect(page.locator(".quick-input-list .monaco-list-row").filter(has_text="Link Invocation Log")).to_have_count(0)
        page.keyboard.press("Escape")

        open_file(page, "calls.jsonl")
        command(page, "View: Focus Problems (Errors, Warnings, Infos)")
        problems = page.locator(".markers-panel")
        expect(problems).to_contain_text(stale, timeout=60_000)  # linked automatically to run 1
        expect(problems).to_contain_text(exit_mismatch)
        # the log's own tab: the recorded rollout codex-0.157-custom-calls.jsonl, opened by an earlier test, also
        # contains "calls.jsonl" (clicking it made the command link that rollout as if it were the log)
        page.locator(".tab").filter(has_text=re.compile(r"^\s*calls\.jsonl")).first.click()

        command(page, "Rollout: Link Invocation Log to a Rollout…")
        rows = page.locator(".quick-input-list .monaco-list-row")
        expect(rows).to_have_count(3, timeout=30_000)
        linked = rows.filter(has_text="linked now")
        expect(linked).to_have_count(1)
        expect(linked).to_contain_text("rollout-run1.jsonl")
        expect(linked).to_contain_text("linked now (chosen automatically)")
        expect(rows.filter(has_text="Choose automatically")).to_contain_text("now: rollout-run1.jsonl")
        page.screenshot(path=str(IMAGES / "link-invocation-log.png"))
        rows.filter(has_text="rollout-run2.jsonl").first.click()
        toasts = page.locator(".notifications-toasts")
        expect(toasts).to_contain_text("calls.jsonl is linked to rollout-run2.jsonl: 1 invocation explained, "
                                       "2 unexplained, 0 commands with no invocation.", timeout=30_000)
        expect(problems).to_contain_text(current, timeout=30_000)
        expect(problems).not_to_contain_text(stale)
        expect(problems).not_to_contain_text(exit_mismatch)

        command(page, "Rollout: Link Invocation Log to a Rollout…")
        expect(linked).to_have_count(1, timeout=30_000)
        expect(linked).to_contain_text("rollout-run2.jsonl")
        expect(rows.filter(has_text="Choose automatically")).not_to_contain_text("now:")
        rows.filter(has_text="Choose automatically").first.click()
        expect(toasts).to_contain_text("calls.jsonl is linked to rollout-run1.jsonl (chosen automatically): "
                                       "2 invocations explained, 1 unexplained, 1 command with no invocation.",
                                       timeout=30_000)
        expect(problems).to_contain_text(stale, timeout=30_000)
        expect(problems).to_contain_text(exit_mismatch)
        expect(problems).not_to_contain_text(current)
        # no key reached the log: its tab is not dirty and the file is as written
        expect(page.locator(".tab.dirty")).to_have_count(0)
        assert (run / "cli_mocks" / "calls.jsonl").read_text(encoding="utf-8") == LOG
        command(page, "Notifications: Clear All Notifications")
        command(page, "View: Close All Editor Groups")
    finally:
        shutil.rmtree(run)


GREETER_BY_A = ["import sys", "", "", "def greet():", '    return "hello"', "", "", "def main():", "    print(greet())"]
GREETER_NOW = ["import sys", "", "", "def greet(name):", '    return f"Hello, {name}!"', "", "", "def main():",
               '    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))']


def test_blame_lens_quick_pick_and_hover(page: Page):
    """Issue 26 in VS Code: a workspace file two generated sessions patched (in the server's index) has the lens
    `changed by 2 Codex sessions · last: …`; clicking it lists both sessions newest first in a quick pick (not a
    notification with buttons), and the row picked opens its rollout with the cursor on the call's line; a hover
    on a line a patch added names the session and the user's request."""
    from analysis.reports.index import RolloutIndex
    from tests.blame_support import Session, add, apply_patch_call, patch_event, patch_text, update

    folder = Path(page.url.split("folder=")[1].split("&")[0])
    repo, sessions, index = folder / "blame-demo", folder.parent / "blame-sessions", folder.parent / "index.sqlite3"
    (repo / "src").mkdir(parents=True)
    sessions.mkdir()
    greeter = repo / "src" / "greeter.py"
    greeter.write_text("\n".join(GREETER_NOW) + "\n", encoding="utf-8")
    a = Session("019e0000-0000-7000-8000-0000000000a1", "2026-01-05", str(repo), {"branch": "main"})
    a.turn("look around")
    a.script("call_a0", 'text(await tools.exec_command({cmd: "ls"}));\n')
    a.turn("create the greeter")
    a_call = a.top_patch("call_a1", patch_text(add("src/greeter.py", GREETER_BY_A)), success=True)
    b = Session("019e0000-0000-7000-8000-0000000000b2", "2026-02-10", str(repo), {"branch": "main"})
    b.turn("greet by name")
    b_call = b.script("call_b1", apply_patch_call(patch_text(update(
        "src/greeter.py", '@@\n-def greet():\n-    return "hello"\n+def greet(name):\n+    return f"Hello, {name}!"\n'
                          '@@\n def main():\n-    print(greet())\n'
                          '+    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))\n')))
        + 'const r = await tools.exec_command({cmd: "pytest -q"});\ntext(r);\n',
        [patch_event("exec-b1", True, {str(greeter): "update"})])
    rollout_a, rollout_b = a.save(sessions), b.save(sessions)
    assert (a_call, b_call) == (7, 3)
    with RolloutIndex.open(index) as built:
        assert built.update([str(sessions)]).errors == []
    try:
        open_file(page, greeter.name)
        lens = page.locator(".codelens-decoration").filter(has_text="Codex session")
        expect(lens).to_have_count(1, timeout=60_000)
        # the lens is drawn again when the server refreshes lenses: read its text once it has settled
        expect(lens).to_have_text("changed by 2 Codex sessions · last: 2026-02-10 greet by name", timeout=30_000)

        lens.locator("a").first.click()
        rows = page.locator(".quick-input-list .monaco-list-row")
        expect(rows).to_have_count(2, timeout=30_000)
        expect(page.locator(".quick-input-widget .quick-input-box input")).to_have_attribute(
            "placeholder", "2 Codex sessions changed this file, newest first: open one at its call")
        for n, (title, rollout, line, session) in enumerate([
                ("2026-02-10 10:00 · update · greet by name", rollout_b, 4, b.id),
                ("2026-01-05 10:00 · add · create the greeter", rollout_a, 8, a.id)]):
            expect(rows.nth(n).locator(".label-name").first).to_have_text(title)
            expect(rows.nth(n).locator(".label-description").first).to_have_text(f"line {line} · {rollout.name}")
            expect(rows.nth(n)).to_contain_text(f"session {session} · {sessions}")
        expect(page.get_by_text("Codex sessions changed this file; open one:")).to_have_count(0)  # no message request
        page.screenshot(path=str(IMAGES / "blame-quick-pick.png"))
        rows.nth(1).click()
        expect(page.locator(".tab.active").filter(has_text=rollout_a.name).first).to_be_visible(timeout=30_000)
        expect(page.locator(".statusbar")).to_contain_text(re.compile(r"Ln 8, Col \d+ \(\d+ selected\)"),
                                                           timeout=30_000)  # the call's record, selected
        command(page, "View: Close Editor")

        open_file(page, greeter.name)
        hover = page.locator(".monaco-hover:visible").filter(has_text="Codex session")
        word = page.locator(".editor-group-container.active .view-line").filter(
            has_text='return f"Hello, {name}!"').get_by_text("return", exact=True)
        # the pointer over the word, as a person would: a hover shown with the keyboard (Show or Focus Hover) was
        # hidden again at once in this file, every time
        for attempt in range(3):
            page.mouse.move(1, 1)
            word.hover()
            try:
                expect(hover.first).to_be_visible(timeout=10_000 if attempt < 2 else 30_000)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        text = hover.first.inner_text()
        assert f"Codex session {b.id}" in text and "greet by name" in text and "then ran pytest -q" in text, text
        assert "update src/greeter.py · applied" in text, text
        page.keyboard.press("Escape")
        command(page, "View: Close All Editor Groups")
    finally:
        shutil.rmtree(repo)
        shutil.rmtree(sessions)
        for path in (index, Path(f"{index}-wal"), Path(f"{index}-shm")):
            path.unlink(missing_ok=True)


def test_a_rollout_too_large_for_the_editor_gets_the_large_view_and_problems(page: Page):
    """VS Code gives extensions no document over 50 MB: the tab alone makes the extension read the file from
    disk into the Large Rollout view, its findings reach Problems, and a row opens the file at its line."""
    folder = Path(page.url.split("folder=")[1].split("&")[0])
    large = folder / "rollout-large-60mb.jsonl"
    demo = (ROOT / "fixtures" / "rollout-demo.jsonl").read_text(encoding="utf-8")
    large.write_text(demo * (60 * 1024 * 1024 // len(demo) + 1), encoding="utf-8")  # 60 MB, repeated sessions
    try:
        open_file(page, "rollout-large-60mb.jsonl")
        view = page.locator(".pane").filter(has=page.locator(".pane-header", has_text="Large Rollout"))
        expect(view).to_contain_text("rollout-large-60mb.jsonl", timeout=300_000)
        expect(view).to_contain_text("calls")
        command(page, "View: Focus Problems (Errors, Warnings, Infos)")
        problems = page.locator(".markers-panel")
        expect(problems).to_contain_text("exec_command never runs: it is in dead code", timeout=30_000)
        expect(problems).to_contain_text("rollout-large-60mb.jsonl")
        view.locator(".monaco-list-row").filter(has_text="rollout-large-60mb.jsonl").first.click()
        turn = view.locator(".monaco-list-row").filter(has_text="turn 1 (line 3): Fix the failing greeting test").first
        expect(turn).to_be_visible(timeout=30_000)
        turn.click()
        page.screenshot(path=str(IMAGES / "large-rollout.png"))
        command(page, "View: Close All Editor Groups")
        # the file is closed: its findings leave Problems; the view still lists it, and its rows still open it
        expect(problems).not_to_contain_text("rollout-large-60mb.jsonl", timeout=30_000)
        row = view.locator(".monaco-list-row").filter(has_text="7: apply_patch").first
        expect(row).to_be_visible(timeout=30_000)
        page.keyboard.press("Escape")  # a tooltip of the row clicked before may cover this one
        page.mouse.move(1, 1)
        row.scroll_into_view_if_needed()
        try:
            row.click(timeout=10_000)
        except PlaywrightTimeoutError:  # another overlay (a hover, a pane's edge) still takes the pointer
            row.dispatch_event("click")  # the list listens for click on the row itself
        expect(page.locator(".tab.active").filter(has_text="rollout-large-60mb.jsonl").first).to_be_visible(
            timeout=60_000)
        # a read-only window of the file around the row's line, at the file's line numbers: no "Open Anyway"
        expect(page.locator(".editor-group-container.active .view-lines")).to_contain_text("Update File: src/greet.py",
                                                                                            timeout=60_000)
        expect(page.get_by_role("button", name="Open Anyway")).to_have_count(0)
        command(page, "View: Close All Editor Groups")
    finally:
        large.unlink()


def expected_of_20mb(path: Path) -> dict:
    """What the Outline, Problems and the lenses must show for ``path``, from the analysis and `rollout-lsp check`."""
    from analysis.jsonl.positions import PositionEncoding
    from analysis.session.labels import turn_label
    from analysis.session.rollout import analyze_text
    from lsp_server.features.lenses import lens_title
    from lsp_server.sessions import SessionOutline, session_lenses

    analysis = analyze_text(path.read_text(encoding="utf-8"))
    execs = [n for n, record in enumerate(analysis.records) if record.is_exec]
    title = " ".join(analysis.turns[0].title.split())
    session = [lens.command.title for lens in session_lenses(analysis) if lens.command.title.startswith("session: ")]
    checked = subprocess.run([str(Path(sys.executable).parent / "rollout-lsp"), "check", "--json", str(path)],
                             capture_output=True, text=True)
    return {
        "session": SessionOutline(analysis, PositionEncoding.UTF16).session_name(path.name),
        "turn": f"{turn_label(1, analysis.turns[0].line)}: {title[:40]}",  # the Outline cuts a request at 60
        "command": analysis.calls_on(execs[0])[0].call.label,
        "problems": len(json.loads(checked.stdout)),
        "status": session[0] if session else f"{len(execs):,} exec records",
        "lens": lens_title(analysis, execs[0]), "lens_line": execs[0] + 1,
        "script": f"{analysis.records[execs[0]].call_id}.js",
    }


@pytest.fixture(scope="module")
def rollout_20mb(page: Page):
    """The benchmark's generated rollout of 20 MB and a little (past both of VS Code's limits) in the workspace,
    with what VS Code must show of it."""
    large = Path(page.url.split("folder=")[1].split("&")[0]) / "rollout-large-20mb.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), str(large), "--size", "20MB", "--seed", "1"],
                   check=True)
    assert 20 << 20 < large.stat().st_size < 21 << 20
    yield large, expected_of_20mb(large)
    large.unlink()


def test_a_20mb_rollout_opens_at_once_with_outline_problems_and_its_lenses(page: Page, rollout_20mb):
    """Over 10 MB, code-server (a remote window) shows "Open Anyway" instead of a file, and over 20 MB VS Code's
    editor draws no code lenses: the extension opens the rollout itself, and its status bar item lists the lenses."""
    large, expected = rollout_20mb
    started = time.time()
    open_file(page, large.name)
    editor = page.locator(".editor-group-container.active .view-lines")
    expect(editor).to_contain_text('"type":"session_meta"', timeout=180_000)
    shown = time.time() - started
    expect(page.get_by_role("button", name="Open Anyway")).to_have_count(0)
    command(page, "Explorer: Focus on Outline View")
    outline = page.locator(".outline-pane")
    expect(outline).to_contain_text(expected["command"], timeout=180_000)
    filled = time.time() - started
    expect(outline).to_contain_text(expected["session"])
    expect(outline).to_contain_text(expected["turn"])
    command(page, "View: Focus Problems (Errors, Warnings, Infos)")
    # Problems is a virtual list: another rollout's findings (the 60 MB one of an earlier test) can push this
    # file's row out of the DOM, so the view is filtered to this file while its count is read
    problem_filter = page.get_by_role("textbox", name="Filter Problems")
    problem_filter.fill(f"**/{large.name}")
    count = page.locator(".markers-panel .monaco-list-row").filter(has_text=large.name).first.locator(
        ".monaco-count-badge")
    expect(count).to_have_text(str(expected["problems"]), timeout=180_000)
    problems = time.time() - started
    problem_filter.fill("")
    status = page.locator(".statusbar-item").filter(has_text=expected["status"])
    expect(status.first).to_be_visible(timeout=180_000)
    expect(page.locator(".codelens-decoration")).to_have_count(0)  # VS Code draws none in so large a file
    page.screenshot(path=str(IMAGES / "rollout-20mb.png"))
    status.first.click()
    row = page.locator(".quick-input-list .monaco-list-row").filter(has_text=expected["lens"]).filter(
        has_text=f"line {expected['lens_line']}").first
    expect(row).to_be_visible(timeout=60_000)
    page.screenshot(path=str(IMAGES / "rollout-20mb-lenses.png"))
    row.click()  # the lens's own command: the exec record's decoded script
    expect(page.locator(".tab").filter(has_text=expected["script"]).first).to_be_visible(timeout=60_000)
    print(f"\n20 MB rollout: text shown after {shown:.1f} s, Outline filled after {filled:.1f} s, "
          f"Problems ({expected['problems']}) after {problems:.1f} s")
    command(page, "View: Close All Editor Groups")


def test_a_20mb_rollout_gets_lenses_in_the_editor_once_the_user_turns_the_optimizations_off(page: Page, rollout_20mb):
    """The status bar's list ends with the way to real lenses: VS Code's large-file optimizations off for the
    file's language, in the user's settings, and the window reloaded (VS Code decides when it loads a file)."""
    large, expected = rollout_20mb
    settings = Path(page.url.split("folder=")[1].split("&")[0]).parent / "data" / "User" / "settings.json"
    before = settings.read_text(encoding="utf-8")
    try:
        open_file(page, large.name)
        status = page.locator(".statusbar-item").filter(has_text=expected["status"])
        expect(status.first).to_be_visible(timeout=180_000)
        status.first.click()
        type_in_quick_input(page, "Draw lenses")
        row = page.locator(".quick-input-list .monaco-list-row").filter(
            has_text="Draw lenses in the editor for rollout files").first
        expect(row).to_be_visible(timeout=30_000)
        row.click()
        reload = page.locator(".notifications-toasts").get_by_role("button", name="Reload Window")
        expect(reload).to_be_visible(timeout=30_000)
        assert json.loads(settings.read_text(encoding="utf-8"))["[rollout]"] == {"editor.largeFileOptimizations": False}
        with page.expect_navigation(timeout=90_000):
            reload.click()
        page.wait_for_selector(".monaco-workbench", timeout=90_000)
        # the restored tab opens past the confirmation again, now with the optimizations off: lenses
        lens = page.locator(".codelens-decoration").filter(has_text=expected["lens"])
        expect(lens.first).to_be_visible(timeout=240_000)
        expect(page.locator(".statusbar-item").filter(has_text=expected["status"])).to_have_count(0)
        page.screenshot(path=str(IMAGES / "rollout-20mb-drawn-lenses.png"))
        command(page, "View: Close All Editor Groups")
    finally:
        settings.write_text(before, encoding="utf-8")


def test_the_codex_sessions_view_lists_opens_reveals_and_filters(page: Page):
    """Issue 32 in VS Code: a session under $CODEX_HOME/sessions (named in session_index.jsonl) is listed in the
    Codex Sessions view as project → day → session; clicking its row opens the rollout at its first line;
    "Reveal in Codex Sessions" from the rollout's tab selects the row; a filter that matches nothing empties the
    view and Clear Filter brings the row back."""
    from datetime import datetime

    from analysis.reports.index import RolloutIndex
    from tests.blame_support import Session

    folder = Path(page.url.split("folder=")[1].split("&")[0])
    codex, index = folder.parent / "codex", folder.parent / "index.sqlite3"  # CODEX_HOME and the server's index
    project = folder.parent / "sessions-demo"
    day_folder = codex / "sessions" / "2026" / "01" / "07"
    project.mkdir()
    day_folder.mkdir(parents=True)
    demo = Session("019e0000-0000-7000-8000-0000000000c3", "2026-01-07", str(project))
    demo.turn("count the greetings in the demo")
    demo.script("call_c1", 'text(await tools.exec_command({cmd: "grep -c hello greet.txt"}));\n')
    rollout = demo.save(day_folder)
    named = {"id": demo.id, "thread_name": "Greeting census", "updated_at": "2026-01-07T10:05:00Z"}
    (codex / "session_index.jsonl").write_text(json.dumps(named) + "\n", encoding="utf-8")
    day = datetime.fromisoformat("2026-01-07T10:00:01+00:00").astimezone().strftime("%Y-%m-%d")  # the local day
    with RolloutIndex.open(index) as built:
        assert built.update([str(codex / "sessions")]).errors == []
    try:
        command(page, "Rollout: Show Codex Sessions")
        view = page.locator(".pane").filter(has=page.locator(".pane-header", has_text="Codex Sessions"))
        rows = view.locator(".monaco-list-row")
        session_row = rows.filter(has_text="Greeting census").first
        at = [view.locator(f'.monaco-list-row[data-index="{n}"]') for n in range(3)]  # rows by place, not DOM order
        expect(session_row).to_be_visible(timeout=120_000)
        # project → day → session, one level deeper each
        expect(at[0].locator(".label-name").first).to_have_text("sessions-demo")
        expect(at[0]).to_contain_text(re.compile(r"1 session · (.+ · )?" + re.escape(str(project))))
        expect(at[1].locator(".label-name").first).to_have_text(day)
        expect(at[2].locator(".label-name").first).to_have_text("Greeting census")
        assert [at[n].get_attribute("aria-level") for n in range(3)] == ["1", "2", "3"]
        # the duration (when the session has one), then the cost ("no price": the fixture's model has none)
        expect(at[2].locator(".label-description").first).to_have_text(re.compile(r"^((\d+(\.\d)? s|\d+ min \d\d s|\d+ h \d\d min) · )?(no price|<?\$\d+\.\d\d)"))
        page.screenshot(path=str(IMAGES / "codex-sessions.png"))

        session_row.click()
        expect(page.locator(".tab.active").filter(has_text=rollout.name).first).to_be_visible(timeout=30_000)
        expect(page.locator(".statusbar")).to_contain_text("Ln 1, Col 1", timeout=30_000)

        at[0].click()  # the project collapsed: Reveal expands it again and selects the row
        expect(session_row).to_have_count(0, timeout=10_000)
        command(page, "Rollout: Reveal in Codex Sessions")
        selected = view.locator(".monaco-list-row.selected")
        expect(selected).to_contain_text("Greeting census", timeout=60_000)

        command(page, "Codex Sessions: Filter Sessions")
        type_in_quick_input(page, "nothing like this")
        page.keyboard.press("Enter")
        expect(view).to_contain_text('No session matches "nothing like this".', timeout=30_000)
        expect(session_row).to_have_count(0)
        command(page, "Codex Sessions: Clear Filter")
        expect(session_row).to_be_visible(timeout=30_000)
        command(page, "Codex Sessions: Filter Sessions")
        type_in_quick_input(page, f"census {day}")
        page.keyboard.press("Enter")
        expect(session_row).to_be_visible(timeout=30_000)
        expect(view.locator(".pane-header")).to_contain_text(f"filter: census {day}")
        command(page, "Codex Sessions: Clear Filter")
        command(page, "View: Close All Editor Groups")
    finally:
        shutil.rmtree(project)
        shutil.rmtree(codex / "sessions")
        (codex / "session_index.jsonl").unlink()
        for path in (index, Path(f"{index}-wal"), Path(f"{index}-shm")):
            path.unlink(missing_ok=True)
