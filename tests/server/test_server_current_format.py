"""Today's Codex through `rollout-lsp serve`: thread names, turns that failed, settings changes folded, a fork by
reference as one outline node that opens its parent, a missing parent as a diagnostic."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from fixtures import build
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of
from tests.session.test_current_format import FORK, ORPHAN, PAGED


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, name: str) -> tuple[types.TextDocumentIdentifier, list[types.Diagnostic]]:
    uri = uri_of(name)
    open_text(client, uri, fixture(name))
    diagnostics = await diagnostics_of(client, uri)
    return types.TextDocumentIdentifier(uri), diagnostics


async def test_outline_of_a_paginated_session(client: LanguageClient):
    doc, diagnostics = await opened(client, PAGED)
    assert [(d.range.start.line, d.code, d.severity) for d in diagnostics] == [
        (27, "turn-failed", types.DiagnosticSeverity.Information),
        (34, "turn-failed", types.DiagnosticSeverity.Information),
    ]
    [root] = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    assert root.name == f"Fix the tests and deploy · session {build.PAGED_ID}"
    assert [(t.name, t.detail) for t in root.children] == [
        (
            "turn 1 (line 3): Run the tests and fix what fails",
            "in 26k (cached 21k) · out 1k (reasoning 320) · context 6% of 258.4k",
        ),
        (
            "[failed] turn 2 (line 23): Deploy it to staging",
            "failed: unauthorized — Your access token could not be refreshed. Please log in again.",
        ),
        (
            "[failed] turn 3 (line 29): Try the deploy again",
            "failed: response_too_many_failed_attempts (HTTP 429) — exceeded retry limit, "
            "last status: 429 Too Many Requests · in 15k (cached 14k) · out 0 (reasoning 0)",
        ),
        ("[interrupted] turn 4 (line 37): Show me the deploy log", "interrupted"),
        (
            "[rolled back] turn 5 (line 43): Delete the staging database",
            "rolled back · in 16k (cached 15k) · out 300 (reasoning 100) · context 6% of 258.4k",
        ),
        ("turn 6 (line 51): Ask an agent to review the deploy script", None),
    ]
    first = root.children[0]
    # three thread_settings_applied records before the change: one row for the change alone
    assert [(c.name, c.detail, c.range.start.line) for c in first.children] == [
        ("exec_command: npm test", "call_p1 · 2 s", 8),
        ("settings: model gpt-5.5 · approval never · permissions :danger-full-access", "changed", 19),
    ]


async def test_hovers_on_a_failed_turn_and_the_session(client: LanguageClient):
    doc, _ = await opened(client, PAGED)
    turn = await client.text_document_hover_async(types.HoverParams(doc, types.Position(22, 5)))
    assert turn.contents.value.replace("\\", "") == (
        "**turn** failed: unauthorized — Your access token could not be refreshed. Please log in again.\n\n"
        "Line 28 says it failed.\n\nTook 0.4 s."
    )
    rolled = await client.text_document_hover_async(types.HoverParams(doc, types.Position(42, 5)))
    assert rolled.contents.value.replace("\\", "").startswith(
        "**turn** rolled back\n\nTaken back by the thread_rolled_back on line 50: it is no longer in the thread."
    )
    session = await client.text_document_hover_async(types.HoverParams(doc, types.Position(0, 5)))
    assert session.contents.value.startswith(f"**session** `{build.PAGED_ID}` · Fix the tests and deploy")
    settings = await client.text_document_hover_async(types.HoverParams(doc, types.Position(17, 5)))
    assert settings.contents.value.replace("\\", "").startswith("**thread settings applied**: model gpt-5.6-sol")
    assert settings.contents.value.replace("\\", "").endswith("The same as before: nothing changed.")
    answer = await client.text_document_hover_async(types.HoverParams(doc, types.Position(13, 5)))
    assert answer.contents.value == "**AgentMessage** (final\\_answer)\n\n```\nAll 12 tests pass.\n```"
    world = await client.text_document_hover_async(types.HoverParams(doc, types.Position(20, 5)))
    assert world.contents.value.replace("\\", "").startswith("**world state**: a full snapshot of agents_md")
    record = await client.text_document_hover_async(types.HoverParams(doc, types.Position(9, 5)))
    assert record.contents.value.replace("\\", "").startswith(
        "**token usage record** of response `resp_1`\n\nThis response: 12,000 input tokens"
    )


async def test_a_fork_by_reference_is_one_node_that_opens_its_parent(client: LanguageClient):
    doc, diagnostics = await opened(client, FORK)
    assert diagnostics == []
    [root] = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    assert root.name == f"Faster tests · session {build.FORK_ID}"
    inherited = root.children[0]
    assert (inherited.name, inherited.detail) == (
        f"inherited from session {build.PAGED_ID} (1 turn)",
        f"rollout-2026-09-01T10-00-00-{build.PAGED_ID}.jsonl · lines 1–17",
    )
    to_parent = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(0, 5)))
    assert [(loc.uri, loc.range.start.line) for loc in to_parent] == [(uri_of(PAGED), 16)]
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="faster"))
    assert [s.name for s in symbols if s.kind == types.SymbolKind.Module] == [f"Faster tests · session {build.FORK_ID}"]


async def test_a_missing_parent_is_an_information_diagnostic(client: LanguageClient):
    doc, diagnostics = await opened(client, ORPHAN)
    assert [(d.range.start.line, d.code, d.severity, d.message) for d in diagnostics] == [
        (
            0,
            "parent-missing",
            types.DiagnosticSeverity.Information,
            f"this fork continues session {build.GONE_ID} (no rollout of it in this sessions tree): its inherited "
            "history cannot be shown",
        )
    ]
    [root] = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    assert (root.children[0].name, root.children[0].detail) == (
        f"inherited from session {build.GONE_ID} (not found)",
        "its rollout is not found",
    )
