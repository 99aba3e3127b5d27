"""The session index (analysis/index.py) and `rollout-lsp index` / `rollout-lsp search` over the fixtures."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import analysis.reports.index as index_module
import analysis.reports.index.planning as planning_module
import analysis.reports.index.reading as reading_module
import analysis.reports.index.workers as workers_module
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.secrets import find_secrets, redact_all
from analysis.reports.index import SCHEMA_VERSION, IndexUnavailable, RolloutIndex, call_text, parse_since
from analysis.session.rollout import analyze_text
from tests.helpers import FIXTURES, PEAK_SCRIPT, ROOT, fixture, inline_pool, run_cli

LEGACY = "rollout-2025-08-12T09-14-03-0d1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"  # envelope-less
DEMO = "rollout-demo.jsonl"
SESSION = "019f0000-0000-7000-8000-000000000001"
TIME = "2026-07-20T10:00:00.000Z"


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """A copy of the fixture rollouts, as a sessions folder."""
    folder = tmp_path / "sessions"
    # fixtures/sessions (a parent and its subagent, tests/session/test_sessions.py) is left out: these tests count files
    shutil.copytree(
        FIXTURES, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__", "sessions", "session_index.jsonl")
    )
    return folder


def rows(index: RolloutIndex) -> list[tuple]:
    """Every indexed call, as comparable tuples."""
    return [
        (
            h.path,
            h.line,
            h.columns["utf-16"],
            h.tool,
            h.kind,
            h.text,
            h.workdir,
            h.files,
            h.executed,
            h.status,
            h.exit_code,
            h.output_line,
            h.call_id,
            h.session_id,
            h.turn_line,
            h.turn_title,
            h.turn_number,
            h.timestamp,
        )
        for h in index.search("")
    ]


def record(line: dict) -> str:
    return json.dumps({"timestamp": TIME, "type": "response_item", "payload": line})


def test_every_call_of_every_fixture_is_indexed_at_its_exact_range(sessions: Path, tmp_path: Path):
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        stats = index.update([str(sessions)])
        hits = index.search("")
    # fixtures/legacy holds an envelope-less rollout named as a corpus names it (owner__repo__rollout-*.jsonl)
    files = sorted([*sessions.glob("rollout-*.jsonl"), *sessions.glob("legacy/*.jsonl")])
    assert stats.files == len(files) == 20 and stats.full == 20 and stats.errors == []
    assert stats.not_rollouts == [str(sessions / "not-a-rollout.jsonl")]
    expected = []
    for path in files:
        analysis = analyze_text(path.read_text(encoding="utf-8"))
        for located in analysis.calls:
            ranges = {
                e.value: (
                    analysis.range_of(located.span, e).start.character,
                    analysis.range_of(located.span, e).end.character,
                )
                for e in PositionEncoding
            }
            expected.append(
                (
                    str(path),
                    located.line,
                    ranges,
                    located.call.tool,
                    redact_all(call_text(located.call)),
                    located.call.executed,
                    located.output.exit_code if located.output else None,
                    located.record.call_id,
                )
            )
    assert [(h.path, h.line, h.columns, h.tool, h.text, h.executed, h.exit_code, h.call_id) for h in hits] == expected
    assert stats.calls_added == len(expected) == 127


def test_a_hit_says_what_ran_where_in_which_session_and_turn(sessions: Path, tmp_path: Path):
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([str(sessions)])
        [push] = index.search("git push")
        [pytest_call] = index.search("PYTEST -q tests/")
    assert push.to_json() == {
        "file": str(sessions / DEMO),
        "line": 8,
        "range": {"start": {"line": 8, "character": 361}, "end": {"line": 8, "character": 408}},
        "tool": "exec_command",
        "kind": "command",
        "text": "git push --force",
        "workdir": None,
        "files": [],
        "executed": "no",
        "status": None,
        "exit_code": None,
        "output_line": None,
        "call_id": "call_demo3",
        "record": "exec",
        "session_id": SESSION,
        "turn": {"number": 1, "line": 2, "title": "Fix the failing greeting test"},
        "timestamp": TIME,
    }
    assert (
        pytest_call.text,
        pytest_call.workdir,
        pytest_call.status,
        pytest_call.exit_code,
        pytest_call.output_line,
    ) == ("pytest -q tests/test_greet.py", "/home/u/proj", "completed", 1, 5)


def test_unicode_columns_in_every_encoding(sessions: Path, tmp_path: Path):
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([str(sessions)])
        [hit] = index.search("echo 😀")
    line = split_lines(fixture("rollout-unicode.jsonl"))[hit.line]
    start32, end32 = hit.columns["utf-32"]
    assert line[start32:end32] == 'tools.exec_command({cmd: \\"echo 😀\\"})'
    assert hit.columns["utf-16"] == (start32 + 2, end32 + 3)  # 😀 before and inside the call: two UTF-16 units
    assert hit.columns["utf-8"] == (len(line[:start32].encode()), len(line[:end32].encode()))


def test_filters_tool_since_failed_and_short_queries(sessions: Path, tmp_path: Path):
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([str(sessions)])
        assert [h.text for h in index.search("greet", tool="apply_patch")] == ["update src/greet.py"]
        assert [h.text for h in index.search("greet", tool="exec_command")] == ["pytest -q tests/test_greet.py"]
        failed = index.search("", failed=True)
        assert [(Path(h.path).name, h.line, h.text, h.exit_code, h.status) for h in failed] == [
            (f"owner__repo__{LEGACY}", 8, "bash -lc false", 1, "completed"),  # fixtures/legacy: the same file
            (LEGACY, 8, "bash -lc false", 1, "completed"),  # envelope-less (before 0.58): exit code in metadata
            (DEMO, 4, "pytest -q tests/test_greet.py", 1, "completed"),
            ("rollout-events.jsonl", 11, "make test", 2, "completed"),  # its exec_command_end says exit 2
            ("rollout-outputs.jsonl", 5, "false", None, "failed"),  # the script threw after it: no exit code
            ("rollout-patches.jsonl", 4, "add hello.txt", 1, "failed"),  # a patch that exits 1 did not apply
            ("rollout-records.jsonl", 8, "npm test", 130, "completed"),  # ended by write_stdin: exit 130
            ("rollout-records.jsonl", 12, 'write_stdin 94014 "\\u0003"', 130, "completed"),
            ("rollout-records.jsonl", 16, "ls -la 'my dir'", 2, "completed"),
            ("rollout-records.jsonl", 49, "true", None, "failed"),  # Script error:
            ("rollout-records.jsonl", 51, "update a.py", None, "failed"),  # apply_patch verification failed
            ("rollout-records.jsonl", 53, "delete gone.py", 1, "failed"),
            ("rollout-statuses.jsonl", 3, "sleep 5; false", 1, "completed"),
            ("rollout-statuses.jsonl", 20, "sleep 9; exit 1", 1, "completed"),
            ("rollout-statuses.jsonl", 22, 'write_stdin 15 ""', 1, "completed"),
            ("rollout-toplevel.jsonl", 3, "bash -lc 'ls -la'", 2, "completed"),
        ]
        # the envelope-less files' 4 calls have no timestamp: no date to compare
        assert len(index.search("", since="2026-07-20")) == 123
        assert index.search("", since="2026-07-20T10:00:01") == []
        assert [h.text for h in index.search("→")] == ["update c.py → d.py", "update src/a.py → src/b.py"]  # < 3
        assert [h.text for h in index.search("d.", tool="apply_patch")] == ["delete old.txt", "update c.py → d.py"]
        assert index.search('"; DROP TABLE calls; --') == []
        assert index.search("%") == []
        assert len(index.search("", limit=3)) == 3


def test_since_dates():
    assert parse_since("2026-03-01") == "2026-03-01"
    assert parse_since("2026-03-01T10:00:00Z") == "2026-03-01T10:00:00"
    assert parse_since("2026-03-01T12:00:00+02:00") == "2026-03-01T10:00:00"
    with pytest.raises(ValueError):
        parse_since("last tuesday")
    with pytest.raises(ValueError):
        parse_since("2026-02-30")


def test_an_unchanged_folder_is_not_read_again(sessions: Path, tmp_path: Path, monkeypatch):
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(sessions)])
        before = rows(index)
    analysed: list[str] = []
    real = planning_module._analyse_lines  # what every reading of the index analyses (the text's lines)
    monkeypatch.setattr(
        planning_module, "_analyse_lines", lambda lines: analysed.append("\n".join(lines)) or real(lines)
    )
    with RolloutIndex.open(db) as index:
        stats = index.update([str(sessions)])
        assert rows(index) == before
    assert (stats.files, stats.unchanged, stats.full, stats.appended, stats.lines_analysed) == (20, 20, 0, 0, 0)
    assert analysed == []


def test_an_appended_rollout_has_only_its_new_lines_read(tmp_path: Path, monkeypatch):
    lines = split_lines(fixture(DEMO))
    assert lines[-1] == "" and len(lines) == 11
    folder = tmp_path / "sessions"
    folder.mkdir()
    rollout = folder / DEMO
    rollout.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")  # ends with call_demo1, not yet answered
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(folder)])
        [pending] = index.search("pytest -q tests/")
        assert (pending.status, pending.exit_code, pending.output_line) == (None, None, None)
    analysed: list[str] = []
    real = planning_module._analyse_lines  # what every reading of the index analyses (the text's lines)
    monkeypatch.setattr(
        planning_module, "_analyse_lines", lambda lines: analysed.append("\n".join(lines)) or real(lines)
    )
    with open(rollout, "a", encoding="utf-8") as handle:
        handle.write("\n".join(lines[5:]))
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        appended = rows(index)
        [paired] = index.search("pytest -q tests/")
    assert (
        stats.appended,
        stats.full,
        stats.lines_analysed,
        stats.lines_reread,
        stats.calls_added,
        stats.calls_paired,
    ) == (1, 0, 5, 1, 4, 1)
    # the new lines, then the earlier call with its output among them: nothing else was analysed
    assert analysed == ["\n".join(lines[5:]), lines[4] + "\n" + lines[5]]
    assert (paired.status, paired.exit_code, paired.output_line) == ("completed", 1, 5)
    with RolloutIndex.open(tmp_path / "scratch.sqlite3") as scratch:
        scratch.update([str(folder)])
        assert appended == rows(scratch)


def test_a_script_still_running_is_completed_by_a_later_wait(tmp_path: Path):
    exec_call = record(
        {
            "type": "custom_tool_call",
            "call_id": "c1",
            "name": "exec",
            "namespace": "functions",
            "input": 'await tools.exec_command({cmd: "make build"});\n',
        }
    )
    running = record(
        {
            "type": "custom_tool_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\n"}
            ],
        }
    )
    wait = record({"type": "function_call", "name": "wait", "arguments": '{"cell_id": "7"}', "call_id": "w1"})
    done = record(
        {
            "type": "function_call_output",
            "call_id": "w1",
            "output": [
                {"type": "input_text", "text": "Script completed\nWall time 30.0 seconds\nOutput:\n"},
                {
                    "type": "input_text",
                    "text": json.dumps({"wall_time_seconds": 20.0, "exit_code": 2, "output": "boom"}),
                },
            ],
        }
    )
    rollout = tmp_path / "s" / "rollout-wait.jsonl"
    rollout.parent.mkdir()
    rollout.write_text(exec_call + "\n" + running + "\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(rollout.parent)])
        [hit] = index.search("make build")
        assert (hit.status, hit.exit_code, hit.output_line) == ("running", None, 1)
    with open(rollout, "a", encoding="utf-8") as handle:
        handle.write(wait + "\n" + done + "\n")
    with RolloutIndex.open(db) as index:
        stats = index.update([str(rollout.parent)])
        [hit] = index.search("make build")
        appended = rows(index)
    assert (stats.appended, stats.lines_analysed, stats.lines_reread, stats.calls_paired) == (1, 2, 2, 1)
    assert (hit.status, hit.exit_code, hit.output_line) == ("completed", 2, 3)
    with RolloutIndex.open(tmp_path / "scratch.sqlite3") as scratch:
        scratch.update([str(rollout.parent)])
        assert appended == rows(scratch)


def test_a_line_being_written_is_read_again_once_complete(tmp_path: Path):
    lines = split_lines(fixture(DEMO))
    folder = tmp_path / "s"
    folder.mkdir()
    rollout = folder / DEMO
    half = len(lines[6]) // 2
    rollout.write_text("\n".join(lines[:6]) + "\n" + lines[6][:half], encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        first = index.update([str(folder)])
        assert index.search("src/greet.py") == []  # the patch's line is not complete yet
    with open(rollout, "a", encoding="utf-8") as handle:
        handle.write(lines[6][half:] + "\n" + "\n".join(lines[7:]))
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert [h.text for h in index.search("src/greet.py")] == ["update src/greet.py"]
        appended = rows(index)
    assert first.lines_analysed == 7  # six complete lines and the partial one
    assert (stats.appended, stats.lines_analysed) == (1, 4)  # the partial line, now whole, and three more
    with RolloutIndex.open(tmp_path / "scratch.sqlite3") as scratch:
        scratch.update([str(folder)])
        assert appended == rows(scratch)


def test_a_rewritten_or_removed_rollout(sessions: Path, tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(sessions)])
    demo = sessions / DEMO
    demo.write_text(fixture(DEMO).replace("git push --force", "git push --dry-run"), encoding="utf-8")
    (sessions / "rollout-patches.jsonl").unlink()
    with RolloutIndex.open(db) as index:
        stats = index.update([str(sessions)])
        assert [h.text for h in index.search("git push")] == ["git push --dry-run"]
        assert index.search("d.py") == []
        assert index.count() == (19, 118)
    assert (stats.files, stats.full, stats.appended, stats.unchanged, stats.removed) == (19, 1, 0, 18, 1)


def test_compressed_rollouts_are_indexed(tmp_path: Path):
    import zstandard

    folder = tmp_path / "archived_sessions"
    folder.mkdir()
    (folder / "rollout-demo.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(fixture(DEMO).encode()))
    (folder / "rollout-broken.jsonl.zst").write_bytes(b"not zstd")
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        stats = index.update([str(folder)])
        assert [(Path(h.path).name, h.line) for h in index.search("git push")] == [("rollout-demo.jsonl.zst", 8)]
    assert stats.full == 1 and len(stats.errors) == 1 and "rollout-broken.jsonl.zst" in stats.errors[0]


def test_the_index_holds_no_secret_in_clear(tmp_path: Path):
    token = "ghp_" + "F4kE" * 9
    key = "sk-proj-" + "FAKEfake0123456789" * 2
    bearer = "FAKEtokenFAKEtoken123"
    folder = tmp_path / "s"
    folder.mkdir()
    lines = [
        json.dumps({"timestamp": TIME, "type": "session_meta", "payload": {"id": SESSION}}),
        record(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"push with token {token} please"}],
            }
        ),
        record(
            {
                "type": "custom_tool_call",
                "call_id": "c1",
                "name": "exec",
                "input": f'await tools.exec_command({{cmd: "OPENAI_API_KEY={key} python run.py", workdir: "/w/{token}"}});\n'
                f"await tools.exec_command({{cmd: \"curl -H 'Authorization: Bearer {bearer}' https://x\"}});\n"
                f'await tools.apply_patch("*** Begin Patch\\n*** Add File: keys/{key}.txt\\n+x\\n*** End Patch");\n',
            }
        ),
    ]
    (folder / "rollout-secrets.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(FIXTURES / "rollout-secrets.jsonl", folder / "rollout-secrets-fixture.jsonl")
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(folder)])
        hits = index.search("")
        assert [h.text for h in hits] == [
            f"OPENAI_API_KEY=sk-xxxx-{'x' * 36} python run.py",  # the fixture's, then ours
            f"OPENAI_API_KEY=sk-xxxx-{'x' * 36} python run.py",
            "curl -H 'Authorization: Bearer xxxxxxxxxxxxxxxxxxxxx' https://x",
            f"add keys/sk-xxxx-{'x' * 36}.txt",
        ]
        hits = hits[1:]
        assert hits[0].workdir == "/w/ghp_" + "x" * 36
        assert hits[0].turn_title == "push with token ghp_" + "x" * 36 + " please"
        assert index.search("FAKEfake") == []
    secrets = {token, key, bearer}
    for line in split_lines(fixture("rollout-secrets.jsonl")):
        secrets.update(line[s.start + s.keep : s.end] for s in find_secrets(line) if "\\" not in line[s.start : s.end])
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("index.sqlite3*"))
    assert len(secrets) >= 6
    assert [s for s in secrets if s.encode() in stored] == []


def test_a_database_of_another_schema_version_is_rebuilt(sessions: Path, tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(sessions)])
        index.db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(IndexUnavailable, match="not an index of this version"):
        RolloutIndex.open_existing(db)
    with RolloutIndex.open(db) as index:
        assert index.count() == (0, 0)
        stats = index.update([str(sessions)])
    assert (stats.full, stats.unchanged) == (20, 0)


def test_a_corrupt_database_is_rebuilt_by_index_and_reported_by_search(sessions: Path, tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    assert run_cli("index", str(sessions), "--db", str(db)).returncode == 0
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    data[page:] = b"\xa5" * (len(data) - page)  # every page but the first: tables and FTS are garbage
    db.write_bytes(bytes(data))
    searched = run_cli("search", "git push", "--db", str(db))
    assert searched.returncode == 2 and "Traceback" not in searched.stderr
    assert searched.stderr.startswith("rollout-lsp search: ") and "rollout-lsp index" in searched.stderr
    indexed = run_cli("index", str(sessions), "--db", str(db))
    assert indexed.returncode == 0, indexed.stderr
    assert "20 rollouts: 20 read whole" in indexed.stdout
    found = run_cli("search", "git push", "--db", str(db))
    assert found.returncode == 0 and found.stdout.startswith(f"{sessions / DEMO}:9:362: git push --force")


def test_a_file_that_is_not_an_index_is_left_alone(sessions: Path, tmp_path: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n" * 200)
    indexed = run_cli("index", str(sessions), "--db", str(notes))
    assert indexed.returncode == 2 and "not a rollout-lsp index" in indexed.stderr
    assert notes.read_text() == "my notes, not a database\n" * 200
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE mine(x)")
    indexed = run_cli("index", str(sessions), "--db", str(other))
    assert indexed.returncode == 2 and "SQLite database of something else" in indexed.stderr
    with sqlite3.connect(other) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("mine",)]


def test_a_locked_database_is_reported(sessions: Path, tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    assert run_cli("index", str(sessions), "--db", str(db)).returncode == 0
    (sessions / DEMO).write_text(fixture(DEMO) + "\n", encoding="utf-8")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        indexed = run_cli("index", str(sessions), "--db", str(db), "--timeout", "0.2")
        searched = run_cli("search", "git push", "--db", str(db))  # readers go on (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert indexed.returncode == 2 and "Traceback" not in indexed.stderr
    assert indexed.stderr == f"rollout-lsp index: {db}: the index is locked by another process; try again\n"
    assert searched.returncode == 0 and searched.stdout.count("\n") == 1


def test_two_processes_indexing_at_once(tmp_path: Path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    for copy in range(12):  # enough files for the two processes to overlap
        for path in sorted(FIXTURES.glob("rollout-*.jsonl")):
            (folder / f"{copy:02}-{path.name}").write_bytes(path.read_bytes())
    db = tmp_path / "shared.sqlite3"
    command = [sys.executable, "-m", "lsp_server", "index", str(folder), "--db", str(db), "--json"]
    runs = [
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    results = [(p.wait(timeout=300), *p.communicate()) for p in runs]
    assert [(code, err) for code, _, err in results] == [(0, ""), (0, "")]
    reports = [json.loads(out) for _, out, _ in results]
    assert sum(r["full"] for r in reports) >= 12 * 19  # every file read whole by one of them (or both)
    assert all(r["full"] + r["unchanged"] == 12 * 19 for r in reports)
    with RolloutIndex.open(tmp_path / "alone.sqlite3") as alone:
        alone.update([str(folder)])
        expected = rows(alone)
    with RolloutIndex.open_existing(db) as shared:
        assert rows(shared) == expected
        assert shared.count() == (12 * 19, len(expected))


def test_cli_search_output(sessions: Path, tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    indexed = run_cli("index", str(sessions), "--db", str(db))
    assert indexed.returncode == 0
    assert indexed.stderr == (
        f"rollout-lsp index: {sessions / 'not-a-rollout.jsonl'}: skipped: not a Codex rollout (no "
        "rollout record in its first 50 lines, and its name matches no rollout pattern such as "
        "rollout-*.jsonl)\n"
    )
    assert indexed.stdout == (
        "20 rollouts: 20 read whole, 0 appended to, 0 unchanged, 0 removed; 240 lines analysed, "
        f"127 calls added, 0 paired with a later output in {indexed.stdout.split(' in ')[1]}"
    )
    found = run_cli("search", "git push", "--db", str(db))
    assert (found.returncode, found.stdout) == (
        0,
        (
            f"{sessions / DEMO}:9:362: git push --force  [exec_command, dead, session {SESSION}, "
            f'turn 1 (line 3) "Fix the failing greeting test", {TIME}]\n'
        ),
    )
    failed = run_cli("search", "pytest", "--failed", "--json", "--db", str(db))
    [hit] = json.loads(failed.stdout)
    assert (hit["file"], hit["line"], hit["range"]["start"], hit["text"], hit["exit_code"]) == (
        str(sessions / DEMO),
        4,
        {"line": 4, "character": 207},
        "pytest -q tests/test_greet.py",
        1,
    )
    utf8 = run_cli("search", "echo 😀", "--position-encoding", "utf-8", "--db", str(db))
    line = split_lines(fixture("rollout-unicode.jsonl"))[2]
    column = len(line[: line.index("tools.exec_command")].encode()) + 1
    assert utf8.stdout.startswith(f"{sessions / 'rollout-unicode.jsonl'}:3:{column}: echo 😀  [exec_command")
    assert run_cli("search", "no such command anywhere", "--db", str(db)).returncode == 1
    bad = run_cli("search", "git", "--since", "yesterday", "--db", str(db))
    assert bad.returncode == 2 and "--since 'yesterday' is not a date" in bad.stderr
    missing = run_cli("search", "git", "--db", str(tmp_path / "none.sqlite3"))
    assert (missing.returncode, missing.stderr) == (
        2,
        f"rollout-lsp search: no index at {tmp_path / 'none.sqlite3'}: run `rollout-lsp index` first\n",
    )
    nowhere = run_cli("index", str(tmp_path / "no-such-folder"), "--db", str(db))
    assert nowhere.returncode == 2 and "no such file or folder" in nowhere.stderr


def test_default_locations(monkeypatch, tmp_path: Path):
    monkeypatch.delenv("ROLLOUT_LSP_INDEX", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert index_module.default_db_path() == tmp_path / "cache" / "codex-rollout-lsp" / "index.sqlite3"
    assert index_module.default_session_dirs() == [
        str(tmp_path / "codex" / "sessions"),
        str(tmp_path / "codex" / "archived_sessions"),
    ]
    monkeypatch.setenv("ROLLOUT_LSP_INDEX", str(tmp_path / "x.db"))
    assert index_module.default_db_path() == tmp_path / "x.db"


def test_index_defaults_to_the_codex_sessions_folders(tmp_path: Path):
    codex = tmp_path / "codex"
    (codex / "sessions" / "2026" / "07" / "20").mkdir(parents=True)
    (codex / "archived_sessions").mkdir()
    shutil.copy(FIXTURES / DEMO, codex / "sessions" / "2026" / "07" / "20" / DEMO)
    shutil.copy(FIXTURES / "rollout-patches.jsonl", codex / "archived_sessions" / "rollout-patches.jsonl")
    env = {**os.environ, "CODEX_HOME": str(codex), "ROLLOUT_LSP_INDEX": str(tmp_path / "i.sqlite3")}
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "index", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    report = json.loads(done.stdout)
    assert (report["database"], report["folders"], report["files"], report["indexed_calls"]) == (
        str(tmp_path / "i.sqlite3"),
        [str(codex / "sessions"), str(codex / "archived_sessions")],
        2,
        14,
    )
    # a folder indexed by name is remembered: `index` without DIR refreshes it too
    extra = tmp_path / "fixtures-copy"
    extra.mkdir()
    shutil.copy(FIXTURES / "rollout-toplevel.jsonl", extra / "rollout-toplevel.jsonl")
    subprocess.run(
        [sys.executable, "-m", "lsp_server", "index", str(extra)], cwd=ROOT, env=env, check=True, capture_output=True
    )
    (extra / "rollout-unicode.jsonl").write_text(fixture("rollout-unicode.jsonl"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "index", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    report = json.loads(done.stdout)
    assert (report["folders"], report["files"], report["full"], report["unchanged"], report["indexed_calls"]) == (
        [str(codex / "sessions"), str(codex / "archived_sessions"), str(extra)],
        4,
        1,
        3,
        14 + 4 + 3,
    )


def test_a_file_the_analysis_fails_on_is_an_error_not_a_crash(sessions: Path, tmp_path: Path, monkeypatch):
    real = planning_module._analyse_lines

    def analyze(lines: list[str]):
        if "call_demo1" in "\n".join(lines):
            raise RuntimeError("a bug")
        return real(lines)

    monkeypatch.setattr(planning_module, "_analyse_lines", analyze)
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        stats = index.update([str(sessions)])
        assert index.search("git push") == []
        assert len(index.search("")) == 127 - 5
    assert stats.errors == [f"cannot index {sessions / DEMO}: RuntimeError: a bug"]
    assert (stats.full, stats.files) == (19, 20)


def _open_at_the_barrier(path: str, barrier) -> None:
    barrier.wait()
    RolloutIndex.open(path).db.close()


def test_two_processes_creating_the_same_index_both_open_it(tmp_path: Path):
    """Switching a new database to WAL answers "locked" at once, without waiting, while another process creates
    it: opening tries again within its timeout (it failed 6 times in 40 before)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    for attempt in range(10):
        path = str(tmp_path / f"index-{attempt}.sqlite3")
        barrier = context.Barrier(2)
        workers = [context.Process(target=_open_at_the_barrier, args=(path, barrier)) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert [worker.exitcode for worker in workers] == [0, 0]


# -- what is not a rollout, and what would not fit (issue 23) -----------------------------------------------

NOT_A_ROLLOUT_LINE = (
    "skipped: not a Codex rollout (no rollout record in its first 50 lines, and its name matches "
    "no rollout pattern such as rollout-*.jsonl)"
)


def test_index_of_the_fixtures_skips_the_two_json_lines_files_that_are_not_rollouts(tmp_path: Path):
    db = tmp_path / "index.sqlite3"
    said = "".join(
        f"rollout-lsp index: {FIXTURES / name}: {NOT_A_ROLLOUT_LINE}\n"
        for name in ("not-a-rollout.jsonl", "session_index.jsonl")
    )
    first = run_cli("index", str(FIXTURES), "--db", str(db))
    assert (first.returncode, first.stderr) == (0, said)
    assert first.stdout == (
        "30 rollouts: 30 read whole, 0 appended to, 0 unchanged, 0 removed; 407 lines analysed, "
        f"135 calls added, 0 paired with a later output in {first.stdout.split(' in ')[1]}"
    )
    again = run_cli("index", str(FIXTURES), "--db", str(db), "--json")
    report = json.loads(again.stdout)
    assert (again.returncode, again.stderr) == (0, said)
    assert (
        report["files"],
        report["unchanged"],
        report["full"],
        report["not_rollouts"],
        report["indexed_files"],
        report["indexed_calls"],
    ) == (30, 30, 0, [str(FIXTURES / "not-a-rollout.jsonl"), str(FIXTURES / "session_index.jsonl")], 30, 135)
    listed = {h["file"] for h in json.loads(run_cli("search", "", "--json", "--db", str(db)).stdout)}
    # 26: 21, and the 5 of issue 33's fixtures that hold a call (rollout-statuses, both envelope-less files, 2 of 2026/11)
    assert len(listed) == 26 and not any(
        name.endswith(("not-a-rollout.jsonl", "session_index.jsonl")) for name in listed
    )


def _notes(call: str) -> str:
    """A JSON Lines file that is no rollout (no rollout record in its first 50 lines) yet holds a call."""
    return (
        "".join(json.dumps({"n": n, "name": "row"}) + "\n" for n in range(50))
        + record(
            {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": json.dumps({"cmd": call})}
        )
        + "\n"
    )


def test_a_json_lines_file_that_is_not_a_rollout_is_skipped_remembered_and_never_searched(tmp_path: Path, monkeypatch):
    import zstandard

    folder = tmp_path / "folder"
    folder.mkdir()
    notes, packed = folder / "notes.jsonl", folder / "data.jsonl.zst"
    notes.write_text(_notes("echo hidden-call"), encoding="utf-8")
    packed.write_bytes(zstandard.ZstdCompressor().compress(_notes("echo packed-call").encode()))
    named = folder / "rollout-named.jsonl"  # a rollout's name is read whatever it holds, as `check` reads it
    named.write_text(_notes("echo named-call"), encoding="utf-8")
    shutil.copy(FIXTURES / DEMO, folder / DEMO)
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert [h.path for h in index.search("-call")] == [str(named)]
        assert index.count() == (2, 6)
    assert (stats.files, stats.full, stats.not_rollouts, stats.errors) == (2, 2, [str(packed), str(notes)], [])
    read: list[str] = []
    real_read_lines = reading_module.read_lines
    monkeypatch.setattr(
        reading_module, "read_lines", lambda path, **options: read.append(path) or real_read_lines(path, **options)
    )
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert index.count() == (2, 6)
    assert (stats.files, stats.unchanged, stats.full, stats.not_rollouts) == (2, 2, 0, [str(packed), str(notes)])
    assert read == []  # remembered at its size and modification time: not read again
    notes.write_text(fixture(DEMO), encoding="utf-8")  # now a rollout: indexed
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert [h.path for h in index.search("git push")] == [str(notes), str(folder / DEMO)]
    assert (stats.files, stats.full, stats.unchanged, stats.not_rollouts) == (3, 1, 2, [str(packed)])
    assert read == [str(notes)]
    notes.write_text(_notes("echo hidden-call"), encoding="utf-8")  # and no longer: its calls go
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert [h.path for h in index.search("git push")] == [str(folder / DEMO)]
        assert index.count() == (2, 6)
    assert (stats.files, stats.full, stats.removed, stats.not_rollouts) == (2, 0, 0, [str(packed), str(notes)])


def _bomb(repeats: int) -> bytes:
    """A rollout whose output line is ``repeats`` times ``a``, a few KB compressed (tests/hostile.py)."""
    from tests.hostile import zstd_bomb

    prefix = json.dumps(
        {
            "timestamp": TIME,
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": ""},
        }
    )[:-3].encode()
    return zstd_bomb(prefix, b"a", repeats, b'"}}\n')


def test_a_zstd_bomb_is_reported_and_skipped_in_bounded_memory_and_the_rest_indexed(tmp_path: Path):
    import zstandard

    from tests.hostile import hostile_rollout

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "rollout-a.jsonl").write_text(hostile_rollout("plain-one"))
    bomb = folder / "rollout-bomb.jsonl.zst"
    bomb.write_bytes(_bomb(300 << 20))  # 300 MiB decompressed, over the default 256 MiB
    assert len(bomb.read_bytes()) < 12_000
    (folder / "rollout-z.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress(hostile_rollout("packed-one").encode())
    )
    db = tmp_path / "index.sqlite3"
    peak_file = tmp_path / "peak"
    env = {k: v for k, v in os.environ.items() if k != "ROLLOUT_LSP_MAX_DECOMPRESSED"}
    result = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, "index", str(folder), "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**env, "PEAK_FILE": str(peak_file)},
        timeout=600,
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"rollout-lsp index: cannot index {bomb}: it decompresses to more than 268435456 bytes "
        "(the limit, ROLLOUT_LSP_MAX_DECOMPRESSED): skipped, not read whole\n"
    )
    assert result.stdout.startswith(
        "3 rollouts: 2 read whole, 0 appended to, 0 unchanged, 0 removed; 10 lines analysed, 4 calls added"
    )
    assert result.stdout.endswith(f"{db}: 2 files, 4 calls\n")
    assert int(peak_file.read_text()) < 200_000  # KB: the 300 MiB were never held (about 60 MB here)
    found = json.loads(run_cli("search", "echo", "--json", "--db", str(db)).stdout)
    assert [(Path(h["file"]).name, h["text"]) for h in found] == [
        ("rollout-a.jsonl", "echo plain-one"),
        ("rollout-z.jsonl.zst", "echo packed-one"),
    ]


def test_a_zst_over_the_limit_is_not_measured_again_until_it_or_the_limit_changes(tmp_path: Path, monkeypatch):
    folder = tmp_path / "sessions"
    folder.mkdir()
    bomb = folder / "rollout-bomb.jsonl.zst"
    bomb.write_bytes(_bomb(8 << 20))
    shutil.copy(FIXTURES / DEMO, folder / DEMO)
    monkeypatch.setenv("ROLLOUT_LSP_MAX_DECOMPRESSED", str(1 << 20))
    said = [
        f"cannot index {bomb}: it decompresses to more than 1048576 bytes (the limit, "
        "ROLLOUT_LSP_MAX_DECOMPRESSED): skipped, not read whole"
    ]
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert index.count() == (1, 5)
    assert (stats.files, stats.full, stats.errors) == (2, 1, said)
    measured: list[str] = []
    real = reading_module._decompressed_size
    monkeypatch.setattr(
        reading_module, "_decompressed_size", lambda path, limit: measured.append(path) or real(path, limit)
    )
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
    assert (stats.files, stats.unchanged, stats.errors, measured) == (2, 1, said, [])
    monkeypatch.setenv("ROLLOUT_LSP_MAX_DECOMPRESSED", str(16 << 20))  # a limit it fits in: indexed
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        assert index.count() == (2, 5)
    assert (stats.files, stats.full, stats.unchanged, stats.errors, measured) == (2, 1, 1, [], [str(bomb)])


from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.binary(max_size=40).map(lambda b: bytes(b"ab\r\n"[c % 4] for c in b)), st.data())
@example(b"a\r\nb\rc\n", None)
@example(b"a\nb\n", None)
def test_line_offsets_and_break_counts_are_those_of_split_lines(data, draw):
    """Byte offsets of the lines (a C search when the bytes hold no carriage return) and the count of breaks
    before a point just after a line feed (where the stable lines end) agree with the lines split_lines gives."""
    base = draw.draw(st.integers(0, len(data))) if draw is not None else 0
    feeds = [base] + [at + 1 for at in range(base, len(data)) if data[at : at + 1] == b"\n"]
    end = draw.draw(st.sampled_from(feeds)) if draw is not None else feeds[-1]
    lines = split_lines(data[base:].decode())
    offsets = planning_module._line_offsets(data, base)
    assert len(offsets) == len(lines)
    assert [data[a : a + len(line)].decode() for a, line in zip(offsets, lines)] == lines
    assert planning_module._breaks_before(offsets, end) == len(split_lines(data[base:end].decode())) - 1


def _tables(db: Path, folder: Path) -> dict[str, list[tuple]]:
    """Every row of the index, its folder's name as ``<sessions>`` and without the files' modification times."""
    connection = sqlite3.connect(db)
    mtime = [d[0] for d in connection.execute("SELECT * FROM files").description].index("mtime_ns")
    try:
        tables = {
            table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("files", "calls", "changes", "roots")
        }
    finally:
        connection.close()
    tables["files"] = [row[:mtime] + row[mtime + 1 :] for row in tables["files"]]
    return {
        table: [tuple(v.replace(str(folder), "<sessions>") if isinstance(v, str) else v for v in row) for row in found]
        for table, found in tables.items()
    }


def _stats(stats, folder: Path) -> dict:
    return json.loads(
        json.dumps({k: v for k, v in stats.to_json().items() if k != "seconds"}).replace(str(folder), "<sessions>")
    )


def test_worker_processes_index_what_one_process_indexes(sessions: Path, tmp_path: Path):
    (sessions / "rollout-broken.jsonl.zst").write_bytes(b"not zstd at all")
    (sessions / "rollout-grown.jsonl").write_text(fixture(DEMO), encoding="utf-8")
    built = {}
    for jobs in (1, 2):
        folder = tmp_path / f"sessions-{jobs}"
        shutil.copytree(sessions, folder)
        db = tmp_path / f"index-{jobs}.sqlite3"
        with RolloutIndex.open(db) as index:
            first = index.update([str(folder)], jobs=jobs)
        with open(folder / "rollout-grown.jsonl", "a", encoding="utf-8") as handle:
            handle.write(fixture("rollout-outputs.jsonl"))  # grows: the next update appends
        with RolloutIndex.open(db) as index:
            second = index.update([str(folder)], jobs=jobs)
        built[jobs] = (_tables(db, folder), _stats(first, folder), _stats(second, folder))
    assert built[2] == built[1]
    tables, first, second = built[1]
    assert first["full"] == 21 and first["errors"] == [
        "cannot read <sessions>/rollout-broken.jsonl.zst: zstd decompressor error: Unknown frame descriptor"
    ]
    assert (second["appended"], second["unchanged"], second["full"]) == (1, 20, 0)
    assert len(tables["calls"]) > 40 and tables["changes"]


def test_only_files_that_changed_go_to_the_workers(sessions: Path, tmp_path: Path, monkeypatch):
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(sessions)])
    (sessions / DEMO).write_text(fixture(DEMO) + fixture(DEMO), encoding="utf-8")
    (sessions / "rollout-new.jsonl").write_text(fixture("rollout-patches.jsonl"), encoding="utf-8")
    given: list[str] = []
    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", inline_pool(given, workers=2))
    with RolloutIndex.open(db) as index:
        stats = index.update([str(sessions)], jobs=2)
    assert given == [str(sessions / DEMO), str(sessions / "rollout-new.jsonl")]
    assert (stats.full, stats.appended, stats.unchanged) == (1, 1, 19)


def test_a_file_prepared_against_a_row_that_changed_is_read_again(sessions: Path, tmp_path: Path):
    path = str(sessions / DEMO)
    stale = workers_module.prepare_file(path, None, [])  # as a worker read it before another process indexed it
    assert stale.work is not None and stale.work.file_id is None
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([path])
        before = rows(index)
        stats = index_module.IndexStats()
        index._update_file(path, stats, stale)
        assert (stats.unchanged, stats.full) == (1, 0)  # the stale plan was not written
        assert rows(index) == before


def test_the_index_reads_lines_without_looking_for_secrets_and_still_stores_none(tmp_path: Path, monkeypatch):
    """Secret findings are never read by the index: its lines are analysed without the scan (what it stores
    is redacted on its own), and each analysis is the full one less its secret findings."""
    from analysis.session.record_analysis import analyze_line

    lines = split_lines(fixture("rollout-secrets.jsonl"))
    full = [analyze_line(line) for line in lines]
    plain = [analyze_line(line, secrets=False) for line in lines]
    assert sum(f.code == "secret" for a in full for f in a.findings) >= 5
    assert [tuple(f for f in a.findings if f.code != "secret") for a in full] == [a.findings for a in plain]
    scanned: list[str] = []
    read: list[str] = []
    real = planning_module.analyze_line  # each line the index reads is analysed by it (planning._analyse_lines)

    def watched(line, extra_secrets=(), secrets=True):
        read.append(line)
        if secrets:
            scanned.append(line)
        return real(line, extra_secrets, secrets)

    monkeypatch.setattr(planning_module, "analyze_line", watched)
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "rollout-secrets.jsonl").write_text(fixture("rollout-secrets.jsonl"), encoding="utf-8")
    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([str(folder)])
        [hit] = index.search("")
    assert scanned == [] and read == lines
    assert hit.text == "OPENAI_API_KEY=sk-xxxx-" + "x" * 36 + " python run.py"  # redacted all the same


def test_a_dead_worker_leaves_its_files_to_the_main_process(sessions: Path, tmp_path: Path, monkeypatch):
    import concurrent.futures

    with RolloutIndex.open(tmp_path / "one.sqlite3") as index:
        one = _stats(index.update([str(sessions)]), sessions)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", inline_pool(broken=True))
    with RolloutIndex.open(tmp_path / "two.sqlite3") as index:
        two = _stats(index.update([str(sessions)], jobs=2), sessions)
    assert two == one and one["full"] == 20
    assert _tables(tmp_path / "two.sqlite3", sessions) == _tables(tmp_path / "one.sqlite3", sessions)
