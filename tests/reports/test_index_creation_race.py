"""Two processes making the same index at once: the foreign-database check reads one snapshot.

``rollout-lsp index`` (and the server's library) open the index for writing after checking that the file is not
another application's database.  A process that finds the file being made by another reads its id and its tables;
read as two statements outside a transaction, they could straddle the other's commit (no id yet, then its
tables) and call our own index "an SQLite database of something else" (``make test`` failed once so, in
``test_two_processes_creating_the_same_index_both_open_it``).  Here the other process's commit is placed exactly
between the two reads.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import analysis.reports.index.database as database
from analysis.reports.index.database import APPLICATION_ID


class _CommitAfterTheIdIsRead:
    """A read-only connection through which the other process commits its schema and id right after the id is
    read (what a scheduler may do between the two statements)."""

    def __init__(self, connection: sqlite3.Connection, maker: sqlite3.Connection) -> None:
        self.connection, self.maker, self.reads = connection, maker, []

    def execute(self, sql: str, *parameters):
        cursor = self.connection.execute(sql, *parameters)
        self.reads.append(sql)
        if sql.startswith("PRAGMA application_id"):
            self.maker.execute("BEGIN IMMEDIATE")
            self.maker.execute("CREATE TABLE files(path TEXT)")
            self.maker.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self.maker.execute("COMMIT")
        return cursor

    def close(self) -> None:
        self.connection.close()


def test_an_index_committed_between_the_foreign_checks_two_reads_is_not_foreign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "index.sqlite3"
    maker = sqlite3.connect(path, isolation_level=None)
    maker.execute("PRAGMA journal_mode=WAL")  # as the index is made: WAL first, then the schema and id at once
    connect = sqlite3.connect
    opened: list[_CommitAfterTheIdIsRead] = []

    def interleaved(*arguments, **options) -> _CommitAfterTheIdIsRead:
        opened.append(_CommitAfterTheIdIsRead(connect(*arguments, **options), maker))
        return opened[0]

    monkeypatch.setattr(database.sqlite3, "connect", interleaved)
    assert database._other_database(path) is False
    monkeypatch.undo()
    assert opened[0].reads == ["BEGIN", "PRAGMA application_id", "SELECT count(*) FROM sqlite_master"]
    # the other process's commit did land: the file is ours, and a second look says so from its header's id
    assert database._other_database(path) is False
    assert maker.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    maker.close()


def test_a_database_of_something_else_is_still_told(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE notes(text TEXT)")
    other.commit()
    other.close()
    assert database._other_database(path) is True
    with pytest.raises(database.IndexUnavailable, match="is an SQLite database of something else"):
        database.IndexDatabase.open(path)
