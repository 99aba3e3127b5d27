"""Hovers in the format each client reads: Markdown where ``hover.contentFormat`` accepts it, else plain text
without Markdown escapes, ``**`` or code fences (eldoc, ALE and vim-lsp show plain text as it is)."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, push_capabilities, start, uri_of

MARKDOWN = (
    "**exec\\_command** · command · executed: yes \\(it runs whenever the script runs, and the script "
    "completed\\)\n\n```sh\npytest -q tests/test_greet.py\n```\n\nworkdir: `/home/u/proj`\n\n"
    "**output** (line 6): exit 1 · 0.4 s\n\n```\nF\nFAILED tests/test_greet.py::test_hello\n```"
)
PLAIN = (
    "exec_command · command · executed: yes (it runs whenever the script runs, and the script completed)\n\n"
    "    pytest -q tests/test_greet.py\n\nworkdir: /home/u/proj\n\n"
    "output (line 6): exit 1 · 0.4 s\n\n    F\n    FAILED tests/test_greet.py::test_hello"
)


def capabilities(*formats: types.MarkupKind) -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.hover = types.HoverClientCapabilities(content_format=list(formats) or None)
    return caps


@pytest_lsp.fixture(config=SERVER)
async def raw_client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def hovers(client: LanguageClient) -> tuple[types.Hover, types.Hover]:
    uri = uri_of("rollout-demo.jsonl")
    open_text(client, uri, fixture("rollout-demo.jsonl"))
    await diagnostics_of(client, uri)
    lines = split_lines(fixture("rollout-demo.jsonl"))
    call = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, position_of(lines[4], "exec_command")))
    )
    record = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, 5))
    )
    return call, record


async def test_a_plain_text_client_gets_plain_text(raw_client: LanguageClient):
    await start(raw_client, capabilities(types.MarkupKind.PlainText))
    call, record = await hovers(raw_client)
    assert (call.contents.kind, call.contents.value) == (types.MarkupKind.PlainText, PLAIN)
    assert record.contents.value.startswith(
        "exec call_demo2 · 1 command · 1 patch · completed\n\n    const patch = `*** Begin Patch\n"
    )
    assert "```" not in record.contents.value  # the script as indented lines, its own text unchanged
    assert '\n    -    return "hello"\n    +    return "Hello"\n' in record.contents.value


async def test_a_markdown_client_gets_markdown(raw_client: LanguageClient):
    await start(raw_client, capabilities(types.MarkupKind.PlainText, types.MarkupKind.Markdown))
    call, record = await hovers(raw_client)
    assert (call.contents.kind, call.contents.value) == (types.MarkupKind.Markdown, MARKDOWN)
    assert record.contents.value.startswith(
        "**exec** call\\_demo2 · 1 command · 1 patch · completed\n\n```javascript\nconst patch = `*** Begin Patch"
    )


async def test_a_client_that_names_no_format_gets_markdown(raw_client: LanguageClient):
    await start(raw_client, capabilities())
    call, _ = await hovers(raw_client)
    assert (call.contents.kind, call.contents.value) == (types.MarkupKind.Markdown, MARKDOWN)
