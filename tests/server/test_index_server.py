"""Workspace symbols from the session index, through `rollout-lsp serve` (pytest-lsp)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from analysis.reports.index import RolloutIndex
from tests.helpers import FIXTURES, ROOT, fixture
from tests.lsp_support import diagnostics_of, open_text, start

# the server reads the index at this path (fixed for the test session: the server's environment is set once)
WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-index-test-{os.getpid()}"
DB = WORK / "index.sqlite3"
CODEX_HOME = WORK / "codex"  # no Codex folders: a refresh reads only the folders indexed before
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={
        "PYTHONPATH": str(ROOT),
        "ROLLOUT_LSP_INDEX": str(DB),
        "ROLLOUT_LSP_INDEX_REFRESH": "0",
        "CODEX_HOME": str(CODEX_HOME),
    },
)
REFRESHING_WORK = WORK.with_name(WORK.name + "-refresh")
REFRESHING = ClientServerConfig(
    server_command=SERVER.server_command,
    server_env={
        **SERVER.server_env,
        "ROLLOUT_LSP_INDEX": str(REFRESHING_WORK / "index.sqlite3"),
        "ROLLOUT_LSP_INDEX_REFRESH": "600",
    },
)


def indexed_sessions(work: Path) -> Path:
    shutil.rmtree(work, ignore_errors=True)
    sessions = work / "sessions"
    sessions.mkdir(parents=True)
    for name in ("rollout-demo.jsonl", "rollout-patches.jsonl"):
        shutil.copy(FIXTURES / name, sessions / name)
    with RolloutIndex.open(work / "index.sqlite3") as index:
        index.update([str(sessions)])
    return sessions


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    indexed_sessions(WORK)
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


@pytest_lsp.fixture(config=REFRESHING)
async def refreshing_client(lsp_client: LanguageClient):
    indexed_sessions(REFRESHING_WORK)
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()
    await refreshes_done(REFRESHING_WORK / "index.sqlite3")
    shutil.rmtree(REFRESHING_WORK, ignore_errors=True)


async def refreshes_done(db: Path, timeout: float = 120) -> None:
    """Wait for the server's background `rollout-lsp index --db DB` processes to end (they outlive it)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while _running_with(str(db).encode()):
        assert asyncio.get_running_loop().time() < deadline, "a background refresh did not end"
        await asyncio.sleep(0.2)


def _running_with(argument: bytes) -> bool:
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if argument in cmdline.read_bytes():
                return True
        except OSError:  # the process ended meanwhile
            pass
    return False


async def test_workspace_symbols_come_from_the_index(client: LanguageClient):
    demo = (WORK / "sessions" / "rollout-demo.jsonl").as_uri()
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git push"))
    assert [
        (s.name, s.kind, s.location.uri, s.location.range, s.container_name, list(s.tags or ())) for s in found
    ] == [
        (
            "[dead] exec_command: git push --force",
            types.SymbolKind.Event,
            demo,
            types.Range(types.Position(8, 361), types.Position(8, 408)),
            "019f0000-0000-7000-8000-000000000001 · line 9 · Fix the failing greeting test",
            [types.SymbolTag.Deprecated],
        )
    ]
    patches = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="d.py"))
    assert [(s.name, s.location.uri.rsplit("/", 1)[1], s.location.range.start.line) for s in patches] == [
        ("apply_patch: update c.py → d.py", "rollout-patches.jsonl", 1)
    ]
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


async def test_an_open_document_takes_precedence_over_the_index(client: LanguageClient):
    demo = (WORK / "sessions" / "rollout-demo.jsonl").as_uri()
    # the editor's newer text: the push is gone, a pull came instead
    open_text(client, demo, fixture("rollout-demo.jsonl").replace("git push --force", "git pull --rebase"))
    await diagnostics_of(client, demo)
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git push")) == []
    pulled = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git pull"))
    assert [(s.name, s.location.uri) for s in pulled] == [("[dead] exec_command: git pull --rebase", demo)]
    greet = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="greet"))
    assert sorted(s.name for s in greet) == [
        "[exit 1] exec_command: pytest -q tests/test_greet.py",  # once each
        "apply_patch: update src/greet.py",
    ]


async def test_a_broken_index_leaves_the_open_documents_symbols(client: LanguageClient):
    DB.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 8000)
    for suffix in ("-wal", "-shm"):
        Path(str(DB) + suffix).unlink(missing_ok=True)
    uri = (WORK / "sessions" / "rollout-patches.jsonl").as_uri()
    open_text(client, uri, fixture("rollout-patches.jsonl"))
    await diagnostics_of(client, uri)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="d.py"))
    assert [(s.name, s.location.uri) for s in found] == [("apply_patch: update c.py → d.py", uri)]


async def test_an_index_that_answers_is_refreshed_in_the_background(refreshing_client: LanguageClient):
    later = REFRESHING_WORK / "sessions" / "rollout-later.jsonl"  # a session recorded after the index was built
    later.write_text(fixture("rollout-toplevel.jsonl"), encoding="utf-8")
    query = types.WorkspaceSymbolParams(query="ls -la")
    assert await refreshing_client.workspace_symbol_async(query) == []  # the index as it was; a refresh starts
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not (found := await refreshing_client.workspace_symbol_async(query)):
        assert loop.time() < deadline, "the index was not refreshed"
        await asyncio.sleep(0.2)
    assert [(s.name, s.location.uri, s.location.range.start.line) for s in found] == [
        ("[exit 2] shell: bash -lc 'ls -la'", later.as_uri(), 3)
    ]
    with RolloutIndex.open_existing(REFRESHING_WORK / "index.sqlite3") as index:
        assert index.roots() == [str(REFRESHING_WORK / "sessions")]


@pytest_lsp.fixture(config=SERVER)
async def masking_client(lsp_client: LanguageClient):
    indexed_sessions(WORK)
    settings = {"secretPatterns": ["--force"]}  # the same at initialize and in workspace/configuration
    lsp_client.set_configuration(settings, section="rolloutLsp")
    await start(lsp_client, options=settings)
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_configured_secret_patterns_mask_index_symbols(masking_client: LanguageClient):
    found = await masking_client.workspace_symbol_async(types.WorkspaceSymbolParams(query="git push"))
    assert [s.name for s in found] == ["[dead] exec_command: git push --xxxxx"]
