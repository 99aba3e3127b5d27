"""No edit lost, in a real VS Code (code-server in headless Chromium, as test_vscode_e2e.py runs it), auto-save on.

An exec script edited as JavaScript is written into the rollout on disk by auto-save when it parses; when it does
not, the rollout is untouched, the tab stays dirty, the status bar says why, and closing the tab asks; reopened,
the script is the rollout's.  A rollout under a Codex home (here the `rolloutLsp.codexHome` setting) opens
read-only: typing changes nothing on disk and its scripts are not opened for editing; "Allow Edits of This
Rollout" makes it editable (auto-save writes the keystroke), "Review This Rollout Read-Only" takes that back,
and VS Code's own "Click here to set writeable" is followed by the status bar.
Uses the code-server and page fixtures of test_vscode_e2e.py (a code-server of its own for this module).
Run with `make e2e` (which builds the .vsix), or alone once it is built.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from test_vscode_e2e import ROOT, code_server, command, go_to, open_file, page  # noqa: F401  (fixtures)

FIXTURE = ROOT / "fixtures" / "rollout-demo.jsonl"
DIRTY = re.compile(r"\bdirty\b")


def wait_for(condition, timeout: float = 30) -> bool:
    deadline = time.time() + timeout
    while not condition() and time.time() < deadline:
        time.sleep(0.2)
    return condition()


@pytest.fixture(scope="module", autouse=True)
def module_settings(code_server: str) -> tuple[Path, Path]:  # noqa: F811
    """Auto-save after 300 ms, and a Codex home inside the workspace (the setting): (workspace, Codex home).
    Written before the window opens (autouse: set up before the page fixture), so that VS Code reads them as it
    starts, as it reads a user's settings.  Written into the open window (as before), they reached the extension
    only when its host started after the write: a host started before it never saw the change under load (no
    onDidChangeConfiguration, `rolloutLsp.codexHome` still null two minutes later, a second write neither), so the
    rollout under the Codex home showed "Rollout: editable".  The code-server and its data are this module's own:
    nothing to restore."""
    folder = Path(code_server.split("folder=")[1].split("&")[0])
    settings = folder.parent / "data" / "User" / "settings.json"
    home = folder / "codex-home"
    settings.write_text(
        json.dumps(
            dict(
                json.loads(settings.read_text(encoding="utf-8")),
                **{
                    "files.autoSave": "afterDelay",
                    "files.autoSaveDelay": 300,
                    "rolloutLsp.codexHome": str(home),
                },
            )
        ),
        encoding="utf-8",
    )
    return folder, home


@pytest.fixture()
def auto_save(page: Page, module_settings: tuple[Path, Path]) -> Iterator[tuple[Path, Path]]:  # noqa: F811
    """The module's settings, and every editor closed after the test."""
    try:
        yield module_settings
    finally:
        command(page, "View: Close All Editor Groups")


def open_script(page: Page, tab: str) -> None:  # noqa: F811
    go_to(page, 5, 1)
    command(page, "Rollout: Edit Exec Script as JavaScript")
    expect(page.locator(".tab.active").filter(has_text=tab)).to_be_visible(timeout=30_000)
    expect(page.locator(".editor-group-container.active .view-lines")).to_contain_text("text(r);", timeout=30_000)


def test_auto_save_writes_a_script_that_parses_and_keeps_one_that_does_not_pending(page: Page, auto_save):  # noqa: F811
    folder, _ = auto_save
    rollout = folder / "rollout-no-edit-lost.jsonl"
    original = FIXTURE.read_text(encoding="utf-8")
    rollout.write_text(original, encoding="utf-8")
    try:
        open_file(page, rollout.name)
        open_script(page, "rollout-no-edit-lost-call_demo1.js")
        tab = page.locator(".tab").filter(has_text="rollout-no-edit-lost-call_demo1.js").first
        # a script that parses: auto-save writes it into the rollout on disk, no Ctrl+S, and the tab is clean
        page.keyboard.press("Control+End")
        page.keyboard.insert_text('text("auto-saved");')
        assert wait_for(lambda: "auto-saved" in rollout.read_text(encoding="utf-8"))
        page.wait_for_timeout(500)  # the file is written whole: read it once the write is done
        written = rollout.read_text(encoding="utf-8")
        assert written.split("\n")[4] == original.split("\n")[4].replace(
            'text(r);\\n"', 'text(r);\\ntext(\\"auto-saved\\");"'
        )
        assert written.split("\n")[:4] + written.split("\n")[5:] == original.split("\n")[:4] + original.split("\n")[5:]
        expect(tab).not_to_have_class(DIRTY, timeout=30_000)
        # one that does not parse: the rollout keeps the last script that did, the tab stays dirty and says why
        page.keyboard.insert_text(" await tools.")
        expect(tab).to_have_class(DIRTY, timeout=30_000)
        status = page.locator(".statusbar-item").filter(has_text="Script not in the rollout")
        expect(status).to_be_visible(timeout=30_000)
        page.wait_for_timeout(2000)  # several auto-save delays
        assert rollout.read_text(encoding="utf-8") == written
        expect(tab).to_have_class(DIRTY)
        page.screenshot(path=str(ROOT / "docs" / "images" / "script-pending.png"))
        # closing it asks; "Don't Save" leaves the rollout as it is, and the script reopens as the rollout has it
        command(page, "View: Close Editor")
        dont_save = page.get_by_role("button", name="Don't Save")
        expect(dont_save).to_be_visible(timeout=30_000)
        expect(page.locator(".monaco-dialog-box")).to_contain_text("rollout-no-edit-lost-call_demo1.js")
        dont_save.click()
        expect(tab).to_have_count(0, timeout=30_000)
        expect(status).to_have_count(0)
        assert rollout.read_text(encoding="utf-8") == written
        page.locator(".tab").filter(has_text=rollout.name).first.click()
        open_script(page, "rollout-no-edit-lost-call_demo1.js")
        editor = page.locator(".editor-group-container.active .view-lines")
        expect(editor).to_contain_text('text("auto-saved");', timeout=30_000)
        expect(editor).not_to_contain_text('"); await tools.')
        expect(tab).not_to_have_class(DIRTY)
    finally:
        command(page, "View: Close All Editor Groups")
        rollout.unlink()


def test_a_rollout_under_a_codex_home_opens_read_only_until_edits_are_allowed(page: Page, auto_save):  # noqa: F811
    _, home = auto_save
    day = home / "sessions" / "2026" / "07" / "20"
    day.mkdir(parents=True, exist_ok=True)
    rollout = day / "rollout-2026-07-20T10-00-00-review.jsonl"
    original = FIXTURE.read_text(encoding="utf-8")
    rollout.write_text(original, encoding="utf-8")
    try:
        open_file(page, rollout.name)
        status = page.locator(".statusbar-item").filter(has_text="Rollout: read-only")
        expect(status).to_be_visible(timeout=30_000)
        # a stray keystroke: VS Code refuses it, and auto-save has nothing to write
        page.keyboard.press("Control+Home")
        page.keyboard.type("x")
        expect(page.get_by_text("Editor is read-only").first).to_be_visible(timeout=30_000)
        page.wait_for_timeout(1500)  # several auto-save delays
        assert rollout.read_text(encoding="utf-8") == original
        expect(page.locator(".editor-group-container.active .tab.active")).not_to_have_class(DIRTY)
        page.screenshot(path=str(ROOT / "docs" / "images" / "review-read-only.png"))
        # its exec scripts are not opened for editing while it is reviewed
        go_to(page, 5, 1)
        command(page, "Rollout: Edit Exec Script as JavaScript")
        expect(page.get_by_text("this rollout is read-only for review").first).to_be_visible(timeout=30_000)
        expect(page.locator(".tab").filter(has_text=re.compile(r"\.js\b"))).to_have_count(0)
        page.keyboard.press("Escape")
        # allowed: the keystroke is saved by auto-save
        command(page, "Rollout: Allow Edits of This Rollout")
        expect(page.locator(".statusbar-item").filter(has_text="Rollout: editable")).to_be_visible(timeout=30_000)
        expect(status).to_have_count(0)
        page.locator(".editor-group-container.active .view-lines").click()
        page.keyboard.press("Control+Home")
        page.keyboard.type("x")
        assert wait_for(lambda: rollout.read_text(encoding="utf-8") == "x" + original)
        # and read-only again: nothing more reaches the disk
        command(page, "Rollout: Review This Rollout Read-Only")
        expect(status).to_be_visible(timeout=30_000)
        page.locator(".editor-group-container.active .view-lines").click()
        page.keyboard.press("Control+Home")
        page.keyboard.type("y")
        page.wait_for_timeout(1500)
        assert rollout.read_text(encoding="utf-8") == "x" + original
        # VS Code's own way out, the link in its read-only message: the edit is saved and the status bar follows
        page.get_by_role("link", name="Click here").first.click()
        page.locator(".editor-group-container.active .view-lines").click()
        page.keyboard.press("Control+Home")
        page.keyboard.type("z")
        assert wait_for(lambda: rollout.read_text(encoding="utf-8") == "zx" + original)
        expect(page.locator(".statusbar-item").filter(has_text="Rollout: editable")).to_be_visible(timeout=30_000)
    finally:
        command(page, "View: Close All Editor Groups")
        rollout.unlink()
