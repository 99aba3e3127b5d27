"""Standard input and output for pygls's stdio loop.

Standard input for pygls's reader loop, which lets go of each message body once it has been handled.

pygls reads a message body with ``stdin.read(n)`` into a local variable that lives until the next body is
read.  After the didOpen of a large rollout that is the whole file as bytes, kept through its whole first
analysis.  :class:`ReleasingStdin` hands the loop a ``bytearray`` instead (``json.loads`` reads one as it
reads bytes) and empties it when the loop asks for the next header line, by which time the body has been
decoded and handled.
"""

from __future__ import annotations

import threading
from typing import BinaryIO, Iterable


class ReleasingStdin:
    """The ``readline``/``read`` pygls's ``StdinAsyncReader`` calls, over a binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self._last: bytearray | None = None

    def readline(self) -> bytes:
        self.release()
        return self.stream.readline()

    def read(self, size: int) -> bytearray:
        """``size`` bytes, fewer at the end of the stream."""
        self.release()
        body = bytearray(size)
        view = memoryview(body)
        filled = 0
        while filled < size:
            got = self.stream.readinto(view[filled:])
            if not got:
                break
            filled += got
        view.release()
        del body[filled:]
        self._last = body
        return body

    def release(self) -> None:
        """Empty the body handed out last: the reader loop is done with it."""
        if self._last is not None:
            self._last.clear()
            self._last = None


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
