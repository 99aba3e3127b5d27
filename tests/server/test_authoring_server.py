"""Authoring over LSP: semantic tokens, the script write-back command, completions (pytest-lsp, real server)."""

from __future__ import annotations

import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import fixture, json_escaped, utf16_slice
from tests.lsp_support import SERVER, change, diagnostics_of, open_text, position_of, push_capabilities, start, uri_of


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
        delta_line, delta_start, length, kind, bits = data[i : i + 5]
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
    assert list(legend.token_types) == [
        "keyword",
        "string",
        "number",
        "comment",
        "regexp",
        "function",
        "method",
        "variable",
        "property",
        "class",
        "operator",
        "namespace",
        "patchHeader",
        "patchHunk",
        "patchAdded",
        "patchRemoved",
    ]
    assert list(legend.token_modifiers) == ["declaration", "readonly", "defaultLibrary"]
    uri, text = await opened(lsp_client, "rollout-unicode.jsonl")
    full = await lsp_client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri))
    )
    tokens = decoded(text, full.data, legend)
    assert sorted({t[0] for t in tokens}) == [2, 3, 4]
    assert [t[1:] for t in tokens if t[0] == 2] == [
        ("text", "function", "defaultLibrary"),
        ("(", "operator"),
        ('\\"😀🚀 astral first\\"', "string"),
        (")", "operator"),
        (";", "operator"),
        ("await", "keyword"),
        ("tools", "namespace"),
        (".", "operator"),
        ("exec_command", "function", "defaultLibrary"),
        ("(", "operator"),
        ("{", "operator"),
        ("cmd", "property"),
        (":", "operator"),
        ('\\"echo 😀\\"', "string"),
        ("}", "operator"),
        (")", "operator"),
        (";", "operator"),
    ]
    assert [t[1] for t in tokens if t[0] == 4][:3] == ["text", "(", '\\"\\u00e9\\ud83d\\ude00\\u2028\\"']
    ranged = await lsp_client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(
            types.TextDocumentIdentifier(uri), types.Range(types.Position(3, 0), types.Position(3, 5))
        )
    )
    assert decoded(text, ranged.data, legend) == [t for t in tokens if t[0] == 3]


async def test_semantic_tokens_follow_an_edit_and_leave_dead_code_faded(client: LanguageClient):
    uri, text = await opened(client, "rollout-demo.jsonl")
    full = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri))
    )
    from lsp_server.features.semantic_tokens import LEGEND

    tokens = decoded(text, full.data, LEGEND)
    assert sorted({t[0] for t in tokens}) == [4, 6, 8]
    line = [t for t in tokens if t[0] == 8]
    dead = line[line.index((8, "false", "keyword")) + 3 :]
    assert dead[:6] == [
        (8, "await", "keyword"),
        (8, "tools", "namespace"),
        (8, ".", "operator"),
        (8, "exec_command", "function", "defaultLibrary"),
        (8, "(", "operator"),
        (8, "{", "operator"),
    ]
    diagnostics = await diagnostics_of(client, uri)
    assert [list(d.tags or []) for d in diagnostics if d.code == "dead-branch"] == [[types.DiagnosticTag.Unnecessary]]
    line = split_lines(text)[4]
    at = line.index('text(r);\\n"') + len("text(r);\\n")
    change(client, uri, 2, (4, at), (4, at), 'text(\\"edited\\");')
    await diagnostics_of(client, uri)
    new_text = "\n".join(
        split_lines(text)[:4] + [line[:at] + 'text(\\"edited\\");' + line[at:]] + split_lines(text)[5:]
    )
    again = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri))
    )
    tokens = decoded(new_text, again.data, LEGEND)
    assert [t[1:] for t in tokens if t[0] == 4][-5:] == [
        ("text", "function", "defaultLibrary"),
        ("(", "operator"),
        ('\\"edited\\"', "string"),
        (")", "operator"),
        (";", "operator"),
    ]


def snippet_capabilities() -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.completion = types.CompletionClientCapabilities(
        completion_item=types.ClientCompletionItemOptions(snippet_support=True)
    )
    return caps


@pytest_lsp.fixture(config=SERVER)
async def snippet_client(lsp_client: LanguageClient):
    await start(lsp_client, snippet_capabilities())
    yield
    await lsp_client.shutdown_session()


async def test_completion_positions_through_escapes_in_utf16(client: LanguageClient):
    script = 'text("😀 é\\n");\nawait tools.exe'
    line = (
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call",'
        '"call_id":"c9","name":"exec","input":"' + json_escaped(script) + '"}}'
    )
    uri, text = await opened(client, "rollout-authoring.jsonl", fixture("rollout-demo.jsonl") + line + "\n")
    character = position_of(line, "tools.exe", 9)
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(10, character))
    )
    assert [i.label for i in found.items] == [
        "exec_command",
        "write_stdin",
        "apply_patch",
        "update_plan",
        "view_image",
        "shell_command",
    ]
    edit = found.items[0].text_edit
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (
        10,
        position_of(line, "tools.exe", 6),
        character,
    )
    assert utf16_slice(line, edit.range.start.character, edit.range.end.character) == "exe"
    assert found.items[0].kind == types.CompletionItemKind.Function
    assert found.items[0].insert_text_format == types.InsertTextFormat.PlainText
    calls = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(10, 0))
    )
    assert list(calls.items) == []


async def test_completion_snippet_and_call_ids(snippet_client: LanguageClient):
    client = snippet_client
    uri, text = await opened(client, "rollout-demo.jsonl", fixture("rollout-demo.jsonl") + "\n")
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(11, 0))
    )
    [item] = found.items
    assert item.insert_text_format == types.InsertTextFormat.Snippet and item.kind == types.CompletionItemKind.Snippet
    assert item.text_edit.new_text.startswith(
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item",'
        '"payload":{"type":"custom_tool_call","status":"completed",'
        '"call_id":"call_new1","name":"exec","input":"${1:const r = '
    )
    line = '{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":""}}'
    open_text(client, uri, text + line + "\n", version=2)
    await diagnostics_of(client, uri)
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(11, position_of(line, '""}', 1)))
    )
    assert [(i.label, i.detail, i.kind) for i in found.items] == [
        ("call_demo3", "line 9: exec, waiting for its output", types.CompletionItemKind.Reference)
    ]


@pytest_lsp.fixture(config=SERVER)
async def versioned_client(lsp_client: LanguageClient):
    caps = push_capabilities()
    caps.workspace.workspace_edit = types.WorkspaceEditClientCapabilities(document_changes=True)
    await start(lsp_client, caps)
    yield
    await lsp_client.shutdown_session()


async def test_write_script_back_as_one_versioned_edit(versioned_client: LanguageClient):
    client = versioned_client
    edits: list[types.ApplyWorkspaceEditParams] = []
    answers = [True, False]

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(ls, params: types.ApplyWorkspaceEditParams):
        edits.append(params)
        applied = answers.pop(0)
        return types.ApplyWorkspaceEditResult(applied=applied, failure_reason=None if applied else "stale")

    uri, text = await opened(client, "rollout-unicode.jsonl")
    line = split_lines(text)[4]  # its script escapes é, 😀 and U+2028
    source = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.scriptSource", [uri, 4])
    )
    assert source == {
        "script": 'text("é😀\u2028"); await tools.exec_command({cmd: "echo escaped"});\n',
        "language": "javascript",
        "call_id": "call_uni3",
        "line": 4,
        "version": 1,
    }
    new_script = source["script"].replace("escaped", "ünï 😀")
    # the record moved two lines down since the script was opened: it is found by its call_id
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.writeScript", [uri, 2, new_script, "call_uni3"])
    )
    assert result == {"applied": True, "changed": True, "line": 4, "reason": None}
    [params] = edits
    [change] = params.edit.document_changes
    assert (change.text_document.uri, change.text_document.version) == (uri, 1)
    [edit] = change.edits
    assert edit.new_text == "\\u00fcn\\u00ef \\ud83d\\ude00"
    start, end = edit.range.start.character, edit.range.end.character
    assert (edit.range.start.line, edit.range.end.line) == (4, 4)
    assert utf16_slice(line, start, end) == "escaped"
    written = utf16_slice(line, 0, start) + edit.new_text + line[line.index("escaped") + 7 :]
    assert json.loads(written)["payload"]["input"] == new_script
    refused = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.writeScript", [uri, 4, new_script + "x"])
    )
    assert refused == {"applied": False, "changed": False, "line": 4, "reason": "stale"}
    unchanged = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.writeScript", [uri, 4, source["script"]])
    )
    assert unchanged == {"applied": True, "changed": False, "line": 4, "reason": None}
    missing = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.writeScript", [uri, 1, "x"])
    )
    assert missing == {"applied": False, "changed": False, "line": None, "reason": "no exec record at line 2"}
    # an editor saving half-typed code asks for a script that parses: nothing is sent to apply
    half = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            "rollout-lsp.writeScript", [uri, 4, 'text("x");\nawait tools.', "call_uni3", {"requireValid": True}]
        )
    )
    assert half == {
        "applied": False,
        "changed": False,
        "line": None,
        "reason": "the script does not parse (line 2, column 1): syntax error: unexpected 'await tools.'",
    }
    valid = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            "rollout-lsp.writeScript", [uri, 4, source["script"], "call_uni3", {"requireValid": True}]
        )
    )
    assert valid == {"applied": True, "changed": False, "line": 4, "reason": None}
    assert len(edits) == 2


async def test_completions_in_a_script_edited_on_its_own(client: LanguageClient):
    """The editor's JavaScript view of a record asks with the script's text and an offset (UTF-16, after an
    astral character): tools after `tools.`, argument keys in an unclosed object, nothing in a string."""
    uri, _ = await opened(client, "rollout-demo.jsonl")
    script = 'text("😀");\nawait tools.'

    async def ask(text: str, offset: int) -> list[tuple]:
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams("rollout-lsp.scriptCompletion", [uri, text, offset])
        )
        return [(i["label"], i["kind"], i["start"], i["end"], i["text"]) for i in answer["items"]]

    length = len(script.encode("utf-16-le")) // 2
    tools = await ask(script, length)
    assert [t[0] for t in tools][:6] == [
        "exec_command",
        "write_stdin",
        "apply_patch",
        "update_plan",
        "view_image",
        "shell_command",
    ]
    assert {(t[1], t[2], t[3]) for t in tools} == {("tool", length, length)}
    keys = await ask(script + "exec_command({cmd: 'ls', wo", length + len("exec_command({cmd: 'ls', wo"))
    assert keys[0] == (
        "workdir",
        "key",
        length + len("exec_command({cmd: 'ls', "),
        length + len("exec_command({cmd: 'ls', wo"),
        "workdir",
    )
    assert "cmd" not in [k[0] for k in keys]
    assert await ask('text("tools.");', 12) == []
    missing = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.scriptCompletion", [uri_of("rollout-not-open.jsonl"), script, 3])
    )
    assert missing is None
