"""Standard input and output for pygls's stdio loop.

Standard input for pygls's reader loop, which lets go of each message body once it has been handled.

pygls reads a message body with ``stdin.read(n)`` into a local variable that lives until the next body is
read.  After the didOpen of a large rollout that is the whole file as bytes, kept through its whole first
analysis.  :class:`ReleasingStdin` hands the loop a ``bytearray`` instead (``json.loads`` reads one as it
reads bytes) and empties it when the loop asks for the next header line, by which time the body has been
decoded and handled.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import BinaryIO

DEFAULT_MAX_MESSAGE = 256 * 1024 * 1024  # bytes of one message body (--max-message-bytes)
MAX_HEADER_LINE = 8192  # bytes of one header line: real ones are under 100


class Refused(Exception):
    """Input the server will not read: the message says why."""


class HeaderGate:
    """Checks a message's header lines one by one: exactly one ``Content-Length`` from 1 to ``max_message``
    bytes, every line ``Name: value`` and at most :data:`MAX_HEADER_LINE` bytes; raises :class:`Refused`.
    Returns each line as pygls's reader matches it (``Content-Length: N\\r\\n``)."""

    def __init__(self, max_message: int) -> None:
        self.max_message = max_message
        self._length: int | None = None

    def line(self, line: bytes) -> bytes:
        if len(line) > MAX_HEADER_LINE or not line.endswith(b"\n"):
            raise Refused(
                f"a header line longer than {MAX_HEADER_LINE} bytes"
                if len(line) > MAX_HEADER_LINE
                else "a header line cut off by the end of input"
            )
        if not line.strip():  # the end of the headers
            if self._length is None:
                raise Refused("a message without a Content-Length header")
            self._length = None
            return b"\r\n"
        name, sep, value = line.partition(b":")
        if not sep or not name.strip() or name != name.strip():
            raise Refused(f"a malformed header line {_shown(line)}")
        if name.strip().lower() != b"content-length":
            return line
        text = value.strip()
        if self._length is not None:
            raise Refused("two Content-Length headers")
        if not text.isdigit():
            raise Refused(f"Content-Length {_shown(text)} is not a number of bytes")
        length = int(text)
        if length == 0:
            raise Refused("Content-Length 0: a message cannot be empty")
        if length > self.max_message:
            raise Refused(
                f"Content-Length {length} is over the limit of {self.max_message} bytes (serve --max-message-bytes)"
            )
        self._length = length
        return b"Content-Length: %d\r\n" % length  # as pygls's pattern reads it


class ReleasingStdin:
    """The ``readline``/``read`` pygls's ``StdinAsyncReader`` calls, over a binary stream.

    It also checks each message's headers before pygls sees them: pygls allocates what ``Content-Length``
    says, and skips a message whose header is negative, not a number or missing without a word, after which
    the client waits forever.  A header block without exactly one ``Content-Length`` from 1 to
    ``max_message`` bytes, or a header line that is not ``Name: value`` (or longer than
    :data:`MAX_HEADER_LINE`), is refused: ``on_refused`` is called with the reason (the server answers an
    error and logs one line) and the stream then reads as ended, so the server stops cleanly."""

    def __init__(
        self,
        stream: io.BufferedIOBase,
        max_message: int = DEFAULT_MAX_MESSAGE,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        self.stream = stream
        self.max_message = max_message
        self.gate = HeaderGate(max_message)
        self.on_refused = on_refused
        self.refused: str | None = None
        self._last: bytearray | None = None

    def readline(self) -> bytes:
        self.release()
        if self.refused is not None:
            return b""
        line = self.stream.readline(MAX_HEADER_LINE + 1)
        if not line:
            return b""
        try:
            return self.gate.line(line)
        except Refused as refused:
            return self._refuse(str(refused))

    def read(self, size: int) -> bytearray:
        """``size`` bytes, fewer at the end of the stream; read in pieces, so that memory follows what
        arrives, not what a header announced."""
        self.release()
        if self.refused is not None or size > self.max_message:
            return bytearray()
        body = bytearray(min(size, 1 << 20))
        filled = 0
        while filled < size:
            if filled == len(body):
                body.extend(bytes(min(size - filled, len(body))))
            view = memoryview(body)
            try:
                got = self.stream.readinto(view[filled:])
            finally:
                view.release()
            if not got:
                break
            filled += got
        del body[filled:]
        self._last = body
        return body

    def _refuse(self, reason: str) -> bytes:
        self.refused = reason
        if self.on_refused is not None:
            self.on_refused(reason)
        return b""

    def release(self) -> None:
        """Empty the body handed out last: the reader loop is done with it."""
        if self._last is not None:
            self._last.clear()
            self._last = None


def _shown(data: bytes) -> str:
    text = data.strip()[:60].decode("ascii", "backslashreplace")
    return repr(text)


def refusal_message(reason: str) -> bytes:
    """The JSON-RPC error sent before closing a connection whose input is refused (``id`` null: the request
    it belongs to, if any, could not be read)."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": f"rollout-lsp: {reason}; closing the connection"},
        }
    )
    data = body.encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


BATCH = 1 << 20


class MessageStdout:
    """Standard output for pygls's writer, on which a message may also be written in pieces.

    The outline of a large rollout is megabytes of JSON kept as the pieces it was encoded in; joining them
    for one ``write`` would hold it twice more while it is sent.  :meth:`write_message` writes the pieces one
    after another, and a lock keeps any other message (a log line sent from an analysis thread) out of
    the middle of it."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self._lock:
            return self.stream.write(data)

    def flush(self) -> None:
        with self._lock:
            self.stream.flush()

    def close(self) -> None:
        self.stream.close()

    def write_message(self, parts: Iterable[bytes]) -> None:
        """One message, written from its pieces joined into batches of about :data:`BATCH` bytes (a write per
        small piece costs more than the copy); a piece that large is written as it is, never copied."""
        with self._lock:
            batch: list[bytes] = []
            size = 0
            for part in parts:
                if len(part) >= BATCH:
                    if batch:
                        self.stream.write(b"".join(batch))
                        batch, size = [], 0
                    self.stream.write(part)
                    continue
                batch.append(part)
                size += len(part)
                if size >= BATCH:
                    self.stream.write(b"".join(batch))
                    batch, size = [], 0
            if batch:
                self.stream.write(b"".join(batch))
            self.stream.flush()


# Origins a WebSocket is accepted from without --allow-origin: none (a client that is not a browser sends
# none), and pages served from this machine.
_LOOPBACK_ORIGIN = re.compile(r"https?://(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?")


def allowed_origins(extra: Iterable[str] = ()) -> list:
    """The ``Origin`` values a WebSocket handshake may carry (for ``websockets.serve(origins=…)``)."""
    return [None, _LOOPBACK_ORIGIN, *(o.rstrip("/") for o in extra)]


def serve_websocket(server, host: str, port: int, origins: list, max_message: int) -> None:
    """pygls's ``start_ws``, with the handshake's ``Origin`` checked (a browser lets any web page open a
    WebSocket to localhost, and a page of another origin is refused with 403) and messages limited to
    ``max_message`` bytes."""
    import asyncio
    from threading import Event

    from pygls.io_ import run_websocket
    from websockets.asyncio.server import serve

    server._stop_event = stop_event = Event()

    async def connection(websocket) -> None:
        await run_websocket(
            stop_event=stop_event,
            websocket=websocket,
            protocol=server.protocol,
            logger=logging.getLogger("pygls.server"),
            error_handler=server.report_server_error,
        )
        server.shutdown()

    async def listen() -> None:
        server._server = await serve(connection, host, port, origins=origins, max_size=max_message)
        async with server._server:
            await server._server.serve_forever()

    try:
        asyncio.run(listen())
    except (asyncio.CancelledError, KeyboardInterrupt):
        pass


class CheckedStreamReader:
    """A TCP connection's reader for pygls's loop, with the headers checked as on standard input; a refused
    message is answered, logged and the connection closed."""

    def __init__(self, reader, writer, max_message: int) -> None:
        self.reader = reader
        self.writer = writer
        self.max_message = max_message
        self.gate = HeaderGate(max_message)
        self.refused: str | None = None

    async def readline(self) -> bytes:
        if self.refused is not None:
            return b""
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            return await self._refuse(f"a header line longer than {MAX_HEADER_LINE} bytes")
        except asyncio.IncompleteReadError as partial:
            if not partial.partial:
                return b""
            line = partial.partial
        try:
            return self.gate.line(line)
        except Refused as refused:
            return await self._refuse(str(refused))

    async def readexactly(self, size: int) -> bytes:
        if self.refused is not None or size > self.max_message:
            return b""
        try:
            return await self.reader.readexactly(size)
        except asyncio.IncompleteReadError:
            return b""

    async def _refuse(self, reason: str) -> bytes:
        self.refused = reason
        logging.getLogger("rollout_lsp").warning("refused input: %s; closing the connection", reason)
        try:
            self.writer.write(refusal_message(reason))
            await self.writer.drain()
            self.writer.close()
        except (OSError, RuntimeError):
            pass
        return b""


def serve_tcp(server, host: str, port: int, max_message: int) -> None:
    """pygls's ``start_tcp``, with each message's headers checked (:class:`HeaderGate`)."""
    from threading import Event

    from pygls.io_ import run_async

    server._stop_event = stop_event = Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await run_async(
            stop_event=stop_event,
            reader=CheckedStreamReader(reader, writer, max_message),
            protocol=server.protocol,
            logger=logging.getLogger("pygls.server"),
            error_handler=server.report_server_error,
        )
        server.shutdown()

    async def listen() -> None:
        server._server = await asyncio.start_server(connection, host, port, limit=MAX_HEADER_LINE)
        async with server._server:
            await server._server.serve_forever()

    try:
        asyncio.run(listen())
    except (asyncio.CancelledError, KeyboardInterrupt):
        pass
