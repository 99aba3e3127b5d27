"""The index's database file: where it lives, opening it (WAL, the schema made or rebuilt), transactions, and
telling a locked database from a corrupt one and a corrupt one that may be rebuilt from another file.

No data is lost (issue 31): a database that cannot be written is an error and is left as it is (same bytes,
mode and owner); only a file that is ours (:data:`APPLICATION_ID` in its header) and corrupt is rebuilt, and
then the old file (with its ``-wal`` and ``-shm``) is first renamed ``PATH.corrupt-<time>`` and kept; a file
that is not ours is never touched.  ``--rebuild`` renames the old index ``PATH.old-<time>`` and deletes it only
once the new one is complete (the indexing finished)."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from .schema import _SCHEMA, _TABLES, APPLICATION_ID, SCHEMA_VERSION

INDEX_ENV = "ROLLOUT_LSP_INDEX"  # a database path that overrides the default (tests, several indexes)
DB_NAME = "index.sqlite3"
SQLITE_HEADER = b"SQLite format 3\x00"
# SQLite's primary result codes (fixed by its C API); the module names them only from Python 3.11, which is
# also when errors carry ``sqlite_errorcode``
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 6, 11, 26


class IndexUnavailable(Exception):
    """The index cannot be used: missing, locked, corrupt, of another schema, or not this project's."""

    def __init__(self, message: str, broken: bool = False) -> None:
        super().__init__(message)
        self.broken = broken  # the database failed (not merely locked or missing): rebuilding may mend it


def _failure(path: Path, error: sqlite3.Error, hint: str = "") -> IndexUnavailable:
    locked = _is_locked(error)
    return IndexUnavailable(f"{path}: {_describe(error)}" + ("" if locked else hint), broken=_is_corruption(error))


def unwritable(path: Path) -> str | None:
    """Why the index at ``path`` cannot be written (None: it can): the file, or its folder (where SQLite makes
    the ``-wal`` and ``-shm`` files), is not writable by this user, or grants no one write access (even to
    root, who may write anything: a file made read-only is meant to stay as it is)."""
    for place, what in ((path, "the index file"), (path.parent, "its folder")):
        try:
            mode = os.stat(place).st_mode
        except FileNotFoundError:
            continue  # a file not made yet (its folder is looked at next)
        except OSError as error:
            return f"cannot examine {what}: {error.strerror or error}"
        if place == path and not stat.S_ISREG(mode):
            return f"{what} is not a regular file"
        if not os.access(place, os.W_OK) or not mode & 0o222:
            return f"{what} is read-only"
    return None


def is_ours(path: Path) -> bool:
    """Whether ``path`` is a rollout-lsp index by its header: an SQLite file whose application id (bytes 68 to
    71, big-endian) is :data:`APPLICATION_ID` (read from the bytes, so a corrupt file can be told too)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(72)
    except OSError:
        return False
    return head.startswith(SQLITE_HEADER) and len(head) == 72 and int.from_bytes(head[68:72], "big") == APPLICATION_ID


def _move_aside(path: Path, kind: str) -> Path:
    """Renames ``path`` and its ``-wal`` and ``-shm`` to ``PATH.<kind>-<time>`` (the set SQLite opens together)."""
    aside = path.with_name(f"{path.name}.{kind}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    for suffix in ("-wal", "-shm", "-journal", ""):  # the main file last: a crash leaves it where it was
        try:
            os.rename(str(path) + suffix, str(aside) + suffix)
        except FileNotFoundError:
            pass
    return aside


def default_db_path() -> Path:
    """``$ROLLOUT_LSP_INDEX``, else ``index.sqlite3`` in the user's cache directory (XDG)."""
    override = os.environ.get(INDEX_ENV)
    if override:
        return Path(override).expanduser()
    return default_cache_dir() / DB_NAME


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "codex-rollout-lsp"


def default_session_dirs() -> list[str]:
    """Where Codex keeps sessions: ``$CODEX_HOME`` (default ``~/.codex``) ``/sessions`` and ``/archived_sessions``."""
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return [os.path.join(home, "sessions"), os.path.join(home, "archived_sessions")]


def _statements(script: str) -> Iterator[str]:
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement.strip()
            statement = ""


def _switch_to_wal(db: sqlite3.Connection, timeout: float) -> None:
    """``PRAGMA journal_mode=WAL``, tried again while another process holds the lock: SQLite answers a
    journal-mode change on a database another connection is creating with "locked" at once, without waiting
    ``timeout`` as other statements do (two processes indexing a new database at the same moment)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if not _is_locked(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _is_locked(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


def _is_corruption(error: sqlite3.Error) -> bool:
    if _is_locked(error):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(error)
    return "malformed" in text or "not a database" in text


def _describe(error: sqlite3.Error) -> str:
    if _is_locked(error):
        return "the index is locked by another process; try again"
    return str(error)


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(str(path) + suffix)
        except FileNotFoundError:
            pass


def _other_database(path: Path) -> bool:
    """Whether ``path`` is a readable SQLite database of something else (another application's id, or
    tables without ours): ``--rebuild`` must not delete it, as opening it without ``--rebuild`` does not."""
    if not path.is_file():
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        # one read transaction, one snapshot: a process making the index commits its tables and its id together,
        # and two reads outside a transaction could see no id before that commit and its tables after it
        db.execute("BEGIN")
        app = db.execute("PRAGMA application_id").fetchone()[0]
        names = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error:
        return False  # corrupt: rebuilt when ours (is_ours)
    finally:
        db.close()
    return app != APPLICATION_ID and (app != 0 or names > 0)


def _refuse_if_foreign(path: Path, rebuild: bool = False) -> None:
    """Raises :class:`IndexUnavailable` when ``path`` holds something that is not ours: another SQLite
    database (another application id, or tables without an id), or any other file that is not empty.  An
    SQLite file without id or tables (an index whose making was interrupted) is ours to make."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as error:
        raise IndexUnavailable(f"{path}: cannot read it: {error.strerror or error}") from error
    if not head or is_ours(path):
        return
    if head != SQLITE_HEADER or rebuild:
        raise IndexUnavailable(f"{path} is not a rollout-lsp index; not overwriting it")
    if _other_database(path):
        raise IndexUnavailable(f"{path} is an SQLite database of something else; not overwriting it")


_Index = TypeVar("_Index", bound="IndexDatabase")  # the class opened (RolloutIndex)


class IndexDatabase:
    """The index's connection: opened for writing (created, migrated or rebuilt) or for reading, and its
    transactions; :class:`~analysis.reports.index.rollout_index.RolloutIndex` adds indexing and queries."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.db = connection
        self.kept: Path | None = None  # the corrupt index moved aside (kept), when this one replaced it
        self._replaced: Path | None = None  # the old index ``--rebuild`` moved aside: deleted once this is complete

    # -- opening ----------------------------------------------------------------------------------------
    @classmethod
    def open(cls: type[_Index], path: Path | str | None = None, timeout: float = 30.0, rebuild: bool = False) -> _Index:
        """The index at ``path`` for writing: created when missing, its tables made again when of another
        schema version, rebuilt when ours and corrupt (the old file kept beside it) or when ``rebuild``.
        Raises :class:`IndexUnavailable` (an index that cannot be written, or a file that is not ours, is
        left as it is)."""
        path = Path(path) if path is not None else default_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise IndexUnavailable(f"cannot create {path.parent}: {error.strerror or error}") from error
        why = unwritable(path)
        if why is not None:
            raise IndexUnavailable(f"{path}: cannot write the index ({why}); nothing was changed")
        _refuse_if_foreign(path, rebuild)  # before any connection: opening for writing changes the header (WAL)
        replaced = _move_aside(path, "old") if rebuild and path.exists() else None
        try:
            index = cls._connect_writer(path, timeout)
            index._replaced = replaced
            return index
        except sqlite3.DatabaseError as error:
            if not _is_corruption(error):
                raise _failure(path, error) from error
            if not is_ours(path):
                raise IndexUnavailable(f"{path} is not a rollout-lsp index ({error}); not overwriting it") from error
        kept = _move_aside(path, "corrupt")  # ours and corrupt: kept beside the new one
        try:
            index = cls._connect_writer(path, timeout)
        except sqlite3.DatabaseError as error:
            raise _failure(path, error) from error
        index.kept, index._replaced = kept, replaced
        return index

    @classmethod
    def _connect_writer(cls: type[_Index], path: Path, timeout: float) -> _Index:
        db = sqlite3.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
        try:
            _switch_to_wal(db, timeout)
            db.execute("PRAGMA synchronous=NORMAL")
            index = cls(path, db)
            index._ensure_schema()
            return index
        except BaseException:
            db.close()
            raise

    @classmethod
    def open_existing(cls: type[_Index], path: Path | str | None = None, timeout: float = 2.0) -> _Index:
        """The index at ``path`` for queries; :class:`IndexUnavailable` when missing, locked, corrupt or of
        another schema (``rollout-lsp index`` rebuilds it)."""
        path = Path(path) if path is not None else default_db_path()
        if not path.is_file():
            raise IndexUnavailable(f"no index at {path}: run `rollout-lsp index` first")
        try:
            db = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise _failure(path, error) from error
        try:
            app, version = cls._identity(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise IndexUnavailable(
                f"{path} is corrupt or not an index ({_describe(error)}): run `rollout-lsp index` to rebuild it"
            ) from error
        if app != APPLICATION_ID or version != SCHEMA_VERSION:
            db.close()
            raise IndexUnavailable(f"{path} is not an index of this version: run `rollout-lsp index` to rebuild it")
        return cls(path, db)

    @staticmethod
    def _identity(db: sqlite3.Connection) -> tuple[int, int]:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema: a bad file fails here
        return app, version

    def _ensure_schema(self) -> None:
        app, version = self._identity(self.db)
        if app == APPLICATION_ID and version == SCHEMA_VERSION:
            return
        with self._transaction():
            app, version = self._identity(self.db)  # another process may have made it meanwhile
            if app == APPLICATION_ID and version == SCHEMA_VERSION:
                return
            names = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
            if app == APPLICATION_ID:  # an older or newer schema: rebuild
                for name in _TABLES:
                    self.db.execute(f"DROP TABLE IF EXISTS {name}")
            elif app != 0 or names:
                raise IndexUnavailable(f"{self.path} is an SQLite database of something else; not overwriting it")
            for statement in _statements(_SCHEMA):  # executescript would commit the transaction first
                self.db.execute(statement)
            self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    class _Txn:
        def __init__(self, db: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> None:
            self.db = db
            self.begin = begin

        def __enter__(self) -> None:
            self.db.execute(self.begin)

        def __exit__(self, kind, value, tb) -> None:
            self.db.execute("COMMIT" if kind is None else "ROLLBACK")

    def _transaction(self) -> IndexDatabase._Txn:
        return IndexDatabase._Txn(self.db)

    def _reading(self) -> IndexDatabase._Txn:
        return IndexDatabase._Txn(self.db, "BEGIN")

    def close(self, complete: bool = True) -> None:
        """Closes the index; when ``complete`` (nothing failed), the old index ``--rebuild`` replaced is
        deleted (until then it is kept, ``PATH.old-<time>``)."""
        self.db.close()
        if complete and self._replaced is not None:
            _remove_database(self._replaced)
            self._replaced = None

    def __enter__(self: _Index) -> _Index:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(complete=kind is None)
