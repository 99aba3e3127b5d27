"""End to end: `rollout-lsp serve` driven over stdio by a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path as from_uri
from pytest_lsp import LanguageClient

from analysis import analyze_text
from analysis.jsonl.lines import split_lines
from tests.helpers import ROOT, fixture, json_escaped, utf16_slice
from tests.lsp_support import (
    SERVER,
    apply_edit,
    change,
    diagnostics_of,
    open_text,
    position_of,
    pull_capabilities,
    push_capabilities,
    start,
    uri_of,
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    lsp_client.initialize_result = await start(lsp_client)
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


def covered(text: str, rng: types.Range) -> str:
    assert rng.start.line == rng.end.line
    return utf16_slice(split_lines(text)[rng.start.line], rng.start.character, rng.end.character)


async def test_push_diagnostics(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, diagnostics = await opened(client, "rollout-demo.jsonl")
    assert [(d.code, d.severity, d.source, d.range.start.line) for d in diagnostics] == [
        ("unpaired-call", types.DiagnosticSeverity.Hint, "rollout-lsp", 8),
        ("expanded-command", types.DiagnosticSeverity.Information, "rollout-lsp", 8),
        ("dead-branch", types.DiagnosticSeverity.Warning, "rollout-lsp", 8),
    ]
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
        (6, "the output of this call (line 7)")
    ]
    source = 'const p = "*** Begin Patch\\n*** Frob\\n*** End Patch";\nawait tools.apply_patch(p);\n'
    text = (
        json.dumps(
            {
                "type": "response_item",
                "payload": {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": source},
            }
        )
        + "\n"
    )
    uri2, found = await opened(client, "rollout-related.jsonl", text)
    syntax = [d for d in found if d.code == "patch-syntax"][0]
    assert [(covered(text, r.location.range), r.message) for r in syntax.related_information] == [
        ("p", "the patch text is the const p")
    ]


async def test_pull_diagnostics_and_no_push(pull_client: LanguageClient):
    uri = uri_of("rollout-patches.jsonl")
    open_text(pull_client, uri, fixture("rollout-patches.jsonl"))
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
    )
    assert report.kind == "full"
    assert [d.code for d in report.items] == ["unresolved-patch-path"] + ["patch-syntax"] * 4
    first = report.items[0]
    assert (first.range, first.severity, first.source, first.message) == (
        types.Range(types.Position(2, 414), types.Position(2, 422)),
        types.DiagnosticSeverity.Warning,
        "rollout-lsp",
        "patch path ${other} does not resolve to a const string; the file is not listed",
    )
    await asyncio.sleep(0.5)
    assert uri not in pull_client.diagnostics


async def test_hover_on_a_command_call(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    line = split_lines(fixture("rollout-demo.jsonl"))[4]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, position_of(line, "exec_command")))
    )
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == (
        "**exec\\_command** · command · executed: yes \\(it runs whenever the script runs, and the script "
        "completed\\)\n\n```sh\npytest -q tests/test_greet.py\n```\n\nworkdir: `/home/u/proj`\n\n"
        "**output** (line 6): exit 1 · 0.4 s\n\n```\nF\nFAILED tests/test_greet.py::test_hello\n```"
    )
    assert covered(fixture("rollout-demo.jsonl"), hover.range).startswith("tools.exec_command(")


async def test_hover_on_patch_computed_and_record(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, _ = await opened(client, "rollout-demo.jsonl")
    lines = split_lines(text)
    patch = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(6, position_of(lines[6], "tools.apply_patch"))
        )
    )
    assert "- M `src/greet.py`" in patch.contents.value
    assert '```diff\n*** Begin Patch\n*** Update File: src/greet.py\n@@\n-    return "hello"' in patch.contents.value
    computed = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(8, position_of(lines[8], "tools.exec_command({cmd: `"))
        )
    )
    assert "computed at run time: `` `git diff --stat -- ${f}` ``" in computed.contents.value
    assert "```sh\ngit diff --stat -- README.md\ngit diff --stat -- CHANGELOG.md\n```" in computed.contents.value
    assert '```javascript\nconst files = ["README.md", "CHANGELOG.md"];' in computed.contents.value
    record = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, 5))
    )
    assert record.contents.value.startswith(
        "**exec** call\\_demo2 · 1 command · 1 patch · completed\n\n```javascript\nconst patch = `*** Begin Patch"
    )
    output = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(5, 3))
    )
    assert output.contents.value.startswith("**output** of line 5 · completed · 0\\.4 s\n\n```\n")


async def test_hover_on_top_level_records(client: LanguageClient):
    uri, _ = await opened(client, "rollout-toplevel.jsonl")
    shell = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(3, 10))
    )
    assert "```sh\nbash -lc 'ls -la'\n```" in shell.contents.value and "exit 2" in shell.contents.value
    local = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(5, 10))
    )
    assert "```sh\ngit log --oneline -3\n```" in local.contents.value
    assert "executed: yes" in local.contents.value


async def test_hover_markdown_cannot_inject(client: LanguageClient):
    evil = 'await tools.exec_command({cmd: "echo ``` [x](http://e.vil) <img src=x onerror=alert(1)>"});\n'
    text = (
        json.dumps(
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "call_id": "call_[x](http://e.vil)",
                    "name": "exec",
                    "input": evil,
                },
            }
        )
        + "\n"
    )
    uri, _ = await opened(client, "rollout-evil.jsonl", text)
    call = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, position_of(text, "tools.exec_command")))
    )
    assert "````sh\necho ``` [x](http://e.vil) <img src=x onerror=alert(1)>\n````" in call.contents.value
    record = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 2))
    )
    assert record.contents.value.startswith("**exec** call\\_\\[x\\]\\(http\\://e\\.vil\\)")


async def test_utf16_positions_after_astral_and_escapes(client: LanguageClient):
    text = fixture("rollout-unicode.jsonl")
    uri, _ = await opened(client, "rollout-unicode.jsonl")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    calls = [c for s in symbols[0].children[0].children for c in s.children]
    assert [c.name for c in calls] == [
        "exec_command: echo 😀",
        "exec_command: printf '\\u00e9'",
        "exec_command: echo escaped",
    ]
    assert [covered(text, c.range) for c in calls] == [
        json_escaped('tools.exec_command({cmd: "echo 😀"})'),
        json_escaped("tools.exec_command({cmd: \"printf '\\\\u00e9'\"})"),
        'tools.exec_command({cmd: \\"echo escaped\\"})',
    ]


async def test_outline_shape(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )

    def shape(symbol):
        return (symbol.name, symbol.kind, symbol.detail, [shape(c) for c in symbol.children or []])

    assert [shape(s) for s in symbols] == [
        (
            "session 019f0000-0000-7000-8000-000000000001",
            types.SymbolKind.Module,
            "1 failed (first: line 5, exit 1)",
            [
                (
                    "turn 1 (line 3): Fix the failing greeting test",
                    types.SymbolKind.Namespace,
                    "1 failed (first: line 5, exit 1)",
                    [
                        (
                            "exec · pytest -q tests/test_greet.py",
                            types.SymbolKind.Function,
                            "1 command · 0.4 s",
                            [  # the script went on after it
                                (
                                    "[exit 1] exec_command: pytest -q tests/test_greet.py",
                                    types.SymbolKind.Event,
                                    "exit 1",
                                    [],
                                )
                            ],
                        ),
                        (
                            "exec · update greet.py +1",
                            types.SymbolKind.Function,
                            "1 command · 1 patch · 1.2 s",
                            [
                                ("apply_patch: update src/greet.py", types.SymbolKind.File, "ran", []),
                                ("exec_command: pytest -q", types.SymbolKind.Event, "ran", []),
                            ],
                        ),
                        (
                            "[no output] exec · 2 commands: git diff --stat -- README.md … +1",
                            types.SymbolKind.Function,
                            "2 commands",
                            [
                                (
                                    "exec_command: 2 commands: git diff --stat -- README.md …",
                                    types.SymbolKind.Event,
                                    "computed",
                                    [
                                        (
                                            "exec_command: git diff --stat -- README.md",
                                            types.SymbolKind.Event,
                                            "element 1 of the list",
                                            [],
                                        ),
                                        (
                                            "exec_command: git diff --stat -- CHANGELOG.md",
                                            types.SymbolKind.Event,
                                            "element 2 of the list",
                                            [],
                                        ),
                                    ],
                                ),
                                ("[dead] exec_command: git push --force", types.SymbolKind.Event, "dead", []),
                            ],
                        ),
                        (
                            "files changed (1)",
                            types.SymbolKind.Package,
                            None,
                            [("src/greet.py", types.SymbolKind.File, "updated (line 7)", [])],
                        ),
                    ],
                ),  # one turn changed the file: no session list repeating the turn's
            ],
        )
    ]

    def check(symbol):
        assert symbol.name
        r, s = symbol.range, symbol.selection_range
        assert (r.start.line, r.start.character) <= (s.start.line, s.start.character)
        assert (s.end.line, s.end.character) <= (r.end.line, r.end.character)
        for child in symbol.children or []:
            check(child)

    for symbol in symbols:
        check(symbol)


async def test_each_expansion_row_is_at_its_element_of_the_list(client: LanguageClient):
    """So an Outline sorted by position (VS Code's) keeps the list's order: the rows share no range."""
    uri, _ = await opened(client, "rollout-demo.jsonl")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    [expanded] = [c for c in symbols[0].children[0].children[2].children if c.children]
    lines = fixture("rollout-demo.jsonl").split("\n")
    rows = [
        (
            row.name,
            row.range.start.line,
            utf16_slice(lines[row.range.start.line], row.range.start.character, row.range.end.character),
            row.selection_range == row.range,
        )
        for row in expanded.children
    ]
    assert rows == [
        ("exec_command: git diff --stat -- README.md", 8, '\\"README.md\\"', True),
        ("exec_command: git diff --stat -- CHANGELOG.md", 8, '\\"CHANGELOG.md\\"', True),
    ]


async def test_definition_both_ways_and_references(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    doc = types.TextDocumentIdentifier(uri)
    forward = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(6, 40)))
    assert [loc.range.start.line for loc in forward] == [7]
    back = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(7, 40)))
    assert [loc.range.start.line for loc in back] == [6]
    none = await client.text_document_definition_async(types.DefinitionParams(doc, types.Position(2, 5)))
    assert none == []
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc, position=types.Position(7, 5), context=types.ReferenceContext(include_declaration=True)
        )
    )
    assert [loc.range.start.line for loc in refs] == [6, 7]


async def test_workspace_symbols(client: LanguageClient):
    await opened(client, "rollout-demo.jsonl")
    await opened(client, "rollout-patches.jsonl")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="greet"))
    assert sorted((s.name, s.location.uri.rsplit("/", 1)[1]) for s in found) == [
        ("[exit 1] exec_command: pytest -q tests/test_greet.py", "rollout-demo.jsonl"),
        ("apply_patch: update src/greet.py", "rollout-demo.jsonl"),
    ]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="D.PY"))
    assert [s.name for s in found] == ["apply_patch: update c.py → d.py"]


async def test_code_lens_and_folding(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert [
        (lens.range.start.line, lens.command.title, lens.command.command, list(lens.command.arguments))
        for lens in lenses
    ] == [
        (4, "1 command · exit 1 · 0.4 s", "rollout-lsp.showDecodedScript", [uri, 4]),
        (6, "1 command · 1 patch · exit 0 · 1.2 s", "rollout-lsp.showDecodedScript", [uri, 6]),
        (8, "2 commands · no output", "rollout-lsp.showDecodedScript", [uri, 8]),
        (0, "1 failed call · first: line 5, exit 1", "rollout-lsp.nextFailure", [uri, -1]),
    ]
    # the session lens goes to the first failure; the command from any line goes to the next one (wrapping)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lenses[-1].command.command, lenses[-1].command.arguments)
    )
    # the failed call is the script's command: the cursor goes to its column
    assert result == {"line": 4, "character": 207, "outcome": "exit 1", "index": 1, "count": 1, "wrapped": False}
    assert [(p.uri, p.selection.start.line, p.selection.start.character) for p in client.shown_documents] == [
        (uri, 4, 207)
    ]
    again = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.nextFailure", [uri, 4, 207])
    )
    assert again == {"line": 4, "character": 207, "outcome": "exit 1", "index": 1, "count": 1, "wrapped": True}
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(types.TextDocumentIdentifier(uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [(2, 9)]


async def test_a_code_lens_runs_through_the_server_and_shows_a_file(client: LanguageClient):
    """The lens command is a server command: the server writes the script to a .js file and asks the
    client to show it (window/showDocument), so it works in an editor without a custom view."""
    uri, _ = await opened(client, "rollout-demo.jsonl")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lenses[0].command.command, lenses[0].command.arguments)
    )
    assert [(p.uri, p.take_focus) for p in client.shown_documents] == [(result["file"], True)]
    assert (
        result["shown"] is True and result["file"].endswith(".js") and "rollout-demo-line5-call_demo1" in result["file"]
    )
    path = Path(from_uri(result["file"]))
    assert (
        path.read_text(encoding="utf-8")
        == result["script"]
        == (
            'const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py", workdir: "/home/u/proj"});'
            "\ntext(r);\n"
        )
    )
    assert path.stat().st_mode & 0o222 == 0  # read-only: edits there would not reach the rollout


async def test_the_server_lists_its_commands(client: LanguageClient):
    capabilities = client.initialize_result.capabilities
    assert sorted(capabilities.execute_command_provider.commands) == [
        "rollout-lsp.blameLine",
        "rollout-lsp.blameSessions",
        "rollout-lsp.callCommand",
        "rollout-lsp.decodedScript",
        "rollout-lsp.export",
        "rollout-lsp.linkInvocationLog",
        "rollout-lsp.nextFailure",
        "rollout-lsp.openChangedFile",
        "rollout-lsp.previousFailure",
        "rollout-lsp.scriptCompletion",
        "rollout-lsp.scriptSource",
        "rollout-lsp.sessions",
        "rollout-lsp.showDecodedScript",
        "rollout-lsp.showInfo",
        "rollout-lsp.writeScript",
    ]


async def test_redact_quick_fix(client: LanguageClient):
    text = fixture("rollout-secrets.jsonl")
    uri, diagnostics = await opened(client, "rollout-secrets.jsonl")
    first = diagnostics[0]
    assert first.data == {"fix": "redact", "keep": 3, "version": 1}
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), first.range, types.CodeActionContext(diagnostics=[first])
        )
    )
    assert [a.title for a in actions] == ["Redact sk-…789 (line 2)", "Redact all 8 secrets in this file"]
    [change] = actions[0].edit.document_changes
    assert actions[0].edit.changes is None and change.text_document.version == 1
    edit = change.edits[0]
    assert edit.range == first.range
    assert edit.new_text == "sk-xxxx-" + "xxxxxxxxxxxxxxxxxx" * 2
    new_text = apply_edit(text, actions[0].edit, uri, 1)
    lines, new = split_lines(text), split_lines(new_text)[1]
    assert len(new) == len(lines[1]) and json.loads(new)["payload"]["input"].startswith(
        'await tools.exec_command({cmd: "OPENAI_API_KEY=sk-xxxx-'
    )
    change_line(client, uri, 2, 1, lines[1], new)
    after = await diagnostics_of(client, uri)
    assert [d.range.start.line for d in after if d.code == "secret"] == [2, 2, 3, 3, 3, 3, 4]
    assert {d.data["version"] for d in after if d.data} == {2}


async def test_a_request_for_every_diagnostic_of_a_line_gets_each_fix_once(client: LanguageClient):
    """Neovim asks for the actions of every diagnostic of the cursor's line: each secret's fix comes once,
    titled with the secret it redacts, and the fix of the whole file once."""
    uri, diagnostics = await opened(client, "rollout-secrets.jsonl")
    on_line = [d for d in diagnostics if d.range.start.line == 3]
    assert len(on_line) == 4
    whole = types.Range(types.Position(3, 0), types.Position(3, 0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), whole, types.CodeActionContext(diagnostics=on_line + on_line)
        )
    )
    assert [a.title for a in actions] == [
        "Redact Bearer…123 (line 4)",
        "Redact signingKey… (line 4)",
        "Redact xoxb-…AKE (line 4)",
        "Redact github_pat_…000 (line 4)",
        "Redact all 8 secrets in this file",
    ]
    assert [len(a.diagnostics or []) for a in actions] == [1, 1, 1, 1, 0]


def change_line(client, uri: str, version: int, number: int, old: str, new: str) -> None:
    change(client, uri, version, (number, 0), (number, len(old.encode("utf-16-le")) // 2), new)


async def test_a_redaction_keeps_the_prefix_the_configured_patterns_found(configured_client: LanguageClient):
    """A configured pattern ("Use B") hides the built-in Bearer match, so the OpenAI key after it is found
    on its own, with its prefix kept.  Without the configured patterns the fix found no such match and
    kept nothing."""
    client = configured_client
    client.set_configuration({"secretPatterns": ["Use B"]}, section="rolloutLsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    key = "sk-proj-" + "Ab12" * 8
    text = (
        json.dumps(
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": f"Use Bearer {key}"}],
                },
            }
        )
        + "\n"
    )
    uri, _ = await opened(client, "rollout-bearer.jsonl", text)
    diagnostics = await diagnostics_until(client, uri, lambda found: len(found) == 2)
    assert [covered(text, d.range) for d in diagnostics] == ["Use B", key]
    assert diagnostics[1].data == {"fix": "redact", "keep": 3, "version": 1}
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            diagnostics[1].range,
            types.CodeActionContext(diagnostics=diagnostics[1:]),
        )
    )
    fixes = {e.new_text for a in actions for e in a.edit.document_changes[0].edits}
    assert "sk-xxxx-" + "xxxx" * 8 in fixes


async def test_a_fix_names_the_version_it_was_computed_for(client: LanguageClient):
    """A same-length redaction applied to a newer text would overwrite other characters: the edit names
    its version, and a client refuses it once the document has changed."""
    text = fixture("rollout-secrets.jsonl")
    uri, diagnostics = await opened(client, "rollout-secrets.jsonl")
    line = split_lines(text)[1]
    change(client, uri, 2, (1, 0), (1, 0), " ")
    await diagnostics_of(client, uri)
    rng = types.Range(types.Position(1, 0), types.Position(1, len(line) + 1))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rng, types.CodeActionContext(diagnostics=[]))
    )
    assert {a.edit.document_changes[0].text_document.version for a in actions} == {2}
    edit = actions[0].edit.document_changes[0].edits[0]
    assert edit.range.start.character == diagnostics[0].range.start.character + 1


async def test_add_output_record_fix(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, diagnostics = await opened(client, "rollout-demo.jsonl")
    unpaired = diagnostics[0]
    assert unpaired.code == "unpaired-call" and unpaired.data == {
        "fix": "add-output",
        "callId": "call_demo3",
        "version": 1,
    }
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), unpaired.range, types.CodeActionContext(diagnostics=[unpaired])
        )
    )
    assert [a.title for a in actions] == ["Add output record for call_demo3 (line 9)"]
    fixed = apply_edit(text, actions[0].edit, uri, 1)
    lines = split_lines(fixed)
    assert lines[:9] == split_lines(text)[:9] and lines[10:] == split_lines(text)[9:]
    assert json.loads(lines[9]) == {
        "timestamp": "2026-07-20T10:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call_output",
            "call_id": "call_demo3",
            "output": [{"type": "input_text", "text": "Script completed\nWall time 0.0 seconds\nOutput:\n"}],
        },
    }
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert [d.code for d in await diagnostics_of(client, uri)] == ["expanded-command", "dead-branch"]


async def test_wrap_patch_fix(client: LanguageClient):
    text = fixture("rollout-patches.jsonl")
    uri, diagnostics = await opened(client, "rollout-patches.jsonl")
    envelope = [d for d in diagnostics if "envelope" in d.message][0]
    assert envelope.data == {"fix": "wrap-patch", "version": 1}
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), envelope.range, types.CodeActionContext(diagnostics=[envelope])
        )
    )
    wrap = [a for a in actions if a.title == "Wrap patch in *** Begin Patch … *** End Patch (line 4)"][0]
    fixed = split_lines(apply_edit(text, wrap.edit, uri, 1))[3]
    script = json.loads(fixed)["payload"]["input"]
    assert 'tools.apply_patch("*** Begin Patch\\nno patch here\\n*** End Patch")' in script
    assert [c.call.patch for c in analyze_text(fixed).calls][-1] == "*** Begin Patch\nno patch here\n*** End Patch"


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
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    calls = [c.name for s in symbols[0].children[0].children for c in s.children]
    assert calls == ["exec_command: echo edited", "exec_command: echo '\\u00e9'", "exec_command: echo escaped"]
    script = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.decodedScript", [uri, 3])
    )
    assert script["script"] == 'text("é\u2028ü"); await tools.exec_command({cmd: "echo \'\\\\u00e9\'"});\n'


@pytest_lsp.fixture(config=SERVER)
async def configured_client(lsp_client: LanguageClient):
    lsp_client.set_configuration({"severity": {"expanded-command": "error"}}, section="rolloutLsp")
    await start(lsp_client, options={"severity": {"unpaired-call": "off"}, "hoverOutputLines": 1})
    yield
    await lsp_client.shutdown_session()


async def diagnostics_until(client: LanguageClient, uri: str, wanted, timeout: float = 15) -> list[types.Diagnostic]:
    """Diagnostics of ``uri`` once ``wanted(diagnostics)`` holds (settings reach the server asynchronously)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = list(client.diagnostics.get(uri, []))
        if wanted(found):
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"diagnostics of {uri} never matched: {[(d.code, d.severity) for d in found]}")
        await asyncio.sleep(0.02)


def codes(diagnostics) -> list[tuple]:
    return [(d.range.start.line, d.code, d.severity) for d in diagnostics]


DEFAULTS = [
    (8, "unpaired-call", types.DiagnosticSeverity.Hint),
    (8, "expanded-command", types.DiagnosticSeverity.Information),
    (8, "dead-branch", types.DiagnosticSeverity.Warning),
]


async def test_configuration_set_and_removed_without_a_restart(configured_client: LanguageClient):
    """The client's configuration (workspace/configuration) goes over the initialization options: a
    setting it no longer has goes back to the options' value or the default, at once."""
    client = configured_client
    uri, diagnostics = await opened(client, "rollout-demo.jsonl")
    assert codes(diagnostics) == [
        (8, "expanded-command", types.DiagnosticSeverity.Error),
        (8, "dead-branch", types.DiagnosticSeverity.Warning),
    ]
    client.set_configuration(
        {
            "severity": {"dead-branch": "information", "unpaired-call": "off"},
            "secretPatterns": ["pytest -q"],
            "hoverOutputLines": 1,
        },
        section="rolloutLsp",
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    expected = [
        (4, "secret", types.DiagnosticSeverity.Warning),
        (6, "secret", types.DiagnosticSeverity.Warning),
        (8, "expanded-command", types.DiagnosticSeverity.Information),
        (8, "dead-branch", types.DiagnosticSeverity.Information),
    ]
    await diagnostics_until(client, uri, lambda found: codes(found) == expected)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri),
            types.Position(4, position_of(split_lines(fixture("rollout-demo.jsonl"))[4], "exec_command")),
        )
    )
    assert hover.contents.value.endswith("```\nF\n… (2 more lines)\n```")
    client.set_configuration({}, section="rolloutLsp")  # every setting removed: the options' again
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await diagnostics_until(client, uri, lambda found: codes(found) == DEFAULTS[1:])
    client.set_configuration({"severity": {"nonsense-code": "off"}, "hoverOutputLines": "many"}, section="rolloutLsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    deadline = asyncio.get_running_loop().time() + 15
    while not any("setting 'hoverOutputLines' ignored" in m.message for m in client.log_messages):
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.02)
    assert any("setting 'severity' ignored for 'nonsense-code'" in m.message for m in client.log_messages)


@pytest_lsp.fixture(config=SERVER)
async def settings_push_client(lsp_client: LanguageClient):
    capabilities = push_capabilities()
    capabilities.workspace.configuration = False
    await start(lsp_client, capabilities, options={"severity": {"unpaired-call": "off"}})
    yield
    await lsp_client.shutdown_session()


async def test_settings_from_a_client_without_workspace_configuration(settings_push_client: LanguageClient):
    """A client that cannot answer workspace/configuration sends its settings with each change."""
    client = settings_push_client
    uri, diagnostics = await opened(client, "rollout-demo.jsonl")
    assert codes(diagnostics) == DEFAULTS[1:]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"rolloutLsp": {"severity": {"dead-branch": "error"}}})
    )
    await diagnostics_until(
        client, uri, lambda found: codes(found) == DEFAULTS[1:2] + [(8, "dead-branch", types.DiagnosticSeverity.Error)]
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"rolloutLsp": {}}))
    await diagnostics_until(client, uri, lambda found: codes(found) == DEFAULTS[1:])


async def test_cancellation_and_rapid_edits(client: LanguageClient):
    text = fixture("rollout-demo.jsonl")
    uri, _ = await opened(client, "rollout-demo.jsonl")
    line = split_lines(text)[4]
    col = position_of(line, "pytest -q tests")
    for version in range(2, 52):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(4, col), types.Position(4, col + 1)),
                        text="P" if version % 2 else "p",
                    )
                ],
            )
        )
    pending = {}
    for index in range(20):  # a storm of hovers, every other one cancelled as an editor does
        msg_id = f"hover-{index}"
        pending[msg_id] = client.protocol.send_request(
            types.TEXT_DOCUMENT_HOVER,
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, col)),
            msg_id=msg_id,
        )
        if index % 2 == 0:
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    answered = await asyncio.gather(
        *(asyncio.wrap_future(pending[f"hover-{i}"]) for i in range(1, 20, 2)), return_exceptions=True
    )
    cancelled = await asyncio.gather(
        *(asyncio.wrap_future(pending[f"hover-{i}"]) for i in range(0, 20, 2)), return_exceptions=True
    )
    assert all(isinstance(c, (types.Hover, Exception)) for c in cancelled)
    assert all(isinstance(a, types.Hover) for a in answered)
    final = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, col))
    )
    assert "```sh\nPytest -q tests/test_greet.py\n```" in final.contents.value
    client.diagnostics.pop(uri, None)
    change(client, uri, 52, (4, col), (4, col + 1), "p")
    assert [d.code for d in await diagnostics_of(client, uri)] == ["unpaired-call", "expanded-command", "dead-branch"]


async def test_other_jsonl_stays_quiet(client: LanguageClient):
    uri, diagnostics = await opened(client, "not-a-rollout.jsonl")
    assert diagnostics == []
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
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
    far = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(999, 999))
    )
    assert far is None
    assert (
        await client.workspace_execute_command_async(types.ExecuteCommandParams("rollout-lsp.decodedScript", [uri, 2]))
        is None
    )


async def test_commands(client: LanguageClient):
    uri, _ = await opened(client, "rollout-demo.jsonl")
    script = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.decodedScript", [uri, 4])
    )
    assert script == {
        "script": 'const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py", '
        'workdir: "/home/u/proj"});\ntext(r);\n',
        "language": "javascript",
        "call_id": "call_demo1",
        "line": 4,
    }
    line = split_lines(fixture("rollout-demo.jsonl"))[6]
    command = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.callCommand", [uri, 6, position_of(line, "tools.exec_command")])
    )
    assert (command["command"], command["workdir"], command["computed"]) == ("pytest -q", "/home/u/proj", False)


async def test_analyze_file_by_path(client: LanguageClient, tmp_path):
    """A file under the workspace folder (the clone) is read; one elsewhere only when its name is a rollout's."""
    result = await client.protocol.send_request_async(
        "rollout/analyzeFile", {"path": str(ROOT / "fixtures" / "rollout-demo.jsonl")}
    )
    assert [c.command for c in result.calls] == [
        "pytest -q tests/test_greet.py",
        None,
        "pytest -q",
        None,
        "git push --force",
    ]
    assert [d.code for d in result.diagnostics] == ["unpaired-call", "expanded-command", "dead-branch"]
    assert [(t.line, t.end_line, t.title) for t in result.turns] == [(2, 9, "Fix the failing greeting test")]
    assert result.error is None
    missing = await client.protocol.send_request_async(
        "rollout/analyzeFile", {"path": str(tmp_path / "rollout-x.jsonl")}
    )
    assert missing.error.endswith("No such file or directory") and missing.calls == []


async def test_analyze_file_refuses_other_paths(client: LanguageClient, tmp_path):
    secret = tmp_path / "notes.jsonl"
    secret.write_text(fixture("rollout-demo.jsonl"), encoding="utf-8")
    link = tmp_path / "rollout-link.txt"
    link.symlink_to("/etc/passwd")
    # As many ".." as the checkout is deep, so the path climbs to the root wherever the clone lives.
    climbing = Path(ROOT, *[".."] * (len(ROOT.parts) - 1), "etc", "passwd")
    for path in (str(secret), "/etc/passwd", str(climbing), str(link)):
        try:
            await client.protocol.send_request_async("rollout/analyzeFile", {"path": path})
        except JsonRpcException as error:
            assert error.code == -32602
            if Path(path).resolve() == Path("/etc/passwd"):
                assert error.message == "refused to read /etc/passwd: nothing under the system folder /etc is read"
                continue
            assert error.message.startswith(
                f"refused to read {Path(path).resolve()}: a path is read only when it is "
                f"under a workspace folder ({ROOT}), under a Codex sessions folder ("
            )
            assert error.message.endswith(
                "matches the rollout file patterns (setting rolloutLsp.files); a workspace "
                "folder that is the filesystem root or the whole home folder counts for nothing"
            )
        else:
            raise AssertionError(f"{path} was read")
    named = tmp_path / "rollout-2026-07-20T10-00-00-demo.jsonl"
    named.write_text(fixture("rollout-demo.jsonl"), encoding="utf-8")
    result = await client.protocol.send_request_async("rollout/analyzeFile", {"path": str(named)})
    assert len(result.calls) == 5


async def test_secrets_are_masked_wherever_the_server_shows_text(client: LanguageClient):
    """Outline and breadcrumbs, hovers, folded turns, workspace symbols, decoded scripts and diagnostics show
    the secret masked; only the document itself holds it."""
    text = fixture("rollout-secrets.jsonl")
    key = "sk-proj-FAKEfake0123456789FAKEfake0123456789"
    masked = "sk-xxxx-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    assert key in text
    uri, diagnostics = await opened(client, "rollout-secrets.jsonl")
    doc = types.TextDocumentIdentifier(uri)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    names = []

    def walk(symbol):
        names.append(symbol.name)
        for child in symbol.children or []:
            walk(child)

    for symbol in symbols:
        walk(symbol)
    assert f"exec_command: OPENAI_API_KEY={masked} python run.py" in names
    assert any(
        name.startswith('turn 1 (line 4): Use header "Authorization: Bearer xxxxxxxxxxxxxxxxxxxxx"') for name in names
    )
    line = split_lines(text)[1]
    hover = await client.text_document_hover_async(
        types.HoverParams(doc, types.Position(1, position_of(line, "tools.")))
    )
    assert f"OPENAI_API_KEY={masked} python run.py" in hover.contents.value
    record = await client.text_document_hover_async(types.HoverParams(doc, types.Position(1, 2)))
    assert masked in record.contents.value
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="python run"))
    assert [s.name for s in found] == [f"exec_command: OPENAI_API_KEY={masked} python run.py"]
    script = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.showDecodedScript", [uri, 1])
    )
    assert masked in script["script"] and masked in Path(from_uri(script["file"])).read_text(encoding="utf-8")
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(doc))
    shown = [
        hover.contents.value,
        record.contents.value,
        script["script"],
        *names,
        *(s.name for s in found),
        *(f.collapsed_text or "" for f in folds),
        *(d.message for d in diagnostics),
    ]
    for secret in (key, "FAKEtokenFAKEtoken123", "FAKEsigningKEY123", "MIIEFAKEFAKEFAKE"):
        assert not [s for s in shown if secret in s], secret


def test_every_method_is_a_documented_feature_method():
    """Each LSP method and command is a documented method of a feature class listed in server.FEATURES."""
    from lsp_server.server import FEATURES, create_server

    server = create_server()
    manager = server.protocol.fm
    handlers = {**manager.features, **manager.commands}
    assert sorted(manager.commands) == [
        "rollout-lsp.blameLine",
        "rollout-lsp.blameSessions",
        "rollout-lsp.callCommand",
        "rollout-lsp.decodedScript",
        "rollout-lsp.export",
        "rollout-lsp.linkInvocationLog",
        "rollout-lsp.nextFailure",
        "rollout-lsp.openChangedFile",
        "rollout-lsp.previousFailure",
        "rollout-lsp.scriptCompletion",
        "rollout-lsp.scriptSource",
        "rollout-lsp.sessions",
        "rollout-lsp.showDecodedScript",
        "rollout-lsp.showInfo",
        "rollout-lsp.writeScript",
    ]
    assert {"initialize", "textDocument/hover", "textDocument/codeAction", "rollout/analyzeFile"} <= set(handlers)
    assert all(handler.__doc__ for handler in handlers.values()), [n for n, h in handlers.items() if not h.__doc__]
    assert set(server.features) == set(FEATURES)
