"""Which files a session's calls changed: per call and file, the action, the paths, the hunks, and
whether the patch applied.

Read from the analysis of a rollout, as plain data other features can use (the index stores it for
``rollout-lsp blame``).  A change comes from an ``apply_patch`` call, at the top level or inside an exec
script, whose patch text is known exactly; a call whose patch is computed at run time contributes the
files its ``patch_apply_end`` event lists (without hunks).

Paths are resolved as Codex resolves them: against the call's ``workdir``, else the cwd of the turn
(``turn_context``), else the session's (``session_meta``); an absolute path wins.  Windows paths
(``C:\\…``, ``\\\\server\\share``) are resolved and compared as Windows does (case-insensitive), on
any machine.  Shell commands that write files (``sed -i``, redirections) are not read: only patches.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..jsonl.lines import split_lines
from ..script.calls import PATCH
from ..script.patch import BEGIN, END, PatchFile
from .events import ToolEvent, same_path
from .patch_applied import patch_applied
from .record_analysis import LineAnalysis
from .records import SessionMeta, TurnContext
from .rollout import LocatedCall, RolloutAnalysis

YES, NO, UNKNOWN = "yes", "no", "unknown"  # whether a change applied
_WINDOWS = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|$)|\\\\|//[^/])")
_MOVE = "*** Move to:"
_EOF = "*** End of File"


@dataclass(frozen=True, slots=True)
class Hunk:
    """One chunk of an update (or the whole content of an added file): its ``@@`` anchor and its lines
    as the patch writes them (``+added``, ``-removed``, `` context``)."""

    header: str | None
    lines: tuple[str, ...]

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(line[1:] for line in self.lines if line.startswith("+"))

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(line[1:] for line in self.lines if line.startswith("-"))

    def added_runs(self) -> list[tuple[str, ...]]:
        """The blocks of consecutive added lines: what a run of lines of the patched file can match."""
        runs: list[tuple[str, ...]] = []
        current: list[str] = []
        for line in self.lines:
            if line.startswith("+"):
                current.append(line[1:])
            elif not line.startswith("-") and current:  # a context line parts them; removed lines do not
                runs.append(tuple(current))
                current = []
        if current:
            runs.append(tuple(current))
        return runs

    def to_json(self) -> list:
        return [self.header, list(self.lines)]

    @classmethod
    def from_json(cls, value: Sequence) -> Hunk:
        return cls(value[0], tuple(value[1]))


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file one call changed."""

    line: int  # the call's line in the rollout (of the analysis it was read from)
    call_index: int  # the call's position among its record's calls
    file_index: int  # the file's position among the call's files
    action: str  # add, update or delete
    path: str  # as the patch (or the event) writes it
    move_to: str | None
    absolute: str | None  # resolved against the workdir or cwd; None when neither is known
    move_absolute: str | None
    applied: str  # yes, no or unknown
    hunks: tuple[Hunk, ...]
    nested: bool  # made inside an exec script
    next_command: str | None = None  # the command the script runs next, when known

    @property
    def target(self) -> str | None:
        """Where the file is after the change (its move target, else its path), absolute when known."""
        return self.move_absolute or self.absolute if self.move_to else self.absolute

    def to_json(self) -> dict:
        return {
            "line": self.line,
            "call_index": self.call_index,
            "action": self.action,
            "path": self.path,
            "move_to": self.move_to,
            "absolute": self.absolute,
            "move_absolute": self.move_absolute,
            "applied": self.applied,
            "nested": self.nested,
            "next_command": self.next_command,
            "hunks": [h.to_json() for h in self.hunks],
        }


# -- paths -------------------------------------------------------------------------------------------------


def is_windows_path(path: str) -> bool:
    """A drive (``C:\\``, ``c:/``) or UNC (``\\\\server``) path."""
    return bool(_WINDOWS.match(path))


def is_absolute(path: str) -> bool:
    return path.startswith("/") or is_windows_path(path)


def resolve(path: str, base: str | None) -> str | None:
    """``path`` made absolute against ``base`` and normalised in the style of whichever is a Windows path;
    None when ``path`` is relative and ``base`` is not an absolute path."""
    path = path.strip()
    if not path:
        return None
    if is_absolute(path):
        joined = path
    elif base and is_absolute(base):
        joined = ntpath.join(base, path) if is_windows_path(base) else posixpath.join(base, path)
    else:
        return None
    if is_windows_path(joined) or (base and is_windows_path(base)):
        return ntpath.normpath(joined)
    return posixpath.normpath(joined)


def path_key(path: str) -> str:
    """How paths are compared: ``/`` separators, no trailing one; Windows paths in lower case."""
    if is_windows_path(path):
        return ntpath.normpath(path).replace("\\", "/").rstrip("/").lower()
    normal = posixpath.normpath(path)
    return normal if normal == "/" else normal.rstrip("/")


def relative_key(path: str, root: str) -> str | None:
    """``path``'s key relative to the folder ``root`` (``/`` separated), or None when outside it."""
    child, parent = path_key(path), path_key(root)
    prefix = parent if parent.endswith("/") else parent + "/"
    return child[len(prefix) :] if child.startswith(prefix) else None


# -- patches -----------------------------------------------------------------------------------------------


def patch_hunks(patch: str, files: Sequence[PatchFile]) -> list[tuple[Hunk, ...]]:
    """The hunks of each of ``files`` (as :func:`~analysis.script.patch.parse_patch` read them from
    ``patch``): the added content of an added file, the chunks of an update, none for a delete."""
    lines = split_lines(patch)
    out = []
    for number, entry in enumerate(files):
        stop = files[number + 1].line if number + 1 < len(files) else len(lines)
        out.append(_section_hunks(entry, lines[entry.line + 1 : stop]))
    return out


def _section_hunks(entry: PatchFile, body: list[str]) -> tuple[Hunk, ...]:
    body = _until_end(body)
    if entry.action == "delete":
        return ()
    if entry.action == "add":
        added = tuple(line for line in body if line.startswith("+"))
        return (Hunk(None, added),) if added else ()
    hunks: list[Hunk] = []
    header: str | None = None
    current: list[str] = []
    for line in body:
        marker = line.strip()
        if marker.startswith(_MOVE) or marker == _EOF:
            continue
        if line.startswith("@@"):
            if current:
                hunks.append(Hunk(header, tuple(current)))
            header, current = line, []
        elif line.startswith(("+", "-", " ")):
            current.append(line)
        elif line == "":
            current.append(" ")  # an empty line inside a chunk is an empty context line
    while current and current[-1] == " ":  # blank lines before the next header are not context
        current.pop()
    if current:
        hunks.append(Hunk(header, tuple(current)))
    return tuple(hunks)


def _until_end(body: list[str]) -> list[str]:
    for number, line in enumerate(body):
        if line.strip() in (END, BEGIN) or line.strip() in ("EOF", "'EOF'", '"EOF"'):
            return body[:number]
    return body


# -- applied or not ----------------------------------------------------------------------------------------


def applied(located: LocatedCall) -> str:
    """Whether a patch call applied (:func:`~analysis.session.patch_applied.patch_applied`): yes, no or
    ``unknown`` when nothing says."""
    return {True: YES, False: NO, None: UNKNOWN}[patch_applied(located)]


# -- a session's changes -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Where a session works: the cwd of ``session_meta`` and its ``git`` fields, kept by the index for
    the lines appended later."""

    cwd: str | None = None
    git: dict | None = None


def session_place(analysis: RolloutAnalysis, before: Place | None = None) -> Place:
    """The session's cwd and git fields (from its first ``session_meta``), else ``before``."""
    for record in analysis.records:
        item = record.record.item if record.record is not None else None
        if isinstance(item, SessionMeta):
            return Place(item.cwd, item.git if isinstance(item.git, dict) else None)
    return before or Place()


def cwd_at(analysis: RolloutAnalysis, cwd: str | None = None) -> list[str | None]:
    """The working directory in effect at each line: ``cwd`` (the one in effect before the first line),
    then each ``session_meta`` or ``turn_context`` cwd from its line on."""
    out = []
    for record in analysis.records:
        cwd = cwd_set_by(record) or cwd
        out.append(cwd)
    return out


def cwd_set_by(record: LineAnalysis) -> str | None:
    """The working directory a line sets from itself on (a ``session_meta`` or ``turn_context`` with a cwd), or
    None: the one rule of :func:`cwd_at`, which the index also reads looking back from a few lines."""
    item = record.record.item if record.record is not None else None
    if isinstance(item, (SessionMeta, TurnContext)) and item.cwd:
        return item.cwd
    return None


def file_changes(analysis: RolloutAnalysis, cwd: str | None = None) -> list[FileChange]:
    """Every file the patch calls of ``analysis`` changed, in call order; ``cwd`` is the working
    directory in effect before its first line (for a window of a rollout)."""
    cwds: list[str | None] | None = None
    out: list[FileChange] = []
    for located in analysis.calls:
        if located.call.kind != PATCH:
            continue
        if cwds is None:
            cwds = cwd_at(analysis, cwd)
        out.extend(call_changes(analysis, located, cwds[located.line]))
    return out


def call_changes(analysis: RolloutAnalysis, located: LocatedCall, cwd: str | None) -> list[FileChange]:
    """The files one patch call changed."""
    call = located.call
    event = located.event[1] if located.event is not None else None
    base = resolve(call.workdir, cwd) if call.workdir else cwd
    state = applied(located)
    following = _next_command(analysis, located)
    if call.files and call.patch is not None:
        hunks = patch_hunks(call.patch, call.files)
        return [
            FileChange(
                located.line,
                located.index,
                number,
                entry.action,
                entry.path,
                entry.move_to,
                _absolute(entry.path, base, event),
                _absolute(entry.move_to, base, event) if entry.move_to else None,
                state,
                hunks[number],
                located.record.is_exec,
                following,
            )
            for number, entry in enumerate(call.files)
        ]
    if event is not None and event.files:  # a computed patch: the files its event lists
        return [
            FileChange(
                located.line,
                located.index,
                number,
                f.action,
                f.path,
                f.move_to,
                resolve(f.path, base),
                resolve(f.move_to, base) if f.move_to else None,
                state,
                (),
                located.record.is_exec,
                following,
            )
            for number, f in enumerate(event.files)
        ]
    return []


def _absolute(path: str, base: str | None, event: ToolEvent | None) -> str | None:
    """The patch path resolved; an absolute path of the event that names it wins (Codex resolved it)."""
    if event is not None and not is_absolute(path):
        for entry in event.files:
            for candidate in (entry.path, entry.move_to):
                if candidate and is_absolute(candidate) and same_path(candidate, path):
                    return resolve(candidate, None)
    return resolve(path, base)


def _next_command(analysis: RolloutAnalysis, located: LocatedCall) -> str | None:
    """The command a script runs after its patch (what checked it, usually), when exactly known."""
    if not located.record.is_exec:
        return None
    for other in analysis.calls_on(located.line):
        if other.index > located.index and other.call.command is not None:
            return other.call.command
    return None


def changed_paths(changes: Iterable[FileChange]) -> list[str]:
    """The absolute paths (else as written) of ``changes``, each once, in order; a move gives both."""
    seen: dict[str, None] = {}
    for change in changes:
        for path in (change.absolute or change.path, change.move_absolute or change.move_to):
            if path:
                seen.setdefault(path, None)
    return list(seen)


__all__ = [
    "FileChange",
    "Hunk",
    "Place",
    "NO",
    "UNKNOWN",
    "YES",
    "applied",
    "call_changes",
    "changed_paths",
    "cwd_at",
    "file_changes",
    "is_absolute",
    "is_windows_path",
    "patch_hunks",
    "path_key",
    "relative_key",
    "resolve",
    "session_place",
]
