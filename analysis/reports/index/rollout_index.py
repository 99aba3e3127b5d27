"""The index, :class:`RolloutIndex`: brings it up to date with the rollout files (each file planned outside the
write lock, by worker processes with ``jobs``, and written if its row is still the one planned from) and
answers searches."""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from ...jsonl.display import storable
from ...jsonl.source import find_rollout_files
from .database import IndexDatabase, _failure
from .results import _HIT_COLUMNS, Hit, IndexStats, _hit
from .rows import _Work
from .schema import _FILE_COLUMNS, _INSERT_CHANGE, insert_calls
from .session_rows import write_session
from .workers import FILES_IN_FLIGHT, Prepared, _Skipped, prepare_file

if TYPE_CHECKING:  # the pool's futures, imported with the pool (concurrent.futures brings logging: 4 ms)
    from concurrent.futures import Future


class RolloutIndex(IndexDatabase):
    """The index database.  Open it with :meth:`open` (the writer) or :meth:`open_existing` (readers)."""

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
                self.db.executemany(
                    "INSERT OR IGNORE INTO roots(path) VALUES (?)", [(r,) for r in roots if os.path.exists(r)]
                )
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
        broken: tuple[type[Exception], ...] = ()  # what a dead worker raises, once there are workers
        with ExitStack() as stack:
            if len(changed) > 1:
                # only when there is work to share: a process pool's modules cost a one-process run's start
                from concurrent.futures import ProcessPoolExecutor
                from concurrent.futures.process import BrokenProcessPool

                from ..spread import pool_options

                broken = (BrokenProcessPool,)
                pool = stack.enter_context(ProcessPoolExecutor(max_workers=jobs, **pool_options()))
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
                except broken:  # a worker died (killed, out of memory): this process does it
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
            rows = self.db.execute(
                "SELECT id, path, skipped FROM files WHERE substr(path, 1, ?) = ?", (len(prefix), prefix)
            ).fetchall()
            gone = [
                (file_id, skipped) for file_id, path, skipped in rows if path not in found and not os.path.exists(path)
            ]
            if gone:
                with self._transaction():
                    self.db.executemany("DELETE FROM calls WHERE file_id = ?", [(i,) for i, _ in gone])
                    self.db.executemany("DELETE FROM changes WHERE file_id = ?", [(i,) for i, _ in gone])
                    self.db.executemany("DELETE FROM files WHERE id = ?", [(i,) for i, _ in gone])
                stats.removed += sum(skipped is None for _, skipped in gone)  # rollouts removed

    def _file_row(self, path: str) -> dict[str, Any] | None:
        row = self.db.execute(f"SELECT {', '.join(_FILE_COLUMNS)} FROM files WHERE path = ?", (path,)).fetchone()
        return dict(zip(_FILE_COLUMNS, row)) if row else None

    def _update_file(self, path: str, stats: IndexStats, prepared: Prepared | None = None) -> None:
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
            except (
                sqlite3.InterfaceError,
                sqlite3.DataError,
                sqlite3.ProgrammingError,
                UnicodeError,
                OverflowError,
            ) as error:  # a value SQLite refuses: this file is skipped, the others indexed
                stats.errors.append(f"cannot index {storable(path)}: {type(error).__name__}: {error}")
                return
            if outcome.limited is not None:  # indexed up to the limit: said, as an error (exit 1)
                stats.errors.append(f"{storable(path)}: {outcome.limited}")
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
            (row["id"], row["stable_lines"]),
        ).fetchall()
        return [dict(zip(columns, r)) for r in rows]

    def _record_error(self, path: str, row: dict[str, Any] | None, reason: str) -> None:
        with self._transaction():
            if row is not None:
                self.db.execute("DELETE FROM calls WHERE file_id = ?", (row["id"],))
                self.db.execute("DELETE FROM changes WHERE file_id = ?", (row["id"],))
            self.db.execute(
                "INSERT INTO files(path, size, mtime_ns, stable_bytes, stable_lines, prefix_hash, error) "
                "VALUES (?, -1, -1, 0, 0, '', ?) ON CONFLICT(path) DO UPDATE SET size = -1, mtime_ns = -1, "
                "stable_bytes = 0, stable_lines = 0, prefix_hash = '', error = excluded.error, skipped = NULL",
                (path, reason),
            )

    def _record_skip(self, path: str, row: dict[str, Any] | None, skip: _Skipped) -> None:
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
            (path, skip.size, skip.mtime_ns, skip.reason),
        )

    def _apply(self, work: _Work) -> None:
        values = (
            work.size,
            work.mtime_ns,
            work.stable_bytes,
            work.stable_lines,
            work.prefix_hash,
            work.session_id,
            work.session_time,
            work.turn_line,
            work.turn_title,
            work.turn_number,
            work.cwd,
            work.repo_root,
            work.repo_url,
        )
        if work.file_id is None:
            cursor = self.db.execute(
                "INSERT INTO files(path, size, mtime_ns, stable_bytes, stable_lines, prefix_hash, session_id, "
                "session_time, turn_line, turn_title, turn_number, cwd, repo_root, repo_url, error) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (work.path, *values),
            )
            file_id = cursor.lastrowid
        else:
            file_id = work.file_id
            self.db.execute(
                "UPDATE files SET size = ?, mtime_ns = ?, stable_bytes = ?, stable_lines = ?, prefix_hash = ?, "
                "session_id = ?, session_time = ?, turn_line = ?, turn_title = ?, turn_number = ?, cwd = ?, "
                "repo_root = ?, repo_url = ?, error = NULL, skipped = NULL WHERE id = ?",
                (*values, file_id),
            )
            self.db.execute("DELETE FROM calls WHERE file_id = ? AND line >= ?", (file_id, work.first_line))
            self.db.execute("DELETE FROM changes WHERE file_id = ? AND line >= ?", (file_id, work.first_line))
        insert_calls(self.db, [(file_id, *call) for call in work.calls])
        self.db.executemany(_INSERT_CHANGE, [(file_id, *change) for change in work.changes])
        self.db.executemany(
            "UPDATE changes SET applied = ? WHERE file_id = ? AND line = ? AND call_index = ?",
            [(state, file_id, line, index) for line, index, state in work.applied],
        )
        self.db.executemany(
            "UPDATE calls SET status = ?, exit_code = ?, executed = ?, output_line = ?, output_offset = ? "
            "WHERE file_id = ? AND line = ? AND call_index = ?",
            [(*update, file_id, line, index) for line, index, update in work.paired],
        )
        write_session(self.db, file_id, work)  # the sessions library's rows (session_rows)

    # -- queries ----------------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        tool: str | None = None,
        since: str | None = None,
        failed: bool = False,
        limit: int | None = None,
        exclude_paths: frozenset[str] = frozenset(),
    ) -> list[Hit]:
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
            where.append(
                "((c.exit_code IS NOT NULL AND c.exit_code != 0) OR "
                "(c.exit_code IS NULL AND c.status IN ('failed', 'terminated')))"
            )
        # without a trigram match, files in path order then their calls in line order need no sort, and
        # stepping stops at the limit; with one, the few matches are sorted
        join = (
            "calls c JOIN files f ON f.id = c.file_id"
            if len(needle) >= 3
            else "files f CROSS JOIN calls c ON c.file_id = f.id"
        )
        sql = (
            f"SELECT {', '.join(_HIT_COLUMNS)} FROM {join} {'WHERE ' + ' AND '.join(where) if where else ''} "
            "ORDER BY f.path, c.line, c.call_index"
        )
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


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
