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

from dataclasses import dataclass, field

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


class _PatchReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.offsets: list[int] = []
        at = 0
        for line in self.lines:
            self.offsets.append(at)
            at += len(line)
            at += 2 if text.startswith("\r\n", at) else (1 if at < len(text) else 0)
        self.files: list[PatchFile] = []
        self.errors: list[PatchError] = []

    def error(self, index: int, message: str) -> None:
        self.errors.append(PatchError(index, self.offsets[index], len(self.lines[index]), message))

    def read(self) -> Patch:
        body = [i for i, line in enumerate(self.lines) if line.strip()]
        if (
            body
            and self.lines[body[0]].strip().startswith("<<")
            and self.lines[body[-1]].strip() in ("EOF", "'EOF'", '"EOF"')
        ):
            body = body[1:-1]
        if not body:
            self.errors.append(PatchError(0, 0, 0, "empty patch: no '*** Begin Patch' line"))
            return Patch(self.text, (), tuple(self.errors))
        first, last = body[0], body[-1]
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
        return path, self.offsets[i] + lead + len(prefix.strip()) + (len(rest) - len(rest.lstrip()))

    def section_end(self, i: int, stop: int) -> int:
        """The index of the next file header (or the end) after line ``i``."""
        j = i + 1
        while j < stop:
            marker = self.lines[j].strip()
            if marker.startswith("*** ") and marker != _EOF_MARK and not marker.startswith(_MOVE.strip()):
                break
            j += 1
        return j

    def read_add(self, i: int, stop: int) -> int:
        end = self.section_end(i, stop)
        found = self.header_path(i, _ADD)
        if found:
            self.files.append(PatchFile("add", found[0], None, i, found[1]))
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
        for k in range(j, end):
            line = self.lines[k]
            if line.startswith(("+", "-", " ", "@@")) or line == "":
                changes += line.startswith(("+", "-", " "))
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
