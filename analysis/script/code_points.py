"""Code-point offsets of UTF-8 byte offsets (tree-sitter counts bytes; the analysis counts characters)."""

from __future__ import annotations

import re
from bisect import bisect_right

_NON_ASCII = re.compile("[^\x00-\x7f]")


class CodePoints:
    """The code-point offset of each UTF-8 byte offset of a text (a byte inside a character: the character's),
    by one bisect over the text's non-ASCII characters; the tables are made on the first question."""

    __slots__ = ("_text", "_starts", "_before", "_after")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None  # the byte where each non-ASCII character starts
        self._before: list[int] = []  # extra bytes (beyond one a character) before it
        self._after: list[int] = []  # and up to its end

    def _tables(self) -> list[int]:
        starts, before, after = [], self._before, self._after
        extra = 0
        for m in _NON_ASCII.finditer(self._text):
            code = ord(m.group())
            starts.append(m.start() + extra)
            before.append(extra)
            extra += 1 if code < 0x800 else 2 if code < 0x10000 else 3
            after.append(extra)
        self._starts = starts
        return starts

    def at(self, byte: int) -> int:
        starts = self._starts if self._starts is not None else self._tables()
        k = bisect_right(starts, byte) - 1
        if k < 0:
            column = byte
        elif byte <= starts[k] + self._after[k] - self._before[k]:  # at or inside character k
            column = starts[k] - self._before[k]
        else:
            column = byte - self._after[k]
        return max(0, min(column, len(self._text)))


__all__ = ["CodePoints"]
