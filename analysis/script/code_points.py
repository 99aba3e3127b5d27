"""Code-point offsets of UTF-8 byte offsets (tree-sitter counts bytes; the analysis counts characters)."""

from __future__ import annotations

import re
from bisect import bisect_right

_NON_ASCII = re.compile("[^\x00-\x7f]")
# lone surrogates are encoded as three bytes each, as the tables count them (``surrogatepass``)
_UTF8 = "utf-8"
_SURROGATES = "surrogatepass"


class CodePoints:
    """The code-point offset of each UTF-8 byte offset of a text (a byte inside a character: the character's).

    A script is asked a few offsets (its calls' spans: 2.7 a non-ASCII script of ``wild/``), so each answer is
    counted by C's UTF-8 decoder over the bytes from the nearest offset answered before, not from tables of every
    non-ASCII character made by a Python step each (stop 41: those steps were most of a non-ASCII script's cost
    outside tree-sitter).  Offsets asked out of order could decode the same bytes again and again: once the bytes
    decoded pass twice the text's, the tables are made (one bisect an offset from then on), so no text costs more
    than a few passes over it, whatever is asked."""

    __slots__ = ("_text", "_data", "_bytes", "_chars", "_budget", "_starts", "_before", "_after")

    def __init__(self, text: str) -> None:
        self._text = text
        self._data: bytes | None = None  # the text's UTF-8, made on the first question
        self._bytes = [0]  # offsets answered in increasing order (character starts) ...
        self._chars = [0]  # ... and their code-point offsets
        self._budget = 0  # bytes left to decode before the tables are made
        self._starts: list[int] | None = None  # the byte where each non-ASCII character starts
        self._before: list[int] = []  # extra bytes (beyond one a character) before it
        self._after: list[int] = []  # and up to its end

    def _tables(self) -> list[int]:
        # made in locals and published starts last: a script's offsets are asked from worker threads too
        # (semantic tokens), and a thread that sees ``_starts`` set must find the other tables whole
        starts: list[int] = []
        before: list[int] = []
        after: list[int] = []
        extra = 0
        for m in _NON_ASCII.finditer(self._text):
            code = ord(m.group())
            starts.append(m.start() + extra)
            before.append(extra)
            extra += 1 if code < 0x800 else 2 if code < 0x10000 else 3
            after.append(extra)
        self._before, self._after = before, after
        self._starts = starts
        return starts

    def _tabled(self, byte: int) -> int:
        starts = self._starts if self._starts is not None else self._tables()
        k = bisect_right(starts, byte) - 1
        if k < 0:
            column = byte
        elif byte <= starts[k] + self._after[k] - self._before[k]:  # at or inside character k
            column = starts[k] - self._before[k]
        else:
            column = byte - self._after[k]
        return max(0, min(column, len(self._text)))

    def at(self, byte: int) -> int:
        if self._starts is not None:
            return self._tabled(byte)
        data = self._data
        if data is None:
            data = self._data = self._text.encode(_UTF8, _SURROGATES)
            self._budget = 2 * len(data)
        if byte <= 0:
            return 0
        if byte >= len(data):
            return len(self._text)
        while data[byte] & 0xC0 == 0x80:  # a continuation byte: the character starts at most three bytes back
            byte -= 1
        known = self._bytes
        k = bisect_right(known, byte) - 1
        start = known[k]
        self._budget -= byte - start
        if self._budget < 0:  # asked out of order too often: tables from now on
            return self._tabled(byte)
        column = self._chars[k] + len(data[start:byte].decode(_UTF8, _SURROGATES))
        if byte > known[-1]:  # kept only in increasing order: an append, never an insertion
            self._chars.append(column)  # first: a thread that finds the byte must find its column
            known.append(byte)
        return column


__all__ = ["CodePoints"]
