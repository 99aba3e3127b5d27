"""The hover says how a call ended and how it is known to have run (through a real LSP client)."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, start, uri_of


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, name: str, line: int, column: int) -> str:
    uri = uri_of(name)
    open_text(client, uri, fixture(name))
    await diagnostics_of(client, uri)
    result = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column))
    )
    return result.contents.value


async def test_a_yielded_cell_says_it_completed_after_its_waits(client: LanguageClient):
    lines = split_lines(fixture("rollout-records.jsonl"))
    value = await hover(client, "rollout-records.jsonl", 43, position_of(lines[43], "tools.exec_command"))
    uri = uri_of("rollout-records.jsonl")
    assert (
        f"**output** in 3 chunks ([line 45]({uri}#L45), [line 47]({uri}#L47), [line 49]({uri}#L49)): "
        "completed · exit 0 · 31.5 s · after 2 waits" in value
    )
    assert value.endswith(f"chunk 3 ([line 49]({uri}#L49), wait):\n\n```\n[exit 0]\nbuilt\n```")
    record = await hover(client, "rollout-records.jsonl", 43, 5)
    assert record.startswith("**exec** call\\_cell · 1 command · completed after 2 waits\n\n")
    wait = await hover(client, "rollout-records.jsonl", 45, 5)  # a wait shows its own output and its arguments
    assert wait.startswith("**wait** · tool · executed: yes")
    assert '"cell_id": "8"' in wait and "**output** (line 47): running · 20 s" in wait


async def test_a_process_carried_on_by_write_stdin_shows_every_chunk(client: LanguageClient):
    uri = uri_of("rollout-records.jsonl")
    value = await hover(client, "rollout-records.jsonl", 8, 10)
    assert value.endswith(
        f"**output** in 3 chunks ([line 10]({uri}#L10), [line 12]({uri}#L12), [line 14]({uri}#L14)): "
        "interrupted \\(exit 130\\) · 6.2 s · after 2 write\\_stdin calls\n\n"
        f"chunk 1 ([line 10]({uri}#L10)): no output\n\n"
        f"chunk 2 ([line 12]({uri}#L12), write\\_stdin):\n\n```\n..\n```\n\n"
        f"chunk 3 ([line 14]({uri}#L14), write\\_stdin):\n\n```\n^C\n```"
    )


async def test_a_call_an_event_reports_says_so(client: LanguageClient):
    lines = split_lines(fixture("rollout-events.jsonl"))
    value = await hover(client, "rollout-events.jsonl", 11, position_of(lines[11], "tools.exec_command"))
    assert value.startswith(
        "**exec\\_command** · command · executed: yes\\: exec\\_command\\_end on line 14 reports it"
    )
    assert "**exec\\_command\\_end** (line 14): exit 2 · 3 s" in value


async def test_the_outline_says_how_records_ended(client: LanguageClient):
    uri = uri_of("rollout-records.jsonl")
    open_text(client, uri, fixture("rollout-records.jsonl"))
    await diagnostics_of(client, uri)
    [session] = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    turns = [(t.name, [(r.name, r.detail) for r in t.children]) for t in session.children]
    assert [name for name, _ in turns] == [
        "turn 1 (line 2): List the files and run the tests",
        "turn 2 (line 39): Now wait for the slow build",
    ]  # both patches are turn 2's: its list, and no session list repeating it
    assert turns[1][1] == [
        ("exec · make build", "1 command · 31.5 s · after 2 waits"),
        ("wait: cell 8", "call_w1 · running · 20 s · continues line 44"),
        ("wait: cell 8", "call_w2 · 1.5 s · continues line 44"),
        ("[failed at its call] exec · true", "1 command · 0.1 s"),
        ("[failed] apply_patch: update a.py", "call_p1"),
        ("[exit 1] apply_patch: delete gone.py", "call_p2 · 0 s"),
        ("files changed (2)", None),
    ]
    assert ("write_stdin: session 94014", "call_ws1 · running · 5 s · continues line 9") in turns[0][1]
    assert ("[interrupted (exit 130)] exec_command: npm test", "call_ec · 6.2 s · after 2 write_stdin calls") in turns[
        0
    ][1]
    assert ("[exit 2] container.exec: ls -la 'my dir'", "call_ce · 0.1 s") in turns[0][1]
    assert session.detail == "5 failed (first: line 9, interrupted (exit 130))"
    assert session.children[0].detail == "2 failed (first: line 9, interrupted (exit 130))"
