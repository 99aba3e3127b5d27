"""What only the real editor shows of issue 34's VS Code details, in code-server (headless Chromium, Playwright),
with the fixtures and helpers of test_vscode_e2e.py (its own code-server: run this file alone, after `make e2e`
built the .vsix once):

- a 12 MB rollout, which the extension opens itself past code-server's 10 MB confirmation, leaves Problems as soon
  as its tab closes (VS Code keeps such a document for three minutes; it kept its findings there before);
- a `.jsonl` not named `rollout-*` whose first records are a rollout's gets the rollout language;
- Alt+F9 and Shift+Alt+F9 move the cursor to each failed call the lens counts, at its column, and say when they
  go round;
- a rollout in the Codex home of `$CODEX_HOME` is read with the reader profile (its computed commands are hints,
  not in Problems), the same file in the workspace with the author one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, expect
from test_vscode_e2e import ROOT, code_server, command, open_file, page, type_in_quick_input  # noqa: F401

CURSOR = ".statusbar-item[id='status.editor.selection']"


def workspace(page: Page) -> Path:
    return Path(page.url.split("folder=")[1].split("&")[0])


def problems_of(page: Page, name: str):
    """The Problems view filtered to ``name``'s findings (a virtual list: other files' rows would push it out)."""
    command(page, "View: Focus Problems (Errors, Warnings, Infos)")
    page.get_by_role("textbox", name="Filter Problems").fill(f"**/{name}")
    return page.locator(".markers-panel")


def test_a_closed_large_rollout_leaves_problems_at_once(page: Page):
    large = workspace(page) / "rollout-large-12mb.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), str(large), "--size", "12MB", "--seed", "2"], check=True
    )
    assert 10 << 20 < large.stat().st_size < 13 << 20  # over code-server's confirmation, under VS Code's 20 MB
    checked = subprocess.run(
        [str(Path(sys.executable).parent / "rollout-lsp"), "check", "--json", str(large)],
        capture_output=True,
        text=True,
    )
    assert json.loads(checked.stdout)  # it has findings to show
    try:
        open_file(page, large.name)
        expect(page.locator(".editor-group-container.active .view-lines")).to_contain_text(
            '"type":"session_meta"', timeout=180_000
        )
        problems = problems_of(page, large.name)
        expect(problems.locator(".monaco-list-row").filter(has_text=large.name).first).to_be_visible(timeout=180_000)
        command(page, "View: Close All Editor Groups")
        # well within the three minutes VS Code keeps the document the extension opened
        expect(problems.locator(".monaco-list-row").filter(has_text=large.name)).to_have_count(0, timeout=20_000)
        page.get_by_role("textbox", name="Filter Problems").fill("")
    finally:
        large.unlink()


def test_a_rollout_under_another_name_gets_the_rollout_language(page: Page):
    copy = workspace(page) / "attached-session.jsonl"
    shutil.copy(ROOT / "fixtures" / "rollout-demo.jsonl", copy)
    other = workspace(page) / "chat-log.jsonl"
    other.write_text('{"type":"message","role":"user","content":"hi"}\n', encoding="utf-8")
    try:
        open_file(page, copy.name)
        language = page.locator(".statusbar-item[id='status.editor.mode']")
        expect(language).to_have_text("Codex Rollout", timeout=60_000)
        command(page, "View: Close All Editor Groups")
        open_file(page, other.name)  # another tool's chat log keeps its language
        expect(language).to_have_text("JSON Lines", timeout=60_000)
        command(page, "View: Close All Editor Groups")
    finally:
        copy.unlink()
        other.unlink()


def test_alt_f9_and_shift_alt_f9_visit_every_failed_call_and_say_when_they_wrap(page: Page):
    # rollout-events.jsonl with a second failed call in the script of line 12: three failed calls, three stops
    text = (
        (ROOT / "fixtures" / "rollout-events.jsonl")
        .read_text(encoding="utf-8")
        .replace(
            '"call_id":"exec-0003","turn_id":"turn-1","success":true',
            '"call_id":"exec-0003","turn_id":"turn-1","success":false',
        )
    )
    rollout = workspace(page) / "rollout-two-failed.jsonl"
    rollout.write_text(text, encoding="utf-8")
    try:
        open_file(page, rollout.name)
        expect(page.locator(".codelens-decoration").filter(has_text="3 failed calls")).to_be_visible(timeout=60_000)
        page.locator(".editor-group-container.active .view-lines").click()
        command(page, "Go to Line/Column")
        type_in_quick_input(page, "1:1")
        page.keyboard.press("Enter")
        cursor = page.locator(CURSOR)
        visited = []
        for _ in range(4):
            page.keyboard.press("Alt+F9")
            expected = ["Ln 9, Col 1", "Ln 12, Col 311", "Ln 12, Col 465", "Ln 9, Col 1"][len(visited)]
            expect(cursor).to_contain_text(expected, timeout=30_000)
            visited.append(cursor.inner_text())
        expect(page.locator(".notifications-toasts")).to_contain_text(
            "past the last failed call, back to the first (1 of 3)", timeout=30_000
        )
        page.keyboard.press("Shift+Alt+F9")
        expect(cursor).to_contain_text("Ln 12, Col 465", timeout=30_000)
        expect(page.locator(".notifications-toasts")).to_contain_text(
            "before the first failed call, back to the last (3 of 3)", timeout=30_000
        )
        page.keyboard.press("Shift+Alt+F9")
        expect(cursor).to_contain_text("Ln 12, Col 311", timeout=30_000)
        expect(page.locator(".statusbar")).to_contain_text("Rollout: failed call (2 of 3) at line 12, exit 2")
        command(page, "Notifications: Clear All Notifications")
        command(page, "View: Close All Editor Groups")
    finally:
        rollout.unlink()


def test_the_profile_is_the_readers_in_the_codex_home_and_the_authors_in_a_project(page: Page):
    folder = workspace(page)
    home = folder.parent / "codex"  # the $CODEX_HOME code-server and the server run with (test_vscode_e2e.py)
    kept = home / "sessions" / "2026" / "07" / "20" / "rollout-2026-07-20T10-00-00-computed.jsonl"
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "fixtures" / "rollout-computed.jsonl", kept)
    copy = folder / "rollout-computed-copy.jsonl"
    shutil.copy(ROOT / "fixtures" / "rollout-computed.jsonl", copy)
    try:
        open_file(page, copy.name)  # in the project: author, its computed commands are warnings
        problems = problems_of(page, copy.name)
        expect(problems).to_contain_text("the command is computed at run time", timeout=60_000)
        command(page, "View: Close All Editor Groups")
        command(page, "File: Open File...")
        box = page.locator(".quick-input-widget .quick-input-box input")
        expect(box).to_be_focused(timeout=10_000)
        box.fill(str(kept))
        dialog = page.locator(".quick-input-widget")
        expect(dialog.locator(".monaco-list-row").filter(has_text=kept.name).first).to_be_visible(timeout=30_000)
        dialog.get_by_role("button", name="OK").click()
        expect(page.locator(".tab.active").filter(has_text=kept.name).first).to_be_visible(timeout=30_000)
        command(page, "Explorer: Focus on Outline View")  # analysed: its outline is there
        expect(page.locator(".outline-pane")).to_contain_text("session", timeout=60_000)
        problems = problems_of(page, kept.name)
        # reader: the same findings are hints, which Problems does not list
        expect(problems.locator(".monaco-list-row").filter(has_text=kept.name)).to_have_count(0, timeout=10_000)
        expect(problems).not_to_contain_text("the command is computed at run time")
        page.get_by_role("textbox", name="Filter Problems").fill("")
        command(page, "View: Close All Editor Groups")
    finally:
        copy.unlink()
        kept.unlink()
