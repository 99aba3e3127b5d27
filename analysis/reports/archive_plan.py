"""What ``rollout-lsp archive`` would move: the rollouts of a Codex home's ``sessions/`` folder old enough (and of
the project asked for), less those it keeps back, each with the reason.

Kept back: a ``live`` session (modified within :data:`LIVE_MINUTES` minutes and its last turn not ended), a
rollout a staying session reads (a fork by reference reads its parent up to a byte offset, a segment reads the
previous segment whole: :func:`analysis.session.references.head_parents`), the other rollouts of a thread one of
whose rollouts stays (Codex moves a thread's files together), a rollout Codex itself is moving (a
``.codex-move-intent`` beside it), one whose name is taken in ``archived_sessions/`` (never overwritten), one on
another file system (a rename cannot move it), and every symbolic link (never followed).  Only regular files below
``sessions/`` are ever candidates: nothing outside it is looked at.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ..jsonl.line_stream import Unreadable, read_lines
from ..session.references import HISTORY_BASE, head_parents, may_refer
from ..session.turns import scan_turns
from .index import find_repository_root

SESSIONS, ARCHIVED = "sessions", "archived_sessions"  # codex-rs/rollout/src/lib.rs
LIVE_MINUTES = 5  # a file modified this recently whose last turn has not ended is being written
TAIL_BYTES = 256 * 1024  # where the last timestamp of a plain rollout is looked for first
CODEX_INTENT, CODEX_STAGE = ".codex-move-intent", ".codex-rollout-stage-"  # Codex's own no-clobber moves
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_THREAD = re.compile(rf"^rollout-.*?-(?P<thread>{_UUID})(?:_[0-9A-Za-z-]+)?\.jsonl(?:\.zst)?$")


def codex_home(option: str | None = None) -> str:
    """``--codex-home``, else ``$CODEX_HOME``, else ``~/.codex`` (absolute, symbolic links not resolved)."""
    home = option or os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return os.path.abspath(os.path.expanduser(home))


def is_rollout_name(name: str) -> bool:
    return (name.endswith(".jsonl") or name.endswith(".jsonl.zst")) and not name.startswith(CODEX_STAGE)


def thread_of(path: str) -> str:
    """The thread a rollout belongs to: the id in its name (``rollout-<time>-<thread>[_<rollout id>].jsonl``),
    else the file itself."""
    found = _THREAD.match(os.path.basename(path))
    return found.group("thread").lower() if found else path


@dataclass
class Session:
    path: str  # absolute, below sessions/
    size: int
    mtime_ns: int
    dev: int
    last_activity: float  # epoch seconds: the last line's timestamp, else the file's modification time
    live: bool
    project: str | None
    parents: list[tuple[str, str]] = field(default_factory=list)  # (real path of a file it reads, kind)

    @property
    def thread(self) -> str:
        return thread_of(self.path)


@dataclass(frozen=True)
class Held:
    path: str
    reason: str


@dataclass
class Plan:
    home: str
    moves: list[Session]  # in the order they are moved: a file before the files it reads
    held: list[Held]
    staying: int  # sessions that are not asked for (newer, or of another project) and stay

    @property
    def total_bytes(self) -> int:
        return sum(s.size for s in self.moves)


def _timestamp(line: str) -> float | None:
    if '"timestamp"' not in line:
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    stamp = value.get("timestamp") if isinstance(value, dict) else None
    if not isinstance(stamp, str):
        return None
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.timestamp() if parsed.tzinfo is not None else None


def _head_meta(lines: Iterable[str]) -> dict:
    for line in lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
            return value["payload"]
    return {}


def read_session(path: str, st: os.stat_result, now: float, live_minutes: float) -> Session:
    """What the plan needs of one rollout: its last activity, whether it is live, its project, the files it reads."""
    recent = now - st.st_mtime < live_minutes * 60
    last: float | None = None
    live = False
    head: list[str] = []
    if recent or path.endswith(".zst"):  # read whole, as a stream: a live file's turns, a compressed file's end
        stamped: deque[str] = deque(maxlen=8)  # the last lines naming a timestamp (the very last may be cut)

        def lines() -> Iterator[str]:
            try:
                for line, _ in read_lines(path):
                    if len(head) < 16:
                        head.append(line)
                    if '"timestamp"' in line:
                        stamped.append(line)
                    yield line
            except Unreadable:
                return

        if recent:
            turns = scan_turns(lines())
            live = not turns or turns[-1].status is None
        else:
            deque(lines(), maxlen=0)
        for line in reversed(stamped):
            last = _timestamp(line)
            if last is not None:
                break
    else:
        with open(path, "rb") as handle:
            head = [raw.decode("utf-8", "replace") for raw in _first_lines(handle, 16)]
            handle.seek(max(st.st_size - TAIL_BYTES, 0))
            tail = handle.read().decode("utf-8", "replace").splitlines()
        for line in reversed(tail):
            last = _timestamp(line)
            if last is not None:
                break
    meta = _head_meta(head)
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) and meta.get("cwd") else None
    project = (find_repository_root(cwd) or cwd) if cwd else None
    session = Session(
        path, st.st_size, st.st_mtime_ns, st.st_dev, last if last is not None else st.st_mtime, live, project
    )
    if head and not any(may_refer(line) for line in head[:16]):
        return session  # no line of its head can name a parent: nothing to resolve
    _, parents = head_parents(path, head=head or None)
    for parent in parents:
        if parent.path is not None:
            kind = "a fork by reference" if parent.reference.kind == HISTORY_BASE else "a later segment"
            session.parents.append((os.path.realpath(parent.path), kind))
    return session


def _first_lines(handle, count: int) -> list[bytes]:
    out = []
    for raw in handle:
        out.append(raw.rstrip(b"\r\n"))
        if len(out) >= count:
            break
    return out


def _in_project(project: str | None, wanted: str | None) -> bool:
    if wanted is None:
        return True
    if project is None:
        return False
    project = os.path.realpath(project)
    return project == wanted or project.startswith(wanted.rstrip(os.sep) + os.sep)


def make_plan(
    home: str,
    older_than_days: float,
    project: str | None = None,
    now: float | None = None,
    live_minutes: float = LIVE_MINUTES,
) -> Plan:
    """The files :func:`analysis.reports.archive.archive` would move, and those it keeps back with the reason."""
    now = time.time() if now is None else now
    sessions_dir, archived_dir = os.path.join(home, SESSIONS), os.path.join(home, ARCHIVED)
    wanted = os.path.realpath(project) if project is not None else None
    held: dict[str, str] = {}
    found: list[Session] = []
    if not os.path.isdir(sessions_dir) or os.path.islink(sessions_dir):
        reason = "a symbolic link (never followed)" if os.path.islink(sessions_dir) else "no such folder"
        return Plan(home, [], [Held(sessions_dir, reason)], 0)
    if os.path.islink(archived_dir):
        return Plan(home, [], [Held(archived_dir, "a symbolic link (never followed): nothing is moved into it")], 0)
    archive_dev = _device(archived_dir) or _device(home)
    for folder, dirs, files in os.walk(sessions_dir):  # never follows a link to a folder
        dirs.sort()
        for name in sorted(dirs):
            if os.path.islink(os.path.join(folder, name)):
                held[os.path.join(folder, name)] = "a symbolic link (never followed)"
        names = set(files)
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(CODEX_INTENT) or name.startswith(CODEX_STAGE):
                held[path] = "Codex's own move in progress (skipped)"
                continue
            if not is_rollout_name(name):
                continue
            try:
                st = os.lstat(path)
            except OSError as error:
                held[path] = f"cannot be read: {error.strerror}"
                continue
            if stat.S_ISLNK(st.st_mode):
                held[path] = "a symbolic link (never followed)"
                continue
            if not stat.S_ISREG(st.st_mode):
                held[path] = "not a regular file"
                continue
            try:
                session = read_session(path, st, now, live_minutes)
            except OSError as error:
                held[path] = f"cannot be read: {error.strerror}"
                continue
            found.append(session)
            if name + CODEX_INTENT in names:
                held[path] = "Codex's own move in progress (skipped)"
    asked = {
        s.path
        for s in found
        if now - s.last_activity > older_than_days * 86400 and _in_project(s.project, wanted) and s.path not in held
    }
    for s in found:
        if s.path not in asked:
            continue
        target = os.path.join(archived_dir, os.path.basename(s.path))
        if s.live:
            held[s.path] = f"live: modified within the last {live_minutes:g} minutes and its last turn not ended"
        elif os.path.lexists(target):
            held[s.path] = f"{os.path.relpath(target, home)} exists already (never overwritten)"
        elif archive_dev is not None and s.dev != archive_dev:
            held[s.path] = "on another file system than archived_sessions/ (a rename cannot move it)"
    _hold_needed(found, asked, held, home)
    moving = [s for s in found if s.path in asked and s.path not in held]
    staying = sum(1 for s in found if s.path not in asked and s.path not in held)
    ordered_held = [Held(p, held[p]) for p in sorted(held)]
    return Plan(home, _readers_first(moving), ordered_held, staying)


def _hold_needed(found: list[Session], asked: set[str], held: dict[str, str], home: str) -> None:
    """Keeps back, until nothing changes, what a staying session reads and the rest of a staying thread."""
    by_real = {os.path.realpath(s.path): s for s in found}
    changed = True
    while changed:
        changed = False
        stays = [s for s in found if s.path not in asked or s.path in held]
        threads = {s.thread: s for s in stays}
        for s in stays:
            for real, kind in s.parents:
                parent = by_real.get(real)
                if parent is not None and parent.path in asked and parent.path not in held:
                    held[parent.path] = f"read by {os.path.relpath(s.path, home)} ({kind}), which stays"
                    changed = True
        for s in found:
            other = threads.get(s.thread)
            if s.path in asked and s.path not in held and other is not None and other is not s:
                held[s.path] = f"another rollout of its thread stays: {os.path.relpath(other.path, home)}"
                changed = True


def _readers_first(moving: list[Session]) -> list[Session]:
    """Oldest first, except that a file is moved before every file it reads: a run killed half way never leaves
    a reader behind without what it reads."""
    ordered = sorted(moving, key=lambda s: (s.last_activity, s.path))
    real = {os.path.realpath(s.path): s for s in ordered}
    readers: dict[str, list[Session]] = {}
    for s in ordered:
        for parent, _ in s.parents:
            if parent in real:
                readers.setdefault(real[parent].path, []).append(s)
    out: list[Session] = []
    done: set[str] = set()

    def visit(s: Session, seen: frozenset[str]) -> None:
        if s.path in done or s.path in seen:
            return
        for reader in readers.get(s.path, []):
            visit(reader, seen | {s.path})
        done.add(s.path)
        out.append(s)

    for s in ordered:
        visit(s, frozenset())
    return out


def _device(path: str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None
