"""An incremental SQLite index of rollout files: every tool call, searchable across all sessions.

One row per tool call (its decoded command, patched files or tool; tool name, ``executed``, exit code,
session, turn, timestamp, file, line and columns in every position encoding) and an FTS5 trigram index
over the text, so a query is a case-insensitive substring search answered from the index.

Staying fresh cheaply: a file whose size and modification time are those indexed is not opened.  A plain
rollout that grew by appending (its indexed prefix, up to the last line break, hashes the same) has only
its new lines analysed; an output among them that answers a call indexed earlier updates that call's row
(the call's line and its earlier output are re-read from the bytes already in memory and paired by the
analysis itself).  Anything else is re-read whole.

Safety: text is stored redacted (:func:`analysis.jsonl.secrets.redact_all`), never in clear.  Each file is
written in its own ``BEGIN IMMEDIATE`` transaction after checking that its row is still the one the work
was planned from, so two processes indexing at once each leave a consistent index (WAL mode lets readers
go on meanwhile).  A database of another schema version is rebuilt; a corrupt one is rebuilt by the
writer (when it is an SQLite file, empty, or at the default location) and reported by readers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
from bisect import bisect_right
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ..script.calls import COMMAND, PATCH, ToolCall
from ..session.changes import Place, applied, call_changes, cwd_at, path_key, relative_key, session_place
from ..jsonl.positions import LineColumns, PositionEncoding
from ..session.rollout import LineCache, RolloutAnalysis, analyze_text
from ..jsonl.display import storable
from ..jsonl.secrets import redact_all, redact_each
from ..jsonl.line_stream import Unreadable, read_lines
from ..jsonl.source import MAX_BYTES, ZstdReader, decode, find_rollout_files, is_rollout_path, open_regular
from ..session.sniff import looks_like_rollout
from ..session.labels import patch_actions

SCHEMA_VERSION = 5  # 3: the changes table (files changed by patches) and the files' cwd and repository;
# 4: turn_number, the turn's ordinal (turns read "turn 2 (line 125)" everywhere); 5: files.skipped
APPLICATION_ID = 0x524C5350  # "RLSP": marks a database as this project's index
INDEX_ENV = "ROLLOUT_LSP_INDEX"  # a database path that overrides the default (tests, several indexes)
DB_NAME = "index.sqlite3"
SQLITE_HEADER = b"SQLite format 3\x00"
_BREAKS = re.compile(rb"\r\n|\r|\n")  # the line breaks of analysis.jsonl.lines.split_lines, on bytes
_TITLE_LIMIT = 500
FILES_IN_FLIGHT = 4  # files given to the worker processes ahead of the one written, per worker
DECOMPRESSED_ENV = "ROLLOUT_LSP_MAX_DECOMPRESSED"
# bytes: a .jsonl.zst is held whole to be indexed, so one that decompresses to more (a zstd bomb) is refused,
# found out in constant memory; 64 times the largest real rollout seen (4 MB), twice the longest line allowed
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024
NOT_A_ROLLOUT_ROW = "not a rollout"  # files.skipped of a JSON Lines file that is not a rollout

_SCHEMA = """
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  stable_bytes INTEGER NOT NULL,  -- bytes up to the last line break: the lines an append cannot change
  stable_lines INTEGER NOT NULL,  -- how many lines those bytes hold
  prefix_hash TEXT NOT NULL,      -- sha256 of those bytes
  session_id TEXT,
  session_time TEXT,
  turn_line INTEGER,              -- the turn in effect at the end of the stable lines
  turn_title TEXT,
  turn_number INTEGER,            -- its ordinal in the file, from 1
  error TEXT,
  cwd TEXT,                       -- the working directory in effect at the end of the stable lines
  repo_root TEXT,                 -- the session's repository: its folder, and its remote when session_meta has one
  repo_url TEXT,
  skipped TEXT                    -- why the file at this size and time is not indexed (see _Skip); NULL: indexed
);
CREATE TABLE calls(
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id),
  line INTEGER NOT NULL,
  call_index INTEGER NOT NULL,
  line_offset INTEGER NOT NULL,   -- byte offset of its line, to re-read it when a late output comes
  start8 INTEGER NOT NULL, end8 INTEGER NOT NULL,
  start16 INTEGER NOT NULL, end16 INTEGER NOT NULL,
  start32 INTEGER NOT NULL, end32 INTEGER NOT NULL,
  record TEXT,
  call_id TEXT,
  tool TEXT,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,             -- redacted: the command, the expansion's commands, the patched files
  workdir TEXT,
  files TEXT,                     -- patched paths, one a line
  executed TEXT NOT NULL,
  status TEXT,
  exit_code INTEGER,
  output_line INTEGER,
  output_offset INTEGER,
  session_id TEXT,
  turn_line INTEGER,
  turn_title TEXT,
  turn_number INTEGER,
  timestamp TEXT
);
CREATE TABLE changes(             -- one row per file a patch call changed (analysis.session.changes)
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id),
  line INTEGER NOT NULL,
  call_index INTEGER NOT NULL,
  file_index INTEGER NOT NULL,
  action TEXT NOT NULL,           -- add, update or delete
  path TEXT NOT NULL,             -- as the patch writes it (redacted, like every text here)
  move_to TEXT,
  absolute TEXT,                  -- resolved against the call's workdir, the turn's or the session's cwd
  move_absolute TEXT,
  path_key TEXT,                  -- analysis.session.changes.path_key of absolute: what a lookup compares
  move_key TEXT,
  repo_path TEXT,                 -- the key relative to the repository root, for sessions of other machines
  repo_move_path TEXT,
  applied TEXT NOT NULL,          -- yes, no or unknown
  nested INTEGER NOT NULL,        -- made inside an exec script
  hunks TEXT NOT NULL,            -- JSON: [[header, [lines as the patch writes them]], …]
  next_command TEXT,
  session_id TEXT,
  turn_line INTEGER,
  turn_title TEXT,
  timestamp TEXT
);
CREATE INDEX changes_by_file ON changes(file_id, line, call_index);
CREATE INDEX changes_by_path ON changes(path_key);
CREATE INDEX changes_by_move ON changes(move_key);
CREATE INDEX changes_by_repo_path ON changes(repo_path);
CREATE INDEX changes_by_repo_move ON changes(repo_move_path);
CREATE TABLE roots(path TEXT PRIMARY KEY);  -- folders (and files) indexed, refreshed by `index` without DIR
CREATE INDEX calls_by_file ON calls(file_id, line, call_index);
CREATE INDEX calls_by_time ON calls(timestamp);
CREATE VIRTUAL TABLE calls_fts USING fts5(text, tool, content='calls', content_rowid='id', tokenize='trigram');
CREATE TRIGGER calls_ai AFTER INSERT ON calls BEGIN
  INSERT INTO calls_fts(rowid, text, tool) VALUES (new.id, new.text, coalesce(new.tool, ''));
END;
CREATE TRIGGER calls_ad AFTER DELETE ON calls BEGIN
  INSERT INTO calls_fts(calls_fts, rowid, text, tool) VALUES ('delete', old.id, old.text, coalesce(old.tool, ''));
END;
"""
_TABLES = ("calls_fts", "calls", "changes", "files", "roots")
_CALL_COLUMNS = ("file_id", "line", "call_index", "line_offset", "start8", "end8", "start16", "end16", "start32",
                 "end32", "record", "call_id", "tool", "kind", "text", "workdir", "files", "executed", "status",
                 "exit_code", "output_line", "output_offset", "session_id", "turn_line", "turn_title", "turn_number",
                 "timestamp")
_INSERT_CALL = f"INSERT INTO calls({', '.join(_CALL_COLUMNS)}) VALUES ({', '.join('?' * len(_CALL_COLUMNS))})"
_FILE_COLUMNS = ("id", "path", "size", "mtime_ns", "stable_bytes", "stable_lines", "prefix_hash", "session_id",
                 "session_time", "turn_line", "turn_title", "turn_number", "error", "cwd", "repo_root",
                 "repo_url", "skipped")
_CHANGE_COLUMNS = ("file_id", "line", "call_index", "file_index", "action", "path", "move_to", "absolute",
                   "move_absolute", "path_key", "move_key", "repo_path", "repo_move_path", "applied", "nested", "hunks",
                   "next_command", "session_id", "turn_line", "turn_title", "timestamp")
_INSERT_CHANGE = (f"INSERT INTO changes({', '.join(_CHANGE_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_CHANGE_COLUMNS))})")


class IndexUnavailable(Exception):
    """The index cannot be used: missing, locked, corrupt, of another schema, or not this project's."""

    def __init__(self, message: str, broken: bool = False) -> None:
        super().__init__(message)
        self.broken = broken  # the database failed (not merely locked or missing): rebuilding may mend it


def _failure(path: Path, error: sqlite3.Error, hint: str = "") -> IndexUnavailable:
    locked = _is_locked(error)
    return IndexUnavailable(f"{path}: {_describe(error)}" + ("" if locked else hint), broken=not locked)


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


@dataclass
class IndexStats:
    """What one :meth:`RolloutIndex.update` did."""

    files: int = 0  # rollout files found (JSON Lines files that are not rollouts aside)
    unchanged: int = 0  # size and modification time as indexed: not opened
    full: int = 0  # new, rewritten, shrunk or compressed files read whole
    appended: int = 0  # files that grew by appending: only their new lines analysed
    removed: int = 0  # indexed files that are gone
    lines_analysed: int = 0  # lines read through the analysis
    lines_reread: int = 0  # earlier lines analysed again to pair them with a late output
    calls_added: int = 0
    calls_paired: int = 0  # earlier calls updated with an output appended later
    errors: list[str] = field(default_factory=list)
    not_rollouts: list[str] = field(default_factory=list)  # JSON Lines files skipped: not rollouts
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is slow, and a query may build thousands
class Hit:
    """One indexed tool call."""

    path: str
    line: int  # 0-based
    columns: dict[str, tuple[int, int]]  # start and end column by position encoding
    tool: str | None
    kind: str
    text: str
    workdir: str | None
    files: tuple[str, ...]
    executed: str
    status: str | None
    exit_code: int | None
    output_line: int | None
    call_id: str | None
    record: str | None
    session_id: str | None
    turn_line: int | None
    turn_title: str | None
    turn_number: int | None  # the turn's ordinal in its file, from 1
    timestamp: str | None

    def start(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> int:
        return self.columns[encoding.value][0]

    def end(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> int:
        return self.columns[encoding.value][1]

    def to_json(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> dict[str, Any]:
        start, end = self.columns[encoding.value]
        return {
            "file": self.path, "line": self.line,
            "range": {"start": {"line": self.line, "character": start}, "end": {"line": self.line, "character": end}},
            "tool": self.tool, "kind": self.kind, "text": self.text, "workdir": self.workdir,
            "files": list(self.files), "executed": self.executed, "status": self.status,
            "exit_code": self.exit_code, "output_line": self.output_line, "call_id": self.call_id,
            "record": self.record, "session_id": self.session_id,
            "turn": {"number": self.turn_number, "line": self.turn_line, "title": self.turn_title}
            if self.turn_line is not None else None,
            "timestamp": self.timestamp,
        }


def call_text(call: ToolCall) -> str:
    """What a call is searched and shown by: its command (or each command of an expansion), its patched
    files, or its tool."""
    if call.kind == COMMAND:
        if call.command is not None:
            return call.command
        if call.expansion:
            return "\n".join(call.expansion)
        return f"computed: {call.computed_expression or call.tool or ''}".rstrip()
    if call.kind == PATCH and call.files:
        return patch_actions(call.files)  # "delete a.py, add a.py", as every view names a patch
    return call.label


def parse_since(value: str) -> str:
    """A ``--since`` date as the ISO prefix timestamps are compared with (UTC); ValueError when unreadable."""
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        datetime.strptime(text, "%Y-%m-%d")
        return text
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    # rollout timestamps are ISO text ("…T10:00:00.123Z"), compared as strings: a fraction is kept, trailing
    # zeros and all, so that "…:00.5" sorts after "…:00.123Z" and before "…:00.500Z"
    fraction = f"{moment.microsecond:06d}".rstrip("0")
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "")


# -- the database --------------------------------------------------------------------------------------------

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
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


def _is_corruption(error: sqlite3.DatabaseError) -> bool:
    if _is_locked(error):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
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


def _may_rebuild(path: Path) -> bool:
    """Whether a corrupt ``path`` may be deleted: an SQLite file, an empty file, or the default location
    (never some other file a mistyped ``--db`` names)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return head in (b"", SQLITE_HEADER) or path.resolve().parent == default_cache_dir().resolve()


def _other_database(path: Path) -> bool:
    """Whether ``path`` is a readable SQLite database of something else (another application's id, or
    tables without ours): ``--rebuild`` must not delete it, as opening it without ``--rebuild`` does not."""
    if not path.is_file():
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error:
        return False
    try:
        app = db.execute("PRAGMA application_id").fetchone()[0]
        names = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error:
        return False  # corrupt: what _may_rebuild allows may be rebuilt
    finally:
        db.close()
    return app != APPLICATION_ID and (app != 0 or names > 0)


class RolloutIndex:
    """The index database.  Open it with :meth:`open` (the writer) or :meth:`open_existing` (readers)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.db = connection

    # -- opening ----------------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path | str | None = None, timeout: float = 30.0, rebuild: bool = False) -> "RolloutIndex":
        """The index at ``path`` for writing: created when missing, rebuilt when of another schema version,
        when corrupt (see :func:`_may_rebuild`) or when ``rebuild``.  Raises :class:`IndexUnavailable`."""
        path = Path(path) if path is not None else default_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise IndexUnavailable(f"cannot create {path.parent}: {error.strerror or error}") from error
        if rebuild:
            if not _may_rebuild(path) or _other_database(path):
                raise IndexUnavailable(f"{path} is not a rollout-lsp index; not overwriting it")
            _remove_database(path)
        try:
            return cls._connect_writer(path, timeout)
        except sqlite3.DatabaseError as error:
            if not _is_corruption(error):
                raise _failure(path, error) from error
            if not _may_rebuild(path):
                raise IndexUnavailable(f"{path} is not a rollout-lsp index ({error}); not overwriting it") from error
        _remove_database(path)  # corrupt: start again
        try:
            return cls._connect_writer(path, timeout)
        except sqlite3.DatabaseError as error:
            raise _failure(path, error) from error

    @classmethod
    def _connect_writer(cls, path: Path, timeout: float) -> "RolloutIndex":
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
    def open_existing(cls, path: Path | str | None = None, timeout: float = 2.0) -> "RolloutIndex":
        """The index at ``path`` for queries; :class:`IndexUnavailable` when missing, locked, corrupt or of
        another schema (``rollout-lsp index`` rebuilds it)."""
        path = Path(path) if path is not None else default_db_path()
        if not path.is_file():
            raise IndexUnavailable(f"no index at {path}: run `rollout-lsp index` first")
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None,
                                 check_same_thread=False)
        except sqlite3.Error as error:
            raise _failure(path, error) from error
        try:
            app, version = cls._identity(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise IndexUnavailable(f"{path} is corrupt or not an index ({_describe(error)}): "
                                   "run `rollout-lsp index` to rebuild it") from error
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

    def _transaction(self) -> "RolloutIndex._Txn":
        return RolloutIndex._Txn(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "RolloutIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- indexing ---------------------------------------------------------------------------------------
    def update(self, paths: list[str], jobs: int = 1) -> IndexStats:
        """Brings the index up to date with the rollout files of ``paths`` (folders and files); indexed files
        below a folder of ``paths`` that are gone are removed.  With ``jobs`` above 1, files that changed are
        read and analysed by that many worker processes while this one writes.  Raises
        :class:`IndexUnavailable` when the database is locked too long or fails; a file that cannot be read is
        an error in the stats."""
        stats = IndexStats()
        started = time.perf_counter()
        roots = [os.path.abspath(p) for p in paths]
        try:
            with self._transaction():
                self.db.executemany("INSERT OR IGNORE INTO roots(path) VALUES (?)",
                                    [(r,) for r in roots if os.path.exists(r)])
            listing = find_rollout_files([r for r in roots if os.path.exists(r)])
            stats.errors += [p for p in listing.problems if not p.startswith("no .jsonl")] + listing.skipped
            found = [os.path.abspath(p) for p in listing.files]
            stats.files = len(found)
            self._update_files(found, stats, jobs)
            stats.files -= len(stats.not_rollouts)
            self._remove_missing([r for r in roots if os.path.isdir(r)], set(found), stats)
        except sqlite3.DatabaseError as error:
            raise _failure(self.path, error) from error
        stats.seconds = time.perf_counter() - started
        return stats

    def _update_files(self, paths: list[str], stats: IndexStats, jobs: int) -> None:
        """:meth:`_update_file` of each of ``paths``, in order; with ``jobs`` above 1 and more than one file that
        may have changed, those are prepared by worker processes, a few files ahead."""
        changed = [p for p in paths if _utf8(p) and self._may_have_changed(p)] if jobs > 1 else []
        futures: dict[str, Future] = {}
        with ExitStack() as stack:
            if len(changed) > 1:
                from concurrent.futures import ProcessPoolExecutor  # only when there is work to share

                pool = stack.enter_context(ProcessPoolExecutor(max_workers=jobs))
                ahead = iter(changed)

                def submit_next() -> None:
                    path = next(ahead, None)
                    if path is not None:
                        with self._reading():
                            row = self._file_row(path)
                            pending = self._pending(row) if row is not None else []
                        futures[path] = pool.submit(prepare_file, path, row, pending)

                for _ in range(jobs * FILES_IN_FLIGHT):
                    submit_next()
            for path in paths:
                if not _utf8(path):  # SQLite keeps UTF-8 text: a name that is not cannot be a row
                    stats.errors.append(f"cannot index {storable(path)}: its name is not UTF-8")
                    continue
                future = futures.pop(path, None)
                if future is None:
                    self._update_file(path, stats)
                    continue
                submit_next()
                try:
                    prepared = future.result()
                except BrokenProcessPool:  # a worker died (killed, out of memory): this process does it
                    prepared = None
                self._update_file(path, stats, prepared)

    def _may_have_changed(self, path: str) -> bool:
        """Whether the file's size or modification time is not what its row says (or it has no row yet)."""
        with self._reading():
            row = self._file_row(path)
        if row is None or row["error"] is not None:
            return True
        try:
            stat = os.stat(path)
        except OSError:
            return False  # said by _update_file, which tries to open it
        return row["size"] != stat.st_size or row["mtime_ns"] != stat.st_mtime_ns

    def _remove_missing(self, folders: list[str], found: set[str], stats: IndexStats) -> None:
        for folder in folders:
            prefix = folder.rstrip(os.sep) + os.sep
            rows = self.db.execute("SELECT id, path, skipped FROM files WHERE substr(path, 1, ?) = ?",
                                   (len(prefix), prefix)).fetchall()
            gone = [(file_id, skipped) for file_id, path, skipped in rows
                    if path not in found and not os.path.exists(path)]
            if gone:
                with self._transaction():
                    self.db.executemany("DELETE FROM calls WHERE file_id = ?", [(i,) for i, _ in gone])
                    self.db.executemany("DELETE FROM changes WHERE file_id = ?", [(i,) for i, _ in gone])
                    self.db.executemany("DELETE FROM files WHERE id = ?", [(i,) for i, _ in gone])
                stats.removed += sum(skipped is None for _, skipped in gone)  # rollouts removed

    def _file_row(self, path: str) -> dict[str, Any] | None:
        row = self.db.execute(f"SELECT {', '.join(_FILE_COLUMNS)} FROM files WHERE path = ?", (path,)).fetchone()
        return dict(zip(_FILE_COLUMNS, row)) if row else None

    def _update_file(self, path: str, stats: IndexStats, prepared: "Prepared | None" = None) -> None:
        """Indexes one file: read and analysed outside the write lock (or ``prepared`` already, by a worker
        process, from the row and pending calls it was given), written if its row is still as it was read."""
        for _attempt in range(5):
            with self._reading():
                row = self._file_row(path)
                pending = self._pending(row) if row is not None else []
            if prepared is not None and (prepared.row, prepared.pending) == (row, pending):
                outcome = prepared
            else:  # first here, or the file's row changed since it was prepared: read it again
                outcome = prepare_file(path, row, pending)
            prepared = None
            if outcome.skip is not None:  # not indexed, for a reason that holds while the file is unchanged
                skip = outcome.skip
                if skip.error:
                    stats.errors.append(f"cannot index {storable(path)}: {skip.error}")
                else:
                    stats.not_rollouts.append(storable(path))
                if skip.remembered:
                    return
                try:
                    with self._transaction():
                        if self._file_row(path) != row:
                            continue  # another process indexed it meanwhile: look again from its row
                        self._record_skip(path, row, skip)
                except (sqlite3.InterfaceError, sqlite3.DataError, sqlite3.ProgrammingError, UnicodeError):
                    pass  # a path SQLite cannot store: reported above (the next run looks again)
                return
            if outcome.unreadable is not None:  # unreadable or undecompressable: recorded, retried next time
                stats.errors.append(f"cannot read {storable(path)}: {outcome.unreadable}")
                try:
                    self._record_error(path, row, outcome.unreadable)
                except (sqlite3.InterfaceError, sqlite3.DataError, sqlite3.ProgrammingError, UnicodeError):
                    pass  # a path SQLite cannot store (not UTF-8): reported above, nothing to remember
                return
            if outcome.failed is not None:  # the analysis never fails on bad input; should it, one file is lost
                stats.errors.append(f"cannot index {path}: {outcome.failed}")
                return
            work = outcome.work
            if work is None:
                stats.unchanged += 1
                return
            try:
                with self._transaction():
                    if self._file_row(path) != row:
                        continue  # another process indexed it meanwhile: plan again from its row
                    self._apply(work)
            except (sqlite3.InterfaceError, sqlite3.DataError, sqlite3.ProgrammingError, UnicodeError,
                    OverflowError) as error:  # a value SQLite refuses: this file is skipped, the others indexed
                stats.errors.append(f"cannot index {storable(path)}: {type(error).__name__}: {error}")
                return
            stats.lines_analysed += work.lines_analysed
            stats.lines_reread += work.lines_reread
            stats.calls_added += len(work.calls)
            stats.calls_paired += len(work.paired)
            if work.append:
                stats.appended += 1
            else:
                stats.full += 1
            return
        stats.errors.append(f"{path} kept changing while it was indexed; left for the next run")

    def _pending(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """Calls of the stable lines still waiting for their output (none yet, or a running script's)."""
        columns = ("line", "call_index", "call_id", "line_offset", "output_line", "output_offset", "status")
        rows = self.db.execute(
            f"SELECT {', '.join(columns)} FROM calls WHERE file_id = ? AND line < ? AND call_id IS NOT NULL "
            "AND (output_line IS NULL OR status = 'running') ORDER BY line, call_index",
            (row["id"], row["stable_lines"])).fetchall()
        return [dict(zip(columns, r)) for r in rows]

    def _reading(self) -> "RolloutIndex._Txn":
        return RolloutIndex._Txn(self.db, "BEGIN")

    def _record_error(self, path: str, row: dict[str, Any] | None, reason: str) -> None:
        with self._transaction():
            if row is not None:
                self.db.execute("DELETE FROM calls WHERE file_id = ?", (row["id"],))
                self.db.execute("DELETE FROM changes WHERE file_id = ?", (row["id"],))
            self.db.execute(
                "INSERT INTO files(path, size, mtime_ns, stable_bytes, stable_lines, prefix_hash, error) "
                "VALUES (?, -1, -1, 0, 0, '', ?) ON CONFLICT(path) DO UPDATE SET size = -1, mtime_ns = -1, "
                "stable_bytes = 0, stable_lines = 0, prefix_hash = '', error = excluded.error, skipped = NULL",
                (path, reason))

    def _record_skip(self, path: str, row: dict[str, Any] | None, skip: "_Skipped") -> None:
        """A row that remembers why the file, at its size and modification time, is not indexed (it holds no
        calls), so that the next run does not read it again."""
        if row is not None:
            self.db.execute("DELETE FROM calls WHERE file_id = ?", (row["id"],))
            self.db.execute("DELETE FROM changes WHERE file_id = ?", (row["id"],))
        self.db.execute(
            "INSERT INTO files(path, size, mtime_ns, stable_bytes, stable_lines, prefix_hash, skipped) "
            "VALUES (?, ?, ?, 0, 0, '', ?) ON CONFLICT(path) DO UPDATE SET size = excluded.size, "
            "mtime_ns = excluded.mtime_ns, stable_bytes = 0, stable_lines = 0, prefix_hash = '', session_id = NULL, "
            "session_time = NULL, turn_line = NULL, turn_title = NULL, turn_number = NULL, error = NULL, cwd = NULL, "
            "repo_root = NULL, repo_url = NULL, skipped = excluded.skipped",
            (path, skip.size, skip.mtime_ns, skip.reason))

    def _apply(self, work: "_Work") -> None:
        values = (work.size, work.mtime_ns, work.stable_bytes, work.stable_lines, work.prefix_hash, work.session_id,
                  work.session_time, work.turn_line, work.turn_title, work.turn_number, work.cwd, work.repo_root,
                  work.repo_url)
        if work.file_id is None:
            cursor = self.db.execute(
                "INSERT INTO files(path, size, mtime_ns, stable_bytes, stable_lines, prefix_hash, session_id, "
                "session_time, turn_line, turn_title, turn_number, cwd, repo_root, repo_url, error) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)", (work.path, *values))
            file_id = cursor.lastrowid
        else:
            file_id = work.file_id
            self.db.execute(
                "UPDATE files SET size = ?, mtime_ns = ?, stable_bytes = ?, stable_lines = ?, prefix_hash = ?, "
                "session_id = ?, session_time = ?, turn_line = ?, turn_title = ?, turn_number = ?, cwd = ?, "
                "repo_root = ?, repo_url = ?, error = NULL, skipped = NULL WHERE id = ?", (*values, file_id))
            self.db.execute("DELETE FROM calls WHERE file_id = ? AND line >= ?", (file_id, work.first_line))
            self.db.execute("DELETE FROM changes WHERE file_id = ? AND line >= ?", (file_id, work.first_line))
        self.db.executemany(_INSERT_CALL, [(file_id, *call) for call in work.calls])
        self.db.executemany(_INSERT_CHANGE, [(file_id, *change) for change in work.changes])
        self.db.executemany("UPDATE changes SET applied = ? WHERE file_id = ? AND line = ? AND call_index = ?",
                            [(state, file_id, line, index) for line, index, state in work.applied])
        self.db.executemany(
            "UPDATE calls SET status = ?, exit_code = ?, executed = ?, output_line = ?, output_offset = ? "
            "WHERE file_id = ? AND line = ? AND call_index = ?",
            [(*update, file_id, line, index) for line, index, update in work.paired])

    # -- queries ----------------------------------------------------------------------------------------
    def search(self, query: str, tool: str | None = None, since: str | None = None, failed: bool = False,
               limit: int | None = None, exclude_paths: frozenset[str] = frozenset()) -> list[Hit]:
        """Calls whose text or tool contains ``query`` (case-insensitive; every call when it is empty),
        by file and line.  ``since`` is an ISO date or time (see :func:`parse_since`); ``failed`` keeps calls
        with a non-zero exit code or a failed script; ``exclude_paths`` are files whose hits are not wanted
        (the editor's open documents)."""
        where, params = [], []
        needle = query.strip()
        if len(needle) >= 3:
            where.append("c.id IN (SELECT rowid FROM calls_fts WHERE calls_fts MATCH ?)")
            params.append('"' + needle.replace('"', '""') + '"')
        elif needle:  # too short for trigrams
            pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append("(c.text LIKE ? ESCAPE '\\' OR c.tool LIKE ? ESCAPE '\\')")
            params += [pattern, pattern]
        if tool:
            where.append("c.tool = ?")
            params.append(tool)
        if since:
            where.append("c.timestamp >= ?")
            params.append(since)
        if failed:
            where.append("((c.exit_code IS NOT NULL AND c.exit_code != 0) OR "
                         "(c.exit_code IS NULL AND c.status IN ('failed', 'terminated')))")
        # without a trigram match, files in path order then their calls in line order need no sort, and
        # stepping stops at the limit; with one, the few matches are sorted
        join = "calls c JOIN files f ON f.id = c.file_id" if len(needle) >= 3 else \
            "files f CROSS JOIN calls c ON c.file_id = f.id"
        sql = (f"SELECT {', '.join(_HIT_COLUMNS)} FROM {join} {'WHERE ' + ' AND '.join(where) if where else ''} "
               "ORDER BY f.path, c.line, c.call_index")
        hits: list[Hit] = []
        try:
            for row in self.db.execute(sql, params):
                if row[0] in exclude_paths:
                    continue
                hits.append(_hit(row))
                if limit is not None and len(hits) >= limit:
                    break
        except sqlite3.DatabaseError as error:
            raise _failure(self.path, error, " (run `rollout-lsp index` to rebuild the index)") from error
        return hits

    def roots(self) -> list[str]:
        """Folders and files indexed before (that still exist), in the order first indexed."""
        try:
            rows = self.db.execute("SELECT path FROM roots ORDER BY rowid").fetchall()
        except sqlite3.DatabaseError as error:
            raise _failure(self.path, error) from error
        return [path for (path,) in rows if os.path.exists(path)]

    def count(self) -> tuple[int, int]:
        """Indexed files (those skipped aside) and calls."""
        files = self.db.execute("SELECT count(*) FROM files WHERE skipped IS NULL").fetchone()[0]
        calls = self.db.execute("SELECT count(*) FROM calls").fetchone()[0]
        return files, calls


_HIT_COLUMNS = ("f.path", "c.line", "c.start8", "c.end8", "c.start16", "c.end16", "c.start32", "c.end32", "c.tool",
                "c.kind", "c.text", "c.workdir", "c.files", "c.executed", "c.status", "c.exit_code", "c.output_line",
                "c.call_id", "c.record", "c.session_id", "c.turn_line", "c.turn_title", "c.turn_number", "c.timestamp")


def _hit(row: tuple) -> Hit:
    """A :class:`Hit` from a row of :data:`_HIT_COLUMNS` (positional: a query may build thousands)."""
    (path, line, start8, end8, start16, end16, start32, end32, tool, kind, text, workdir, files, *rest) = row
    return Hit(path, line, {"utf-8": (start8, end8), "utf-16": (start16, end16), "utf-32": (start32, end32)},
               tool, kind, text, workdir, tuple(files.split("\n")) if files else (), *rest)


# -- reading and planning one file (no database here) --------------------------------------------------------

def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _integer(value: int | None) -> int | None:
    """``value`` when SQLite can store it (64 bits); an exit code beyond that is no exit code."""
    return value if value is None or -(1 << 63) <= value < (1 << 63) else None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass
class Prepared:
    """What reading and analysing one file gave, from the row and pending calls it was read against: work to
    write, a skip, a read error or an analysis failure (none of them: the file is unchanged).  Plain data, so a
    worker process can send it back."""

    row: dict[str, Any] | None
    pending: list[dict[str, Any]]
    work: "_Work | None" = None
    skip: "_Skipped | None" = None
    unreadable: str | None = None
    failed: str | None = None


@dataclass
class _Skipped:
    """A :class:`_Skip` as plain data (an exception with its own arguments does not pickle)."""

    size: int
    mtime_ns: int
    reason: str
    error: str | None
    remembered: bool


def prepare_file(path: str, row: dict[str, Any] | None, pending: list[dict[str, Any]]) -> Prepared:
    """Reads and analyses one file as its index ``row`` and ``pending`` calls say it stands (no database:
    this runs in worker processes too)."""
    prepared = Prepared(row, pending)
    try:
        size, mtime_ns, data = _read(path, row)
    except _Skip as skip:
        prepared.skip = _Skipped(skip.size, skip.mtime_ns, skip.reason, skip.error, skip.remembered)
        return prepared
    except Exception as error:
        prepared.unreadable = str(_reason(error))
        return prepared
    if data is None:
        return prepared
    try:
        prepared.work = _plan(path, row, pending, size, mtime_ns, data)
    except Exception as error:  # the analysis never fails on bad input; should it, one file is lost
        prepared.failed = f"{type(error).__name__}: {error}"
    return prepared


def prepare_files(tasks: list[tuple[str, dict[str, Any] | None, list[dict[str, Any]]]]) -> list[Prepared]:
    """:func:`prepare_file` of each (path, row, pending) (one task of a worker process)."""
    return [prepare_file(*task) for task in tasks]


class _Skip(Exception):
    """The file is not indexed, for a reason that holds while its size and modification time do: a JSON Lines
    file that is not a rollout (said, not an error), or a ``.zst`` over the decompressed limit (an error).
    ``reason`` is what ``files.skipped`` keeps; ``remembered``: the row already says so (nothing was read)."""

    def __init__(self, size: int, mtime_ns: int, reason: str, error: str | None, remembered: bool) -> None:
        super().__init__(error or reason)
        self.size, self.mtime_ns, self.reason, self.error, self.remembered = size, mtime_ns, reason, error, remembered


def max_decompressed() -> int:
    """The largest decompressed ``.zst`` indexed (bytes): ``$ROLLOUT_LSP_MAX_DECOMPRESSED``, else
    :data:`DEFAULT_MAX_DECOMPRESSED`; never above the 2 GiB any file is limited to."""
    value = os.environ.get(DECOMPRESSED_ENV, "")
    return min(int(value), MAX_BYTES) if value.isdigit() and int(value) > 0 else DEFAULT_MAX_DECOMPRESSED


def _over_limit(limit: int) -> tuple[str, str]:
    """The ``files.skipped`` value and the message of a ``.zst`` that decompresses to more than ``limit``."""
    return f"decompressed over {limit}", (f"it decompresses to more than {limit} bytes (the limit, "
                                          f"{DECOMPRESSED_ENV}): skipped, not read whole")


def _decompressed_size(path: str, limit: int) -> int:
    """How many bytes the zstd file ``path`` decompresses to, counted in constant memory (each piece is
    dropped), up to just past ``limit``; raises on truncated or corrupt data."""
    with open_regular(path) as handle:
        reader = ZstdReader(handle)
        piece = bytearray(1 << 20)
        total = 0
        while total <= limit:
            got = reader.readinto(piece)
            if not got:
                break
            total += got
        return total


def _is_rollout(path: str) -> bool:
    """Whether ``path`` is indexed as a rollout: its name matches a rollout pattern (it is read whatever it
    holds), or one of its first records is a rollout record, the rule ``check`` and the server follow."""
    if is_rollout_path(path):
        return True
    lines = read_lines(path)
    try:
        return looks_like_rollout(text for text, _ in lines)
    except Unreadable as error:  # say why as every other unreadable file does: "cannot read PATH: why"
        raise (error.__cause__ or error) from None
    finally:
        lines.close()


def _read(path: str, row: dict[str, Any] | None) -> tuple[int, int, bytes | None]:
    """The file's size, modification time and bytes; no bytes when size and time are as indexed.  Raises
    :class:`_Skip` when the file is not to be indexed (a ``.zst`` is measured, in constant memory, before it
    is held whole)."""
    with open_regular(path) as handle:
        stat = os.fstat(handle.fileno())
        limit = max_decompressed() if path.endswith(".zst") else None
        unchanged = row is not None and row["error"] is None and row["size"] == stat.st_size and \
            row["mtime_ns"] == stat.st_mtime_ns
        if unchanged and row["skipped"] == NOT_A_ROLLOUT_ROW:
            raise _Skip(stat.st_size, stat.st_mtime_ns, NOT_A_ROLLOUT_ROW, None, remembered=True)
        if unchanged and limit is not None and row["skipped"] == _over_limit(limit)[0]:
            raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=True)
        if unchanged and row["skipped"] is None:
            return stat.st_size, stat.st_mtime_ns, None
        if limit is not None:
            if _decompressed_size(path, limit) > limit:
                raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=False)
        if not _is_rollout(path):
            raise _Skip(stat.st_size, stat.st_mtime_ns, NOT_A_ROLLOUT_ROW, None, remembered=False)
        if limit is not None:
            data = ZstdReader(handle).read_up_to(limit + 1)
            if len(data) > limit:  # it changed since it was measured
                raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=False)
            return stat.st_size, stat.st_mtime_ns, data
        data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ValueError("file over 2 GiB")
        # what was read is what is indexed: a file that grows meanwhile is seen as changed next time
        return len(data), stat.st_mtime_ns, data


@dataclass
class _Work:
    """What indexing one file changes, computed before the write transaction."""

    path: str
    file_id: int | None
    append: bool
    first_line: int  # rows from this line on are replaced
    size: int
    mtime_ns: int
    stable_bytes: int
    stable_lines: int
    prefix_hash: str
    session_id: str | None
    session_time: str | None
    turn_line: int | None
    turn_title: str | None
    turn_number: int | None = None
    cwd: str | None = None
    repo_root: str | None = None
    repo_url: str | None = None
    calls: list[tuple] = field(default_factory=list)
    paired: list[tuple[int, int, tuple]] = field(default_factory=list)  # (line, call index, new output fields)
    changes: list[tuple] = field(default_factory=list)  # rows of the changes table
    applied: list[tuple[int, int, str]] = field(default_factory=list)  # (line, call index, applied) of late outputs
    lines_analysed: int = 0
    lines_reread: int = 0


def _plan(path: str, row: dict[str, Any] | None, pending: list[dict[str, Any]], size: int, mtime_ns: int,
          data: bytes) -> _Work:
    cut = data.rfind(b"\n") + 1  # the stable prefix ends at the last line break
    view = memoryview(data)
    digest = hashlib.sha256()
    append = False
    if row is not None and not path.endswith(".zst") and row["error"] is None and \
            0 < row["stable_bytes"] <= len(data):
        digest.update(view[:row["stable_bytes"]])
        append = digest.hexdigest() == row["prefix_hash"]
        if not append:
            digest = hashlib.sha256()
    base_bytes = row["stable_bytes"] if append else 0
    base_line = row["stable_lines"] if append else 0
    stable_lines = base_line + _breaks(data, base_bytes, cut) if cut > base_bytes else base_line
    digest.update(view[base_bytes:max(cut, base_bytes)])
    work = _Work(path, row["id"] if row else None, append, base_line, size, mtime_ns, max(cut, base_bytes),
                 stable_lines, digest.hexdigest(),
                 row["session_id"] if append else None, row["session_time"] if append else None,
                 row["turn_line"] if append else None, row["turn_title"] if append else None,
                 row["turn_number"] if append else None, row["cwd"] if append else None,
                 row["repo_root"] if append else None, row["repo_url"] if append else None)
    text = decode(path, data[base_bytes:]).text if base_bytes < len(data) else ""
    # the index reports no findings, and what it stores is redacted by _clean: no line is scanned for secrets
    analysis = analyze_text(text, LineCache(secrets=False)) if text else None
    if analysis is None:
        return work
    work.lines_analysed = len(analysis.lines) - (1 if analysis.lines[-1] == "" else 0)
    if work.session_id is None:
        work.session_id = _clean(analysis.session_id)
        work.session_time = _clean(next((r.session.timestamp for r in analysis.records if r.session is not None),
                                        None))
    if not append:
        place = session_place(analysis)
        work.repo_root, work.repo_url = repository_of(place)
    cwds = cwd_at(analysis, work.cwd)
    offsets = _line_offsets(data, base_bytes)
    before = work.turn_number or 0  # the turns of the lines indexed before an append
    turns = [(base_line + t.line, t.title, before + n) for n, t in enumerate(analysis.turns, 1)]
    turn_starts = [t[0] for t in turns]
    for located in analysis.calls:
        line = base_line + located.line
        at = bisect_right(turn_starts, line) - 1
        turn = turns[at] if at >= 0 else (work.turn_line, work.turn_title, work.turn_number)
        call_row = _call_row(analysis, located, line, offsets[located.line], base_line, offsets,
                             work.session_id, work.session_time, turn)
        work.calls.append(call_row)
        if located.call.kind == PATCH:
            turn_line, turn_title, _, timestamp = call_row[-4:]
            work.changes += _change_rows(analysis, located, line, cwds[located.line], work,
                                         (turn_line, turn_title, timestamp))
    if append:
        _pair_late_outputs(path, data, analysis, base_line, offsets, pending, work)
    within = [c for n, c in enumerate(cwds) if base_line + n < stable_lines]
    work.cwd = within[-1] if within else work.cwd
    earlier = [t for t in turns if t[0] < stable_lines]
    if earlier:
        work.turn_line, work.turn_title, work.turn_number = earlier[-1][0], _clean(earlier[-1][1], _TITLE_LIMIT), \
            earlier[-1][2]
    return work


def _pair_late_outputs(path: str, data: bytes, tail: RolloutAnalysis, base_line: int, offsets: list[int],
                       pending: list[dict[str, Any]], work: _Work) -> None:
    """Updates calls indexed earlier whose output (or, for a script that was still running, whose ``wait``)
    is among the new lines: the call's line, its earlier output and those new lines are analysed together,
    so the analysis pairs them exactly as it would in the whole file."""
    waits = [n for n, r in enumerate(tail.records) if r.kind == "function_call" and r.name == "wait"]
    patch_events = [n for n, r in enumerate(tail.records) if r.event is not None and r.event.kind == PATCH]
    wait_outputs = [n for w in waits for n in tail.outputs_by_call_id.get(tail.records[w].call_id or "", [])]
    by_line: dict[int, dict[str, Any]] = {}
    for call in pending:
        by_line.setdefault(call["line"], call)
    for line, call in by_line.items():
        relevant = list(tail.outputs_by_call_id.get(call["call_id"], []))
        if call["status"] == "running":
            relevant += waits + wait_outputs
        if not relevant:
            continue
        # the patch events before the output tell whether a patch applied (a nested one's id is exec-…)
        relevant += [n for n in patch_events if n < max(relevant) and
                     (tail.records[n].event.call_id == call["call_id"] or tail.records[n].event.nested)]
        texts = [_line_at(path, data, call["line_offset"])]
        where = [(line, call["line_offset"])]
        if call["output_offset"] is not None:
            texts.append(_line_at(path, data, call["output_offset"]))
            where.append((call["output_line"], call["output_offset"]))
        for number in sorted(set(relevant)):
            texts.append(tail.lines[number])
            where.append((base_line + number, offsets[number]))
        work.lines_reread += 1 + (call["output_offset"] is not None)
        stitched = analyze_text("\n".join(texts), LineCache(secrets=False))
        first = stitched.output_of(0)
        for located in stitched.calls_on(0):
            output = located.output
            if output is None:
                continue
            if located.call.kind == PATCH:
                work.applied.append((line, located.index, applied(located)))
            work.paired.append((line, located.index, (
                output.status, output.exit_code, located.call.executed, where[output.line][0],
                where[first][1] if first is not None else None)))


def _line_at(path: str, data: bytes, offset: int) -> str:
    end = _BREAKS.search(data, offset)
    return decode(path, data[offset:end.start() if end else len(data)]).text


def _breaks(data: bytes, start: int, end: int) -> int:
    """How many line breaks ``data[start:end]`` holds (a bare ``\n`` is counted by C, the others by regex)."""
    if data.find(b"\r", start, end) < 0:
        return data.count(b"\n", start, end)
    return len(_BREAKS.findall(data, start, end))


def _line_offsets(data: bytes, base: int) -> list[int]:
    """Byte offsets (in ``data``) of the lines that start at or after ``base``."""
    if data.find(b"\r", base) >= 0:
        return [base] + [m.end() for m in _BREAKS.finditer(data, base)]
    offsets = [base]
    find = data.find
    at = find(b"\n", base)
    while at >= 0:  # a C search per line: several times faster than the regex's match objects
        offsets.append(at + 1)
        at = find(b"\n", at + 1)
    return offsets


def _clean(text: str | None, limit: int | None = None) -> str | None:
    if text is None:
        return None
    text = storable(redact_all(text))
    return text[:limit] if limit is not None and len(text) > limit else text


def _clean_many(texts: list[str | None]) -> list[str | None]:
    """:func:`_clean` of each text (no limit), their secrets looked for in one pass."""
    cleaned = iter(redact_each([t for t in texts if t is not None]))
    return [storable(next(cleaned)) if t is not None else None for t in texts]


def _first_output_offset(analysis: RolloutAnalysis, located, offsets: list[int]) -> int | None:
    """The byte offset of the output record answering the call's own ``call_id`` (not a later ``wait``'s)."""
    if located.output is None:
        return None
    first = analysis.output_of(located.line)
    return offsets[first] if first is not None else offsets[located.output.line]


def repository_of(place: Place) -> tuple[str | None, str | None]:
    """The session's repository root and remote: the nearest folder of its cwd holding ``.git`` when the
    cwd exists here, else the cwd itself when ``session_meta`` has ``git`` fields (Codex ran in a
    repository, most often at its root); the remote is ``git.repository_url``."""
    url = place.git.get("repository_url") if place.git else None
    url = url if isinstance(url, str) and url else None
    if not place.cwd:
        return None, url
    root = find_repository_root(place.cwd)
    if root is None and place.git:
        root = place.cwd
    return root, url


def find_repository_root(path: str) -> str | None:
    """The nearest folder at or above ``path`` holding ``.git`` (a folder, or a worktree's file), or None."""
    try:
        current = os.path.abspath(path)
        if not os.path.isdir(current):
            return None
        while True:
            if os.path.exists(os.path.join(current, ".git")):
                return current
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
    except (OSError, ValueError):  # a path this system cannot hold (another machine's)
        return None


def repository_key(path: str | None, root: str | None) -> str | None:
    """How a path is found from another machine: relative to its repository's root, in lower case (a
    Windows repository is case-insensitive; the lookup checks case where both sides are POSIX)."""
    if not path or not root:
        return None
    relative = relative_key(path, root)
    return relative.lower() if relative else None


def _change_rows(analysis: RolloutAnalysis, located, line: int, cwd: str | None, work: _Work,
                 turn_and_time: tuple) -> list[tuple]:
    rows = []
    for change in call_changes(analysis, located, cwd):
        texts = [change.absolute, change.move_absolute, change.path, change.move_to, change.next_command]
        for hunk in change.hunks:
            texts += [hunk.header, *hunk.lines]
        cleaned = _clean_many(texts)
        absolute, move_absolute, path, move_to, next_command = cleaned[:5]
        at = 5
        hunks = []
        for hunk in change.hunks:
            hunks.append([cleaned[at], cleaned[at + 1:at + 1 + len(hunk.lines)]])
            at += 1 + len(hunk.lines)
        repo = work.repo_root
        rows.append((line, change.call_index, change.file_index, change.action, path, move_to, absolute,
                     move_absolute,
                     path_key(absolute) if absolute else None, path_key(move_absolute) if move_absolute else None,
                     repository_key(absolute, repo), repository_key(move_absolute, repo),
                     change.applied, int(change.nested), json.dumps(hunks, ensure_ascii=False),
                     next_command, work.session_id, *turn_and_time))
    return rows


def _call_row(analysis: RolloutAnalysis, located, line: int, line_offset: int, base_line: int,
              offsets: list[int], session_id: str | None, session_time: str | None,
              turn: tuple[int | None, str | None, int | None]) -> tuple:
    call = located.call
    text = analysis.lines[located.line]
    columns = LineColumns(text)
    span = located.span
    record = located.record.record
    timestamp = record.envelope.timestamp if record is not None else None
    output = located.output
    files = "\n".join(f.path + (f"\n{f.move_to}" if f.move_to else "") for f in call.files)
    name, call_id, tool, shown, workdir, files, status, session, title, time = _clean_many([
        located.record.name, located.record.call_id, call.tool, call_text(call), call.workdir, files,
        output.status if output else None, session_id, turn[1], timestamp or session_time])
    if title is not None and len(title) > _TITLE_LIMIT:
        title = title[:_TITLE_LIMIT]
    return (line, located.index, line_offset,
            columns.to_units(span.start, PositionEncoding.UTF8), columns.to_units(span.end, PositionEncoding.UTF8),
            columns.to_units(span.start, PositionEncoding.UTF16), columns.to_units(span.end, PositionEncoding.UTF16),
            span.start, span.end,
            name, call_id, tool, call.kind, shown, workdir, files or None, call.executed,
            status, _integer(output.exit_code) if output else None,
            base_line + output.line if output else None, _first_output_offset(analysis, located, offsets),
            session, turn[0], title, turn[2], time)


__all__ = ["Hit", "IndexStats", "IndexUnavailable", "RolloutIndex", "call_text", "default_db_path",
           "default_session_dirs", "find_repository_root", "parse_since", "repository_key", "repository_of",
           "SCHEMA_VERSION"]
