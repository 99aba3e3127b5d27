"""What clients other than VS Code get: a lens that answers without window/showDocument, informational lenses
with a command, and UTF-8 columns for a client (Vim's ALE) that sends byte columns without negotiating them."""

from __future__ import annotations

import asyncio
import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from fixtures import build
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, push_capabilities, start, uri_of


def bare_capabilities() -> types.ClientCapabilities:
    """A client like Neovim 0.7 or eglot 1.9: no window/showDocument, no positionEncodings."""
    caps = push_capabilities()
    caps.window = types.WindowClientCapabilities()
    caps.general = None
    return caps


@pytest_lsp.fixture(config=SERVER)
async def bare_client(lsp_client: LanguageClient):
    await start(lsp_client, bare_capabilities())
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def refusing_client(lsp_client: LanguageClient):
    """Has window/showDocument and window/showMessageRequest; refuses to show a document inside the editor and
    picks "Open" when asked."""
    lsp_client.requests = []

    def show_document(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        lsp_client.shown_documents.append(params)
        return types.ShowDocumentResult(success=bool(params.external))

    def message_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        lsp_client.requests.append(params)
        return params.actions[0]

    lsp_client.protocol.fm.features[types.WINDOW_SHOW_DOCUMENT] = show_document
    lsp_client.protocol.fm.features[types.WINDOW_SHOW_MESSAGE_REQUEST] = message_request
    caps = push_capabilities()
    caps.window.show_message = types.ShowMessageRequestClientCapabilities(
        message_action_item=types.ClientShowMessageActionItemOptions(additional_properties_support=False)
    )
    await start(lsp_client, caps)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def ale_client(lsp_client: LanguageClient):
    """Vim's ALE: byte columns, no positionEncodings offered, and the server option that makes them UTF-8."""
    await start(lsp_client, bare_capabilities(), options={"positionEncoding": "utf-8"})
    yield
    await lsp_client.shutdown_session()


async def wait_for(condition, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def lenses_of(client: LanguageClient, name: str) -> tuple[str, list[types.CodeLens]]:
    uri = uri_of(name)
    open_text(client, uri, fixture(name))
    await diagnostics_of(client, uri)
    return uri, await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))


async def test_a_lens_in_a_client_without_show_document_says_where_the_script_is(bare_client: LanguageClient):
    _, lenses = await lenses_of(bare_client, "rollout-demo.jsonl")
    result = await bare_client.workspace_execute_command_async(
        types.ExecuteCommandParams(lenses[0].command.command, lenses[0].command.arguments)
    )
    path = result["file"].removeprefix("file://")
    assert result["shown"] is False and path.endswith(".js")
    await wait_for(lambda: bare_client.messages)
    assert [(m.type, m.message) for m in bare_client.messages] == [
        (types.MessageType.Info, f"The decoded script of line 5 is in {path}")
    ]


async def test_a_refused_document_is_offered_to_open_outside(refusing_client: LanguageClient):
    client = refusing_client
    _, lenses = await lenses_of(client, "rollout-demo.jsonl")
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lenses[0].command.command, lenses[0].command.arguments)
    )
    path = result["file"].removeprefix("file://")
    assert result["shown"] is False
    await wait_for(lambda: len(client.shown_documents) == 2)
    assert [(r.message, [a.title for a in r.actions]) for r in client.requests] == [
        (f"The decoded script of line 5 is in {path}", ["Open"])
    ]
    assert [(d.uri, bool(d.take_focus), bool(d.external)) for d in client.shown_documents] == [
        (result["file"], True, False),
        (result["file"], False, True),
    ]
    assert client.messages == []


async def test_no_lens_has_an_empty_command(bare_client: LanguageClient):
    """A session's totals and its inherited history are informational lenses: their command shows their text."""
    _, lenses = await lenses_of(bare_client, build.SESSIONS + f"rollout-2026-07-20T10-00-10-{build.CHILD_ID}.jsonl")
    assert all(lens.command and lens.command.command for lens in lenses)
    info = [lens for lens in lenses if lens.command.command == "rollout-lsp.showInfo"]
    assert [(lens.range.start.line, list(lens.command.arguments)) for lens in info] == [
        (0, [info[0].command.title]),
        (1, [f"inherited from session {build.PARENT_ID} · lines 2–7"]),
        (0, [info[2].command.title]),  # the session's cost (docs/cost.md)
    ]
    assert info[2].command.title.startswith("cost: $")
    session = info[0]
    await bare_client.workspace_execute_command_async(
        types.ExecuteCommandParams(session.command.command, session.command.arguments)
    )
    await wait_for(lambda: bare_client.messages)
    assert [m.message for m in bare_client.messages] == [session.command.title]


def korean_rollout() -> str:
    key = "sk-proj-" + "Ab12" * 8
    script = '// 테스트를 실행합니다\nawait tools.exec_command({cmd: "pytest -q"});'
    records = [
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"한국어 설명과 키 {key}"}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "c1",
                "name": "exec",
                "input": script,
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call_output",
                "call_id": "c1",
                "output": [{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"}],
            },
        },
    ]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def byte_column(line: str, text: str) -> int:
    return len(line[: line.index(text)].encode("utf-8"))


async def test_utf8_columns_for_a_client_that_sends_bytes(ale_client: LanguageClient):
    text = korean_rollout()
    lines = text.split("\n")
    uri = uri_of("rollout-korean.jsonl")
    open_text(ale_client, uri, text)
    [secret] = [d for d in await diagnostics_of(ale_client, uri) if d.code == "secret"]
    start = byte_column(lines[0], "sk-proj-")
    assert (secret.range.start.line, secret.range.start.character, secret.range.end.character) == (
        0,
        start,
        start + len("sk-proj-" + "Ab12" * 8),
    )
    assert start != lines[0].index("sk-proj-")  # the line has Korean before it: bytes and UTF-16 differ
    column = byte_column(lines[1], "tools.exec_command") + 2
    hover = await ale_client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, column))
    )
    assert "```sh\npytest -q\n```" in hover.contents.value


@pytest_lsp.fixture(config=SERVER)
async def negotiating_client(lsp_client: LanguageClient):
    await start(lsp_client, push_capabilities(), options={"positionEncoding": "utf-8"})
    yield
    await lsp_client.shutdown_session()


async def test_a_client_that_negotiates_keeps_its_encoding(negotiating_client: LanguageClient):
    """The setting is for clients that offer nothing: one that offers UTF-16 gets UTF-16 columns."""
    text = korean_rollout()
    uri = uri_of("rollout-korean.jsonl")
    open_text(negotiating_client, uri, text)
    [secret] = [d for d in await diagnostics_of(negotiating_client, uri) if d.code == "secret"]
    assert secret.range.start.character == text.split("\n")[0].index("sk-proj-")


async def test_a_document_in_the_rollout_language_is_a_rollout_whatever_its_content(bare_client: LanguageClient):
    """VS Code offers every .jsonl; the server answers for rollouts only, and for any document the editor gives in
    the rollout language ("Treat as Rollout")."""
    text = '{"name": "not a rollout"}\n{"broken": [\n'
    plain, treated = uri_of("notes.jsonl"), uri_of("notes-treated.jsonl")
    open_text(bare_client, plain, text)
    assert await diagnostics_of(bare_client, plain) == []
    bare_client.diagnostics.pop(treated, None)
    bare_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=treated, language_id="rollout", version=1, text=text)
        )
    )
    assert [(d.range.start.line, d.code) for d in await diagnostics_of(bare_client, treated)] == [
        (0, "record-shape"),
        (1, "invalid-json"),
    ]
    symbols = await bare_client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(plain))
    )
    assert symbols == []


def test_looks_like_rollout_reads_the_first_records_only():
    from analysis.session.sniff import looks_like_rollout

    rows = [json.dumps({"id": n, "text": "a dataset row"}) for n in range(60)]
    record = json.dumps({"type": "session_meta", "payload": {"id": "x"}})
    assert looks_like_rollout(rows) is False
    assert looks_like_rollout(["", "not json {", record]) is True
    assert looks_like_rollout(rows[:49] + ["", record]) is True  # blank lines are not records
    assert looks_like_rollout(rows[:50] + [record]) is False  # the 51st record is past the look
    assert looks_like_rollout([json.dumps(["type", "session_meta"])]) is False


async def test_a_document_that_is_not_a_rollout_is_not_analysed():
    """VS Code hands the server every .jsonl: a dataset is looked at, not analysed; the same text at a rollout's
    path (or in the rollout language, or an invocation log) is analysed whatever its content."""
    from lsp_server.store import AnalysisStore

    rows = "".join(json.dumps({"id": n, "cmd": "ls"}) + "\n" for n in range(200))
    decides = {"file:///data/rows.jsonl": True, "file:///data/rollout-rows.jsonl": False}
    store = AnalysisStore(content_decides=decides.__getitem__)
    try:
        for uri in decides:
            store.update(uri, rows, 1, 0)
        looked = await store.get("file:///data/rows.jsonl")
        analysed = await store.get("file:///data/rollout-rows.jsonl")
        assert (len(looked.analysis.records), looked.is_rollout) == (0, False)
        assert len(analysed.analysis.records) == len(split_lines(rows)) == 201  # the last line is empty
        store.update("file:///data/rows.jsonl", fixture("rollout-demo.jsonl"), 2, 0)  # now it is one
        now = await store.get("file:///data/rows.jsonl")
        assert now.is_rollout and len(now.analysis.records) == len(split_lines(fixture("rollout-demo.jsonl")))
    finally:
        store.shutdown()
