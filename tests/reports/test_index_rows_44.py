"""Stop 44's index work, with every row it writes unchanged: a file's calls moved into ``calls`` by one
statement from the connection's temporary table, their texts cleaned in one secret prefilter pass a file, and
the working directory read only at the lines that need it."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from analysis.reports.index.database import _statements
from analysis.reports.index.planning import _analyse, _cwds_at, _plan
from analysis.reports.index.rows import CALL_TEXTS, _call_texts, _clean_many
from analysis.reports.index.schema import _CALL_COLUMNS, _SCHEMA, insert_calls
from analysis.session.changes import cwd_at
from tests.helpers import FIXTURES

ONE_ROW = f"INSERT INTO calls({', '.join(_CALL_COLUMNS)}) VALUES ({', '.join('?' * len(_CALL_COLUMNS))})"
FIXTURE_PATHS = sorted(FIXTURES.glob("*.jsonl"))


def _database(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), isolation_level=None)
    for statement in _statements(_SCHEMA):
        db.execute(statement)
    return db


def _row(n: int, **values: object) -> tuple:
    row: dict[str, object] = {c: None for c in _CALL_COLUMNS}
    row.update(file_id=1, line=n, call_index=0, line_offset=0, start8=0, end8=1, start16=0, end16=1)
    row.update(start32=0, end32=1, kind="command", text=f"echo {n}", executed="yes")
    row.update(values)
    return tuple(row[c] for c in _CALL_COLUMNS)


def test_values_are_converted_by_the_calls_columns_as_a_direct_insert_converts_them(tmp_path: Path):
    """The temporary table's columns have no type: a value reaches ``calls`` as given, and only its column's
    affinity converts it, as ``INSERT … VALUES`` does (text of digits into an INTEGER column, a number into a
    TEXT one, a float, bytes, huge and negative integers)."""
    rows = [
        _row(0, exit_code="17", output_line="0012", turn_number=" 3"),
        _row(1, record=42, call_id=3.5, tool=b"\x00raw", status=-1, timestamp=1.0),
        _row(2, exit_code=(1 << 63) - 1, output_offset=-(1 << 63), line_offset=2.0, turn_line="x"),
        _row(3, text="", files="a\nb", workdir="/ü/\u2028", session_id="\U0001f600"),
    ]
    direct, moved = _database(tmp_path / "direct.sqlite3"), _database(tmp_path / "moved.sqlite3")
    direct.executemany(ONE_ROW, rows)
    insert_calls(moved, rows)
    typed = "SELECT *, " + ", ".join(f"typeof({c})" for c in _CALL_COLUMNS) + " FROM calls ORDER BY id"
    assert moved.execute(typed).fetchall() == direct.execute(typed).fetchall()


def test_the_temporary_table_is_the_connections_and_empty_after_each_file(tmp_path: Path):
    """Nothing of the temporary table is in the index file; it is empty after a file's calls, and after a
    transaction that failed (rolled back with the rows it held)."""
    path = tmp_path / "index.sqlite3"
    db = _database(path)
    db.execute("BEGIN IMMEDIATE")
    insert_calls(db, [_row(n) for n in range(3)])
    db.execute("COMMIT")
    assert db.execute("SELECT count(*) FROM temp.pending_calls").fetchone() == (0,)
    db.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.ProgrammingError):
        insert_calls(db, [_row(3), _row(4)[:-1]])  # a row one value short: nothing of the file is written
    db.execute("ROLLBACK")
    assert db.execute("SELECT count(*) FROM temp.pending_calls").fetchone() == (0,)
    db.execute("BEGIN IMMEDIATE")
    insert_calls(db, [_row(5)])
    db.execute("COMMIT")
    assert [r[0] for r in db.execute("SELECT line FROM calls ORDER BY id")] == [0, 1, 2, 5]
    db.close()
    other = sqlite3.connect(str(path))
    assert [r[0] for r in other.execute("SELECT name FROM sqlite_master WHERE name LIKE '%pending%'")] == []
    assert other.execute("SELECT count(*) FROM calls").fetchone() == (4,)


def _fts_blocks(path: Path, writes: list[list[tuple]], one_a_row: bool = False) -> int:
    """The full-text index's stored blocks after ``writes`` (each a file's calls, in its own transaction),
    merging off so that every segment stays as it was written."""
    db = _database(path)
    db.execute("INSERT INTO calls_fts(calls_fts, rank) VALUES ('automerge', 0)")
    for rows in writes:
        db.execute("BEGIN IMMEDIATE")
        if one_a_row:
            db.executemany(ONE_ROW, rows)
        else:
            insert_calls(db, rows)
        db.execute("COMMIT")
    return db.execute("SELECT count(*) FROM calls_fts_data").fetchone()[0]


def test_each_file_of_calls_is_one_full_text_segment(tmp_path: Path):
    """FTS5 writes what a statement inserted as one segment: 700 calls written by insert_calls take fewer
    blocks than the same calls written as two files (two segments), and far fewer than one statement a row."""
    rows = [_row(n) for n in range(700)]
    one = _fts_blocks(tmp_path / "one.sqlite3", [rows])
    two = _fts_blocks(tmp_path / "two.sqlite3", [rows[:350], rows[350:]])
    each = _fts_blocks(tmp_path / "each.sqlite3", [rows], one_a_row=True)
    assert one < two < each  # (one a row is bounded by FTS5's crisis merges, which automerge leaves on)


def test_cwds_at_the_lines_asked_are_cwd_at_of_those_lines():
    """``_cwds_at`` against ``cwd_at`` on every fixture: every line at once, each line alone, random sets,
    with and without a cwd in effect before the first line."""
    rng = random.Random(44)
    checked = 0
    for path in FIXTURE_PATHS:
        analysis = _analyse(path.read_text(encoding="utf-8"))
        count = len(analysis.records)
        for before in (None, "/before"):
            every = cwd_at(analysis, before)
            assert _cwds_at(analysis, before, list(range(count))) == dict(enumerate(every))
            for line in range(count):
                assert _cwds_at(analysis, before, [line]) == {line: every[line]}
            for _ in range(5):
                wanted = rng.sample(range(count), min(count, rng.randint(1, 6))) if count else []
                assert _cwds_at(analysis, before, wanted + wanted[:1]) == {n: every[n] for n in wanted}
            checked += count
    assert checked > 400  # lines of fixtures, each read twice


def _meta(cwd: str | None) -> str:
    payload = {"id": "s44", "timestamp": "2026-01-01T00:00:00Z", "originator": "codex_cli_rs", "cli_version": "0"}
    if cwd is not None:
        payload["cwd"] = cwd
    return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": payload})


def _turn(cwd: str) -> str:
    payload = {"cwd": cwd, "approval_policy": "never", "sandbox_policy": {"mode": "read-only"}, "model": "m"}
    return json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "turn_context", "payload": payload})


def _message(text: str) -> str:
    payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "response_item", "payload": payload})


@pytest.mark.parametrize(
    "lines",
    [
        [_meta(None), _message("a"), _message("b")],  # no cwd anywhere: the one before the first line
        [_meta("/m"), _message("a"), _turn("/t1"), _message("b"), _turn(""), _turn("/t2"), "", "not json"],
        [_message("a"), _turn("/t1"), _meta("/m2"), _message("b")],
    ],
)
def test_cwds_at_rollouts_written_to_reach_each_branch(lines: list[str]):
    analysis = _analyse("\n".join(lines) + "\n")
    for before in (None, "/before"):
        every = cwd_at(analysis, before)
        for wanted in ([], [0], [len(every) - 1], list(range(len(every)))[::-1], [2, 0, 2, 1]):
            wanted = [n for n in wanted if n < len(every)]
            assert _cwds_at(analysis, before, wanted) == {n: every[n] for n in wanted}


def _plan_of(path: Path):
    data = path.read_bytes()
    return _plan(str(path), None, [], len(data), 0, data)


def test_a_files_calls_cleaned_together_are_each_calls_cleaned_alone():
    """The rows of every fixture's calls: their texts cleaned in one pass for the file are those cleaned a
    call at a time (as before), secrets included."""
    seen = 0
    for path in FIXTURE_PATHS:
        work = _plan_of(path)
        analysis = _analyse(path.read_text(encoding="utf-8"))
        for row, located in zip(work.calls, analysis.calls, strict=True):
            turn = (row[22], None if row[23] is None else _raw_title(analysis, row[22]), row[24])
            texts = _call_texts(analysis, located, work.session_id, work.session_time, turn)
            alone = _clean_many(texts)
            assert len(alone) == CALL_TEXTS
            name, call_id, tool, shown, workdir, files, status, session, title, time = alone
            title = title[:500] if title is not None else None
            assert row[9:12] == (name, call_id, tool)
            assert (row[13], row[14], row[15], row[17]) == (shown, workdir, files or None, status)
            assert (row[21], row[23], row[25]) == (session, title, time)
            seen += 1
    assert seen > 100


def _raw_title(analysis, line: int) -> str | None:
    return next(t.title for t in analysis.turns if t.line == line)


def test_a_secret_in_one_call_is_redacted_there_and_nowhere_else(tmp_path: Path):
    """A file whose calls hold a credential: the file's pass finds it, each text is then scanned alone, and
    only the call that holds it is redacted."""
    key = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1bD3"
    lines = [_meta("/w")]
    for n, command in enumerate(["echo one", f"curl -H 'Authorization: Bearer {key}' x", "echo three"]):
        arguments = json.dumps({"cmd": command})
        payload = {"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": f"c{n}"}
        lines.append(json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "response_item", "payload": payload}))
    path = tmp_path / "rollout-2026-01-01T00-00-00-s44.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    texts = [row[13] for row in _plan_of(path).calls]
    assert texts[0] == "echo one" and texts[2] == "echo three"
    assert key not in texts[1] and texts[1].startswith("curl -H 'Authorization: Bearer ")
