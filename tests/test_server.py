"""End to end: `rollout-lsp serve` driven over stdio by a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.lines import split_lines
from tests.helpers import CORPUS, fixture, json_escaped, utf16_slice
from tests.lsp_support import (SERVER, change, diagnostics_of, open_text, position_of, pull_capabilities, start,
                               uri_of)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient):
    await start(lsp_client, pull_capabilities())
    yield
    await lsp_client.shutdown_session()


async def opened(client, name: str, text: str | None = None) -> tuple[str, list[types.Diagnostic]]:
    uri = uri_of(name)
    open_text(client, uri, fixture(name) if text is None else text)
    return uri, await diagnostics_of(client, uri)


def cut(name: str) -> str:
    """Outline names are cut at 120 characters."""
    return name if len(name) <= 120 else name[:119] + "…"


def covered(text: str, rng: types.Range) -> str:
    assert rng.start.line == rng.end.line
    return utf16_slice(split_lines(text)[rng.start.line], rng.start.character, rng.end.character)


async def test_push_diagnostics(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, diagnostics = await opened(client, "rollout-demo.jsonl")
    assert [(d.code, d.severity, d.source, d.range.start.line) for d in diagnostics] == [
        ("unpaired-call", types.DiagnosticSeverity.Hint, "rollout-lsp", 8),
        ("expanded-command", types.DiagnosticSeverity.Information, "rollout-lsp", 8),
        ("dead-branch", types.DiagnosticSeverity.Warning, "rollout-lsp", 8)]
    dead = diagnostics[2]
    assert covered(text, dead.range) == json_escaped('tools.exec_command({cmd: "git push --force"})')
    assert list(dead.tags) == [types.DiagnosticTag.Unnecessary]
    assert dead.code_description.href.endswith("docs/findings.md#dead-branch")
    assert diagnostics[0].tags is None


async def test_related_information(client: LanguageClient):
    text = fixture("rollout-patches.jsonl")
    uri, diagnostics = await opened(client, "rollout-patches.jsonl")
    unresolved = diagnostics[0]
    assert unresolved.code == "unresolved-patch-path" and covered(text, unresolved.range) == "${other}"
    assert [(r.location.range.start.line, r.message) for r in unresolved.related_information] == [
        (6, "the output of this call (line 7)")]
    source = 'const p = "*** Begin Patch\\n*** Frob\\n*** End Patch";\nawait tools.apply_patch(p);\n'
    text = json.dumps({"type": "response_item", "payload": {"type": "custom_tool_call", "call_id": "c1",
                                                            "name": "exec", "input": source}}) + "\n"
    uri2, found = await opened(client, "rollout-related.jsonl", text)
    syntax = [d for d in found if d.code == "patch-syntax"][0]
    assert [(covered(text, r.location.range), r.message) for r in syntax.related_information] == [
        ("p", "the patch text is the const p")]


async def test_pull_diagnostics_and_no_push(pull_client: LanguageClient):
    uri = uri_of("rollout-patches.jsonl")
    open_text(pull_client, uri, fixture("rollout-patches.jsonl"))
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri)))
    assert [d.code for d in report.items] == ["unresolved-patch-path"] + ["patch-syntax"] * 4
    await asyncio.sleep(0.5)
    assert uri not in pull_client.diagnostics


async def test_hover_on_a_command_call(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    line = split_lines(fixture("rollout-demo.jsonl"))[4]
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(4, position_of(line, "exec_command"))))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == (
        "**exec\\_command** · command · executed: unknown \\(read from a script; a static reading cannot know "
        "which calls ran\\)\n\n```sh\npytest -q tests/test_greet.py\n```\n\nworkdir: `/home/u/proj`\n\n"
        "**output** (line 6): completed · exit 1 · 0.4 s\n\n```text\nF\nFAILED tests/test_greet.py::test_hello\n```")
    assert covered(fixture("rollout-demo.jsonl"), hover.range).startswith("tools.exec_command(")


async def test_hover_on_patch_computed_and_record(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, _ = await opened(client, "rollout-demo.jsonl")
    lines = split_lines(text)
    patch = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(6, position_of(lines[6], "tools.apply_patch"))))
    assert "- M `src/greet.py`" in patch.contents.value
    assert '```diff\n*** Begin Patch\n*** Update File: src/greet.py\n@@\n-    return "hello"' in patch.contents.value
    computed = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(8, position_of(lines[8], "tools.exec_command({cmd: `"))))
    assert "computed at run time: `` `git diff --stat -- ${f}` ``" in computed.contents.value
    assert "```sh\ngit diff --stat -- README.md\ngit diff --stat -- CHANGELOG.md\n```" in computed.contents.value
    assert "```js\nconst files = [\"README.md\", \"CHANGELOG.md\"];" in computed.contents.value
    record = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(6, 5)))
    assert record.contents.value.startswith("**exec** call\\_demo2 · 1 command · 1 patch · completed\n\n```js\n"
                                            "const patch = `*** Begin Patch")
    output = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(5, 3)))
    assert output.contents.value.startswith("**output** of line 5 · completed · 0\\.4 s\n\n```text\n")


async def test_hover_on_top_level_records(client: LanguageClient):
    uri, _ = await opened(client, "rollout-toplevel.jsonl")
    shell = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                      types.Position(3, 10)))
    assert "```sh\nbash -lc 'ls -la'\n```" in shell.contents.value and "exit 2" in shell.contents.value
    local = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                      types.Position(5, 10)))
    assert "```sh\ngit log --oneline -3\n```" in local.contents.value
    assert "executed: yes" in local.contents.value


async def test_hover_on_recorded_rollout(client: LanguageClient):
    text = (CORPUS / "codex-0.157-custom-calls.jsonl").read_text(encoding="utf-8")
    uri = uri_of("recorded-0.157.jsonl")
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    line = split_lines(text)[6]
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(6, position_of(line, "tools.exec_command", 0) + 200)))
    assert "```sh\nrg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts\n```" in hover.contents.value
    assert "**output** (line 8): completed · 0.3 s\n\n```text\n[exit 0]\n\n[exit 0]\n452:  snapshotPlain(): string {\n" \
        in hover.contents.value


async def test_hover_markdown_cannot_inject(client: LanguageClient):
    evil = 'await tools.exec_command({cmd: "echo ``` [x](http://e.vil) <img src=x onerror=alert(1)>"});\n'
    text = json.dumps({"timestamp": "t", "type": "response_item", "payload": {
        "type": "custom_tool_call", "call_id": "call_[x](http://e.vil)", "name": "exec", "input": evil}}) + "\n"
    uri, _ = await opened(client, "rollout-evil.jsonl", text)
    call = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(0, position_of(text, "tools.exec_command"))))
    assert "````sh\necho ``` [x](http://e.vil) <img src=x onerror=alert(1)>\n````" in call.contents.value
    record = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                      types.Position(0, 2)))
    assert record.contents.value.startswith("**exec** call\\_\\[x\\]\\(http\\://e\\.vil\\)")


async def test_utf16_positions_after_astral_and_escapes(client: LanguageClient):
    text = fixture("rollout-unicode.jsonl")
    uri, _ = await opened(client, "rollout-unicode.jsonl")
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(uri)))
    calls = [c for s in symbols[0].children[0].children for c in s.children]
    assert [c.name for c in calls] == ["echo 😀", "printf '\\u00e9'", "echo escaped"]
    assert [covered(text, c.range) for c in calls] == [
        json_escaped('tools.exec_command({cmd: "echo 😀"})'),
        json_escaped("tools.exec_command({cmd: \"printf '\\\\u00e9'\"})"),
        'tools.exec_command({cmd: \\"echo escaped\\"})']


async def test_outline_shape(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(uri)))

    def shape(symbol):
        return (symbol.name, symbol.kind, symbol.detail, [shape(c) for c in symbol.children or []])

    assert [shape(s) for s in symbols] == [(
        "session 019f0000-0000-7000-8000-000000000001", types.SymbolKind.Module, None, [
            ("turn: Fix the failing greeting test", types.SymbolKind.Namespace, None, [
                ("exec", types.SymbolKind.Function, "1 command", [
                    ("pytest -q tests/test_greet.py", types.SymbolKind.Event, "exec_command", [])]),
                ("exec", types.SymbolKind.Function, "1 command · 1 patch", [
                    ("patch src/greet.py", types.SymbolKind.File, "apply_patch", []),
                    ("pytest -q", types.SymbolKind.Event, "exec_command", [])]),
                ("exec", types.SymbolKind.Function, "2 commands", [
                    ("computed: `git diff --stat -- ${f}`", types.SymbolKind.Event, "exec_command · computed", []),
                    ("git push --force", types.SymbolKind.Event, "exec_command · dead", [])])])])]

    def check(symbol):
        assert symbol.name
        r, s = symbol.range, symbol.selection_range
        assert (r.start.line, r.start.character) <= (s.start.line, s.start.character)
        assert (s.end.line, s.end.character) <= (r.end.line, r.end.character)
        for child in symbol.children or []:
            check(child)
    for symbol in symbols:
        check(symbol)


async def test_outline_of_recorded_rollouts(client: LanguageClient):
    for name in ("codex-0.157-custom-calls.jsonl", "codex-custom-call-forms.jsonl"):
        uri = uri_of("recorded-" + name)
        open_text(client, uri, (CORPUS / name).read_text(encoding="utf-8"))
        await diagnostics_of(client, uri)
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
            types.TextDocumentIdentifier(uri)))
        records = symbols[0].children[0].children if name.startswith("codex-0.157") else symbols[0].children
        if name.startswith("codex-0.157"):
            assert symbols[0].children[0].name.startswith("turn: ")
            assert [(r.range.start.line, r.detail, [c.name for c in r.children]) for r in records] == [
                (2, "no tool call", []),
                (3, "1 command", ["computed: cmd"]),
                (4, "1 patch", ["patch /Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/review-cxh55-b/"
                                "src/CodexHeadless.ts"]),
                (6, "2 commands", ["git checkout -- src/CodexHeadless.ts",
                                   "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts"]),
                (8, "1 command", ["rm node_modules"])]
        else:
            root = "/Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/"
            assert [(r.name, [c.name for c in r.children]) for r in records] == [
                ("exec", [cut(f"patch {root}review-1326-c/src/renderer/src/workspace/hook/actions/session.ts")]),
                ("apply_patch: patch src/app/page.tsx", []),
                ("exec", [cut(f"patch {root}feed-render-rewrite/testing/fixtures/feed-presentation/"
                              f"operation-families.json, {root}feed-render-rewrite/testing/unit/scripts/"
                              "renderingFixtureTools.test.ts")]),
                ("exec", ["mcp__agent_code__orchestration_wait_agents"])]


async def test_definition_both_ways_and_references(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    doc = types.TextDocumentIdentifier(uri)
    forward = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(6, 40)))
    assert [loc.range.start.line for loc in forward] == [7]
    back = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(7, 40)))
    assert [loc.range.start.line for loc in back] == [6]
    none = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(2, 5)))
    assert none == []
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc, position=types.Position(7, 5),
        context=types.ReferenceContext(include_declaration=True)))
    assert [loc.range.start.line for loc in refs] == [6, 7]


async def test_workspace_symbols(client: LanguageClient):
    await opened(client, "rollout-demo.jsonl")
    await opened(client, "rollout-patches.jsonl")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="greet"))
    assert sorted((s.name, s.location.uri.rsplit("/", 1)[1]) for s in found) == [
        ("patch src/greet.py", "rollout-demo.jsonl"), ("pytest -q tests/test_greet.py", "rollout-demo.jsonl")]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="D.PY"))
    assert [s.name for s in found] == ["patch c.py → d.py"]


async def test_code_lens_and_folding(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert [(l.range.start.line, l.command.title, l.command.command, list(l.command.arguments))
            for l in lenses] == [
        (4, "1 command · exit 1 · 0.4 s", "rolloutLsp.showDecodedScript", [uri, 4]),
        (6, "1 command · 1 patch · exit 0 · 1.2 s", "rolloutLsp.showDecodedScript", [uri, 6]),
        (8, "2 commands · no output", "rolloutLsp.showDecodedScript", [uri, 8])]
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(types.TextDocumentIdentifier(uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [(2, 9)]


async def test_redact_quick_fix(client: LanguageClient):
    text = fixture("rollout-secrets.jsonl")
    uri, diagnostics = await opened(client, "rollout-secrets.jsonl")
    first = diagnostics[0]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), first.range, types.CodeActionContext(diagnostics=[first])))
    assert [a.title for a in actions] == ["Redact secret", "Redact all 8 secrets in this file"]
    edit = actions[0].edit.changes[uri][0]
    assert edit.range == first.range
    assert edit.new_text == "sk-xxxx-" + "xxxxxxxxxxxxxxxxxx" * 2
    lines = split_lines(text)
    line = lines[1].encode("utf-16-le")
    new = (line[:2 * edit.range.start.character] + edit.new_text.encode("utf-16-le") +
           line[2 * edit.range.end.character:]).decode("utf-16-le")
    assert len(new) == len(lines[1]) and json.loads(new)["payload"]["input"].startswith(
        'await tools.exec_command({cmd: "OPENAI_API_KEY=sk-xxxx-')
    change(client, uri, 2, (1, 0), (1, len(line) // 2), new)
    after = await diagnostics_of(client, uri)
    assert [d.range.start.line for d in after if d.code == "secret"] == [2, 2, 3, 3, 3, 3, 4]


async def test_incremental_edits_with_u2028(client: LanguageClient):
    text = fixture("rollout-unicode.jsonl")
    uri, _ = await opened(client, "rollout-unicode.jsonl")
    lines = split_lines(text)
    assert "\u2028" in lines[1] and "\u2028" in lines[3]
    col = position_of(lines[2], "echo 😀")
    change(client, uri, 2, (2, col), (2, col + len("echo 😀".encode("utf-16-le")) // 2), "echo edited")
    after = await diagnostics_of(client, uri)
    assert after == []
    col3 = position_of(lines[3], "printf")
    change(client, uri, 3, (3, col3), (3, col3 + 6), "echo")
    assert await diagnostics_of(client, uri) == []
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(uri)))
    calls = [c.name for s in symbols[0].children[0].children for c in s.children]
    assert calls == ["echo edited", "echo '\\u00e9'", "echo escaped"]
    script = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "rollout-lsp.decodedScript", [uri, 3]))
    assert script["script"] == 'text("é\u2028ü"); await tools.exec_command({cmd: "echo \'\\\\u00e9\'"});\n'


@pytest_lsp.fixture(config=SERVER)
async def configured_client(lsp_client: LanguageClient):
    lsp_client.set_configuration({"severity": {"expanded-command": "error"}}, section="rolloutLsp")
    await start(lsp_client, options={"severity": {"unpaired-call": "off"}, "hoverOutputLines": 1})
    yield
    await lsp_client.shutdown_session()


async def test_configuration_from_initialization_and_changes(configured_client: LanguageClient):
    lsp_client = configured_client
    uri, diagnostics = await opened(lsp_client, "rollout-demo.jsonl")
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("expanded-command", types.DiagnosticSeverity.Error), ("dead-branch", types.DiagnosticSeverity.Warning)]
    hover = await lsp_client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(4, position_of(split_lines(fixture("rollout-demo.jsonl"))[4],
                                                                         "exec_command"))))
    assert hover.contents.value.endswith("```text\nF\n… (2 more lines)\n```")
    lsp_client.diagnostics.pop(uri, None)
    lsp_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={
        "rolloutLsp": {"severity": {"dead-branch": "information"}, "secretPatterns": ["pytest -q"]}}))
    diagnostics = await diagnostics_of(lsp_client, uri)
    assert [(d.range.start.line, d.code, d.severity) for d in diagnostics] == [
        (4, "secret", types.DiagnosticSeverity.Warning), (6, "secret", types.DiagnosticSeverity.Warning),
        (8, "expanded-command", types.DiagnosticSeverity.Error),
        (8, "dead-branch", types.DiagnosticSeverity.Information)]
    lsp_client.diagnostics.pop(uri, None)
    lsp_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={
        "rolloutLsp": {"severity": {"nonsense-code": "off"}, "hoverOutputLines": "many"}}))
    await diagnostics_of(lsp_client, uri)
    assert any("setting 'severity' ignored" in m.message for m in lsp_client.log_messages)


async def test_cancellation_and_rapid_edits(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, _ = await opened(client, "rollout-demo.jsonl")
    line = split_lines(text)[4]
    col = position_of(line, "pytest -q tests")
    for version in range(2, 52):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(4, col), types.Position(4, col + 1)),
                text="P" if version % 2 else "p")]))
    pending = {}
    for index in range(20):  # a storm of hovers, every other one cancelled as an editor does
        msg_id = f"hover-{index}"
        pending[msg_id] = client.protocol.send_request(types.TEXT_DOCUMENT_HOVER, types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(4, col)), msg_id=msg_id)
        if index % 2 == 0:
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    answered = await asyncio.gather(*(asyncio.wrap_future(pending[f"hover-{i}"]) for i in range(1, 20, 2)),
                                    return_exceptions=True)
    cancelled = await asyncio.gather(*(asyncio.wrap_future(pending[f"hover-{i}"]) for i in range(0, 20, 2)),
                                     return_exceptions=True)
    assert all(isinstance(c, (types.Hover, Exception)) for c in cancelled)
    assert all(isinstance(a, types.Hover) for a in answered)
    final = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                     types.Position(4, col)))
    assert "```sh\nPytest -q tests/test_greet.py\n```" in final.contents.value
    client.diagnostics.pop(uri, None)
    change(client, uri, 52, (4, col), (4, col + 1), "p")
    assert [d.code for d in await diagnostics_of(client, uri)] == ["unpaired-call", "expanded-command",
                                                                    "dead-branch"]


async def test_other_jsonl_stays_quiet(client: LanguageClient):
    uri, diagnostics = await opened(client, "not-a-rollout.jsonl")
    assert diagnostics == []
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(uri)))
    assert symbols == []
    assert any("is not a Codex rollout" in m.message for m in client.log_messages)
    broken_name = "rollout-invalid.jsonl"  # a broken rollout still gets findings: its name says what it is
    _, broken = await opened(client, broken_name)
    assert [d.code for d in broken][:2] == ["invalid-json", "record-shape"]


async def test_unknown_documents_and_bad_requests(client: LanguageClient):
    missing = types.TextDocumentIdentifier(uri_of("never-opened.jsonl"))
    assert await client.text_document_hover_async(types.HoverParams(missing, types.Position(0, 0))) is None
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(missing)) == []
    uri, _ = await opened(client, "rollout-demo.jsonl")
    far = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                   types.Position(999, 999)))
    assert far is None
    assert await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "rollout-lsp.decodedScript", [uri, 2])) is None


async def test_commands(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    script = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "rollout-lsp.decodedScript", [uri, 4]))
    assert script == {"script": 'const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py", '
                                'workdir: "/home/u/proj"});\ntext(r);\n', "language": "javascript",
                      "call_id": "call_demo1", "line": 4}
    line = split_lines(fixture("rollout-demo.jsonl"))[6]
    command = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        "rollout-lsp.callCommand", [uri, 6, position_of(line, "tools.exec_command")]))
    assert (command["command"], command["workdir"], command["computed"]) == ("pytest -q", "/home/u/proj", False)


async def test_analyze_file_by_path(client: LanguageClient, tmp_path):
    result = await client.protocol.send_request_async("rollout/analyzeFile", {
        "path": str(CORPUS / "codex-0.157-custom-calls.jsonl")})
    assert [c.command for c in result.calls][2:] == ["git checkout -- src/CodexHeadless.ts",
                                                     "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts",
                                                     "rm node_modules"]
    assert [d.code for d in result.diagnostics] == ["unpaired-call", "unpaired-call", "expanded-command"]
    missing = await client.protocol.send_request_async("rollout/analyzeFile", {"path": str(tmp_path / "x.jsonl")})
    assert missing.error.endswith("No such file or directory") and missing.calls == []
