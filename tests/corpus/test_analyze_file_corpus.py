"""``rollout/analyzeFile`` on a rollout written by a real Codex release (../shared/corpus/recorded/); hovers and
outlines of those files are in test_recorded_server.py."""

from __future__ import annotations

import pytest_lsp
from pytest_lsp import LanguageClient

from tests.helpers import CORPUS
from tests.lsp_support import SERVER, start


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_analyze_recorded_file_by_path(client: LanguageClient, tmp_path):
    path = tmp_path / "rollout-recorded-0.157.jsonl"  # a rollout's name: the server reads it wherever it is
    path.write_bytes((CORPUS / "codex-0.157-custom-calls.jsonl").read_bytes())
    result = await client.protocol.send_request_async("rollout/analyzeFile", {"path": str(path)})
    assert [c.command for c in result.calls][2:] == ["git checkout -- src/CodexHeadless.ts",
                                                     "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts",
                                                     "rm node_modules"]
    assert [d.code for d in result.diagnostics] == ["unpaired-call", "unpaired-call", "expanded-command"]
