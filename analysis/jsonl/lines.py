"""Splitting a document into lines exactly as LSP and VS Code do.

Only ``\\r\\n``, ``\\r`` and ``\\n`` end a line.  ``str.splitlines`` also breaks at
U+2028, U+2029, U+0085 and a few control characters, which JSON (and Codex)
write raw inside strings, so it must never be used on a rollout.
"""

from __future__ import annotations

import re

BOM = "\ufeff"
_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their terminators; a final terminator yields a last empty line."""
    if "\r" not in text:
        return text.split("\n")
    return _BREAK.split(text)


def first_lines(text: str, count: int) -> list[str]:
    """``split_lines(text)[:count]``, without splitting the rest of ``text`` (a sniff of a large document)."""
    lines: list[str] = []
    start = 0
    for match in _BREAK.finditer(text):
        if len(lines) == count:
            return lines
        lines.append(text[start : match.start()])
        start = match.end()
    lines.append(text[start:])
    return lines[:count]


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark."""
    return text[1:] if text.startswith(BOM) else text


def bom_as_space(line: str) -> str:
    """``line`` as JSON reads it: a BOM is whitespace to a reader of the file, and JSON allows a space in its
    place (so every column stays where it is)."""
    return " " + line[1:] if line.startswith(BOM) else line


def split_with_ends(text: str) -> tuple[list[str], list[str]]:
    """``split_lines(text)`` and, for each line, the terminator that ends it ('' for the last)."""
    lines = split_lines(text)
    if "\r" not in text:
        ends = ["\n"] * len(lines)
    else:
        ends = [m.group() for m in _BREAK.finditer(text)] + [""]
    ends[-1] = ""
    return lines, ends


class LineList:
    """A document as its lines (without terminators) and their terminators, edited in place.

    An edit replaces only the lines it touches: every other line stays the same string object, so whatever
    is cached by line (a :class:`~analysis.session.rollout.LineCache`) is found again without hashing or splitting
    the whole text anew.  ``lines`` always equals ``split_lines(self.text())``.
    """

    def __init__(self, text: str = "") -> None:
        self.lines, self.ends = split_with_ends(text)

    def text(self) -> str:
        if all(end == "\n" for end in self.ends[:-1]):
            return "\n".join(self.lines)
        return "".join(line + end for line, end in zip(self.lines, self.ends))

    def replace(self, start_line: int, start_column: int, end_line: int, end_column: int, text: str) -> None:
        """Replace the text from ``(start_line, start_column)`` to ``(end_line, end_column)`` (code points,
        clamped into the document; a position past the last line is the end of the document) by ``text``."""
        lines, ends = self.lines, self.ends
        start_line, start_column = self._clamp(start_line, start_column)
        end_line, end_column = self._clamp(end_line, end_column)
        if (end_line, end_column) < (start_line, start_column):
            end_line, end_column = start_line, start_column
        first = start_line
        if start_column == 0 and first > 0 and ends[first - 1] == "\r":
            first -= 1  # that "\r" and a "\n" the edit brings next to it would be one line break
        region = (
            "".join(lines[i] + ends[i] for i in range(first, start_line))
            + lines[start_line][:start_column]
            + text
            + lines[end_line][end_column:]
            + ends[end_line]
        )
        new_lines, new_ends = split_with_ends(region)
        if ends[end_line]:  # the region ends with a line break: the line after it is not part of it
            del new_lines[-1], new_ends[-1]
        lines[first : end_line + 1] = new_lines
        ends[first : end_line + 1] = new_ends

    def _clamp(self, line: int, column: int) -> tuple[int, int]:
        if line >= len(self.lines):
            return len(self.lines) - 1, len(self.lines[-1])
        return max(line, 0), max(0, min(column, len(self.lines[max(line, 0)])))
