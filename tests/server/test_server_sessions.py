"""The whole session through `rollout-lsp serve`: usage in the outline, lens and hovers; a subagent's
inherited history as one node; go to definition across sessions; sessions in workspace symbols."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.session.rollout import analyze_text
from fixtures import build
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of

PARENT = build.SESSIONS + f"rollout-2026-07-20T10-00-00-{build.PARENT_ID}.jsonl"
CHILD = build.SESSIONS + f"rollout-2026-07-20T10-00-10-{build.CHILD_ID}.jsonl"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, name: str) -> types.TextDocumentIdentifier:
    uri = uri_of(name)
    open_text(client, uri, fixture(name))
    await diagnostics_of(client, uri)
    return types.TextDocumentIdentifier(uri)


async def test_outline_folds_the_inherited_history_and_shows_usage(client: LanguageClient):
    doc = await opened(client, CHILD)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    root = symbols[0]
    assert (root.name, root.detail) == (
        f"session {build.CHILD_ID} (Ada, path /root/timer_audit)",
        "in 41k (cached 29k) · out 1.1k (reasoning 400) · context 8% of 258.4k",
    )
    inherited, turn = root.children
    assert (inherited.name, inherited.detail, list(inherited.children or ())) == (
        f"inherited from session {build.PARENT_ID}",
        "lines 2–7 · 1 turn · 22.8k tokens, counted for that session",
        [],
    )
    assert (inherited.range.start.line, inherited.range.end.line) == (1, 6)
    assert (turn.name, turn.detail) == (
        "turn 2 (line 8): Look at the timers",  # the file's second turn  # its usage, not the parent's
        "in 41k (cached 29k) · out 1.1k (reasoning 400) · context 8% of 258.4k",
    )
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(doc))
    assert (1, 6, f"inherited from session {build.PARENT_ID}") in [
        (f.start_line, f.end_line, f.collapsed_text) for f in folds
    ]


async def test_session_lens_and_usage_hovers(client: LanguageClient):
    doc = await opened(client, CHILD)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(doc))
    assert [(lens.range.start.line, lens.command.title) for lens in lenses[:2]] == [
        (
            0,
            "session: in 41k (cached 29k) · out 1.1k (reasoning 400) · context 8% of 258.4k · 22.8k inherited, "
            "not counted",
        ),
        (1, f"inherited from session {build.PARENT_ID} · lines 2–7"),
    ]
    hover = await client.text_document_hover_async(types.HoverParams(doc, types.Position(12, 10)))
    assert hover.contents.value.startswith(
        "**token count**\n\nThis response\\: 20,000 input tokens "
        "\\(9,000 of them cached\\), 700 output tokens \\(300 of them reasoning\\)"
    )
    own_turn = analyze_text(fixture(CHILD)).turns[-1].line  # where the subagent's own turn starts
    turn = await client.text_document_hover_async(types.HoverParams(doc, types.Position(own_turn, 10)))
    assert turn.contents.value.startswith(
        "**usage of this turn**\n\n41,000 input tokens \\(29,000 of them cached\\)"
        ", 1,100 output tokens \\(400 of them reasoning\\) over 2 model responses"
    )
    session = await client.text_document_hover_async(types.HoverParams(doc, types.Position(0, 10)))
    assert f"subagent Ada \\(explorer\\) of session `{build.PARENT_ID}`, depth 1" in session.contents.value


async def test_definition_opens_the_parent_and_the_spawned_child(client: LanguageClient):
    child = await opened(client, CHILD)
    to_parent = await client.text_document_definition_async(types.DefinitionParams(child, types.Position(0, 5)))
    assert [loc.uri for loc in to_parent] == [uri_of(PARENT)]
    parent = await opened(client, PARENT)
    to_child = await client.text_document_definition_async(types.DefinitionParams(parent, types.Position(5, 5)))
    assert [loc.uri for loc in to_child] == [uri_of(CHILD)]


async def test_a_missing_subagent_rollout_is_said_and_marked(client: LanguageClient, tmp_path):
    def spawn_rows(symbols):
        return [(c.name, c.detail) for t in symbols[0].children for c in t.children or [] if c.range.start.line == 5]

    parent = await opened(client, PARENT)  # beside its child's rollout: found, not marked
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(parent))
    assert [name for name, _ in spawn_rows(symbols)] == ["collaboration · spawn_agent: timer_audit"]
    alone = (tmp_path / PARENT.rsplit("/", 1)[1]).as_uri()  # the same rollout where no other session is
    open_text(client, alone, fixture(PARENT))
    await diagnostics_of(client, alone)
    doc = types.TextDocumentIdentifier(alone)
    assert await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(5, 5))) == []
    assert client.messages[-1].message == (
        f"The rollout of subagent session {build.CHILD_ID} was not found (looked in the sessions folder of this "
        "rollout, its own folder and the workspace folders)."
    )
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    [(name, detail)] = spawn_rows(symbols)
    assert name == "[no rollout] collaboration · spawn_agent: timer_audit"
    assert detail.startswith(f"rollout of subagent {build.CHILD_ID} not found · call_")


async def test_workspace_symbols_find_sessions_by_id_and_nickname(client: LanguageClient):
    await opened(client, CHILD)
    await opened(client, PARENT)
    by_nickname = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ada"))
    assert [(s.name, s.container_name, s.location.uri) for s in by_nickname if s.kind == types.SymbolKind.Module] == [
        (f"session {build.CHILD_ID} (Ada)", f"subagent of {build.PARENT_ID}", uri_of(CHILD))
    ]
    by_id = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=build.PARENT_ID))
    assert [(s.name, s.container_name) for s in by_id] == [(f"session {build.PARENT_ID}", None)]


async def test_unknown_records_are_in_the_outline_and_diagnostics(client: LanguageClient):
    uri = uri_of(PARENT)
    open_text(client, uri, fixture(PARENT))
    diagnostics = await diagnostics_of(client, uri)
    assert [(d.range.start.line, d.code, d.severity) for d in diagnostics if d.code == "unknown-record"] == [
        (10, "unknown-record", types.DiagnosticSeverity.Information),
        (18, "unknown-record", types.DiagnosticSeverity.Information),
    ]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    names = [
        (c.name, c.range.start.line)
        for t in symbols[0].children
        for c in t.children or []
        if c.detail == "unknown record type"
    ]
    assert names == [("event_msg/frobnicated", 10), ("event_msg/frobnicated", 17), ("future_record", 18)]


async def test_export_command_gives_the_document_to_save(client: LanguageClient):
    doc = await opened(client, CHILD)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="rollout-lsp.export", arguments=[doc.uri, "html", True])
    )
    assert result["name"] == f"rollout-2026-07-20T10-00-10-{build.CHILD_ID}.html" and result["format"] == "html"
    assert result["text"].startswith("<!DOCTYPE html>") and "grep -rn setInterval src" in result["text"]
    md = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="rollout-lsp.export", arguments=[doc.uri])
    )
    assert md["text"].startswith("# Codex session ") and md["name"].endswith(".md")
