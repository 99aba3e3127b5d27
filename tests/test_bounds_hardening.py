"""Issue 31, points 2 to 4: bounded work on any input (the limits of analysis/jsonl/limits.py), no index ever
lost (analysis/reports/index/database.py), workers that die with their parent (analysis/reports/spread.py).
Each test is named after the attack it stands for, and runs the command line as a user meets it."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import zstandard

from analysis.jsonl.findings import RECORD_SHAPE, Finding
from analysis.jsonl.positions import Span
from analysis.reports.index.schema import APPLICATION_ID
from tests.helpers import PEAK_SCRIPT, ROOT, run_cli

MEMORY_CAP = 1536 * 1024 * 1024  # address space of each hostile run: a bomb that escapes its limit fails here
PEAK_BOUND_KB = 300_000  # the bound docs/security.md states
SESSION = "0199a000-0000-7000-8000-00000000000"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_bounded(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The command line under the memory cap, with its peak resident memory (kB) as ``peak_kb``."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        result = subprocess.run(
            [sys.executable, "-c", PEAK_SCRIPT, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {}), "PEAK_FILE": peak_file},
            preexec_fn=_cap_memory,
            timeout=900,
        )
        with open(peak_file) as handle:
            result.peak_kb = int(handle.read())  # type: ignore[attr-defined]
    return result


def empty_objects_bomb(path: Path, lines: int = 3_000_000) -> Path:
    """A ``.zst`` of ``lines`` ``{}`` lines (3 million: under 1 KB)."""
    path.write_bytes(zstandard.ZstdCompressor(level=19).compress(b"{}\n" * lines))
    return path


def meta(number: int) -> str:
    return json.dumps(
        {
            "timestamp": "2025-01-01T00:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": f"{SESSION}{number}", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/tmp"},
        }
    )


# -- 1. bounded work on any input --------------------------------------------------------------------------


def test_a_1kb_zst_of_3_million_empty_objects_is_checked_up_to_the_limits_in_bounded_memory(tmp_path):
    bomb = empty_objects_bomb(tmp_path / "rollout-2025-01-01T00-00-00-bomb.jsonl.zst")
    assert bomb.stat().st_size < 1024
    result = run_bounded("check", str(bomb))
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    out = result.stdout.splitlines()
    assert len(out) == 10_002
    assert out[0] == f"{bomb}:1:1: error record-shape type: field required (got an object)"
    assert out[-2:] == [
        f"{bomb}:10001:1: warning file-limit 190000 more findings not kept (the limit is 10000 per file, "
        "ROLLOUT_LSP_MAX_FINDINGS)",
        f"{bomb}:200001:1: warning file-limit more than 200000 lines (the limit, ROLLOUT_LSP_MAX_LINES): "
        "what follows is not read",
    ]
    assert result.peak_kb < PEAK_BOUND_KB


def test_a_1kb_zst_of_3_million_empty_objects_is_indexed_up_to_the_line_limit_in_bounded_memory(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    bomb = empty_objects_bomb(sessions / "rollout-2025-01-01T00-00-00-bomb.jsonl.zst")
    result = run_bounded("index", "--db", str(tmp_path / "index.sqlite3"), str(sessions))
    assert result.returncode == 1
    assert result.stderr == (
        f"rollout-lsp index: {bomb}: more than 200000 lines (the limit, ROLLOUT_LSP_MAX_LINES): "
        "only the first 200000 are indexed\n"
    )
    assert result.stdout.startswith(
        "1 rollouts: 1 read whole, 0 appended to, 0 unchanged, 0 removed; 200000 lines analysed, 0 calls added"
    )
    assert result.peak_kb < PEAK_BOUND_KB
    again = run_cli("index", "--db", str(tmp_path / "index.sqlite3"), str(sessions))
    assert again.returncode == 0 and "1 unchanged" in again.stdout  # not read again while it is unchanged


def test_a_parent_of_600_mib_named_by_a_small_rollout_is_read_within_the_parent_limits(tmp_path):
    # inside the Codex sessions folder the child is in: a parent named by path is read only there (the path rule)
    (tmp_path / "sessions").mkdir()
    parent = tmp_path / "sessions" / f"rollout-2025-01-01T00-00-00-{SESSION}1.jsonl.zst"
    line = json.dumps(
        {
            "timestamp": "2025-01-01T00:00:00.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x" * 200}]},
        }
    ).encode()
    block = (line + b"\n") * 4096
    with open(parent, "wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as out:
        out.write(meta(1).encode() + b"\n")
        for _ in range(600 * 1024 * 1024 // len(block) + 1):
            out.write(block)
    assert parent.stat().st_size < 100_000
    child = tmp_path / "sessions" / f"rollout-2025-01-01T00-00-00-{SESSION}2.jsonl"
    reference = {"rollout_path": str(parent), "rollout_id": f"{SESSION}1"}
    child.write_text(meta(2) + "\n" + json.dumps({"type": "rollout_reference", "payload": reference}) + "\n")
    result = run_bounded("check", str(child))
    assert result.returncode == 1, result.stderr
    assert result.stdout == (
        f"{child}:2:10: warning file-limit the parent rollout of this segment ({parent}) is read up to a limit: "
        "more than 16777216 bytes of lines (the limit, ROLLOUT_LSP_MAX_PARENT_BYTES): what follows is not read\n"
    )
    assert result.peak_kb < PEAK_BOUND_KB
    outline = run_bounded("outline", str(child))
    assert outline.returncode == 0, outline.stderr
    assert f"inherited from session {SESSION}1 (46090 turns): {parent}, lines 1–46091\n" in outline.stdout
    assert outline.peak_kb < PEAK_BOUND_KB


def _thirty_empty_objects(tmp_path: Path) -> Path:
    path = tmp_path / "rollout-2025-01-01T00-00-00-small.jsonl"
    path.write_text("{}\n" * 30)
    return path


SMALL_LIMITS = {"ROLLOUT_LSP_MAX_LINES": "20", "ROLLOUT_LSP_MAX_FINDINGS": "5"}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_lines_and_findings_past_their_limits_are_said_and_the_rest_is_reported(tmp_path, jobs):
    path = _thirty_empty_objects(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", "--jobs", jobs, str(path), str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **SMALL_LIMITS},
    )
    assert result.returncode == 1
    shape = [f"{path}:{n}:1: error record-shape type: field required (got an object)" for n in range(1, 6)]
    limits = [
        f"{path}:6:1: warning file-limit 15 more findings not kept (the limit is 5 per file, ROLLOUT_LSP_MAX_FINDINGS)",
        f"{path}:21:1: warning file-limit more than 20 lines (the limit, ROLLOUT_LSP_MAX_LINES): what follows is not "
        "read",
    ]
    assert result.stdout.splitlines() == (shape + limits) * 2  # the second file too: the work goes on


def test_standard_input_is_read_up_to_the_line_limit(tmp_path):
    text = meta(1) + "\n" + "{}\n" * 30
    result = subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", "--jobs", "1", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=text,
        env={**os.environ, **SMALL_LIMITS},
    )
    assert result.returncode == 1
    assert result.stdout.splitlines()[-2:] == [
        "-:7:1: warning file-limit 14 more findings not kept (the limit is 5 per file, ROLLOUT_LSP_MAX_FINDINGS)",
        "-:21:1: warning file-limit more than 20 lines (the limit, ROLLOUT_LSP_MAX_LINES): what follows is not read",
    ]


def test_a_zst_past_the_decompressed_limit_is_read_up_to_its_last_whole_line(tmp_path):
    path = tmp_path / "rollout-2025-01-01T00-00-00-cut.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n" * 30))
    env = {**os.environ, "ROLLOUT_LSP_MAX_DECOMPRESSED": "50"}  # 16 lines of 3 bytes, and 2 bytes of the 17th
    result = subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 1
    rows = json.loads(result.stdout)
    assert [row["code"] for row in rows] == ["record-shape"] * 16 + ["file-limit"]
    assert rows[-1]["message"] == (
        "more than 50 bytes of lines (the limit, ROLLOUT_LSP_MAX_DECOMPRESSED): what follows is not read"
    )
    assert rows[-1]["range"]["start"] == {"line": 16, "character": 0}
    outline = subprocess.run(
        [sys.executable, "-m", "lsp_server", "outline", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert outline.returncode == 0, outline.stderr


# -- 2. no index lost ----------------------------------------------------------------------------------------


def _fingerprint(path: Path) -> tuple:
    info = path.stat()
    return path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_ino


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / f"rollout-2025-01-01T00-00-00-{SESSION}1.jsonl").write_text(meta(1) + "\n")
    db = tmp_path / "index.sqlite3"
    made = run_cli("index", "--db", str(db), str(sessions))
    assert made.returncode == 0, made.stderr
    (sessions / f"rollout-2025-01-01T00-00-00-{SESSION}2.jsonl").write_text(meta(2) + "\n")
    return sessions, db


def test_a_read_only_index_file_is_an_error_and_left_as_it_is(indexed):
    sessions, db = indexed
    db.chmod(0o444)
    before = _fingerprint(db)
    result = run_cli("index", "--db", str(db), str(sessions))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"rollout-lsp index: {db}: cannot write the index (the index file is read-only); nothing was changed\n"
    )
    assert _fingerprint(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["index.sqlite3", "sessions"]


def test_an_index_in_a_read_only_folder_is_an_error_and_left_as_it_is(indexed):
    sessions, db = indexed
    before = _fingerprint(db)
    db.parent.chmod(0o555)
    try:
        result = run_cli("index", "--db", str(db), str(sessions))
    finally:
        db.parent.chmod(0o755)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"rollout-lsp index: {db}: cannot write the index (its folder is read-only); nothing was changed\n"
    )
    assert _fingerprint(db) == before


def test_a_corrupt_index_of_ours_is_rebuilt_and_the_old_file_kept_beside_it(indexed):
    sessions, db = indexed
    data = bytearray(db.read_bytes())
    assert int.from_bytes(data[68:72], "big") == APPLICATION_ID
    data[4096:] = b"\xa5" * (len(data) - 4096)
    db.write_bytes(bytes(data))
    result = run_cli("index", "--db", str(db), str(sessions))
    assert result.returncode == 0, result.stderr
    kept = [p for p in db.parent.iterdir() if p.name.startswith("index.sqlite3.corrupt-")]
    assert len(kept) == 1
    assert result.stderr == f"rollout-lsp index: {db} was corrupt: rebuilt; the old file is kept as {kept[0]}\n"
    assert kept[0].read_bytes() == bytes(data)
    assert "2 rollouts: 2 read whole" in result.stdout


@pytest.mark.parametrize("rebuild", [[], ["--rebuild"]])
def test_a_foreign_sqlite_file_named_as_the_index_is_never_touched(indexed, rebuild):
    sessions, db = indexed
    other = db.parent / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE mine(x)")
    connection.close()
    before = _fingerprint(other)
    result = run_cli("index", "--db", str(other), str(sessions), *rebuild)
    assert result.returncode == 2
    assert "SQLite database of something else" in result.stderr or "not a rollout-lsp index" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert _fingerprint(other) == before


@pytest.mark.parametrize("rebuild", [[], ["--rebuild"]])
def test_a_file_that_is_not_sqlite_named_as_the_index_is_never_touched(indexed, rebuild):
    sessions, db = indexed
    notes = db.parent / "notes.txt"
    notes.write_text("my notes, not a database\n" * 200)
    before = _fingerprint(notes)
    result = run_cli("index", "--db", str(notes), str(sessions), *rebuild)
    assert result.returncode == 2
    assert result.stderr.startswith(f"rollout-lsp index: {notes} is not a rollout-lsp index")
    assert len(result.stderr.splitlines()) == 1
    assert _fingerprint(notes) == before


def test_rebuild_keeps_the_old_index_until_the_new_one_is_complete(indexed):
    sessions, db = indexed
    result = run_cli("index", "--db", str(db), str(sessions), "--rebuild")
    assert result.returncode == 0, result.stderr
    assert "2 rollouts: 2 read whole" in result.stdout
    assert sorted(p.name for p in db.parent.iterdir() if ".old-" in p.name) == []  # complete: deleted


# -- 3. workers die with their parent ------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    """The child processes of ``pid``, read from Linux's /proc (the tests run on Linux, as CI does)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie has ended: only its parent's wait is missing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.parametrize("command", ["index", "check"])
def test_workers_die_when_their_parent_is_killed_with_sigkill(tmp_path, command):
    slow = tmp_path / "slow"
    slow.mkdir()
    bomb = empty_objects_bomb(tmp_path / "bomb.jsonl.zst")
    for n in range(4):  # each takes a worker several seconds (200,000 lines)
        shutil.copy(bomb, slow / f"rollout-2025-01-01T00-00-0{n}-bomb.jsonl.zst")
    extra = ["--db", str(tmp_path / "index.sqlite3")] if command == "index" else []
    parent = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", command, "--jobs", "2", *extra, str(slow)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_children(parent.pid)) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.05)
        workers = _children(parent.pid)
        assert len(workers) == 2
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in workers if _running(pid)] == []


def test_the_servers_background_index_dies_when_the_server_is_killed_with_sigkill(tmp_path):
    slow = tmp_path / "slow"
    slow.mkdir()
    bomb = empty_objects_bomb(tmp_path / "bomb.jsonl.zst")
    for n in range(4):
        shutil.copy(bomb, slow / f"rollout-2025-01-01T00-00-0{n}-bomb.jsonl.zst")
    # a stand-in for the server: starts `index` as lsp_server/indexed_symbols.py does (its own session, the
    # server's pid in ROLLOUT_LSP_PARENT_PID), says its pid, and waits
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, subprocess, sys\n"
            "from analysis.reports.spread import PARENT_ENV\n"
            "index = subprocess.Popen([sys.executable, '-m', 'lsp_server', 'index', '--jobs', '1', '--db', "
            f"{str(tmp_path / 'index.sqlite3')!r}, {str(slow)!r}], start_new_session=True, "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, PARENT_ENV: str(os.getpid())})\n"
            "print(index.pid, flush=True)\n"
            "index.wait()\n",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    index = int(server.stdout.readline())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (tmp_path / "index.sqlite3").exists():  # it is indexing
        time.sleep(0.05)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    server.stdout.close()
    deadline = time.monotonic() + 10
    while _running(index) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(index)


def test_a_document_of_more_lines_than_the_limit_is_analysed_up_to_it_in_the_server(monkeypatch):
    from analysis.jsonl.limits import capped, over_findings, over_lines
    from lsp_server.store import within_lines

    monkeypatch.setenv("ROLLOUT_LSP_MAX_LINES", "3")
    assert within_lines(["{}", "{}", "{}", ""]) == (["{}", "{}", "{}", ""], None)  # a final line break
    lines, cut = within_lines(["{}"] * 5)
    assert (lines, cut) == (["{}", "{}", "{}", "", ""], over_lines(3, 3))  # the document keeps its 5 lines
    assert cut is not None and cut.message == (
        "more than 3 lines (the limit, ROLLOUT_LSP_MAX_LINES): what follows is not read"
    )
    monkeypatch.setenv("ROLLOUT_LSP_MAX_FINDINGS", "2")
    findings = [over_findings(n, 0, 0) for n in range(3)] + [over_lines(3, 3)]  # file-limit ones: always kept
    assert capped(findings) == findings
    shapes = [Finding(RECORD_SHAPE, "type: field required", Span(n, 0, 2)) for n in range(5)]
    assert capped([*shapes, over_lines(5, 5)]) == [*shapes[:2], over_findings(2, 3, 2), over_lines(5, 5)]
