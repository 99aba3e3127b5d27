"""From the rollout to the files it changed (issue 26, point 4), through `rollout-lsp serve` (pytest-lsp): on
each call that changed a file that exists, a lens ``open src/app.py`` whose command opens the file at the
first line of the change's first hunk; for a session of another machine, the same file of the workspace's
checkout of that repository; nothing for files not on this machine (the command says so)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.blame_support import build_world
from tests.helpers import ROOT
from tests.lsp_support import open_text, push_capabilities

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-changed-files-test-{os.getpid()}"
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={
        "PYTHONPATH": str(ROOT),
        "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
        "ROLLOUT_LSP_INDEX_REFRESH": "0",
        "CODEX_HOME": str(WORK / "codex"),
    },
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    repo, folder, _db, _made = build_world(WORK)
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=push_capabilities(), root_uri=repo.as_uri())
    )
    lsp_client.repo = repo
    lsp_client.sessions = folder
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


def opened(client: LanguageClient, session: str) -> str:
    rollout = next(client.sessions.glob(f"*{session}*.jsonl"))
    open_text(client, rollout.as_uri(), rollout.read_text(encoding="utf-8"))
    return rollout.as_uri()


async def file_lenses(client: LanguageClient, uri: str) -> list[tuple[int, str, list]]:
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    return [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments))
        for lens in lenses
        if lens.command.command == "rollout-lsp.openChangedFile"
    ]


async def test_a_lens_per_existing_file_opens_it_at_the_first_hunk(client: LanguageClient):
    repo = client.repo
    uri = opened(client, "019b0000")
    # the exec record on line 4 updated src/app.py, moved src/old_name.py to src/new_name.py, deleted src/gone.py
    assert await file_lenses(client, uri) == [
        (3, "open src/app.py", [uri, 3, 0, 0]),
        (3, "open src/new_name.py", [uri, 3, 0, 1]),
    ]
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 0])
    )
    app = (repo / "src" / "app.py").as_uri()
    # the hunk's new side (def compute_greeting … return f"Hello, …") starts on line 11 of the file now
    assert found == {
        "uri": app,
        "range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}},
        "path": "src/app.py",
    }
    [shown] = client.shown_documents
    assert (shown.uri, shown.selection, shown.take_focus) == (
        app,
        types.Range(types.Position(10, 0), types.Position(10, 0)),
        True,
    )

    moved = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 1])
    )
    assert moved == {
        "uri": (repo / "src" / "new_name.py").as_uri(),
        "path": "src/new_name.py",
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
    }


async def test_a_hunk_partly_changed_since_and_files_not_on_this_machine(client: LanguageClient):
    repo = client.repo
    uri = opened(client, "019a0000")
    # call_a1 (line 4) added src/app.py, src/old_name.py and src/gone.py: only app.py is still there;
    # call_a2 (line 8, failed) would have added a line after `return f"hello {name}"`: its lens says so
    assert await file_lenses(client, uri) == [
        (3, "open src/app.py", [uri, 3, 0, 0]),
        (7, "open src/app.py (not applied)", [uri, 7, 0, 0]),
    ]
    added = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 0])
    )
    assert added["range"]["start"] == {"line": 0, "character": 0}  # the added content is no longer whole: line 1
    # the failed hunk's context line was changed later: found by its added line (13), one line back
    failed = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 7, 0, 0])
    )
    assert failed["range"]["start"] == {"line": 11, "character": 0}

    gone = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 1])
    )
    assert gone is None
    assert [m.message for m in client.messages] == [
        f"src/old_name.py is not on this machine (no file {repo / 'src' / 'old_name.py'}, nor that path below a "
        "workspace folder)."
    ]
    app = (repo / "src" / "app.py").as_uri()
    assert [(d.uri, d.selection.start.line) for d in client.shown_documents] == [(app, 0), (app, 11)]  # not old_name.py

    # a session recorded on Windows in a checkout of the same repository (the same remote): its src\app.py is
    # the workspace's src/app.py
    windows = opened(client, "019c0000")
    [(line, title, arguments)] = await file_lenses(client, windows)
    assert title == "open src/app.py" and arguments == [windows, line, 0, 0]
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", arguments)
    )
    assert found["uri"] == app and found["path"] == "src/app.py"
    # a session of another repository (another remote) with the same relative path: nothing to open here
    assert await file_lenses(client, opened(client, "019d0000")) == []


async def test_a_session_of_another_machine_opens_the_workspaces_copy_of_its_files(client: LanguageClient):
    """The same session as recorded on Alice's machine, in her checkout: its files are found below the
    workspace folder (this machine's checkout of the same repository)."""
    repo = client.repo
    recorded = next(client.sessions.glob("*019b0000*.jsonl")).read_text(encoding="utf-8")
    elsewhere = recorded.replace(str(repo), "/home/alice/checkouts/repo")
    assert elsewhere != recorded and str(repo) not in elsewhere
    rollout = client.sessions / "rollout-2026-07-21T09-00-00-019b0000-0000-7000-8000-00000000a11c.jsonl"
    rollout.write_text(elsewhere, encoding="utf-8")
    uri = rollout.as_uri()
    open_text(client, uri, elsewhere)
    assert await file_lenses(client, uri) == [
        (3, "open src/app.py", [uri, 3, 0, 0]),
        (3, "open src/new_name.py", [uri, 3, 0, 1]),
    ]
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 0])
    )
    assert found == {
        "uri": (repo / "src" / "app.py").as_uri(),
        "path": "src/app.py",
        "range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}},
    }


def _checkout(root: Path, remote: str | None, files: list[str]) -> Path:
    (root / ".git").mkdir(parents=True)
    if remote:
        (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n', encoding="utf-8")
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    return root


def test_which_checkout_is_the_sessions_repository(tmp_path: Path):
    from analysis.session.change_places import local_target
    from analysis.session.changes import FileChange, Place
    from lsp_server.features.changed_files import _same_repository

    def change(path: str) -> FileChange:
        return FileChange(3, 0, 0, "update", path, None, path, None, "yes", (), False)

    mono = _checkout(
        tmp_path / "ws" / "mono", "git@github.com:o/mono.git", ["package.json", "packages/web/package.json"]
    )
    other = _checkout(tmp_path / "ws" / "other", None, ["src/app.py"])
    folders = [str(tmp_path / "ws" / "mono"), str(tmp_path / "ws")]
    with_remote = _same_repository(
        Place("/home/alice/mono/packages/web", {"repository_url": "https://github.com/o/mono"})
    )
    # a monorepo's package: its own package.json, not the root's (the remote says the repository is the same)
    assert local_target(
        change("/home/alice/mono/packages/web/package.json"), "/home/alice/mono/packages/web", folders, with_remote
    ) == str(mono / "packages" / "web" / "package.json")
    # another remote: not this checkout
    elsewhere = _same_repository(Place("/home/alice/mono", {"repository_url": "https://github.com/someone/mono"}))
    assert local_target(change("/home/alice/mono/package.json"), "/home/alice/mono", folders, elsewhere) is None
    # no remote on either side: the same folder name, even with the workspace folder above the checkout
    unnamed = _same_repository(Place("/home/bob/other", None))
    assert local_target(
        change("/home/bob/other/src/app.py"), "/home/bob/other", [str(tmp_path / "ws")], unnamed
    ) == str(other / "src" / "app.py")
    assert local_target(change("/home/bob/another/src/app.py"), "/home/bob/another", [str(other)], unnamed) is None
    # a folder that is no repository at all is not taken for the session's
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "app.py").write_text("x\n", encoding="utf-8")
    assert local_target(change("/home/bob/plain/src/app.py"), "/home/bob/plain", [str(plain)], unnamed) is None
