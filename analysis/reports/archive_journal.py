"""The archive's journal and its one move: a no-clobber rename, written down before it is made.

The journal is ``<codex home>/rollout-lsp-archive.journal``, JSON Lines appended and fsynced, never rewritten:

- ``{"op": "move", "id", "kind": "archive"|"restore", "from", "to", "size", "ino", "dev", "time"}`` before a move;
- then one outcome with the same ``id``: ``{"op": "done"}`` (the file is at ``to``), ``{"op": "not-moved", "why"}``
  (it is still at ``from``) or ``{"op": "missing"}`` (in neither place: something else moved or removed it).

A move is ``renameat2(RENAME_NOREPLACE)`` (atomic, and it fails rather than replace a file), else, where the system
or file system lacks it, a hard link to the new name then the old name unlinked (the link fails rather than replace
a file).  Both folders are fsynced before the outcome is written.  A move without an outcome (the run was killed) is
settled by :func:`reconcile` from what is on disk before anything else is done.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

JOURNAL_NAME = "rollout-lsp-archive.journal"
KILL_ENV = "ROLLOUT_LSP_ARCHIVE_KILL"  # test hook: "K:STAGE" SIGKILLs the process at STAGE of the K-th move
NO_RENAMEAT2_ENV = "ROLLOUT_LSP_ARCHIVE_NO_RENAMEAT2"  # test hook: use the hard-link way
STAGES = ("intent", "linked", "moved", "done")
_AT_FDCWD, _RENAME_NOREPLACE = -100, 1


def journal_path(home: str) -> str:
    return os.path.join(home, JOURNAL_NAME)


class ArchiveBusy(Exception):
    """Another ``archive --apply`` holds the journal."""


@contextmanager
def exclusive(home: str) -> Iterator[None]:
    """Holds the journal locked (``flock``) for a run that moves files: a second run at once is refused.  Where there
    is no ``flock`` (Windows) nothing is locked."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(journal_path(home), os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ArchiveBusy(f"{journal_path(home)} is held by another `rollout-lsp archive --apply`") from None
        yield
    finally:
        os.close(fd)


@dataclass
class Entry:
    id: str
    kind: str
    source: str
    target: str
    size: int
    ino: int
    dev: int
    outcome: str | None = None  # done, not-moved, missing; None: unsettled

    def to_json(self) -> dict[str, Any]:
        return {
            "op": "move",
            "id": self.id,
            "kind": self.kind,
            "from": self.source,
            "to": self.target,
            "size": self.size,
            "ino": self.ino,
            "dev": self.dev,
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }


@dataclass
class Journal:
    path: str
    entries: list[Entry] = field(default_factory=list)
    moves: int = 0  # moves made by this process (the test hook counts them)

    @classmethod
    def read(cls, path: str) -> Journal:
        journal = cls(path)
        by_id: dict[str, Entry] = {}
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except FileNotFoundError:
            return journal
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:  # a line cut by a kill while it was written: it was never fsynced
                continue
            if not isinstance(value, dict):
                continue
            if value.get("op") == "move":
                try:
                    entry = Entry(*(value[k] for k in ("id", "kind", "from", "to", "size", "ino", "dev")))
                except KeyError:  # not written by this program: left alone
                    continue
                by_id[entry.id] = entry
                journal.entries.append(entry)
            elif value.get("id") in by_id:
                by_id[value["id"]].outcome = value.get("op")
        return journal

    def unsettled(self) -> list[Entry]:
        return [e for e in self.entries if e.outcome is None]

    def archived(self) -> list[Entry]:
        """The archive moves done and not restored since, latest first (the order a restore goes)."""
        at: dict[str, Entry] = {}
        for entry in self.entries:
            if entry.outcome != "done":
                continue
            if entry.kind == "archive":
                at[entry.target] = entry
            elif at.get(entry.source) is not None and at[entry.source].source == entry.target:
                del at[entry.source]
        return sorted(at.values(), key=self.entries.index, reverse=True)

    def _append(self, value: dict[str, Any]) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            data = json.dumps(value, ensure_ascii=False) + "\n"
            if size and _last_byte(self.path, size) != b"\n":  # after a line cut by a kill
                data = "\n" + data
            os.write(fd, data.encode("utf-8", "surrogateescape"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def settle(self, entry: Entry, outcome: str, **extra: Any) -> None:
        self._append({"op": outcome, "id": entry.id, **extra})
        entry.outcome = outcome

    def move(self, kind: str, source: str, target: str) -> Entry:
        """Moves ``source`` to ``target`` (the folder made if needed), journaled.  Raises ``FileExistsError`` when
        ``target`` exists (nothing moved, the entry settled ``not-moved``) and ``OSError`` on a failure."""
        st = os.lstat(source)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        entry = Entry(uuid.uuid4().hex, kind, source, target, st.st_size, st.st_ino, st.st_dev)
        self._append(entry.to_json())
        self.entries.append(entry)
        self.moves += 1
        _hook(self.moves, "intent")
        try:
            _rename_noreplace(source, target, lambda: _hook(self.moves, "linked"))
        except OSError as error:
            self.settle(entry, "not-moved", why=error.strerror or str(error))
            raise
        _fsync_dir(os.path.dirname(target))
        _fsync_dir(os.path.dirname(source))
        _hook(self.moves, "moved")
        self.settle(entry, "done")
        _hook(self.moves, "done")
        return entry


def reconcile(journal: Journal, apply: bool) -> list[str]:
    """Settles each move a killed run left without an outcome, from what is on disk (with ``apply``: written to the
    journal, and a file left under both names by a kill between link and unlink loses its old name); says what."""
    said = []
    for entry in journal.unsettled():
        source, target = _stat(entry.source), _stat(entry.target)
        same = (
            source is not None
            and target is not None
            and (source.st_ino, source.st_dev) == (target.st_ino, target.st_dev)
        )
        if same:
            outcome, note = "done", "moved (its old name removed)"
            if apply:
                os.unlink(entry.source)
                _fsync_dir(os.path.dirname(entry.source))
        elif source is not None:
            outcome, note = "not-moved", "not moved"
        elif target is not None and (target.st_ino, target.st_dev) == (entry.ino, entry.dev):
            outcome, note = "done", "moved"
        else:
            outcome, note = "missing", "in neither place"
        said.append(f"an interrupted {entry.kind} of {entry.source} → {entry.target}: {note}")
        if apply:
            journal.settle(entry, outcome, reconciled=True)
        else:
            entry.outcome = outcome
    return said


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _last_byte(path: str, size: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        return handle.read(1)


def _fsync_dir(folder: str) -> None:
    if os.name == "nt":  # Windows cannot open a folder as a file; NTFS journals its renames itself
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _renameat2() -> Callable[..., int] | None:
    if os.environ.get(NO_RENAMEAT2_ENV):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, TypeError):  # no C library to load by that name (Windows)
        return None
    function = getattr(libc, "renameat2", None)
    if function is None:
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _rename_noreplace(source: str, target: str, linked: Callable[[], None]) -> None:
    """Renames without ever replacing ``target``: ``FileExistsError`` when it exists."""
    function = _renameat2()
    if function is not None:
        result = function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE)
        if result == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # else the file system lacks it: link
            raise OSError(code, os.strerror(code), source, None, target)
    os.link(source, target, follow_symlinks=False)  # FileExistsError when target exists
    linked()
    os.unlink(source)


def _hook(count: int, stage: str) -> None:
    """The test hook of :data:`KILL_ENV`: dies as a power cut would, with nothing flushed or cleaned up."""
    wanted = os.environ.get(KILL_ENV)
    if wanted and wanted == f"{count}:{stage}":
        os.kill(os.getpid(), signal.SIGKILL)
