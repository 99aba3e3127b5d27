"""Authoring over LSP: semantic tokens, the script write-back command, completions (pytest-lsp, real server)."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.lines import split_lines
from tests.helpers import fixture, utf16_slice
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def fresh_client(lsp_client: LanguageClient):
    yield  # the test initializes the session itself, to read the server's capabilities
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, name: str, text: str | None = None) -> tuple[str, str]:
    uri = uri_of(name)
    text = fixture(name) if text is None else text
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    return uri, text


def decoded(text: str, data: list[int], legend: types.SemanticTokensLegend) -> list[tuple]:
    """(line, covered text, type, modifiers…) of each token, cut from the document as a UTF-16 client does."""
    lines = split_lines(text)
    out = []
    line = column = 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i:i + 5]
        line += delta_line
        column = column + delta_start if delta_line == 0 else delta_start
        modifiers = [m for k, m in enumerate(legend.token_modifiers) if bits & (1 << k)]
        out.append((line, utf16_slice(lines[line], column, column + length), legend.token_types[kind], *modifiers))
    return out


async def test_semantic_tokens_legend_full_and_range(fresh_client: LanguageClient):
    lsp_client = fresh_client
    result = await start(lsp_client)
    provider = result.capabilities.semantic_tokens_provider
    legend = provider.legend
    assert provider.full is True and provider.range is True
    assert list(legend.token_types) == ["keyword", "string", "number", "comment", "regexp", "function", "method",
                                  "variable", "property", "class", "operator", "namespace", "patchHeader",
                                  "patchHunk", "patchAdded", "patchRemoved"]
    assert list(legend.token_modifiers) == ["declaration", "readonly", "defaultLibrary"]
    uri, text = await opened(lsp_client, "rollout-unicode.jsonl")
    full = await lsp_client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri)))
    tokens = decoded(text, full.data, legend)
    assert sorted({t[0] for t in tokens}) == [2, 3, 4]
    assert [t[1:] for t in tokens if t[0] == 2] == [
        ("text", "function", "defaultLibrary"), ("(", "operator"), ('\\"😀🚀 astral first\\"', "string"),
        (")", "operator"), (";", "operator"), ("await", "keyword"), ("tools", "namespace"), (".", "operator"),
        ("exec_command", "function", "defaultLibrary"), ("(", "operator"), ("{", "operator"), ("cmd", "property"),
        (":", "operator"), ("\\\"echo 😀\\\"", "string"), ("}", "operator"), (")", "operator"), (";", "operator")]
    assert [t[1] for t in tokens if t[0] == 4][:3] == ["text", "(", '\\"\\u00e9\\ud83d\\ude00\\u2028\\"']
    ranged = await lsp_client.text_document_semantic_tokens_range_async(types.SemanticTokensRangeParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(3, 0), types.Position(3, 5))))
    assert decoded(text, ranged.data, legend) == [t for t in tokens if t[0] == 3]


async def test_semantic_tokens_follow_an_edit_and_leave_dead_code_faded(client: LanguageClient):
    uri, text = await opened(client, "rollout-demo.jsonl")
    full = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri)))
    from lsp_server.features.semantic_tokens import LEGEND

    tokens = decoded(text, full.data, LEGEND)
    assert sorted({t[0] for t in tokens}) == [4, 6, 8]
    line = [t for t in tokens if t[0] == 8]
    dead = line[line.index((8, "false", "keyword")) + 3:]
    assert dead[:6] == [(8, "await", "keyword"), (8, "tools", "namespace"), (8, ".", "operator"),
                        (8, "exec_command", "function", "defaultLibrary"), (8, "(", "operator"), (8, "{", "operator")]
    diagnostics = await diagnostics_of(client, uri)
    assert [list(d.tags or []) for d in diagnostics if d.code == "dead-branch"] == [[types.DiagnosticTag.Unnecessary]]
