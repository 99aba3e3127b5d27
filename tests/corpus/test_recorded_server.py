"""The language server on the real recorded rollouts of ../shared/corpus/recorded/ (moved here from
tests/server/test_server.py so that `make test` needs nothing beside the clone)."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import CORPUS
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, start, uri_of


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


def cut(name: str) -> str:
    """Outline names are cut at 120 characters."""
    return name if len(name) <= 120 else name[:119] + "…"


async def test_hover_on_recorded_rollout(client: LanguageClient):
    text = (CORPUS / "codex-0.157-custom-calls.jsonl").read_text(encoding="utf-8")
    uri = uri_of("recorded-0.157.jsonl")
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    line = split_lines(text)[6]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(6, position_of(line, "tools.exec_command", 0) + 200)
        )
    )
    assert "```sh\nrg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts\n```" in hover.contents.value
    assert (
        "**output** (line 8): completed · 0.3 s\n\n```\n[exit 0]\n\n[exit 0]\n452:  snapshotPlain(): string {\n"
        in hover.contents.value
    )


async def test_outline_of_recorded_rollouts(client: LanguageClient):
    for name in ("codex-0.157-custom-calls.jsonl", "codex-custom-call-forms.jsonl"):
        uri = uri_of("recorded-" + name)
        open_text(client, uri, (CORPUS / name).read_text(encoding="utf-8"))
        await diagnostics_of(client, uri)
        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
        )
        records = symbols[0].children[0].children if name.startswith("codex-0.157") else symbols[0].children
        if name.startswith("codex-0.157"):
            assert symbols[0].children[0].name.startswith("turn 1 (line 1): ")
            assert [(r.range.start.line, r.name, r.detail, [c.name for c in r.children or ()]) for r in records] == [
                (2, "[no output] exec", "no tool call", []),
                (
                    3,
                    "[no output] exec · 5 commands: cat README.md …",
                    "1 command",
                    ["exec_command: 5 commands: cat README.md …"],
                ),
                (
                    4,
                    "exec · update CodexHeadless.ts",
                    "1 patch · 0.1 s",
                    [
                        "apply_patch: update /Users/xxxxxxxxxxxx/Desktop/Development/"
                        "agent-code/.worktrees/review-cxh55-b/src/CodexHeadless.ts"
                    ],
                ),
                (
                    6,
                    "exec · git checkout -- src/CodexHeadless.ts +1",
                    "2 commands · 0.3 s",
                    [
                        "exec_command: git checkout -- src/CodexHeadless.ts",
                        "exec_command: rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts",
                    ],
                ),
                (8, "exec · rm node_modules", "1 command · 0.5 s", ["exec_command: rm node_modules"]),
                (
                    4,
                    "files changed (1)",
                    None,
                    [
                        "/Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/"
                        "review-cxh55-b/src/CodexHeadless.ts"
                    ],
                ),
            ]
            [expansion] = records[1].children
            assert [c.name for c in expansion.children][::4] == [
                "exec_command: cat README.md",
                "exec_command: ls -ld node_modules",
            ]
        else:
            root = "/Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/"
            assert [(r.name, [c.name for c in r.children or ()]) for r in records][:4] == [
                (
                    "[no output] exec · update session.ts",
                    [
                        cut(
                            f"apply_patch: update {root}review-1326-c/src/renderer/src/workspace/hook/"
                            "actions/session.ts"
                        )
                    ],
                ),
                ("[no output] apply_patch: delete src/app/page.tsx", []),
                (
                    "[no output] exec · update operation-families.json, update renderin…",
                    [
                        cut(
                            f"apply_patch: update {root}feed-render-rewrite/testing/fixtures/"
                            "feed-presentation/operation-families.json, update "
                            f"{root}feed-render-rewrite/testing/unit/scripts/"
                            "renderingFixtureTools.test.ts"
                        )
                    ],
                ),
                (
                    "[no output] exec · mcp__agent_code__orchestration_wait_agents",
                    ["mcp__agent_code__orchestration_wait_agents"],
                ),
            ]


@pytest_lsp.fixture(config=SERVER)
async def corpus_client(lsp_client: LanguageClient):
    """A client whose workspace folder is the recorded corpus, so the server may read its files by path."""
    await start(lsp_client, root=CORPUS.as_uri())
    yield
    await lsp_client.shutdown_session()


async def test_analyze_recorded_file_by_path(corpus_client: LanguageClient):
    result = await corpus_client.protocol.send_request_async(
        "rollout/analyzeFile", {"path": str(CORPUS / "codex-0.157-custom-calls.jsonl")}
    )
    assert [c.command for c in result.calls][2:] == [
        "git checkout -- src/CodexHeadless.ts",
        "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts",
        "rm node_modules",
    ]
    assert [d.code for d in result.diagnostics] == [
        "unpaired-call",
        "unpaired-call",
        "expanded-command",
    ]  # its 5 commands are known
