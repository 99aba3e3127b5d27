"""``rollout-lsp archive``: old sessions moved to the Codex home's ``archived_sessions/`` as Codex's own archive moves
them (the same file name, a flat folder), and put back with ``--restore``; nothing is ever deleted.

The plan (what moves, what is kept back and why) is :mod:`.archive_plan`; each move, journaled, and the recovery of
a killed run are :mod:`.archive_journal`.  This module runs them and says what was done, then brings the session
index up to date with the two folders (:meth:`analysis.reports.index.RolloutIndex.update`: the moved files' old rows
go, their new paths are indexed).
"""

from __future__ import annotations

import os
from typing import TextIO

from .archive_journal import Journal, journal_path, reconcile
from .archive_plan import ARCHIVED, LIVE_MINUTES, SESSIONS, Held, make_plan
from .index import IndexUnavailable, RolloutIndex, default_db_path

CODEX_STATE_NOTE = (
    "Codex's own state database is not changed: `codex resume` may list a moved session "
    "until Codex finds it again (its archive and unarchive commands do update it)."
)


def _shown(home: str, path: str) -> str:
    inside = path.startswith(home.rstrip(os.sep) + os.sep)
    return os.path.relpath(path, home) if inside else path


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _settle_journal(home: str, apply: bool, out: TextIO) -> Journal:
    journal = Journal.read(journal_path(home))
    for said in reconcile(journal, apply):
        print(f"journal: {said}" + ("" if apply else " (settled in the journal by --apply)"), file=out)
    return journal


def _staying(count: int, out: TextIO) -> None:
    verb = "stays" if count == 1 else "stay"
    print(f"{_plural(count, 'other session')} {verb} (newer, or of another project).", file=out)


def _held_lines(home: str, held: list[Held], out: TextIO) -> None:
    if held:
        print(f"kept back {len(held)}:", file=out)
        for item in held:
            print(f"  {_shown(home, item.path)}: {item.reason}", file=out)


def archive(
    home: str,
    older_than_days: float,
    project: str | None,
    apply: bool,
    out: TextIO,
    db: str | None = None,
    live_minutes: float = LIVE_MINUTES,
) -> int:
    """Prints what would move (and, with ``apply``, moves it); 0 when every planned move was made, 1 otherwise."""
    print(f"Codex home: {home}", file=out)
    if apply and not os.path.lexists(os.path.join(home, ARCHIVED)):
        os.makedirs(os.path.join(home, ARCHIVED))
    journal = _settle_journal(home, apply, out)
    plan = make_plan(home, older_than_days, project, live_minutes=live_minutes)
    archived_dir = os.path.join(home, ARCHIVED)
    held = list(plan.held)
    what = f"sessions older than {older_than_days:g} days" + (f" of {project}" if project else "")
    if not apply:
        print(
            f"would move {_plural(len(plan.moves), 'rollout')} ({plan.total_bytes} bytes) of the {what} "
            f"to {ARCHIVED}/:",
            file=out,
        )
        for session in plan.moves:
            print(f"  {_shown(home, session.path)}  {session.size} bytes", file=out)
        _held_lines(home, held, out)
        _staying(plan.staying, out)
        print("dry run: nothing was moved; run again with --apply to move them.", file=out)
        return 0
    moved, moved_bytes, failed = 0, 0, False
    for session in plan.moves:
        target = os.path.join(archived_dir, os.path.basename(session.path))
        try:
            journal.move("archive", session.path, target)
        except FileExistsError:
            held.append(Held(session.path, f"{_shown(home, target)} exists already (never overwritten)"))
            failed = True
            continue
        except OSError as error:
            held.append(Held(session.path, f"cannot be moved: {error.strerror or error}"))
            failed = True
            continue
        moved += 1
        moved_bytes += session.size
        print(f"moved {_shown(home, session.path)} → {_shown(home, target)}  {session.size} bytes", file=out)
    _held_lines(home, held, out)
    _staying(plan.staying, out)
    print(
        f"moved {_plural(moved, 'rollout')} ({moved_bytes} bytes) to {ARCHIVED}/; journal: {journal.path}; "
        "`rollout-lsp archive --restore --apply` puts them back.",
        file=out,
    )
    if moved:
        print(CODEX_STATE_NOTE, file=out)
    return 1 if _follow_index(home, db, out) or failed else 0


def restore(home: str, apply: bool, out: TextIO, db: str | None = None) -> int:
    """Puts every archived file of the journal back to its exact old path (``apply``), or says what it would do."""
    print(f"Codex home: {home}", file=out)
    journal = _settle_journal(home, apply, out)
    sessions_dir, archived_dir = os.path.join(home, SESSIONS), os.path.join(home, ARCHIVED)
    planned, held = [], []
    linked = [f for f in (sessions_dir, archived_dir) if os.path.islink(f)]
    if linked:  # never followed: nothing is moved out of or into it
        held = [Held(f, "a symbolic link (never followed): nothing is moved") for f in linked]
    for entry in [] if linked else journal.archived():
        reason = None
        if not _below(entry.target, archived_dir) or not _below(entry.source, sessions_dir):
            reason = f"the journal names a place outside {SESSIONS}/ or {ARCHIVED}/ (not touched)"
        elif os.path.islink(entry.target):
            reason = "now a symbolic link (never followed)"
        elif not os.path.isfile(entry.target):
            reason = "no longer in archived_sessions/ (moved or removed since)"
        elif os.path.lexists(entry.source):
            reason = f"{_shown(home, entry.source)} exists already (never overwritten)"
        if reason is None:
            planned.append((entry, os.lstat(entry.target).st_size))
        else:
            held.append(Held(entry.target, reason))
    total = sum(size for _, size in planned)
    if not apply:
        print(f"would restore {_plural(len(planned), 'rollout')} ({total} bytes):", file=out)
        for entry, size in planned:
            print(f"  {_shown(home, entry.target)} → {_shown(home, entry.source)}  {size} bytes", file=out)
        _held_lines(home, held, out)
        print("dry run: nothing was moved; run again with --apply to put them back.", file=out)
        return 0
    restored, restored_bytes, failed = 0, 0, False
    for entry, size in planned:
        try:
            journal.move("restore", entry.target, entry.source)
        except FileExistsError:
            held.append(Held(entry.target, f"{_shown(home, entry.source)} exists already (never overwritten)"))
            failed = True
            continue
        except OSError as error:
            held.append(Held(entry.target, f"cannot be moved: {error.strerror or error}"))
            failed = True
            continue
        restored += 1
        restored_bytes += size
        print(f"restored {_shown(home, entry.target)} → {_shown(home, entry.source)}  {size} bytes", file=out)
    _held_lines(home, held, out)
    print(f"restored {_plural(restored, 'rollout')} ({restored_bytes} bytes); journal: {journal.path}", file=out)
    if restored:
        print(CODEX_STATE_NOTE, file=out)
    return 1 if _follow_index(home, db, out) or failed else 0


def _below(path: str, folder: str) -> bool:
    return os.path.normpath(path).startswith(folder.rstrip(os.sep) + os.sep) and ".." not in path.split(os.sep)


def _follow_index(home: str, db: str | None, out: TextIO) -> bool:
    """Brings the index (when there is one) up to date with the home's two folders; True when that failed."""
    path = db or str(default_db_path())
    if not os.path.exists(path):
        print(f"index: none at {path} (nothing to update)", file=out)
        return False
    folders = [os.path.join(home, name) for name in (SESSIONS, ARCHIVED)]
    try:
        with RolloutIndex.open(path) as index:
            stats = index.update([f for f in folders if os.path.isdir(f)])
    except IndexUnavailable as error:
        print(f"index: not updated: {error}; run `rollout-lsp index` later", file=out)
        return True
    print(f"index: {stats.full} read, {stats.removed} removed ({path})", file=out)
    return bool(stats.errors)
