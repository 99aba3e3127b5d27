"""Positions: code-point columns, LSP position encodings, and JSON escape maps.

Inside the analysis every column is a code-point index into one document line
(a Python ``str`` index).  Two maps lead there:

* :class:`EscapeMap` maps an index in a *decoded* JSON string back to the column
  of the raw characters in the line (through ``\\n``, ``\\"``, ``\\uXXXX`` and
  surrogate pairs).
* :class:`LineColumns` turns a code-point column into UTF-8, UTF-16 or UTF-32
  units, the units an LSP client asked for.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate, repeat
from operator import add
from typing import cast

from .pickling import pickled_by_fields


class PositionEncoding(str, Enum):
    UTF8 = "utf-8"
    UTF16 = "utf-16"
    UTF32 = "utf-32"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``start`` to ``end`` (code points, end exclusive) of one document line."""

    line: int
    start: int
    end: int


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Position:
    line: int
    character: int


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Range:
    """An LSP range in the units of one position encoding."""

    start: Position
    end: Position

    def to_json(self) -> dict[str, dict[str, int]]:
        return {
            "start": {"line": self.start.line, "character": self.start.character},
            "end": {"line": self.end.line, "character": self.end.character},
        }


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class LineColumns:
    """Converts code-point columns of one line to and from an encoding's units."""

    __slots__ = ("_text", "_ascii", "_astral", "_utf8_marks", "_utf8_extra")

    def __init__(self, text: str) -> None:
        self._text = text
        self._ascii = text.isascii()
        self._astral: list[int] | None = None
        self._utf8_marks: list[int] | None = None
        self._utf8_extra: list[int] | None = None

    def to_units(self, column: int, encoding: PositionEncoding) -> int:
        column = max(0, min(column, len(self._text)))
        if self._ascii or encoding is PositionEncoding.UTF32:
            return column
        if encoding is PositionEncoding.UTF16:
            return column + bisect_right(self._astral_positions(), column - 1)
        marks, extra = self._utf8_tables()
        k = bisect_right(marks, column - 1)
        return column + (extra[k - 1] if k else 0)

    def from_units(self, units: int, encoding: PositionEncoding) -> int:
        """The code-point column at ``units``; a unit inside a character maps to its start."""
        if self._ascii or encoding is PositionEncoding.UTF32:
            return max(0, min(units, len(self._text)))
        lo, hi = 0, len(self._text)
        while lo < hi:  # largest column whose units are <= ``units``
            mid = (lo + hi + 1) // 2
            if self.to_units(mid, encoding) <= units:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _astral_positions(self) -> list[int]:
        if self._astral is None:
            self._astral = [m.start() for m in _ASTRAL.finditer(self._text)]
        return self._astral

    def _utf8_tables(self) -> tuple[list[int], list[int]]:
        marks, extra = self._utf8_marks, self._utf8_extra
        if marks is None or extra is None:
            marks = []
            extra = []
            total = 0
            for m in _NON_ASCII.finditer(self._text):
                cp = ord(m.group())
                total += 1 if cp < 0x800 else (2 if cp < 0x10000 else 3)
                marks.append(m.start())
                extra.append(total)
            self._utf8_marks, self._utf8_extra = marks, extra
        return marks, extra


def span_to_range(
    span: Span, line_text: str, encoding: PositionEncoding = PositionEncoding.UTF16, columns: LineColumns | None = None
) -> Range:
    cols = columns or LineColumns(line_text)
    return Range(
        Position(span.line, cols.to_units(span.start, encoding)), Position(span.line, cols.to_units(span.end, encoding))
    )


_JSON_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SHORT_ESCAPE = re.compile(r"\\.", re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _pairing_surrogates(raw: str, spans: list[tuple[int, int]]) -> tuple[list[int], list[int], list[int]]:
    """Escape breakpoints when ``\\uD83D\\uDE00`` pairs make one code point of two escapes."""
    dec: list[int] = []
    raw_at: list[int] = []
    raw_end: list[int] = []
    shift = 0  # raw length minus decoded length so far
    pending_high: tuple[int, int] | None = None
    for start, end in spans:
        unit = int(raw[start + 2 : end], 16) if end - start == 6 else -1
        if pending_high is not None and pending_high[1] == start and 0xDC00 <= unit <= 0xDFFF:
            raw_end[-1] = end
            shift += end - start
            pending_high = None
            continue
        dec.append(start - shift)
        raw_at.append(start)
        raw_end.append(end)
        shift += end - start - 1
        pending_high = (start, end) if 0xD800 <= unit <= 0xDBFF else None
    return dec, raw_at, raw_end


def _short_escapes(raw: str) -> tuple[list[int], list[int], list[int]]:
    """The tables of a raw JSON string whose escapes are all a backslash and one character (no ``\\u``), made
    without a step per escape in Python (stop 38): each escaped backslash (``\\\\``, paired from the left as
    the escapes are read) becomes a backslash and a plain character, so that every backslash left starts an escape;
    the k-th escape's character is then the k-th decoded index past the text of the pieces before it."""
    flat = raw.replace("\\\\", "\\\x00") if "\\\\" in raw else raw
    pieces = flat.split("\\")
    pieces.pop()  # the text after the last escape's backslash
    dec = list(accumulate(map(len, pieces)))
    raw_at = list(map(add, dec, range(len(dec))))
    return dec, raw_at, list(map(add, raw_at, repeat(2)))


_NO_ESCAPES: tuple[int, ...] = ()


_INT32_MAX = 2**31 - 1
_NOTHING_FOUND: tuple[tuple[int, int], ...] = ()


class EscapeMap:
    """Maps indices of a decoded JSON string to columns of its raw text in the line.

    ``raw_start`` is the column of the first character after the opening quote.

    A string whose escapes are all a backslash and one character (``\\n``, ``\\"``: all but six of ``wild/``'s
    967 exec inputs) is asked a few columns (its calls' and findings' ends), so it makes no tables: a column is
    found by counting the backslashes before it (``str.count``, C) from the nearest column found before (stop 41:
    the tables cost an object per escape, 2,200 instructions each, and a long script holds hundreds).  Columns
    asked out of order could count the same text again and again: once the characters counted pass twice the
    string's, the tables are made, so no string costs more than a few passes over it, whatever is asked.
    """

    __slots__ = ("raw_start", "_dec", "_raw", "_raw_end", "_flat", "_found", "_budget")
    # machine-integer arrays, or the shared empty tuple
    _dec: Sequence[int]
    _raw: Sequence[int]
    _raw_end: Sequence[int]
    _found: Sequence[tuple[int, int]]  # a list while counting, else the shared empty tuple

    def __init__(self, raw: str, raw_start: int) -> None:
        self.raw_start = raw_start
        self._flat: str | None = None  # short escapes only, tables not made: the raw text, "\\\\" as "\\\x00"
        self._found, self._budget = _NOTHING_FOUND, 0  # every slot set: a map is pickled and compared by its slots
        if "\\" in raw and "\\u" not in raw:  # every escape is a backslash and one character
            # each escaped backslash a backslash and a plain character: every backslash left starts an escape
            self._flat = raw.replace("\\\\", "\\\x00") if "\\\\" in raw else raw
            self._found = [(0, 0)]  # (decoded index, raw column) of characters found, in increasing order
            self._budget = 2 * len(raw)
            self._dec = self._raw = self._raw_end = _NO_ESCAPES
            return
        self._tables(raw)

    def _tables(self, raw: str) -> None:
        dec: list[int] = []
        raw_at: list[int] = []
        raw_end: list[int] = []
        if "\\" in raw:
            if "\\u" not in raw:  # every escape is a backslash and one character: the k-th shifts by k (issue 25)
                dec, raw_at, raw_end = _short_escapes(raw)
            elif not _SURROGATE_ESCAPE.search(raw):  # every escape is one character: plain arithmetic
                spans = [m.span() for m in _JSON_ESCAPE.finditer(raw)]
                raw_at = [a for a, _ in spans]
                raw_end = [b for _, b in spans]
                shift = list(accumulate(b - a - 1 for a, b in spans))
                dec = [a - (shift[i - 1] if i else 0) for i, a in enumerate(raw_at)]
            else:
                dec, raw_at, raw_end = _pairing_surrogates(raw, [m.span() for m in _JSON_ESCAPE.finditer(raw)])
        # kept as machine integers: a map lives as long as its line's analysis, and a list of ints costs
        # nine times the memory (an object and a pointer per entry); columns of any real line fit in 32 bits
        # (the tables grow, so the last column is the largest)
        if dec:
            kind = "i" if raw_end[-1] <= _INT32_MAX else "q"
            self._dec, self._raw, self._raw_end = array(kind, dec), array(kind, raw_at), array(kind, raw_end)
        else:  # most strings hold no escape: one shared empty table
            self._dec = self._raw = self._raw_end = _NO_ESCAPES

    def _counted(self, flat: str, index: int) -> int | None:
        """The raw column (from ``raw_start``) of character ``index`` of a string of short escapes, or None when
        the budget is spent.  Character ``index`` starts at the least column ``c`` with ``c = index + (the
        backslashes before c)``: counted from a known character on, until no backslash is added."""
        if index <= 0:
            return index
        found = cast("list[tuple[int, int]]", self._found)  # a list whenever the flat text is set
        k = bisect_right(found, (index, len(flat) + index)) - 1
        known, column = found[k]
        at = column + index - known  # ``index`` if no backslash came between
        added = flat.count("\\", column, at)
        while added:
            column, at = at, at + added
            added = flat.count("\\", column, at)
        self._budget -= at - found[k][1]
        if self._budget < 0:
            return None
        if index > found[-1][0]:  # kept only in increasing order: an append, never an insertion
            found.append((index, at))
        return at

    def _tabled(self, flat: str) -> None:
        """Asked out of order too often: the tables from now on.  The flat text is let go only once the tables
        are whole: semantic tokens ask a shared map from worker threads, and a thread that saw no flat text must
        find the tables made (two threads making them at once make the same tables)."""
        self._tables(flat)  # the same tables as the raw text's: _short_escapes pairs its backslashes the same way
        self._flat = None

    def start(self, index: int) -> int:
        """Column of the raw characters that decode to character ``index``."""
        flat = self._flat
        if flat is not None:
            column = self._counted(flat, index)
            if column is not None:
                return self.raw_start + column
            self._tabled(flat)
        k = bisect_right(self._dec, index) - 1
        if k < 0:
            return self.raw_start + index
        if self._dec[k] == index:
            return self.raw_start + self._raw[k]
        return self.raw_start + self._raw_end[k] + (index - self._dec[k] - 1)

    def end(self, index: int) -> int:
        """Column just after the raw characters that decode to character ``index - 1``."""
        if index <= 0:
            return self.raw_start
        flat = self._flat
        if flat is not None:
            column = self._counted(flat, index - 1)
            if column is not None:  # past an escape's two characters, or one plain one
                return self.raw_start + column + (2 if flat.startswith("\\", column) else 1)
            self._tabled(flat)
        k = bisect_right(self._dec, index - 1) - 1
        if k >= 0 and self._dec[k] == index - 1:
            return self.raw_start + self._raw_end[k]
        return self.start(index - 1) + 1

    def span(self, line: int, start: int, end: int) -> Span:
        """The document span of decoded characters ``start`` to ``end``."""
        return Span(line, self.start(start), self.end(end) if end > start else self.start(start))
