"""Workspace symbols from the session index, through `rollout-lsp serve` (pytest-lsp)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from analysis.index import RolloutIndex
from tests.helpers import FIXTURES, ROOT, fixture
from tests.lsp_support import diagnostics_of, open_text, start

# the server reads the index at this path (fixed for the test session: the server's environment is set once)
WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-index-test-{os.getpid()}"
DB = WORK / "index.sqlite3"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "analysis.cli", "serve"],
                            server_env={"PYTHONPATH": str(ROOT), "ROLLOUT_LSP_INDEX": str(DB)})


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    shutil.rmtree(WORK, ignore_errors=True)
    sessions = WORK / "sessions"
    sessions.mkdir(parents=True)
    for name in ("rollout-demo.jsonl", "rollout-patches.jsonl"):
        shutil.copy(FIXTURES / name, sessions / name)
    with RolloutIndex.open(DB) as index:
        index.update([str(sessions)])
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_workspace_symbols_come_from_the_index(client: LanguageClient):
    demo = (WORK / "sessions" / "rollout-demo.jsonl").as_uri()
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git push"))
    assert [(s.name, s.kind, s.location.uri, s.location.range, s.container_name, list(s.tags or ())) for s in found] == [
        ("git push --force", types.SymbolKind.Event, demo,
         types.Range(types.Position(8, 361), types.Position(8, 408)),
         "019f0000-0000-7000-8000-000000000001 · line 9 · Fix the failing greeting test",
         [types.SymbolTag.Deprecated])]
    patches = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="d.py"))
    assert [(s.name, s.location.uri.rsplit("/", 1)[1], s.location.range.start.line) for s in patches] == [
        ("patch c.py → d.py", "rollout-patches.jsonl", 1)]
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


async def test_an_open_document_takes_precedence_over_the_index(client: LanguageClient):
    demo = (WORK / "sessions" / "rollout-demo.jsonl").as_uri()
    # the editor's newer text: the push is gone, a pull came instead
    open_text(client, demo, fixture("rollout-demo.jsonl").replace("git push --force", "git pull --rebase"))
    await diagnostics_of(client, demo)
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git push")) == []
    pulled = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git pull"))
    assert [(s.name, s.location.uri) for s in pulled] == [("git pull --rebase", demo)]
    greet = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="greet"))
    assert sorted(s.name for s in greet) == ["patch src/greet.py", "pytest -q tests/test_greet.py"]  # once each


async def test_a_broken_index_leaves_the_open_documents_symbols(client: LanguageClient):
    DB.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 8000)
    for suffix in ("-wal", "-shm"):
        Path(str(DB) + suffix).unlink(missing_ok=True)
    uri = (WORK / "sessions" / "rollout-patches.jsonl").as_uri()
    open_text(client, uri, fixture("rollout-patches.jsonl"))
    await diagnostics_of(client, uri)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="d.py"))
    assert [(s.name, s.location.uri) for s in found] == [("patch c.py → d.py", uri)]
