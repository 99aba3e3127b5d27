"""Blame in the editor, through `rollout-lsp serve` (pytest-lsp): the lens at the top of a workspace file,
the hover on a line a patch added, the command that lists the sessions and opens the rollout at the call,
the dynamic registration for the workspace's files, and the setting that turns it off."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.blame_support import build_world
from tests.helpers import ROOT
from tests.lsp_support import open_text, push_capabilities

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-blame-test-{os.getpid()}"
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={
        "PYTHONPATH": str(ROOT),
        "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
        "ROLLOUT_LSP_INDEX_REFRESH": "0",
        "CODEX_HOME": str(WORK / "codex"),
    },
)


def capabilities() -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.code_lens = types.CodeLensClientCapabilities(dynamic_registration=True)
    caps.text_document.hover.dynamic_registration = True
    caps.window.show_message = types.ShowMessageRequestClientCapabilities()
    return caps


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    repo, folder, db, made = build_world(WORK)
    lsp_client.registrations = []
    lsp_client.asked = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def registered(params: types.RegistrationParams):
        lsp_client.registrations.extend(params.registrations)

    @lsp_client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def unregistered(params: types.UnregistrationParams):
        gone = {u.id for u in params.unregisterations}
        lsp_client.registrations[:] = [r for r in lsp_client.registrations if r.id not in gone]

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def asked(params: types.ShowMessageRequestParams):
        lsp_client.asked.append(params)
        return params.actions[1]  # the second newest change: B's

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(repo.as_uri(), "repo")],
        )
    )
    lsp_client.repo = repo
    lsp_client.sessions = folder
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def registered(client: LanguageClient) -> list[types.Registration]:
    for _ in range(100):
        if client.registrations:
            break
        await asyncio.sleep(0.05)
    return client.registrations


async def test_lens_hover_and_the_sessions_command(client: LanguageClient):
    repo = client.repo
    [lens_registration, hover_registration] = await registered(client)
    assert (lens_registration.method, hover_registration.method) == ("textDocument/codeLens", "textDocument/hover")
    selector = lens_registration.register_options["documentSelector"]
    prefix = str(repo).replace("\\", "/")
    assert selector == [
        {"scheme": "file", "pattern": f"{prefix}/**/{name}"}
        for name in ("*[!l]", "*[!n]l", "*[!o]nl", "*[!s]onl", "*[!j]sonl", "*[!.]jsonl")
    ]
    app = (repo / "src" / "app.py").as_uri()
    [lens] = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(app)))
    assert lens.range == types.Range(types.Position(0, 0), types.Position(0, 0))
    assert lens.command.title == "changed by 3 Codex sessions · last: 2026-03-01 add a review note"
    assert (lens.command.command, list(lens.command.arguments)) == ("rollout-lsp.blameSessions", [app])

    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(app), types.Position(11, 4))
    )
    rollout_b = next(client.sessions.glob("*019b0000*.jsonl"))
    assert hover.range == types.Range(types.Position(11, 0), types.Position(11, 28))
    assert hover.contents.value == (
        "**Codex session** `019b0000-0000-7000-8000-00000000000b` · 2026\\-02\\-01T10\\:00\\:05\\.000Z\n\n"
        "**Request** (turn 1 (line 3)): capitalise the greeting\n\n"
        f"update `app.py` · applied · [open the rollout at the call]({rollout_b.as_uri()}#L4)\n\n"
        '```diff\n@@\n-def compute_greeting(name):\n-    return f"hello {name}"\n+def compute_greeting(name):\n'
        '+    return f"Hello, {name}!"\n```\n\n'
        "then ran `pytest -q`"
    )
    # a line edited by hand, and a line only a failed patch added: no hover
    for line in (6, 12):
        assert (
            await client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(app), types.Position(line, 2))
            )
            is None
        )

    locations = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.blameSessions", [app])
    )
    assert [loc["title"].split(" · ")[1:] for loc in locations] == [
        ["update", "add a review note"],
        ["update", "capitalise the greeting"],
        ["update (failed)", "log something"],
        ["add", "create the app"],
    ]
    [asked] = client.asked
    assert asked.message == "3 Codex sessions changed this file; open one:"
    [shown] = client.shown_documents
    assert (
        shown.uri == rollout_b.as_uri() and shown.selection.start.line == 3
    )  # the exec record, at the apply_patch call

    rollout_c = next(client.sessions.glob("*019c0000*.jsonl"))
    found = await client.workspace_execute_command_async(types.ExecuteCommandParams("rollout-lsp.blameLine", [app, 4]))
    assert found["uri"] == rollout_c.as_uri() and client.shown_documents[-1].uri == rollout_c.as_uri()
    assert found["range"] == {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 339}}
    assert (
        await client.workspace_execute_command_async(types.ExecuteCommandParams("rollout-lsp.blameLine", [app, 6]))
        is None
    )


async def test_nothing_for_untouched_files_rollouts_or_files_outside(client: LanguageClient):
    repo = client.repo
    untouched = repo / "README.md"
    untouched.write_text("hello\n", encoding="utf-8")
    for uri in (untouched.as_uri(), (WORK / "elsewhere.py").as_uri(), next(client.sessions.glob("*.jsonl")).as_uri()):
        assert (
            list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri))))
            == []
        )
    # a document the client syncs is one its selector gives to the rollout features: no blame there
    app = (repo / "src" / "app.py").as_uri()
    open_text(client, app, (repo / "src" / "app.py").read_text(encoding="utf-8"))
    assert (
        list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(app)))) == []
    )


async def test_the_setting_turns_it_off(client: LanguageClient):
    await registered(client)
    client.set_configuration({"blame": False}, section="rolloutLsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    app = (client.repo / "src" / "app.py").as_uri()
    for _ in range(100):
        if not client.registrations:
            break
        await asyncio.sleep(0.05)
    assert client.registrations == []
    assert (
        list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(app)))) == []
    )


async def test_the_sessions_as_locations_only_for_a_client_with_its_own_list(client: LanguageClient):
    """``[uri, {"ask": false}]`` (VS Code's quick pick): the locations, newest first, and no message request
    and no document shown; any other second argument keeps the question."""
    app = (client.repo / "src" / "app.py").as_uri()
    rollout = {key: next(client.sessions.glob(f"*{key}0000*.jsonl")).as_uri() for key in ("019a", "019b", "019c")}
    locations = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.blameSessions", [app, {"ask": False}])
    )
    assert [(loc["uri"], loc["range"]["start"]["line"], loc["title"], loc["session"]) for loc in locations] == [
        (rollout["019c"], 3, "2026-03-01 10:00 · update · add a review note", "019c0000-0000-7000-8000-00000000000c"),
        (
            rollout["019b"],
            3,
            "2026-02-01 10:00 · update · capitalise the greeting",
            "019b0000-0000-7000-8000-00000000000b",
        ),
        (
            rollout["019a"],
            7,
            "2026-01-01 10:00 · update (failed) · log something",
            "019a0000-0000-7000-8000-00000000000a",
        ),
        (rollout["019a"], 3, "2026-01-01 10:00 · add · create the app", "019a0000-0000-7000-8000-00000000000a"),
    ]
    assert locations[0]["range"] == {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 339}}
    assert (client.asked, client.shown_documents) == ([], [])
    # the nested call of B's script: its range is the apply_patch call inside the record, on one line
    line = Path(to_fs_path(rollout["019b"])).read_text(encoding="utf-8").split("\n")[3]
    start = line.index("tools.apply_patch(")  # the call, its await aside
    assert locations[1]["range"] == {
        "start": {"line": 3, "character": start},
        "end": {"line": 3, "character": line.index(");\\n", start) + 1},
    }

    await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.blameSessions", [app, {"ask": True}])
    )
    assert len(client.asked) == 1 and client.shown_documents[-1].uri == rollout["019b"]
    assert (
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(  # no session changed it
                "rollout-lsp.blameSessions", [(client.repo / "README.md").as_uri(), {"ask": False}]
            )
        )
        == []
    )


async def test_a_configuration_change_during_the_registration_registers_once(client: LanguageClient):
    """VS Code's client sends didChangeConfiguration right after initialized: the two registrations must not
    both go out (VS Code would draw every lens twice)."""
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await registered(client)
    await asyncio.sleep(1)  # a second registration, if any, has had the time to arrive
    assert [r.method for r in client.registrations] == ["textDocument/codeLens", "textDocument/hover"]
