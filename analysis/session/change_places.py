"""Where a session's change is in the file as it is now: from a file row of a rollout to the file itself.

For the calls on one record line, the files they changed (:func:`~analysis.session.changes.call_changes`,
paths resolved against the call's ``workdir``, else the turn's or the session's cwd), and, once the file is
read, the line where the change's first hunk starts in it: the hunk's new side (context and added lines)
found whole, else its first block of added lines found and the lines before it in the hunk counted back,
else its ``@@`` anchor line.  Lines are compared without trailing spaces, as ``apply_patch`` matches them.
Nothing is read here: the caller gives the file's lines.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
from collections.abc import Callable, Sequence

from ..jsonl.access import Access
from .changes import FileChange, Hunk, call_changes, cwd_at, is_windows_path
from .files_changed import call_touches, relative
from .rollout import RolloutAnalysis


def line_changes(analysis: RolloutAnalysis, line: int, cwds: Sequence[str | None] | None = None) -> list[FileChange]:
    """The files the calls on record ``line`` changed (dead code changed nothing), in call order; ``cwds``
    is :func:`~analysis.session.changes.cwd_at` of the analysis, when the caller asks for many lines."""
    if not 0 <= line < len(analysis.records):
        return []
    located = [c for c in analysis.calls_on(line) if c.call.executed != "no"]
    if not located:
        return []
    cwd = (cwds if cwds is not None else cwd_at(analysis))[line]
    return [change for call in located for change in call_changes(analysis, call, cwd)]


def changed_lines(analysis: RolloutAnalysis) -> list[int]:
    """The record lines whose calls changed files (as the Outline's ``files changed`` rows count them)."""
    return list(dict.fromkeys(touch.line for touch in call_touches(analysis)))


def shown_path(analysis: RolloutAnalysis, change: FileChange) -> str:
    """The file as the Outline's rows name it: relative to the session's folder when inside it."""
    cwd = next((r.session.cwd for r in analysis.records if r.session is not None and r.session.cwd), None)
    return relative(change.target or change.move_to or change.path, cwd)


UP_FROM_CWD = 2  # how many folders above the session's cwd a checkout's root may be (cwd in a subfolder)


def local_target(
    change: FileChange,
    cwd: str | None,
    folders: Sequence[str],
    same_repository: Callable[[str, str], bool] = lambda candidate, target: True,
    exists: Callable[[str], bool] | None = None,
) -> str | None:
    """Where the file ``change`` left is on this machine: its own path when that file exists; else, for a
    session of another machine (or another checkout), the same path relative to the session's cwd, or to one
    of the ``UP_FROM_CWD`` folders above it, under one of ``folders`` (the workspace's, in order): the first
    that exists and that ``same_repository(candidate, target)`` accepts (``target``: the session's own path
    of the file; the caller knows how repositories compare).  The highest folder is tried first: the longest
    path below it is the most specific (a package's ``package.json`` in a monorepo, not the root's).  None
    when none does.  ``exists`` says whether a file may be read and is there: by default, a regular file the
    path rule lets be read as a workspace file (inside ``folders``: analysis.jsonl.access), so a patch naming
    ``/etc/passwd``, ``../outside`` or a link out of the workspace finds nothing (the file is not even looked
    at)."""
    if exists is None:
        exists = Access.create(folders).workspace_file
    target = change.target
    if not target:
        return None
    if exists(target):
        return target
    if not cwd or not folders:
        return None
    for base in reversed(_bases(cwd)):
        rest = _below(target, base)
        if rest is None:
            continue
        for folder in folders:
            candidate = os.path.join(folder, *rest)
            if exists(candidate) and same_repository(candidate, target):
                return candidate
    return None


def _bases(cwd: str) -> list[str]:
    """The cwd and the folders above it, up to :data:`UP_FROM_CWD` (never the file system's root: below it
    is everything)."""
    path = ntpath if is_windows_path(cwd) else posixpath
    if path.splitdrive(path.normpath(cwd))[1] in ("\\", "/", ""):
        return []
    bases = [path.normpath(cwd)]
    for _ in range(UP_FROM_CWD):
        parent = path.dirname(bases[-1])
        if parent == bases[-1] or parent in ("/", "") or path.splitdrive(parent)[1] in ("\\", "/", ""):
            break
        bases.append(parent)
    return bases


def _below(target: str, base: str) -> list[str] | None:
    """The parts of ``target`` below the folder ``base`` (compared without case for Windows paths), or None
    when it is not below it."""
    parts, root = path_parts(target), path_parts(base)
    fold = str.lower if is_windows_path(target) else (lambda part: part)
    if len(parts) <= len(root) or [fold(p) for p in parts[: len(root)]] != [fold(p) for p in root]:
        return None
    rest = parts[len(root) :]
    # a part this system would read as a drive or a root (``a:b`` on Windows) would leave the folder
    return None if any(p in (".", "..") or os.path.splitdrive(p)[0] or os.path.isabs(p) for p in rest) else rest


def path_parts(path: str) -> list[str]:
    """The names of a path's folders and file: a Windows path split at either separator, a POSIX one at
    ``/`` only (a backslash is a character of a POSIX name)."""
    if is_windows_path(path):
        return [p for p in ntpath.normpath(path).replace("\\", "/").split("/") if p]
    return [p for p in posixpath.normpath(path).split("/") if p]


def hunk_start(lines: Sequence[str], hunk: Hunk) -> int | None:
    """The 0-based line of ``lines`` where ``hunk`` starts, or None when the file no longer has it."""
    text = [line.rstrip() for line in lines]
    new: list[str] = []
    runs: list[tuple[int, list[str]]] = []  # each block of added lines, with its place in the new side
    for entry in hunk.lines:
        if entry.startswith("-"):
            continue
        if entry.startswith("+"):
            if not runs or runs[-1][0] + len(runs[-1][1]) != len(new):
                runs.append((len(new), []))
            runs[-1][1].append(entry[1:].rstrip())
        new.append(entry[1:].rstrip())
    found = _find(text, new)
    if found is not None:
        return found
    if runs:
        offset, run = runs[0]
        found = _find(text, run)
        if found is not None:
            return max(0, found - offset)
    anchor = hunk.header[2:].strip() if hunk.header else ""
    if anchor:
        for number, line in enumerate(text):
            if line.strip() == anchor:
                return number
    return None


def first_hunk_line(lines: Sequence[str], hunks: Sequence[Hunk]) -> int:
    """Where the first hunk the file still has starts; 0 when none is found (or there is none)."""
    for hunk in hunks:
        found = hunk_start(lines, hunk)
        if found is not None:
            return found
    return 0


def _find(text: Sequence[str], wanted: Sequence[str]) -> int | None:
    if not wanted or all(not w.strip() for w in wanted):  # blank lines alone say nothing about where
        return None
    size = len(wanted)
    for start in range(len(text) - size + 1):
        if text[start] == wanted[0] and list(text[start : start + size]) == list(wanted):
            return start
    return None


__all__ = ["changed_lines", "first_hunk_line", "hunk_start", "line_changes", "shown_path"]
