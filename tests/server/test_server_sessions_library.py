"""The sessions library in the editor, through `rollout-lsp serve` (pytest-lsp): the command `rollout-lsp.sessions`
answers exactly `sessions --json`; the session line's lens and hover give its cost and subagents; workspace
symbols find indexed sessions by thread name and first request."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.helpers import ROOT
from tests.lsp_support import diagnostics_of, open_text, start
from tests.reports.test_sessions_library import P1, P2, A, B, C, E, _home, _usd

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-sessions-test-{os.getpid()}"
ENV = {
    "PYTHONPATH": str(ROOT),
    "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
    "ROLLOUT_LSP_INDEX_REFRESH": "0",
    "CODEX_HOME": str(WORK / "codex"),
    "TZ": "UTC",
}
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server", "serve"], server_env=ENV)
ROLLOUT_A = WORK / "codex" / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{A}.jsonl"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    _home(WORK)
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


def cli(*args: str) -> list:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "sessions", "--json", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **ENV},
        encoding="utf-8",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def sessions(client: LanguageClient, *arguments) -> list:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="rollout-lsp.sessions", arguments=list(arguments))
    )


async def test_the_sessions_command_answers_the_sessions_json(client: LanguageClient):
    listed = await sessions(client)
    assert [s["id"] for s in listed][-2:] == [A, E]
    assert listed == cli()  # the index is up to date: the same list
    assert [s["id"] for s in await sessions(client, {"project": "/w/beta"})] == [E]
    assert [s["id"] for s in await sessions(client, {"paths": [str(ROLLOUT_A)]})] == [A]


async def test_the_session_lens_and_hover_give_its_cost_and_subagents(client: LanguageClient):
    uri = ROLLOUT_A.as_uri()
    open_text(client, uri, ROLLOUT_A.read_text(encoding="utf-8"))
    await diagnostics_of(client, uri)
    doc = types.TextDocumentIdentifier(uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(doc))
    cost = [lens for lens in lenses if lens.command and lens.command.title.startswith("cost:")]
    assert [(lens.range.start.line, lens.command.title, lens.command.command) for lens in cost] == [
        (0, f"cost: ${_usd(P1 + P2):.4f} · 2 responses · 1 subagent", "rollout-lsp.showInfo")
    ]
    hover = await client.text_document_hover_async(types.HoverParams(doc, types.Position(0, 2)))
    text = hover.contents.value.replace("\\", "")  # Markdown escapes aside
    assert f"Cost: ${_usd(P1 + P2):.4f} · 2 responses · 1 subagent, priced with genai-prices 0.2.3" in text
    assert f"Subagents: `{B}`" in text


async def test_workspace_symbols_find_indexed_sessions_by_name_and_request(client: LanguageClient):
    await sessions(client)  # brings the index up to date
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="build audit"))
    named = [s for s in found if s.name.startswith("session: ")]
    assert [(s.name, s.location.uri, s.kind) for s in named] == [
        ("session: Build audit", ROLLOUT_A.as_uri(), types.SymbolKind.Module)
    ]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="read one"))
    assert [s.name for s in found if s.name.startswith("session: ")] == ["session: Read one file"]
    assert [s.location.uri for s in found if s.name.startswith("session: ")][0].endswith(f"{C}.jsonl")
