"""One truth per call: a failed call is counted once (its command, not also the exec record it failed), in
the session's lens and in Next Failed Call; durations read in one format."""

from __future__ import annotations

import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis import analyze_text
from analysis.jsonl.lines import split_lines
from analysis.session.labels import call_outcome, failures, record_outcome, seconds
from tests.helpers import ROOT, fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start


def both_failed_rollout() -> str:
    """The demo's session and turn, then an exec whose command exits 1 and whose script then throws."""
    head = split_lines(fixture("rollout-demo.jsonl"))[:4]
    call = {
        "timestamp": "2026-07-20T10:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "call_x",
            "name": "exec",
            "namespace": "functions",
            "input": 'const r = await tools.exec_command({cmd: "false"});\nthrow new Error("stop");\n',
        },
    }
    result = {"chunk_id": "a", "wall_time_seconds": 0.05, "exit_code": 1, "original_token_count": 1, "output": ""}
    texts = [
        "Script completed\nWall time 0.1962 seconds\nOutput:\n",
        json.dumps(result),
        "Script error:\nUncaught Error: stop",
    ]
    output = {
        "timestamp": "2026-07-20T10:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call_output",
            "call_id": "call_x",
            "output": [{"type": "input_text", "text": t} for t in texts],
        },
    }
    return "\n".join([*head, json.dumps(call), json.dumps(output)]) + "\n"


def test_a_failed_command_in_a_failed_exec_counts_once():
    analysis = analyze_text(both_failed_rollout())
    [located] = analysis.calls_on(4)
    assert record_outcome(analysis, 4).text == "failed at its call"  # the exec record failed...
    assert call_outcome(analysis, located).text == "exit 1"  # ...at its command
    assert failures(analysis) == [(4, "exit 1")]


def test_durations_in_one_format():
    assert [seconds(v) for v in (0.1962, 0.2, 31.5, 20.0, 0.0007, 10.002)] == [
        "0.2 s",
        "0.2 s",
        "31.5 s",
        "20 s",
        "0 s",
        "10 s",
    ]


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_the_lens_and_the_outline_count_it_once(client: LanguageClient):
    uri = (ROOT / "fixtures" / "rollout-both-failed.jsonl").as_uri()  # never written: the client sends the text
    open_text(client, uri, both_failed_rollout())
    await diagnostics_of(client, uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses if lens.command and "failed call" in lens.command.title]
    assert titles == ["1 failed call · first: line 5, exit 1"]
    [session] = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    [turn] = session.children
    [record] = turn.children
    assert (session.detail, record.name, record.detail) == (
        "1 failed (first: line 5, exit 1)",
        "[failed at its call] exec · false",
        "1 command · 0.2 s",
    )
    assert [c.name for c in record.children] == ["[exit 1] exec_command: false"]
