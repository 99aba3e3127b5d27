"""A Codex 0.158-0.169 subagent tree through `rollout-lsp serve` (issue 33): the session line's outline symbol and
hover label the child, its path and its parent; go to definition opens the parent's file; the hovers of a usage
record copied from the parent, an inherited message, an incomplete delivery and a world_state record."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from fixtures import build
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of

ROOT = build.SESSIONS_11 + f"rollout-2026-11-01T10-00-00-{build.ROOT_ID}.jsonl"
KID = build.SESSIONS_11 + f"rollout-2026-11-01T10-00-05-{build.KID_ID}.jsonl"


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


async def hover(client: LanguageClient, doc: types.TextDocumentIdentifier, line: int) -> str:
    found = await client.text_document_hover_async(types.HoverParams(doc, types.Position(line, 10)))
    return found.contents.value if found else ""


async def test_the_child_its_path_and_its_parent_are_labelled(client: LanguageClient):
    doc = await opened(client, KID)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    assert symbols[0].name == f"session {build.KID_ID} (Hypatia, path /root/review_retry)"
    session = await hover(client, doc, 0)
    assert f"subagent Hypatia \\(reviewer\\) of session `{build.ROOT_ID}`, depth 1" in session
    assert "agent path: `/root/review_retry`\n\nparent: root thread, path /root\n\n" in session
    to_parent = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(0, 5)))
    assert [loc.uri for loc in to_parent] == [uri_of(ROOT)]


async def test_hovers_of_the_new_records(client: LanguageClient):
    doc = await opened(client, KID)
    copied = await hover(client, doc, 5)
    assert copied.startswith("**token usage record** of response `resp_root1`")
    root_id = build.ROOT_ID.replace("-", "\\-")
    assert f"A response of thread {root_id} \\(copied into this file\\)\\: it counts for that thread\\." in copied
    assert "Answered by gpt\\-5\\.6\\-sol · openai · priority\\." in copied
    assert (await hover(client, doc, 2)).startswith(
        "**user message**: inherited from the parent thread \\(the parent\\'s request, not this thread\\'s\\)"
    )
    assert (await hover(client, doc, 8)).startswith(
        "**assistant message**: delivered by code mode, incomplete\\: stream cut after 2 lines"
    )
    root = await opened(client, ROOT)
    assert (await hover(client, root, 3)) == (
        "**world state**: a full snapshot of env, files · 1\\.6 kB (bookkeeping Codex keeps for the model; not shown "
        "in the outline)"
    )
