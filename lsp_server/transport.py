"""Standard input for pygls's reader loop, which lets go of each message body once it has been handled.

pygls reads a message body with ``stdin.read(n)`` into a local variable that lives until the next body is
read.  After the didOpen of a large rollout that is the whole file as bytes, kept through its whole first
analysis.  :class:`ReleasingStdin` hands the loop a ``bytearray`` instead (``json.loads`` reads one as it
reads bytes) and empties it when the loop asks for the next header line, by which time the body has been
decoded and handled.
"""

from __future__ import annotations

from typing import BinaryIO


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
