"""Hovers that never contradict themselves, the result of a failed script on its record's hover, and names
shown safe, through a real LSP client (pytest-lsp): one client declaring plain text only, one Markdown.

The rollout: a script whose one command failed and threw its result (``Script error: Exit code: 2``, as
Codex writes it on Windows), and a script whose command and turn request hold a right-to-left override and
an escape character."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from fixtures.build import exec_call, exec_output, meta, result, turn, user
from tests.helpers import ROOT
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, push_capabilities, start

URI = (ROOT / "fixtures" / "rollout-2026-12-01T10-00-00-hover-truth.jsonl").as_uri()
THROWN = "Script error:\nExit code: 2\nWall time: 0.1 seconds\nOutput:\nls: cannot access 'missing'\n"
TEXT = (
    "\n".join(
        [
            meta(),
            turn(),
            user("List the \u202etxt.exe folder"),
            exec_call("call_ls", 'text(await tools.exec_command({cmd: "ls missing"}));\n'),
            exec_output("call_ls", THROWN, status="failed"),
            exec_call("call_rlo", 'text(await tools.exec_command({cmd: "echo \\u202eevil\\u001b[2J"}));\n'),
            exec_output("call_rlo", result(0, "evil\n")),
        ]
    )
    + "\n"
)
LINES = split_lines(TEXT)
SHOWN = "Script error: Exit code: 2\nWall time: 0.1 seconds\nOutput:\nls: cannot access 'missing'"  # as read


def capabilities(*formats: types.MarkupKind) -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.hover = types.HoverClientCapabilities(content_format=list(formats))
    return caps


@pytest_lsp.fixture(config=SERVER)
async def raw_client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, line: int, column: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(URI), types.Position(line, column))
    )
    return found.contents.value


async def opened(client: LanguageClient, *formats: types.MarkupKind) -> None:
    await start(client, capabilities(*formats))
    open_text(client, URI, TEXT)
    await diagnostics_of(client, URI)


CALL_MARKDOWN = (
    "**exec\\_command** · command · executed: yes \\(it exited with code 2\\)\n\n```sh\nls missing\n```\n\n"
    "**output** (line 5): exit 2 · 0.4 s\n\n```\n" + SHOWN + "\n```"
)
RECORD_MARKDOWN = (
    "**exec** call\\_ls · 1 command · failed\n\n"
    '```javascript\ntext(await tools.exec_command({cmd: "ls missing"}));\n```\n\n'
    "**output** (line 5): failed at its call · exit 2 · 0.4 s\n\n```\n" + SHOWN + "\n```"
)


async def test_a_markdown_client(raw_client: LanguageClient):
    await opened(raw_client, types.MarkupKind.Markdown)
    # the call that exited 2 ran: the head says so, as its output does
    assert await hover(raw_client, 3, position_of(LINES[3], "tools.exec_command")) == CALL_MARKDOWN
    # the record at column 1: the script, then its result as a call's hover shows it
    assert await hover(raw_client, 3, 0) == RECORD_MARKDOWN


async def test_a_plain_text_client(raw_client: LanguageClient):
    await opened(raw_client, types.MarkupKind.PlainText)
    indented = "\n".join("    " + line for line in SHOWN.split("\n"))
    assert await hover(raw_client, 3, position_of(LINES[3], "tools.exec_command")) == (
        "exec_command · command · executed: yes (it exited with code 2)\n\n    ls missing\n\n"
        f"output (line 5): exit 2 · 0.4 s\n\n{indented}"
    )
    assert await hover(raw_client, 3, 0) == (
        "exec call_ls · 1 command · failed\n\n"
        '    text(await tools.exec_command({cmd: "ls missing"}));\n\n'
        f"output (line 5): failed at its call · exit 2 · 0.4 s\n\n{indented}"
    )


async def test_outline_names_workspace_symbols_and_lenses_are_safe(raw_client: LanguageClient):
    await opened(raw_client, types.MarkupKind.Markdown)
    [root] = await raw_client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(URI))
    )
    [turn_row] = [s for s in root.children if s.kind == types.SymbolKind.Namespace]
    assert turn_row.name == "turn 1 (line 3): List the \\u202etxt.exe folder"
    assert [(r.name, r.detail) for r in turn_row.children] == [
        ("[failed at its call] exec · ls missing", "1 command · 0.4 s"),
        ("exec · echo \\u202eevil\\x1b[2J", "1 command · 0.4 s"),
    ]
    [failed_call] = turn_row.children[0].children
    assert (failed_call.name, failed_call.detail, failed_call.tags) == (
        "[exit 2] exec_command: ls missing",
        "exit 2",
        None,
    )
    [echo] = turn_row.children[1].children
    assert (echo.name, echo.detail) == ("exec_command: echo \\u202eevil\\x1b[2J", "ran")
    found = await raw_client.workspace_symbol_async(types.WorkspaceSymbolParams(query="evil"))
    assert [(s.name, s.location.range.start.line) for s in found] == [("exec_command: echo \\u202eevil\\x1b[2J", 5)]
    lenses = await raw_client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(URI)))
    titles = [(lens.range.start.line, lens.command.title) for lens in lenses if lens.command]
    assert (3, "1 command · failed · exit 2 · 0.4 s") in titles  # the thrown exit code, as the hover says
    assert (0, "1 failed call · first: line 4, exit 2") in titles
    folds = await raw_client.text_document_folding_range_async(
        types.FoldingRangeParams(types.TextDocumentIdentifier(URI))
    )
    assert [(f.start_line, f.end_line, f.collapsed_text) for f in folds] == [(2, 6, "List the \\u202etxt.exe folder")]
