"""The server lets go of a large opened text: the message body and the didOpen text are not kept; a large
answer is written from its pieces, not joined whole."""

import io
import json
import threading
import time

from lsprotocol import types

from lsp_server import transport
from lsp_server.documents import RolloutWorkspace
from lsp_server.transport import ReleasingStdin


def test_body_is_read_whole_then_emptied_when_the_next_header_is_read():
    body = json.dumps({"text": "a\u2028b" * 10}).encode()
    stdin = ReleasingStdin(
        io.BufferedReader(io.BytesIO(b"Content-Length: %d\r\n\r\n" % len(body) + body + b"Content-Type: x\r\n"))
    )
    assert stdin.readline() == b"Content-Length: %d\r\n" % len(body)
    assert stdin.readline() == b"\r\n"
    read = stdin.read(len(body))
    assert isinstance(read, bytearray) and bytes(read) == body
    assert json.loads(read) == {"text": "a\u2028b" * 10}
    assert stdin.readline() == b"Content-Type: x\r\n"
    assert read == bytearray()  # emptied: the reader loop's reference no longer holds the body


def test_a_short_body_at_the_end_of_the_stream():
    stdin = ReleasingStdin(io.BufferedReader(io.BytesIO(b"abc")))
    assert stdin.read(10) == bytearray(b"abc")
    assert stdin.read(10) == bytearray()


def test_opened_text_is_dropped_from_the_message_and_kept_as_lines():
    workspace = RolloutWorkspace(None)
    text = '{"a":1}\r\n{"b":"\u2028"}\n\U0001f600\n'
    item = types.TextDocumentItem(uri="file:///tmp/r.jsonl", language_id="jsonl", version=3, text=text)
    workspace.put_text_document(item)
    assert item.text == ""
    document = workspace.get_text_document("file:///tmp/r.jsonl")
    assert document.text_lines == ['{"a":1}', '{"b":"\u2028"}', "\U0001f600", ""]
    assert document.source == text
    assert document.version == 3


def test_the_script_editor_reads_the_document_lines_without_joining_the_text():
    from lsp_server.documents import document_lines

    workspace = RolloutWorkspace(None)
    item = types.TextDocumentItem(uri="file:///tmp/s.jsonl", language_id="jsonl", version=1, text="a\r\nb\n")
    workspace.put_text_document(item)
    document = workspace.get_text_document("file:///tmp/s.jsonl")
    assert document_lines(document) is document.text_lines
    assert document_lines(document) == ["a", "b", ""]
    assert document._source is None  # no joined copy of the text was made (and kept until the next edit)


class _CountingStream(io.BytesIO):
    """A byte stream that counts its write calls and lets another thread in between them."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, data) -> int:
        self.writes += 1
        time.sleep(0)  # give the other thread its chance in the middle of a message
        return super().write(data)


def test_a_message_in_pieces_is_written_in_batches_and_never_interleaved(monkeypatch):
    monkeypatch.setattr(transport, "BATCH", 1000)
    stream = _CountingStream()
    out = transport.MessageStdout(stream)
    pieces = [b"<" + bytes([65 + n % 26]) * 98 + b">" for n in range(300)]  # 300 pieces of 100 bytes

    def log_lines():
        for _ in range(200):
            out.write(b"{log}")
            out.flush()

    other = threading.Thread(target=log_lines)
    other.start()
    for _ in range(5):
        out.write_message(pieces)
    other.join()
    written = stream.getvalue()
    message = b"".join(pieces)
    assert written.replace(b"{log}", b"") == message * 5
    assert written.count(message) == 5  # no log line inside a message
    assert stream.writes == 200 + 5 * 30  # a batch is 10 pieces of 100 bytes: 30 writes a message


def test_a_piece_as_large_as_a_batch_is_written_as_it_is(monkeypatch):
    monkeypatch.setattr(transport, "BATCH", 1000)
    written = []

    class Recording(io.BytesIO):
        def write(self, data) -> int:
            written.append(data)
            return super().write(data)

    stream = Recording()
    large = b"L" * 5000
    transport.MessageStdout(stream).write_message([b"head", large, b"tail"])
    assert stream.getvalue() == b"head" + large + b"tail"
    assert written == [b"head", large, b"tail"] and written[1] is large  # the piece itself, not a copy


def test_serving_on_stdio_writes_pieced_messages_through_the_locked_output(monkeypatch):
    import lsp_server.server as server_module

    made = []
    started = []
    create = server_module.create_server

    def creating():
        made.append(create())
        return made[-1]

    monkeypatch.setattr(server_module, "create_server", creating)
    monkeypatch.setattr(
        server_module.RolloutLanguageServer, "start_io", lambda self, stdin, stdout: started.append((stdin, stdout))
    )
    monkeypatch.setattr(server_module, "configure_logging", lambda server, level: None)
    assert server_module.run() == 1  # input ended without shutdown: status 1, as the specification says
    [(stdin, stdout)] = started
    assert isinstance(stdin, ReleasingStdin) and isinstance(stdout, transport.MessageStdout)
    assert made[0].protocol.message_stdout is stdout
