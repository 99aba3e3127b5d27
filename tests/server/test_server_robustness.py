"""The server stays up: malformed messages, unknown documents, failing features, and a soak of random edits."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis import analyze_text
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.reports.report import finding_json
from lsp_server.features.symbols import call_name
from lsp_server.masking import Masker
from lsp_server.server import guarded
from tests.helpers import ROOT, fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of

SOAK_EDITS = int(os.environ.get("ROLLOUT_SOAK_EDITS", "1000"))


class RawClient:
    """Speaks JSON-RPC over the server's stdio byte by byte, so it can also send what no client should."""

    def __init__(self, *args: str, stderr=subprocess.DEVNULL) -> None:
        self.stderr = stderr
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lsp_server", "serve", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.buffer = b""

    def close(self) -> None:
        """Ends the server if it is still running and closes its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.proc.stdin.close()
        self.proc.stdout.close()

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self, timeout: float = 20) -> dict:
        deadline = time.time() + timeout
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = int(
                    next(
                        line.split(b":")[1]
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    )
                )
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.time()))
            if not ready:
                raise TimeoutError("no message from the server")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buffer += chunk

    def response(self, msg_id) -> dict:
        while True:
            message = self.read()
            if message.get("id") == msg_id and "method" not in message:
                return message

    def request(self, msg_id, method: str, params) -> dict:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.response(msg_id)


def test_malformed_messages_do_not_stop_the_server():
    client = RawClient()
    try:
        init = client.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert "capabilities" in init["result"]
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send(b"{this is not json")
        client.send({"hello": "not json-rpc"})
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": "file:///never/opened.jsonl", "version": 2},
                    "contentChanges": [
                        {
                            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                            "text": "x",
                        }
                    ],
                },
            }
        )
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didClose",
                "params": {"textDocument": {"uri": "file:///never/opened.jsonl"}},
            }
        )
        unknown = client.request(2, "rollout/noSuchMethod", {})
        assert unknown["error"]["code"] == -32601
        bad = client.request(3, "textDocument/hover", {"textDocument": {"uri": 5}, "position": "top"})
        assert "error" in bad
        uri = uri_of("rollout-demo.jsonl")
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "jsonl",
                        "version": 1,
                        "text": fixture("rollout-demo.jsonl"),
                    }
                },
            }
        )
        line = split_lines(fixture("rollout-demo.jsonl"))[4]
        hover = client.request(
            4,
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 4, "character": line.index("tools.exec_command")}},
        )
        assert "pytest -q tests/test_greet.py" in hover["result"]["contents"]["value"]
        far = client.request(5, "textDocument/documentSymbol", {"textDocument": {"uri": "file:///nope.jsonl"}})
        assert far["result"] == []
        assert client.request(6, "shutdown", None)["result"] is None
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(10) == 0
    finally:
        client.close()


async def test_a_failing_feature_answers_empty_and_logs(caplog):
    @guarded(list)
    async def broken(ls, params):
        raise ValueError("boom")

    with caplog.at_level(logging.ERROR, logger="rollout_lsp"):
        assert await broken(None, None) == []
    assert "broken failed" in caplog.text and "ValueError: boom" in caplog.text


@pytest_lsp.fixture(config=SERVER)
async def soak_client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmRSS:")))


async def test_soak_random_edits(soak_client: LanguageClient):
    """SOAK_EDITS random edits (1,000 in CI, 10,000 with `make soak`), with requests between them: every answer
    comes in time, memory stays steady, and the last diagnostics are those of the final text."""
    client = soak_client
    rng = random.Random(20261130)
    uri = uri_of("rollout-soak.jsonl")
    text = fixture("rollout-demo.jsonl") + fixture("rollout-unicode.jsonl")
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    pieces = [
        "x",
        " ",
        '"',
        "\\",
        "{",
        "}",
        'tools.exec_command({cmd: \\"ls\\"});',
        "\n",
        "\u2028",
        "😀",
        "é",
        "sk-proj-" + "A1" * 12,
        "`",
        "${",
        "if (false) ",
        "\r\n",
    ]
    pid = client._server.pid
    baseline = None
    slowest = 0.0
    for version in range(2, SOAK_EDITS + 2):
        lines = split_lines(text)
        line = rng.randrange(len(lines))
        length = len(lines[line])
        start = rng.randint(0, length)
        end = min(length, start + rng.choice([0, 0, 1, 3, 10]))
        new = "".join(rng.choice(pieces) for _ in range(rng.choice([0, 1, 1, 2])))
        cols = LineColumns(lines[line])
        offset = sum(len(x) + 1 for x in lines[:line])  # the soak text ends its lines with \n only ...
        text = text[: offset + start] + new + text[offset + end :]
        text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in new else text
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            types.Position(line, cols.to_units(start, PositionEncoding.UTF16)),
                            types.Position(line, cols.to_units(end, PositionEncoding.UTF16)),
                        ),
                        text=new,
                    )
                ],
            )
        )
        if "\r" in new:  # ... so a CR is normalised by a full replacement, as an editor converting endings would
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        if version % 10 == 0:
            started = time.monotonic()
            position = types.Position(rng.randrange(len(split_lines(text))), rng.randint(0, 300))
            await asyncio.wait_for(
                client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position)), 30
            )
            await asyncio.wait_for(
                client.text_document_document_symbol_async(
                    types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
                ),
                30,
            )
            slowest = max(slowest, time.monotonic() - started)
        if version == 2 + SOAK_EDITS // 5:
            baseline = rss_kb(pid)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=SOAK_EDITS + 2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    final = await diagnostics_of(client, uri, timeout=60)
    expected = analyze_text(text)
    mask = Masker()
    assert [diagnostic_json(d) for d in final] == [masked(finding_json(expected, f), mask) for f in expected.findings]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert outline_calls(symbols) == [
        (call_name(c.call, mask), expected.range_of(c.span).to_json()) for c in expected.calls if c.record.is_exec
    ]
    growth = rss_kb(pid) - baseline
    print(f"\nsoak: {SOAK_EDITS} edits, slowest hover+symbols {slowest:.3f} s, RSS growth {growth} kB")
    assert growth < 64 * 1024


def diagnostic_json(d: types.Diagnostic) -> dict:
    """A diagnostic in the shape ``check --json`` reports a finding."""
    out = {
        "range": range_json(d.range),
        "severity": types.DiagnosticSeverity(d.severity).name.lower(),
        "code": d.code,
        "message": d.message,
    }
    if d.related_information:
        related = [
            {"range": range_json(r.location.range), "message": r.message}
            for r in d.related_information
            if not r.message.startswith("the output of this call")
        ]
        if related:
            out["related"] = related
    return out


def masked(finding: dict, mask) -> dict:
    """A finding's JSON with its messages masked, as the server shows them."""
    out = {**finding, "message": mask(finding["message"])}
    if "related" in finding:
        out["related"] = [{**r, "message": mask(r["message"])} for r in finding["related"]]
    return out


def range_json(r: types.Range) -> dict:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def outline_calls(symbols) -> list[tuple[str, dict]]:
    """(name, range) of every call of an exec record in the outline (the children of record symbols)."""
    out = []

    def walk(symbol):
        for child in symbol.children or []:
            if symbol.kind == types.SymbolKind.Function:
                out.append((child.name, range_json(child.range)))
            else:
                walk(child)

    for symbol in symbols:
        walk(symbol)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}


@contextlib.contextmanager
def _serve(flag: str, *more: str) -> Iterator[int]:
    """``rollout-lsp serve FLAG 127.0.0.1:PORT`` for the time of the block: yields the port, then ends the
    server and waits for it, so no process or pipe outlives the test."""
    port = _free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "serve", flag, f"127.0.0.1:{port}", *more],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    ) as proc:
        try:
            yield port
        finally:
            proc.kill()
            proc.wait(10)


def _connect(port: int) -> socket.socket:
    deadline = time.time() + 20
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=20)
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def test_serve_over_tcp():
    with _serve("--tcp") as port, _connect(port) as sock:
        body = json.dumps(INITIALIZE).encode()
        sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while b'"id": 1' not in data and b'"id":1' not in data:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection before answering"
            data += chunk
        assert b'"serverInfo"' in data and b'"rollout-lsp"' in data


async def test_serve_over_websocket():
    import websockets

    with _serve("--ws") as port:
        for attempt in range(200):
            try:
                ws = await websockets.connect(f"ws://127.0.0.1:{port}")
                break
            except OSError:
                if attempt == 199:
                    raise
                await asyncio.sleep(0.1)
        async with ws:
            await ws.send(json.dumps(INITIALIZE))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if message.get("id") == 1:
                    break
        assert message["result"]["serverInfo"]["name"] == "rollout-lsp"


def test_serve_listens_on_loopback_only():
    """LSP has no authentication: another address needs --allow-remote."""
    for flag in ("--tcp", "--ws"):
        result = subprocess.run(
            [sys.executable, "-m", "lsp_server", "serve", flag, f"0.0.0.0:{_free_port()}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2
        assert result.stderr == (
            "rollout-lsp serve: refusing to listen on 0.0.0.0: only loopback addresses "
            "(127.0.0.1, ::1, localhost) unless --allow-remote is given\n"
        )


def test_serve_on_another_address_with_allow_remote_warns():
    import socket

    port = _free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "serve", "--tcp", f"0.0.0.0:{port}", "--allow-remote"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            first = proc.stderr.readline()
            assert first.startswith(
                "rollout-lsp serve: WARNING: listening on 0.0.0.0, reachable from other "
                "machines; the language server protocol has no authentication"
            )
            deadline = time.time() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=20).close()
                    break
                except OSError:
                    assert time.time() < deadline
                    time.sleep(0.1)
        finally:
            proc.kill()
            proc.wait()


def test_loopback_addresses():
    from lsp_server.server import is_loopback

    assert [
        is_loopback(h)
        for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "0.0.0.0", "::", "192.168.1.5", "example.com")
    ] == [True] * 5 + [False] * 4


def test_no_warning_for_a_cancelled_request_that_was_already_answered(tmp_path):
    """Editors cancel requests they no longer need, often after the answer is sent: normal, not a warning."""
    log = tmp_path / "stderr.txt"
    with open(log, "wb") as stderr:
        client = RawClient.__new__(RawClient)
        client.proc = subprocess.Popen(
            [sys.executable, "-m", "lsp_server", "serve"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        client.buffer = b""
        try:
            client.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
            client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            assert client.request(2, "workspace/symbol", {"query": "x"})["result"] == []
            client.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}})
            assert client.request(3, "shutdown", None)["result"] is None
            client.send({"jsonrpc": "2.0", "method": "exit"})
            assert client.proc.wait(10) == 0
        finally:
            if client.proc.poll() is None:
                client.proc.kill()
            client.proc.stdin.close()
            client.proc.stdout.close()
    text = log.read_text()
    assert "Cancel notification" not in text and "WARNING" not in text and "ERROR" not in text, text


# -- hostile clients (issue 23, points 3, 4 and 9) -------------------------------------------------------------


async def _ws_connect(port: int, origin: str | None):
    import websockets

    for attempt in range(200):
        try:
            return await websockets.connect(f"ws://127.0.0.1:{port}", origin=origin)
        except OSError:
            if attempt == 199:
                raise
            await asyncio.sleep(0.1)


async def test_a_websocket_from_another_origin_is_refused():
    """A browser lets any web page open a WebSocket to localhost: only loopback pages (or none) are served."""
    from websockets.exceptions import InvalidStatus

    # a server serves one connection (pygls): one server per accepted origin; no Origin at all is
    # test_serve_over_websocket
    for origin in ("http://localhost:3000", "https://trusted.example"):
        with _serve("--ws", "--allow-origin", "https://trusted.example") as port:
            for evil in ("https://evil.example.com", "null", "http://localhost.evil.example.com"):
                with pytest.raises(InvalidStatus) as refused:
                    await _ws_connect(port, evil)
                assert refused.value.response.status_code == 403
            async with await _ws_connect(port, origin) as ws:
                await ws.send(json.dumps(INITIALIZE))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if message.get("id") == 1:
                        break
                assert message["result"]["serverInfo"]["name"] == "rollout-lsp"


def _initialized(*args: str, stderr=subprocess.PIPE) -> RawClient:
    client = RawClient(*args, stderr=stderr)
    assert "result" in client.request(1, "initialize", INITIALIZE["params"])
    return client


@pytest.mark.parametrize(
    "header, reason",
    [
        (
            b"Content-Length: 1000000000000\r\n",
            "Content-Length 1000000000000 is over the limit of 268435456 bytes (serve --max-message-bytes)",
        ),
        (
            b"Content-Length: 4000000000\r\n",
            "Content-Length 4000000000 is over the limit of 268435456 bytes (serve --max-message-bytes)",
        ),
        (b"Content-Length: -5\r\n", "Content-Length '-5' is not a number of bytes"),
        (b"Content-Length: many\r\n", "Content-Length 'many' is not a number of bytes"),
        (b"Content-Type: application/json\r\n", "a message without a Content-Length header"),
        (b"garbage\r\n", "a malformed header line 'garbage'"),
        (b"X-Long: " + b"a" * 10_000 + b"\r\n", "a header line longer than 8192 bytes"),
    ],
)
def test_a_bad_header_is_answered_and_the_connection_closed(header, reason):
    client = _initialized()
    try:
        client.send_raw(header + b"\r\n")
        answer = client.response(None)
        assert answer["error"] == {"code": -32600, "message": f"rollout-lsp: {reason}; closing the connection"}
        assert client.proc.wait(20) == 1
        log = client.proc.stderr.read().decode()
        assert log.endswith(f" WARNING rollout_lsp: refused input: {reason}; closing the connection\n")
        assert log.count("\n") == 1
    finally:
        client.proc.stderr.close()
        client.close()


def test_the_message_limit_is_configurable():
    client = _initialized("--max-message-bytes", "1000")
    try:
        hover = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/hover",
            "params": {
                "textDocument": {"uri": "file:///x.jsonl"},
                "position": {"line": 0, "character": 0},
                "padding": "x" * 1000,
            },
        }
        client.send(hover)
        assert client.response(None)["error"]["message"].startswith("rollout-lsp: Content-Length 11")
        assert client.proc.wait(20) == 1
    finally:
        client.proc.stderr.close()
        client.close()


def test_the_lifecycle_of_the_specification():
    hover = {"textDocument": {"uri": "file:///x.jsonl"}, "position": {"line": 0, "character": 0}}
    client = RawClient(stderr=subprocess.PIPE)
    try:
        early = client.request(0, "textDocument/hover", hover)
        assert early["error"] == {
            "code": -32002,
            "message": "textDocument/hover: the server is not initialized (initialize first)",
        }
        assert "result" in client.request(1, "initialize", INITIALIZE["params"])
        refused = client.request(2, "rollout/analyzeFile", {"path": "/etc/passwd"})
        assert refused["error"]["code"] == -32602
        assert client.request(3, "shutdown", None)["result"] is None
        late = client.request(4, "textDocument/hover", hover)
        assert late["error"] == {
            "code": -32600,
            "message": "textDocument/hover: the server is shutting down (shutdown was received)",
        }
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(20) == 0
        log = client.proc.stderr.read().decode()
        # quiet by default (warnings only): the refused request is one line, no traceback, no INFO
        assert log.splitlines() == [log.splitlines()[0]]
        assert log.endswith(
            " WARNING pygls.protocol.json_rpc: request refused: refused to read /etc/passwd: "
            "nothing under the system folder /etc is read\n"
        )
    finally:
        client.proc.stderr.close()
        client.close()


def test_exit_without_shutdown_is_status_1_and_closed_input_ends_quietly():
    client = _initialized()
    try:
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(20) == 1
    finally:
        client.proc.stderr.close()
        client.close()
    client = _initialized()
    try:
        client.proc.stdin.close()
        assert client.proc.wait(20) == 1
        assert client.proc.stderr.read().decode() == ""
    finally:
        client.proc.stderr.close()
        client.close()


def test_info_logging_is_asked_for():
    client = _initialized("--log-level", "info")
    try:
        client.request(2, "shutdown", None)
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(20) == 0
        assert " INFO rollout_lsp: rollout-lsp " in client.proc.stderr.read().decode()
    finally:
        client.proc.stderr.close()
        client.close()


def test_show_decoded_script_takes_a_null_answer_as_not_shown():
    """A client that answers window/showDocument with null: the command answers, "not shown", with the file."""
    text = (ROOT / "fixtures" / "rollout-demo.jsonl").read_text(encoding="utf-8")
    uri = (ROOT / "fixtures" / "rollout-demo.jsonl").as_uri()
    client = RawClient()
    try:
        client.request(
            1,
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": {"window": {"showDocument": {"support": True}}}},
        )
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "jsonl", "version": 1, "text": text}},
            }
        )
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "workspace/executeCommand",
                "params": {"command": "rollout-lsp.showDecodedScript", "arguments": [uri, 4]},
            }
        )
        asked = False
        while True:
            message = client.read()
            if message.get("method") == "window/showDocument":
                client.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                asked = True
            elif message.get("method") == "workspace/configuration":
                client.send({"jsonrpc": "2.0", "id": message["id"], "result": [None]})
            elif message.get("id") == 2 and "method" not in message:
                break
        assert asked
        result = message["result"]
        assert result["shown"] is False and result["file"].endswith(".js") and result["line"] == 4
    finally:
        client.close()


def test_a_bad_header_over_tcp_is_answered_and_the_connection_closed():
    with _serve("--tcp", "--max-message-bytes", "100000") as port, _connect(port) as sock:
        body = json.dumps(INITIALIZE).encode()
        sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while b'"serverInfo"' not in data:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection before answering"
            data += chunk
        sock.sendall(b"Content-Length: 4000000000\r\n\r\n")
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break  # closed by the server
            data += chunk
        assert data.endswith(
            b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "rollout-lsp: '
            b"Content-Length 4000000000 is over the limit of 100000 bytes (serve --max-message-bytes); "
            b'closing the connection"}}'
        )
