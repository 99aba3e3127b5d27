"""The changed-files lens's title (``open <path>``) is a name like every other (lsp_server/names.py's
safe_name): a path a patch names with a bidirectional control (U+202E) or a control character (ESC) shows
them as escapes, and a path longer than a title's bound is cut; seen through `rollout-lsp serve`
(pytest-lsp)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.blame_support import Session, add, patch_text
from tests.helpers import ROOT
from tests.lsp_support import open_text, push_capabilities

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-changed-names-test-{os.getpid()}"
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={
        "PYTHONPATH": str(ROOT),
        "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
        "ROLLOUT_LSP_INDEX_REFRESH": "0",
        "CODEX_HOME": str(WORK / "codex"),
    },
)

HOSTILE = "src/evil\u202egnp.py\x1b[2J.txt"  # reads "src/evil" + "txt.]J2[" + "…" reversed, and clears a terminal
LONG = "src/" + "d" * 150 + "/" + "f" * 100 + ".py"  # 258 characters: past a title's 200


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    repo = WORK / "repo"
    for name in (HOSTILE, LONG):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("one\n", encoding="utf-8")
    sessions = WORK / "sessions"
    sessions.mkdir(parents=True)
    session = Session("019c0000-0000-7000-8000-000000000001", "2026-01-01", str(repo))
    session.turn("add the files")
    session.top_patch("call_hostile", patch_text(add(HOSTILE, ["one"])), True)
    session.top_patch("call_long", patch_text(add(LONG, ["one"])), True)
    lsp_client.rollout = session.save(sessions)
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=push_capabilities(), root_uri=repo.as_uri())
    )
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_a_lens_title_shows_bidi_and_control_characters_as_escapes_and_is_cut(client: LanguageClient):
    rollout: Path = client.rollout
    uri = rollout.as_uri()
    open_text(client, uri, rollout.read_text(encoding="utf-8"))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    titles = [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments))
        for lens in lenses
        if lens.command is not None and lens.command.command == "rollout-lsp.openChangedFile"
    ]
    cut = ("open " + LONG)[:200] + "… (+63 chars)"
    assert titles == [
        (3, "open src/evil\\u202egnp.py\\x1b[2J.txt", [uri, 3, 0, 0]),
        (5, cut, [uri, 5, 0, 0]),
    ]
    # the command still opens the file under its real name
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, 3, 0, 0])
    )
    assert found["path"] == HOSTILE
