"""What the index does for speed (issue 35), with every row it writes unchanged: calls inserted many rows a
statement (one full-text segment for them, not one a call), and lines read without what only findings need."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from analysis.jsonl.findings import UNKNOWN_RECORD
from analysis.reports.index import RolloutIndex
from analysis.reports.index.database import _statements
from analysis.reports.index.planning import _analyse
from analysis.reports.index.schema import _CALL_COLUMNS, _SCHEMA, insert_calls
from analysis.session.rollout import LineCache, LocatedCall, analyze_text
from tests.helpers import FIXTURES

ONE_ROW = f"INSERT INTO calls({', '.join(_CALL_COLUMNS)}) VALUES ({', '.join('?' * len(_CALL_COLUMNS))})"


def _database(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), isolation_level=None)
    for statement in _statements(_SCHEMA):
        db.execute(statement)
    return db


def _rows(count: int, file_id: int = 1) -> list[tuple]:
    """``count`` rows of calls: each column a value of its type, the text a command to search for."""
    rows = []
    for n in range(count):
        values: dict[str, object] = {c: None for c in _CALL_COLUMNS}
        values.update(
            file_id=file_id,
            line=n,
            call_index=n % 3,
            line_offset=n * 100,
            start8=1,
            end8=2,
            start16=1,
            end16=2,
            start32=1,
            end32=2,
            tool="exec_command" if n % 2 else None,
            kind="command",
            text=f"git commit -m 'step {n}' && npm test -- shard{n % 7}",
            executed="yes",
        )
        rows.append(tuple(values[c] for c in _CALL_COLUMNS))
    return rows


def _contents(db: sqlite3.Connection) -> tuple[list, dict[str, list]]:
    """Every row of ``calls`` and what the full-text index finds for a few words."""
    words = ("step 1", "shard3", "exec_command", "npm test", "nothing like it")
    found = {
        w: [r[0] for r in db.execute("SELECT rowid FROM calls_fts WHERE calls_fts MATCH ? ORDER BY rowid", (f'"{w}"',))]
        for w in words
    }
    return db.execute("SELECT * FROM calls ORDER BY id").fetchall(), found


@pytest.mark.parametrize("count", [0, 1, 2, 3, 255, 256, 257, 300, 700])
def test_calls_inserted_many_a_statement_are_the_rows_and_matches_of_one_a_statement(tmp_path: Path, count: int):
    one, many = _database(tmp_path / "one.sqlite3"), _database(tmp_path / "many.sqlite3")
    for db, write in ((one, lambda db, rows: db.executemany(ONE_ROW, rows)), (many, insert_calls)):
        db.execute("BEGIN")
        write(db, _rows(count))
        write(db, _rows(5, file_id=2))  # ids go on from the rows before
        db.execute("COMMIT")
    assert _contents(many) == _contents(one)
    assert len(_contents(many)[0]) == count + 5


class _Recorded:
    """A connection that keeps the statements it is given and how many rows each writes (``executemany``: one
    statement compiled once for all its rows)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.statements = db, []

    def execute(self, statement: str, values: tuple = ()) -> sqlite3.Cursor:
        self.statements.append((statement.split("(")[0].split(" SELECT")[0], 1))
        return self.db.execute(statement, values)

    def executemany(self, statement: str, rows: list) -> sqlite3.Cursor:
        self.statements.append((statement.split("(")[0], len(rows)))
        return self.db.executemany(statement, rows)


def test_calls_are_moved_into_calls_by_one_statement(tmp_path: Path):
    """300 rows: gathered by one executemany in the connection's temporary table, moved into calls by one
    INSERT … SELECT (one full-text segment), the temporary table emptied; not 300 statements of one row."""
    db = _Recorded(_database(tmp_path / "index.sqlite3"))
    insert_calls(db, _rows(300))  # type: ignore[arg-type]
    assert db.statements == [
        ("CREATE TEMP TABLE IF NOT EXISTS pending_calls", 1),
        ("INSERT INTO temp.pending_calls", 300),
        ("INSERT INTO main.calls", 1),
        ("DELETE FROM temp.pending_calls", 1),
    ]
    assert db.db.execute("SELECT count(*) FROM calls").fetchone() == (300,)
    assert db.db.execute("SELECT count(*) FROM temp.pending_calls").fetchone() == (0,)


def test_calls_fit_a_connection_that_allows_few_parameters(tmp_path: Path):
    """An SQLite that allows fewer bound parameters (999 before 3.32): every statement binds one row's at most."""
    db = _Recorded(_database(tmp_path / "index.sqlite3"))
    db.db.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, len(_CALL_COLUMNS))  # one row's parameters, no more
    insert_calls(db, _rows(7))  # type: ignore[arg-type]
    assert [rows for _, rows in db.statements] == [1, 7, 1, 1]
    assert [r[2] for r in db.db.execute("SELECT * FROM calls ORDER BY id")] == list(range(7))


def test_the_index_reads_each_rollout_as_the_analysis_does_less_the_unknown_record_findings():
    """The index's reading (planning._analyse) is analyze_text's without the secret scan (as before): the same
    calls, outputs, events and turns; it leaves out the unknown-record findings, which nothing in the index
    reads."""
    unknown = 0
    for path in sorted(FIXTURES.glob("*.jsonl")):
        text = path.read_text(encoding="utf-8")
        full, read = analyze_text(text, LineCache(secrets=False)), _analyse(text)
        assert read.lines == full.lines
        assert [r.kind for r in read.records] == [r.kind for r in full.records]
        assert [_located(c) for c in read.calls] == [_located(c) for c in full.calls]
        assert read.turns == full.turns
        assert read.record_outputs == full.record_outputs
        assert read.outputs_by_call_id == full.outputs_by_call_id
        assert read.matched_events == full.matched_events
        assert read.findings == [f for f in full.findings if f.code != UNKNOWN_RECORD]
        unknown += sum(f.code == UNKNOWN_RECORD for f in full.findings)
    assert unknown > 0  # some fixture has a record of a type the analysis does not know


def _located(located: LocatedCall) -> tuple:
    return (located.line, located.index, located.call, located.output, located.event, located.record.call_id)


def test_an_index_of_many_calls_finds_each_as_before(tmp_path: Path):
    """A rollout of 600 calls, indexed and searched through the command's own code: every call found by its
    words, in its line's order, ids following the lines."""
    lines = [
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1","timestamp":'
        '"2026-01-01T00:00:00Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.1.0"}}'
    ]
    for n in range(600):
        arguments = '{\\"cmd\\":\\"echo call' + str(n) + '\\"}'
        lines.append(
            '{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call",'
            f'"name":"exec_command","arguments":"{arguments}","call_id":"c{n}"}}}}'
        )
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "rollout-2026-01-01T00-00-00-s1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        stats = index.update([str(folder)])
        assert (stats.calls_added, stats.errors) == (600, [])
        assert [(h.line, h.text) for h in index.search("echo call59")] == [
            (1 + n, f"echo call{n}") for n in range(600) if f"call{n}".startswith("call59")
        ]
        assert [h.line for h in index.search("")] == list(range(1, 601))


def test_a_rollout_whose_name_does_not_say_is_told_by_a_first_line_longer_than_one_read(tmp_path: Path):
    """A rollout not named rollout-*.jsonl is told by its first records, read 64 KiB at a time: a first line
    (a session_meta with long instructions) longer than one read is read whole, and the file indexed; a file
    whose long first line is no rollout record is not."""
    from analysis.reports.index.reading import SNIFF_CHUNK

    meta = json.dumps(
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "session_meta",
            "payload": {"id": "s2", "timestamp": "2026-01-01T00:00:00Z", "instructions": "x" * (3 * SNIFF_CHUNK)},
        }
    )
    call = json.dumps(
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "echo told"}),
                "call_id": "c1",
            },
        }
    )
    folder = tmp_path / "copies"
    folder.mkdir()
    (folder / "saved-session.jsonl").write_text(f"{meta}\n{call}\n", encoding="utf-8")
    other = json.dumps({"note": "y" * (3 * SNIFF_CHUNK)})
    (folder / "notes.jsonl").write_text(f"{other}\n{json.dumps({'n': 1})}\n", encoding="utf-8")
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        stats = index.update([str(folder)])
        assert [(Path(h.path).name, h.text) for h in index.search("")] == [("saved-session.jsonl", "echo told")]
    assert (stats.files, stats.not_rollouts) == (1, [str(folder / "notes.jsonl")])
