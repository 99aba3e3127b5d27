"""Next and Previous Failed Call over a real LSP connection: one stop per failed call the session's lens counts
(two failed calls of one exec script are two stops, at their own columns), going round with a message."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis import analyze_text
from analysis.jsonl.positions import PositionEncoding
from analysis.session.labels import failures
from lsp_server.features.lenses import failure_stops, stop_from
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of

# rollout-events.jsonl with the script's second patch failed too: the script on line 12 (index 11) has two
# failed calls, its command (exit 2) and that patch; the patch on line 9 failed on its own
EVENTS = fixture("rollout-events.jsonl")
TWO_IN_ONE = EVENTS.replace(
    '"call_id":"exec-0003","turn_id":"turn-1","success":true',
    '"call_id":"exec-0003","turn_id":"turn-1","success":false',
)
NEXT, PREVIOUS = "rollout-lsp.nextFailure", "rollout-lsp.previousFailure"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


def test_the_stops_are_the_failed_calls_the_lens_counts():
    analysis = analyze_text(TWO_IN_ONE)
    assert failures(analysis) == [(8, "failed"), (11, "exit 2"), (11, "failed")]
    stops = failure_stops(analysis, PositionEncoding.UTF16)
    assert stops == [((8, 0), "failed"), ((11, 310), "exit 2"), ((11, 464), "failed")]
    line = TWO_IN_ONE.split("\n")[11]
    assert line[310:].startswith("tools.exec_command(") and line[464:].startswith("tools.apply_patch(")
    # forward from before the first, from a stop, between the two of one line, and past the last
    assert [stop_from(stops, at, forward=True) for at in [(-1, 0), (8, 0), (11, 310), (11, 400), (11, 464)]] == [
        (0, False),
        (1, False),
        (2, False),
        (2, False),
        (0, True),
    ]
    assert [stop_from(stops, at, forward=False) for at in [(99, 0), (11, 464), (11, 310), (8, 0)]] == [
        (2, False),
        (1, False),
        (0, False),
        (2, True),
    ]
    assert stop_from([], (0, 0), forward=True) is None


async def test_next_and_previous_visit_every_counted_failure_once_and_say_when_they_wrap(client: LanguageClient):
    uri = uri_of("rollout-two-failed.jsonl")
    open_text(client, uri, TWO_IN_ONE)
    await diagnostics_of(client, uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    [session] = [lens for lens in lenses if lens.command.command == NEXT]
    assert (session.command.title, list(session.command.arguments)) == (
        "3 failed calls · first: line 9, failed",
        [uri, -1],
    )

    async def run(command: str, *arguments: int) -> dict | None:
        return await client.workspace_execute_command_async(types.ExecuteCommandParams(command, [uri, *arguments]))

    first = await run(NEXT, -1)  # the lens's own arguments
    assert first == {"line": 8, "character": 0, "outcome": "failed", "index": 1, "count": 3, "wrapped": False}
    visited = [(first["line"], first["character"])]
    at = visited[0]
    for _ in range(3):  # from each stop to the next, the cursor where the editor put it
        found = await run(NEXT, *at)
        assert found is not None
        at = (found["line"], found["character"])
        visited.append(at)
    assert visited == [(8, 0), (11, 310), (11, 464), (8, 0)]  # three stops, then round to the first
    assert [(p.selection.start.line, p.selection.start.character) for p in client.shown_documents] == visited
    assert [(m.type, m.message) for m in client.messages] == [
        (types.MessageType.Info, "Rollout: past the last failed call, back to the first (1 of 3).")
    ]
    back = [await run(PREVIOUS, 8, 0), await run(PREVIOUS, 11, 464), await run(PREVIOUS, 11, 310)]
    assert [(b["line"], b["character"], b["index"], b["wrapped"]) for b in back if b] == [
        (11, 464, 3, True),
        (11, 310, 2, False),
        (8, 0, 1, False),
    ]
    assert client.messages[-1].message == "Rollout: before the first failed call, back to the last (3 of 3)."
    # an editor that sends only the line: Next goes past every stop of it, Previous before them
    assert (await run(NEXT, 11))["line"] == 8
    assert (await run(PREVIOUS, 11))["line"] == 8


async def test_no_failed_call_answers_none_and_bad_arguments_are_refused(client: LanguageClient):
    uri = uri_of("rollout-call-forms.jsonl")
    open_text(client, uri, fixture("rollout-call-forms.jsonl"))
    await diagnostics_of(client, uri)
    assert failures(analyze_text(fixture("rollout-call-forms.jsonl"))) == []
    for command in (NEXT, PREVIOUS):
        assert await client.workspace_execute_command_async(types.ExecuteCommandParams(command, [uri, 0, 0])) is None
    try:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(PREVIOUS, [uri, "one"]))
    except Exception as error:  # the server's JSON-RPC error
        assert "rollout-lsp.previousFailure: expected [document URI, line, character?]" in str(error)
    else:
        raise AssertionError("the server took a line that is not a number")
