"""Which sessions changed a file, and which patch added each of its lines: answered from the index.

:func:`file_history` finds the indexed changes of a file (``analysis.session.changes``, stored by
:mod:`analysis.reports.index`) by its absolute path, or, for sessions recorded on another machine, by its
path relative to its repository root; it follows moves back to the file's earlier names.
:func:`attribute_lines` gives each line of the file as it is now the newest patch that added that text:
a run of consecutive lines matched to consecutive added lines of one hunk, or a single line alone only
when it is distinctive (see :func:`distinctive`).  A patch known to have failed is never attributed.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..jsonl.access import denied
from ..session.changes import NO, Hunk, is_windows_path, path_key, relative_key
from ..session.labels import turn_label

if TYPE_CHECKING:  # the index (its process pool, its readers) is imported where it is read, not with this module
    from .index import RolloutIndex

MOVE_DEPTH = 10  # earlier names followed back through moves
COMMON_ADDS = 3  # a line added by more hunks of the file's history than this is not distinctive alone
_URL = re.compile(r"^(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)[:/](.+?)(?:\.git)?/?$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Target:
    """The file asked about: its key, and its repository (root, path relative to it, remote)."""

    path: str
    key: str
    repo_root: str | None = None
    repo_path: str | None = None  # relative to repo_root, ``/`` separated
    repo_url: str | None = None

    @property
    def repo_name(self) -> str | None:
        return _base_name(self.repo_root) if self.repo_root else None


@dataclass(slots=True, eq=False)  # not frozen: its hunks are read from their JSON when first asked for
class Change:
    """One indexed change of the file: the call of a session that made it."""

    id: int
    rollout: str  # the rollout file
    line: int  # the call's line in it (0-based)
    start: int  # the call's columns on that line (UTF-16)
    end: int
    session_id: str | None
    session_time: str | None
    timestamp: str | None
    turn_line: int | None
    turn_title: str | None
    turn_number: int | None  # the turn's ordinal in its file, from 1 (as the Outline and ``files`` number it)
    action: str
    path: str
    move_to: str | None
    absolute: str | None
    move_absolute: str | None
    applied: str
    nested: bool
    hunks_json: str  # as the index stores them: [[header, [lines]], …]
    next_command: str | None
    matched_by: str  # "path" (the same absolute path) or "repository" (the same path in the repository)
    leaves: bool = False  # it deleted the file, or moved it away: lines older than it cannot be in the file
    _hunks: tuple[Hunk, ...] | None = None

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        if self._hunks is None:
            try:
                self._hunks = tuple(Hunk.from_json(h) for h in json.loads(self.hunks_json or "[]"))
            except (ValueError, TypeError, IndexError):
                self._hunks = ()
        return self._hunks

    @property
    def when(self) -> str:
        return self.timestamp or self.session_time or ""

    @property
    def turn_text(self) -> str | None:
        """``turn 2 (line 125)``, as every view names a turn (:func:`~analysis.session.labels.turn_label`);
        ``turn (line 125)`` when the index does not know its ordinal; None outside any turn."""
        if self.turn_line is None:
            return None
        return turn_label(self.turn_number, self.turn_line) if self.turn_number else f"turn (line {self.turn_line + 1})"

    @property
    def action_label(self) -> str:
        if self.move_to:
            return f"move → {self.move_to}" + (" (update)" if self.hunks else "")
        return self.action

    def to_json(self) -> dict[str, Any]:
        return {
            "rollout": self.rollout,
            "line": self.line,
            "range": {
                "start": {"line": self.line, "character": self.start},
                "end": {"line": self.line, "character": self.end},
            },
            "session_id": self.session_id,
            "session_time": self.session_time,
            "timestamp": self.timestamp,
            "turn": {"number": self.turn_number, "line": self.turn_line, "title": self.turn_title}
            if self.turn_line is not None
            else None,
            "action": self.action,
            "path": self.path,
            "move_to": self.move_to,
            "absolute": self.absolute,
            "move_absolute": self.move_absolute,
            "applied": self.applied,
            "nested": self.nested,
            "next_command": self.next_command,
            "matched_by": self.matched_by,
            "leaves": self.leaves,
            "hunks": [h.to_json() for h in self.hunks],
        }


@dataclass(frozen=True, slots=True)
class LineBlame:
    """The patch that added one line of the file: the change, which of its hunks, and the run matched."""

    line: int  # 0-based, in the file as it is now
    change: Change
    hunk: int
    run: tuple[int, int]  # the first and last line of the file matched together with this one

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "change": self.change.id,
            "hunk": self.hunk,
            "run": {"start": self.run[0], "end": self.run[1]},
        }


# -- the file asked about ----------------------------------------------------------------------------------


def target_of(path: str) -> Target:
    """``path`` (made absolute) with its repository: the nearest folder holding ``.git``, and that
    repository's ``origin`` remote when its config names one."""
    from .index import find_repository_root

    absolute = path if is_windows_path(path) else os.path.abspath(path)
    root = find_repository_root(os.path.dirname(absolute))
    relative = relative_key(absolute, root) if root else None
    return Target(
        absolute,
        path_key(absolute),
        root if relative else None,
        relative,
        _origin_url(root) if relative and root else None,
    )


def _origin_url(root: str) -> str | None:
    """``remote "origin"``'s url in ``.git/config`` (a worktree's ``.git`` file is not followed); never of a
    checkout in a folder the path rule denies (analysis.jsonl.access: ``/etc``, ``~/.ssh``, …)."""
    config = os.path.join(root, ".git", "config")
    if denied(os.path.normpath(config)) or denied(os.path.realpath(config)):
        return None
    try:
        with open(config, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 16)
    except OSError:
        return None
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section == '[remote "origin"]' and line.replace(" ", "").startswith("url="):
            return line.split("=", 1)[1].strip()
    return None


def same_remote(a: str | None, b: str | None) -> bool:
    """Whether two remote URLs name the same repository (``git@host:o/r.git`` and ``https://host/o/r``)."""
    if not a or not b:
        return False
    ma, mb = _URL.match(a.strip()), _URL.match(b.strip())
    if ma is None or mb is None:
        return a.strip() == b.strip()
    return (ma.group(1).lower(), ma.group(2).lower()) == (mb.group(1).lower(), mb.group(2).lower())


def _base_name(path: str) -> str:
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1]


# -- the history of a file ---------------------------------------------------------------------------------

_COLUMNS = (
    "ch.id",
    "f.path",
    "ch.line",
    "c.start16",
    "c.end16",
    "ch.session_id",
    "f.session_time",
    "ch.timestamp",
    "ch.turn_line",
    "ch.turn_title",
    "c.turn_number",
    "ch.action",
    "ch.path",
    "ch.move_to",
    "ch.absolute",
    "ch.move_absolute",
    "ch.applied",
    "ch.nested",
    "ch.hunks",
    "ch.next_command",
    "ch.path_key",
    "ch.move_key",
    "ch.repo_path",
    "ch.repo_move_path",
    "f.repo_root",
    "f.repo_url",
)
_SELECT = (
    f"SELECT {', '.join(_COLUMNS)} FROM changes ch JOIN files f ON f.id = ch.file_id "
    "LEFT JOIN calls c ON c.file_id = ch.file_id AND c.line = ch.line AND c.call_index = ch.call_index "
)


def file_history(index: RolloutIndex, target: Target | str) -> list[Change]:
    """Every indexed change of the file, newest first: those that name it (added, updated, deleted, moved
    here or away), then, through each move that brought it here, those of its earlier names before it."""
    from .index import IndexUnavailable

    if isinstance(target, str):
        target = target_of(target)
    found: dict[int, Change] = {}
    # (path key, path in the repository, the time before which its changes count: None for the file's own name)
    names: list[tuple[str, str | None, str | None]] = [(target.key, target.repo_path, None)]
    seen = set()
    try:
        for _depth in range(MOVE_DEPTH + 1):
            if not names:
                break
            next_names: list[tuple[str, str | None, str | None]] = []
            for key, repo_path, before in names:
                if (key, repo_path) in seen:
                    continue
                seen.add((key, repo_path))
                for change, row in _changes_named(index, target, key, repo_path):
                    if before is not None and change.when >= before:
                        continue
                    found.setdefault(change.id, change)
                    moved_here = change.move_to and (
                        row["move_key"] == key or (repo_path and row["repo_move_path"] == repo_path.lower())
                    )
                    if moved_here and row["path_key"]:
                        next_names.append((row["path_key"], row["repo_path"], change.when))
            names = next_names
    except sqlite3.DatabaseError as error:
        raise IndexUnavailable(f"{index.path}: {error}", broken=True) from error
    return sorted(found.values(), key=lambda c: (c.when, c.rollout, c.line, c.id), reverse=True)


_NAMES = tuple("rollout" if c == "f.path" else c.split(".")[1] for c in _COLUMNS)


def _changes_named(index: RolloutIndex, target: Target, key: str, repo_path: str | None) -> list[tuple[Change, dict]]:
    where, params = ["ch.path_key = ?", "ch.move_key = ?"], [key, key]
    if repo_path:
        where += ["ch.repo_path = ?", "ch.repo_move_path = ?"]
        params += [repo_path.lower()] * 2
    out = []
    for values in index.db.execute(_SELECT + "WHERE " + " OR ".join(where), params):
        row = dict(zip(_NAMES, values))
        if row["path_key"] == key or row["move_key"] == key:
            matched = "path"
            here = row["move_key"] == key if row["move_to"] else True
        elif repo_path and _same_repository(target, row, repo_path):  # (never the same without one)
            matched = "repository"
            here = row["repo_move_path"] == repo_path.lower() if row["move_to"] else True
        else:
            continue
        out.append((_change(row, matched, row["action"] == "delete" or not here), row))
    return out


def _same_repository(target: Target, row: dict, repo_path: str | None) -> bool:
    """A change found by its path in the repository is the file's when the repositories agree: the same
    root, the same remote, or (when either remote is unknown) the same folder name; and, where both sides
    are POSIX paths, the path's case agrees."""
    root = row["repo_root"]
    if not root or not target.repo_root or not repo_path:
        return False
    if path_key(root) == path_key(target.repo_root):
        pass
    elif row["repo_url"] and target.repo_url:
        if not same_remote(row["repo_url"], target.repo_url):
            return False
    elif _base_name(root).lower() != (target.repo_name or "").lower():
        return False
    if not is_windows_path(root) and not is_windows_path(target.repo_root):
        exact = [relative_key(p, root) for p in (row["absolute"], row["move_absolute"]) if p]
        return repo_path in exact
    return True


def _change(row: dict, matched: str, leaves: bool) -> Change:
    return Change(
        row["id"],
        row["rollout"],
        row["line"],
        row["start16"] or 0,
        row["end16"] or 0,
        row["session_id"],
        row["session_time"],
        row["timestamp"],
        row["turn_line"],
        row["turn_title"],
        row["turn_number"],
        row["action"],
        row["path"],
        row["move_to"],
        row["absolute"],
        row["move_absolute"],
        row["applied"],
        bool(row["nested"]),
        row["hunks"],
        row["next_command"],
        matched,
        leaves,
    )


def sessions_of(changes: Sequence[Change]) -> list[str]:
    """The sessions of ``changes``, each once, newest first (a change without a session id counts by its
    rollout)."""
    return list(dict.fromkeys(c.session_id or c.rollout for c in changes))


# -- lines -------------------------------------------------------------------------------------------------


def is_trivial(text: str) -> bool:
    """Blank, or punctuation only (``}``, ``);``, ``*/``): says nothing about where it came from."""
    return not any(ch.isalnum() for ch in text)


def distinctive(text: str, in_file: int, added_by: int) -> bool:
    """Whether a line may be attributed on its own: not trivial, at least 4 characters besides spaces,
    once in the file, and added by at most :data:`COMMON_ADDS` hunks of the file's history."""
    return not is_trivial(text) and len(text.strip()) >= 4 and in_file == 1 and added_by <= COMMON_ADDS


def attribute_lines(lines: Sequence[str], history: Sequence[Change]) -> list[LineBlame | None]:
    """For each line, the newest patch of ``history`` (newest first) that added its text, or None.  Only
    patches after the file was last deleted or moved away count: nothing older can be in it."""
    result: list[LineBlame | None] = [None] * len(lines)
    positions: dict[str, list[int]] = defaultdict(list)
    for number, text in enumerate(lines):
        positions[text].append(number)
    in_file = {text: len(where) for text, where in positions.items()}
    added_by: Counter[str] = Counter()
    since = next((n for n, c in enumerate(history) if c.leaves and c.applied != NO), len(history))
    candidates = [c for c in history[:since] if c.applied != NO and not c.leaves and c.hunks]
    for change in candidates:
        for hunk in change.hunks:
            added_by.update(set(hunk.added))
    left = len(lines)
    for change in candidates:
        if not left:
            break
        for number, hunk in enumerate(change.hunks):
            for run in hunk.added_runs():
                for first, last in _matches(run, positions):
                    if last > first:
                        if all(is_trivial(lines[i]) for i in range(first, last + 1)):
                            continue
                    elif not distinctive(lines[first], in_file[lines[first]], added_by[lines[first]]):
                        continue
                    for i in range(first, last + 1):
                        if result[i] is None:
                            result[i] = LineBlame(i, change, number, (first, last))
                            left -= 1
    return result


def _matches(run: tuple[str, ...], positions: dict[str, list[int]]) -> list[tuple[int, int]]:
    """The maximal stretches of file lines equal to consecutive lines of ``run``, as (first, last)."""
    diagonals: dict[int, list[int]] = defaultdict(list)
    for j, text in enumerate(run):
        for i in positions.get(text, ()):
            diagonals[i - j].append(i)
    out = []
    for found in diagonals.values():
        found.sort()
        start = previous = found[0]
        for i in found[1:]:
            if i != previous + 1:
                out.append((start, previous))
                start = i
            previous = i
        out.append((start, previous))
    return out


def read_lines(path: str) -> list[str]:
    """The file's lines as an editor shows them (``\\r\\n``, ``\\r`` and ``\\n`` end a line)."""
    with open(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8", errors="replace")
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines


__all__ = [
    "COMMON_ADDS",
    "Change",
    "LineBlame",
    "Target",
    "attribute_lines",
    "distinctive",
    "file_history",
    "is_trivial",
    "read_lines",
    "same_remote",
    "sessions_of",
    "target_of",
]
