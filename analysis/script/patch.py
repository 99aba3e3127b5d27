"""The apply_patch grammar: file operations and syntax errors of a patch text.

    *** Begin Patch
    [*** Environment ID: <id>]
    ( *** Add File: <path>      followed by "+" lines
    | *** Delete File: <path>
    | *** Update File: <path>   [*** Move to: <path>]  then "@@", "+", "-", " " lines, [*** End of File] )+
    *** End Patch

As Codex's lenient parser does, whitespace around the markers is tolerated and a
heredoc wrapper (``<<'EOF'`` … ``EOF``) is accepted.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate, compress, count, repeat
from operator import add, contains

from ..jsonl.lines import split_lines
from ..jsonl.pickling import pickled_by_fields

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_ADD = "*** Add File: "
_UPDATE = "*** Update File: "
_DELETE = "*** Delete File: "
_MOVE = "*** Move to: "
_ENV = "*** Environment ID: "
_EOF_MARK = "*** End of File"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PatchFile:
    action: str  # add, update or delete
    path: str
    move_to: str | None = None
    line: int = 0  # the header's line in the patch text
    path_offset: int = 0  # where the path starts in the patch text
    move_offset: int | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"action": self.action, "path": self.path, "move_to": self.move_to}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PatchError:
    line: int
    offset: int  # where the offending line starts in the patch text
    length: int
    message: str


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Patch:
    text: str
    files: tuple[PatchFile, ...]
    errors: tuple[PatchError, ...] = field(default=())


def parse_patch(text: str) -> Patch:
    """File operations and grammar errors of one patch."""
    return _PatchReader(text).read()


# the lines of a file section are checked in one C pass a section (``all``/``any`` over ``map``), not a Python
# step a line, and the sections' ends are looked for only among the lines holding "*** " (stop 41: a patch
# adding a file of hundreds of lines is common, and a step a line was most of reading it)
_HUNK_LINE = ("+", "-", " ", "@@")
_CHANGE_LINE = ("+", "-", " ")
_HEADER_MARK = "*** "


def _line_offsets(text: str, lines: list[str]) -> list[int]:
    """Where each line starts in ``text``."""
    if "\r" not in text:  # every line but the last ends with one "\n": the lengths before it, plus one each
        return list(map(add, accumulate(map(len, lines), initial=0), range(len(lines))))
    offsets = []
    at = 0
    for line in lines:
        offsets.append(at)
        at += len(line)
        at += 2 if text.startswith("\r\n", at) else (1 if at < len(text) else 0)
    return offsets


class _PatchReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._offsets: list[int] | None = None  # made when a header or an error first needs one
        self._marks: list[int] | None = None  # the lines holding "*** " (every file header does)
        self.files: list[PatchFile] = []
        self.errors: list[PatchError] = []

    def offset(self, index: int) -> int:
        """Where line ``index`` starts in the patch text."""
        if self._offsets is None:
            self._offsets = _line_offsets(self.text, self.lines)
        return self._offsets[index]

    def error(self, index: int, message: str) -> None:
        self.errors.append(PatchError(index, self.offset(index), len(self.lines[index]), message))

    def _body(self) -> tuple[int, int] | None:
        """The first and the last line that is not blank, inside a heredoc wrapper if there is one (found from
        either end: the lines between are not looked at)."""
        lines = self.lines
        first = next((i for i in range(len(lines)) if lines[i].strip()), None)
        if first is None:
            return None
        last = next(i for i in range(len(lines) - 1, first - 1, -1) if lines[i].strip())
        if lines[first].strip().startswith("<<") and lines[last].strip() in ("EOF", "'EOF'", '"EOF"'):
            inner = next((i for i in range(first + 1, last) if lines[i].strip()), None)
            if inner is None:
                return None
            return inner, next(i for i in range(last - 1, inner - 1, -1) if lines[i].strip())
        return first, last

    def read(self) -> Patch:
        body = self._body()
        if body is None:
            self.errors.append(PatchError(0, 0, 0, "empty patch: no '*** Begin Patch' line"))
            return Patch(self.text, (), tuple(self.errors))
        first, last = body
        if self.lines[first].strip() != BEGIN and self.lines[last].strip() != END:
            self.error(first, f"not a patch: no '{BEGIN}' … '{END}' envelope")
            return Patch(self.text, (), tuple(self.errors))
        if self.lines[first].strip() != BEGIN:
            self.error(first, f"the first line must be '{BEGIN}'")
        else:
            first += 1
        if self.lines[last].strip() != END:
            self.error(last, f"the last line must be '{END}'")
            last += 1
        self.read_hunks(first, last)
        if not self.files and not self.errors:
            self.error(body[0], "the patch names no file")
        return Patch(self.text, tuple(self.files), tuple(self.errors))

    def read_hunks(self, start: int, stop: int) -> None:
        i = start
        if i < stop and self.lines[i].strip().startswith(_ENV.strip()):
            i += 1
        while i < stop:
            line = self.lines[i]
            marker = line.strip()
            if not marker:
                i += 1
            elif marker.startswith(_ADD.strip()):
                i = self.read_add(i, stop)
            elif marker.startswith(_UPDATE.strip()):
                i = self.read_update(i, stop)
            elif marker.startswith(_DELETE.strip()):
                i = self.read_delete(i, stop)
            elif marker.startswith("***"):
                self.error(i, f"unknown patch line {marker!r}")
                i += 1
            else:
                self.error(i, "a line outside any file section")
                i += 1

    def header_path(self, i: int, prefix: str) -> tuple[str, int] | None:
        line = self.lines[i]
        lead = len(line) - len(line.lstrip())
        body = line.strip()
        if not body.startswith(prefix.strip()):
            return None
        rest = body[len(prefix.strip()) :]
        path = rest.strip()
        if not path:
            self.error(i, f"'{prefix.strip()}' names no path")
            return None
        return path, self.offset(i) + lead + len(prefix.strip()) + (len(rest) - len(rest.lstrip()))

    def section_end(self, i: int, stop: int) -> int:
        """The index of the next file header (or the end) after line ``i``."""
        marks = self._marks
        if marks is None:  # a header's stripped text starts with "*** ": only lines holding it are looked at
            marks = self._marks = list(compress(count(), map(contains, self.lines, repeat(_HEADER_MARK))))
        for k in range(bisect_right(marks, i), len(marks)):
            j = marks[k]
            if j >= stop:
                break
            marker = self.lines[j].strip()
            if marker.startswith(_HEADER_MARK) and marker != _EOF_MARK and not marker.startswith(_MOVE.strip()):
                return j
        return stop

    def read_add(self, i: int, stop: int) -> int:
        end = self.section_end(i, stop)
        found = self.header_path(i, _ADD)
        if found:
            self.files.append(PatchFile("add", found[0], None, i, found[1]))
        if not all(map(str.startswith, self.lines[i + 1 : end], repeat("+"))):
            for j in range(i + 1, end):
                if not self.lines[j].startswith("+"):
                    self.error(j, "a line of an added file must start with '+'")
        return end

    def read_delete(self, i: int, stop: int) -> int:
        end = self.section_end(i, stop)
        found = self.header_path(i, _DELETE)
        if found:
            self.files.append(PatchFile("delete", found[0], None, i, found[1]))
        for j in range(i + 1, end):
            if self.lines[j].strip():
                self.error(j, "nothing may follow '*** Delete File:'")
        return end

    def read_update(self, i: int, stop: int) -> int:
        end = self.section_end(i, stop)
        found = self.header_path(i, _UPDATE)
        move = None
        j = i + 1
        if j < end and self.lines[j].strip().startswith(_MOVE.strip()):
            move = self.header_path(j, _MOVE)
            j += 1
        changes = 0
        errors_before = len(self.errors)
        hunks = self.lines[j:end]
        # every line a hunk's (the usual case): no error, and a change if any line is one
        if all(map(str.startswith, filter(None, hunks), repeat(_HUNK_LINE))):
            changes = any(map(str.startswith, hunks, repeat(_CHANGE_LINE)))
            j = end
        for k in range(j, end):
            line = self.lines[k]
            if line.startswith(_HUNK_LINE) or line == "":
                changes += line.startswith(_CHANGE_LINE)
            elif line.strip() == _EOF_MARK:
                pass
            elif line.strip().startswith(_MOVE.strip()):
                self.error(k, "'*** Move to:' must follow its '*** Update File:' line directly")
            else:
                self.error(k, "a hunk line must start with '+', '-', ' ' or '@@'")
        if found:
            if not changes and move is None and len(self.errors) == errors_before:
                self.error(i, f"the update of {found[0]} changes nothing")
            self.files.append(
                PatchFile("update", found[0], move[0] if move else None, i, found[1], move[1] if move else None)
            )
        return end
