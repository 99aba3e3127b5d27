"""The hovers of blame (a workspace file's line) and of invocation logs in the format the client reads: a client
that declares plain text only gets them with no Markdown escapes, ``**``, fences or links (pytest-lsp)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from analysis.jsonl.lines import split_lines
from tests.blame_support import build_world
from tests.helpers import ROOT
from tests.lsp_support import SERVER, position_of, push_capabilities, start
from tests.server.test_server_invocations import COMMANDS, LOG_URI, ROLLOUT_URI, open_both, rollout

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-plain-blame-{os.getpid()}"
BLAME_SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={
        "PYTHONPATH": str(ROOT),
        "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
        "ROLLOUT_LSP_INDEX_REFRESH": "0",
        "CODEX_HOME": str(WORK / "codex"),
    },
)


def plain() -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.hover = types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])
    return caps


@pytest_lsp.fixture(config=BLAME_SERVER)
async def blame_client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    repo, folder, _, _ = build_world(WORK)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=plain(),
            root_uri=repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(repo.as_uri(), "repo")],
        )
    )
    lsp_client.repo, lsp_client.sessions = repo, folder
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_blame_hover_in_plain_text(blame_client: LanguageClient):
    app = (blame_client.repo / "src" / "app.py").as_uri()
    hover = await blame_client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(app), types.Position(11, 4))
    )
    rollout_b = next(blame_client.sessions.glob("*019b0000*.jsonl"))
    assert hover.contents.kind == types.MarkupKind.PlainText
    assert hover.contents.value == (
        "Codex session 019b0000-0000-7000-8000-00000000000b · 2026-02-01T10:00:05.000Z\n\n"
        "Request (turn 1 (line 3)): capitalise the greeting\n\n"
        f"update app.py · applied · the call: line 4 of {rollout_b}\n\n"
        '    @@\n    -def compute_greeting(name):\n    -    return f"hello {name}"\n'
        '    +def compute_greeting(name):\n    +    return f"Hello, {name}!"\n\n'
        "then ran pytest -q"
    )


@pytest_lsp.fixture(config=SERVER)
async def log_client(lsp_client: LanguageClient):
    await start(lsp_client, plain())
    yield
    await lsp_client.shutdown_session()


async def test_invocation_log_hovers_in_plain_text(log_client: LanguageClient):
    await open_both(log_client)
    hover = await log_client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(LOG_URI), types.Position(1, 3))
    )
    assert (hover.contents.kind, hover.contents.value) == (
        types.MarkupKind.PlainText,
        "uip invocation (line 2)\n\n    uip ixp projects delete proj-1\n\n"
        "- ts: 1764504000.25 (2025-11-30T12:00:00.250Z)\n- tool: uip\n- argv: ixp, projects, delete, proj-1\n"
        "- exit: 0\n\n"
        "made by line 4 of rollout-2026-11-30T12-00-00-run1.jsonl: uip ixp projects delete proj-1 · exit 0",
    )
    line = split_lines(rollout(COMMANDS))[3]
    on_call = await log_client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(ROLLOUT_URI), types.Position(3, position_of(line, "tools.exec_command"))
        )
    )
    # the rollout call's hover and the invocations the log recorded for it: plain text both
    assert on_call.contents.value.startswith("exec_command · command · executed: yes")
    assert on_call.contents.value.endswith(
        "\n\ninvocations\n\n- calls.jsonl line 2: uip ixp projects delete proj-1 · exit 0 · 2025-11-30T12:00:00.250Z"
    )
    assert "\\" not in on_call.contents.value and "**" not in on_call.contents.value
