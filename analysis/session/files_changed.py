"""What a session changed, as a reviewer reads it: the files each call touched (patches at the top level and
in scripts, and the calls a ``patch_apply_end`` event reports) and the same gathered per file, for the
Outline, ``outline``, ``files`` and the export.

Each touch is read from one call alone (its patch's files, or its event's, and its outcome), so that a
streamed reading (``outline --json``) says exactly what the whole-file one says.  The full record of a
change (hunks, paths resolved against the workdir and the turn's cwd), which the index stores for
``rollout-lsp blame``, is :mod:`analysis.session.changes`; files are compared here as it compares them.

A ``patch_apply_end`` event's changes are what Codex applied, so they are preferred to the patch's own
text; a patch that failed, dead code and a script V8 refused touched nothing (``applied`` says which
attempts did not apply, so a reader can still see them).

This module is the one definition every view reads (the Outline's ``files changed`` rows, ``outline``,
``files``, ``export``; blame and the lenses read :func:`~analysis.session.patch_applied.patch_applied`
through :mod:`analysis.session.changes`): a file is one file however its paths are spelt (``C:\\a\\b.py``
and ``c:/a/b.py`` in a Windows session), a call whose patch did not apply is listed as not applied, never
as what it tried (:func:`file_row`: ``updated (line 228; not applied: lines 213, 222)``), and a session whose
changes all lie in one turn lists them once, under that turn (:func:`session_list`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from ..jsonl.memo import once_per_object
from ..script.calls import PATCH
from .changes import is_absolute, is_windows_path, relative_key
from .events import PATCH_END
from .patch_applied import patch_applied
from .rollout import LocatedCall, RolloutAnalysis


@dataclass(frozen=True, slots=True)
class FileTouch:
    """One file one call touched: ``line``/``index`` name the call (its record's line, its place in it)."""

    path: str
    action: str  # add, update, delete
    line: int
    index: int
    move_to: str | None = None
    applied: bool | None = None  # patch_applied: False, it did not apply; None, nothing says

    @property
    def verb(self) -> str:
        """``added``, ``updated``, ``deleted`` or ``moved``."""
        if self.move_to:
            return "moved"
        return {"add": "added", "update": "updated", "delete": "deleted"}.get(self.action, self.action)

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "action": self.action,
            "move_to": self.move_to,
            "line": self.line,
            "index": self.index,
            "applied": self.applied,
        }


@dataclass(slots=True)
class ChangedFile:
    """A file and every call that touched it, in order; ``final`` is what the session did to it in all."""

    path: str
    touches: list[FileTouch] = field(default_factory=list)

    @property
    def final(self) -> str:
        applied = [t for t in self.touches if t.applied is not False]
        if not applied:
            return "not applied"
        first, last = applied[0], applied[-1]
        if last.action == "delete" and not last.move_to:
            return "added, then deleted" if first.action == "add" else "deleted"
        if any(t.move_to for t in applied):
            return "moved"
        return "added" if first.action == "add" else "updated"

    def lines(self, applied: bool = True) -> list[int]:
        """The lines (from 1) of the calls that touched it, each once: those that applied (or that nothing
        says did not), or with ``applied=False`` those that did not apply."""
        return list(dict.fromkeys(t.line + 1 for t in self.touches if (t.applied is not False) == applied))

    def to_json(self) -> dict:
        return {"path": self.path, "final": self.final, "touches": [t.to_json() for t in self.touches]}


def file_row(changed: ChangedFile) -> str:
    """What was done to a file and by which lines, as every list of changed files says it after the file's
    name: ``added (lines 171, 216)``, ``updated (line 228; not applied: lines 213, 222)``, ``not applied (line
    71)``: a call whose patch did not apply never counts for what it tried."""
    done, failed = changed.lines(), changed.lines(applied=False)
    parts = [_lines(done)] if done else []
    if failed:
        parts.append(f"not applied: {_lines(failed)}" if done else _lines(failed))
    return f"{changed.final} ({'; '.join(parts)})"


def _lines(numbers: list[int]) -> str:
    return f"line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"


@once_per_object
def call_touches(analysis: RolloutAnalysis) -> list[FileTouch]:
    """Every file every call touched, in the order of the calls (the per-call list a blame index reads)."""
    return _touches(analysis)


def _touches(analysis: RolloutAnalysis) -> list[FileTouch]:
    out: list[FileTouch] = []
    for located in analysis.calls:
        out.extend(touches_of(located))
    return out


def touches_of(located: LocatedCall) -> list[FileTouch]:
    """The files one call touched (none for a call that is not a patch and that no patch event reports)."""
    call, event = located.call, located.event[1] if located.event is not None else None
    if call.executed == "no":
        return []
    if event is not None and event.type == PATCH_END and event.files:
        files = [(f.path, f.action, f.move_to) for f in event.files]
    elif call.kind == PATCH and call.files:
        files = [(f.path, f.action, f.move_to) for f in call.files]
    else:
        return []
    applied = patch_applied(located)
    return [FileTouch(path, action, located.line, located.index, move_to, applied) for path, action, move_to in files]


def changed_files(analysis: RolloutAnalysis, first: int = 0, last: int | None = None) -> list[ChangedFile]:
    """The files touched by calls between lines ``first`` and ``last``, each with its touches, in the order
    they were first touched (a move counts for both paths)."""
    last = len(analysis.records) - 1 if last is None else last
    cwd = next((r.session.cwd for r in analysis.records if r.session is not None and r.session.cwd), None)
    by_path: dict[str, ChangedFile] = {}
    for touch in call_touches(analysis):
        if first <= touch.line <= last:
            for path in (touch.path, touch.move_to) if touch.move_to else (touch.path,):
                path = relative(path, cwd)
                changed = by_path.setdefault(_same_file(path, cwd), ChangedFile(path))
                if touch.applied is not False and all(t.applied is False for t in changed.touches):
                    changed.path = path  # named as the first call that changed it spells it
                changed.touches.append(touch)
    return list(by_path.values())


def session_list(analysis: RolloutAnalysis) -> list[ChangedFile]:
    """The session's own ``files changed`` list, shown after its turns' lists: empty when every file was
    changed within one turn, whose list already says all of it (a one-turn session lists its files once)."""
    touches = call_touches(analysis)
    if not touches:
        return []
    turn = next((t for t in analysis.turns if t.line <= touches[0].line <= t.end_line), None)
    if turn is not None and all(turn.line <= t.line <= turn.end_line for t in touches):
        return []
    return changed_files(analysis)


def _same_file(path: str, cwd: str | None) -> str:
    """The key under which two spellings of one file meet: in a Windows session (its cwd, or the path, a
    Windows path) ``\\`` and ``/`` alike and case ignored, as Windows compares them; else the path normalised."""
    if is_windows_path(path) or (cwd and is_windows_path(cwd)):
        return posixpath.normpath(path.replace("\\", "/")).lower()
    return posixpath.normpath(path)


def relative(path: str, cwd: str | None) -> str:
    """``path`` relative to the session's folder when it is inside it (events name files by absolute
    paths, patches mostly by relative ones: one file reads as one), compared as
    :func:`~analysis.session.changes.relative_key` compares paths (a Windows path without regard to case),
    shown as written (``/`` separated)."""
    if cwd and is_absolute(path):
        key = relative_key(path, cwd)
        if key:
            shown = path.replace("\\", "/")
            return shown[-len(key) :] if shown[-len(key) :].lower() == key.lower() else key
    return path


__all__ = [
    "ChangedFile",
    "FileTouch",
    "call_touches",
    "changed_files",
    "file_row",
    "relative",
    "session_list",
    "touches_of",
]
