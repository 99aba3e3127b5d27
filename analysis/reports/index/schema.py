"""The index's SQLite schema: its tables, columns and version, and the statements that insert rows."""

import sqlite3
from collections.abc import Sequence

SCHEMA_VERSION = 6  # 3: the changes table (files changed by patches) and the files' cwd and repository;
# 4: turn_number, the turn's ordinal (turns read "turn 2 (line 125)" everywhere); 5: files.skipped;
# 6: the sessions library (files' lineage, request, start, end, model; the responses and links tables)
SESSION_COLUMNS = (  # what the sessions library keeps of a file (carried over when it grows by appending)
    "root_id",
    "forked_from",
    "parent_thread",
    "agent_path",
    "nickname",
    "started",
    "ended",
    "open_turn",
    "request",
    "model",
    "service_tier",
    "provider",
)
APPLICATION_ID = 0x524C5350  # "RLSP": marks a database as this project's index

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
  skipped TEXT,                   -- why the file at this size and time is not indexed (see _Skip); NULL: indexed
  root_id TEXT,                   -- session_meta.session_id: the root thread of a v2 subagent tree (else the id)
  forked_from TEXT,               -- session_meta.forked_from_id
  parent_thread TEXT,             -- the thread that spawned this subagent (parent_thread_id)
  agent_path TEXT,
  nickname TEXT,
  started TEXT,                   -- the first timestamp outside a replayed history
  ended TEXT,                     -- the last timestamp of the stable lines
  open_turn INTEGER,              -- 1 while the last turn has neither ended nor been aborted
  request TEXT,                   -- the first request in the user's words (redacted, at most 500 characters)
  model TEXT,                     -- the model, service tier and provider in force at the end of the stable lines
  service_tier TEXT,
  provider TEXT
);
CREATE TABLE responses(           -- one row per model response's usage (analysis.reports.index.session_rows)
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id),
  line INTEGER NOT NULL,
  thread_id TEXT,                 -- the thread the usage is of (a token_usage_record's thread_id, else the file's)
  response_id TEXT,
  source TEXT NOT NULL,           -- record (token_usage_record) or count (token_count)
  total_key TEXT NOT NULL,        -- count: the running total (a repeat adds nothing); record: the usage
  model TEXT,
  service_tier TEXT,
  provider TEXT,
  timestamp TEXT,
  input INTEGER NOT NULL,
  cached INTEGER NOT NULL,
  output INTEGER NOT NULL,
  reasoning INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  inherited INTEGER NOT NULL      -- 1: a replayed history's, or another thread's copied record: never counted
);
CREATE INDEX responses_by_file ON responses(file_id, line);
CREATE INDEX responses_by_response ON responses(thread_id, response_id);
CREATE TABLE links(               -- sessions this file names: spawned (a child), history_base, rollout_reference
  file_id INTEGER NOT NULL REFERENCES files(id),
  kind TEXT NOT NULL,
  target TEXT NOT NULL,
  UNIQUE(file_id, kind, target)
);
CREATE INDEX links_by_target ON links(target);
CREATE TRIGGER files_ad AFTER DELETE ON files BEGIN
  DELETE FROM responses WHERE file_id = old.id;
  DELETE FROM links WHERE file_id = old.id;
END;
CREATE TRIGGER files_unread AFTER UPDATE OF stable_bytes ON files WHEN new.stable_bytes = 0 BEGIN
  DELETE FROM responses WHERE file_id = old.id;
  DELETE FROM links WHERE file_id = old.id;
END;
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
_TABLES = ("calls_fts", "calls", "changes", "responses", "links", "files", "roots")
_CALL_COLUMNS = (
    "file_id",
    "line",
    "call_index",
    "line_offset",
    "start8",
    "end8",
    "start16",
    "end16",
    "start32",
    "end32",
    "record",
    "call_id",
    "tool",
    "kind",
    "text",
    "workdir",
    "files",
    "executed",
    "status",
    "exit_code",
    "output_line",
    "output_offset",
    "session_id",
    "turn_line",
    "turn_title",
    "turn_number",
    "timestamp",
)
# the connection's own table the calls of a file are gathered in before one INSERT … SELECT (see insert_calls):
# a TEMP table lives in the connection's temporary database, never in the index file, and its columns have no
# declared type, so values are kept as given and converted only by calls' own columns, as a direct INSERT does
PENDING_CALLS = "temp.pending_calls"
_CREATE_PENDING = f"CREATE TEMP TABLE IF NOT EXISTS pending_calls({', '.join(_CALL_COLUMNS)})"
_GATHER_CALL = f"INSERT INTO {PENDING_CALLS}({', '.join(_CALL_COLUMNS)}) VALUES ({', '.join('?' * len(_CALL_COLUMNS))})"
_MOVE_CALLS = (
    f"INSERT INTO main.calls({', '.join(_CALL_COLUMNS)}) SELECT {', '.join(_CALL_COLUMNS)} FROM {PENDING_CALLS} "
    "ORDER BY rowid"
)


def insert_calls(db: sqlite3.Connection, rows: Sequence[tuple]) -> None:
    """Inserts ``rows`` (values of :data:`_CALL_COLUMNS`) into ``calls``, in order, by one INSERT statement.

    Each statement that inserts into ``calls`` fires the ``calls_ai`` trigger, and a statement with a trigger
    makes SQLite open a savepoint on the full-text table, which makes FTS5 write out the terms it holds as a
    new segment, to be merged later: ``executemany`` (one statement a row) wrote a segment per call, which
    cost the index about half its writing time.  The rows are gathered by ``executemany`` in a TEMP table (no
    trigger, no index: one statement compiled once) and moved by one ``INSERT … SELECT``, so that a file's
    calls make one segment whatever their number, without a statement of its own for each count of rows (a
    statement of n rows binds 27 n parameters and is compiled anew for each n).  The temporary table is the
    connection's and is emptied in the same transaction (a rollback empties it too); the rows, their ids
    (the SELECT's order is the rows') and what is indexed are the same."""
    if not rows:
        return
    db.execute(_CREATE_PENDING)
    db.executemany(_GATHER_CALL, rows)
    db.execute(_MOVE_CALLS)
    db.execute(f"DELETE FROM {PENDING_CALLS}")


_FILE_COLUMNS = (
    "id",
    "path",
    "size",
    "mtime_ns",
    "stable_bytes",
    "stable_lines",
    "prefix_hash",
    "session_id",
    "session_time",
    "turn_line",
    "turn_title",
    "turn_number",
    "error",
    "cwd",
    "repo_root",
    "repo_url",
    "skipped",
    *SESSION_COLUMNS,
)
_CHANGE_COLUMNS = (
    "file_id",
    "line",
    "call_index",
    "file_index",
    "action",
    "path",
    "move_to",
    "absolute",
    "move_absolute",
    "path_key",
    "move_key",
    "repo_path",
    "repo_move_path",
    "applied",
    "nested",
    "hunks",
    "next_command",
    "session_id",
    "turn_line",
    "turn_title",
    "timestamp",
)
_INSERT_CHANGE = f"INSERT INTO changes({', '.join(_CHANGE_COLUMNS)}) VALUES ({', '.join('?' * len(_CHANGE_COLUMNS))})"
