"""``rollout-lsp archive``: a Codex home built here (dated folders, a fork by reference whose parent is old, a
segment, a live session, a symbolic link out of the home, a file outside sessions/, a name taken in
archived_sessions/), the dry run, the moves, a run killed at each stage of several moves, and the restore."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from analysis.reports.archive_journal import JOURNAL_NAME, KILL_ENV, NO_RENAMEAT2_ENV
from tests.helpers import ROOT

NOW = datetime.now(timezone.utc)
IDS = {k: f"0194a000-0000-7000-8000-0000000000{0xA0 + i:02x}" for i, k in enumerate("ABCDEFGLRS")}
LIVE = "live: modified within the last 5 minutes and its last turn not ended"
STAY = "dry run: nothing was moved; run again with --apply to move them."


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def lines_of(session_id: str, start: datetime, cwd: Path, *, open_turn=False, meta=None, head=()) -> list[dict]:
    t = stamp(start)
    end = stamp(start + timedelta(minutes=3))
    payload = {"id": session_id, "timestamp": t, "cwd": str(cwd), "originator": "codex_cli_rs", **(meta or {})}
    out = [{"timestamp": t, "type": "session_meta", "payload": payload}, *head]
    out += [
        {"timestamp": t, "type": "turn_context", "payload": {"cwd": str(cwd), "model": "gpt-5.5", "turn_id": "t1"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": f"work {session_id}"}},
        {
            "timestamp": end,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "call_id": f"c-{session_id}",
                "arguments": json.dumps({"cmd": f"pytest -q tests/{session_id[-2:]}"}),
            },
        },
    ]
    if not open_turn:
        out.append({"timestamp": end, "type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t1"}})
    return out


def write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def place(home: Path, key: str, start: datetime, suffix: str = "") -> Path:
    name = f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{IDS[key]}{suffix}.jsonl"
    return home / "sessions" / start.strftime("%Y/%m/%d") / name


def build_home(root: Path) -> tuple[Path, dict[str, Path]]:
    """A: old; B: old, the parent of F (a fork by reference, a day old); C and D: old segments of one thread (D
    reads C by its rollout_path); E: old, another project; G: old, its name taken in archived_sessions/; L: live;
    S: a symbolic link to a rollout outside the home; O: a rollout outside sessions/; a Codex staging file."""
    home, repo_a, repo_b = root / "home", root / "repoA", root / "repoB"
    for repo in (repo_a, repo_b):
        (repo / ".git").mkdir(parents=True)
    (repo_a / "sub").mkdir()
    day = datetime(2025, 1, 10, 9, tzinfo=timezone.utc)
    p = {}
    p["A"] = write(place(home, "A", day), lines_of(IDS["A"], day, repo_a))
    b_start = day + timedelta(days=2)
    p["B"] = write(place(home, "B", b_start), lines_of(IDS["B"], b_start, repo_a))
    offset = sum(len(x) for x in p["B"].read_bytes().splitlines(keepends=True)[:3])
    f_start = NOW - timedelta(days=1)
    base = {"thread_id": IDS["B"], "end_ordinal_exclusive": 3, "end_byte_offset": offset}
    p["F"] = write(place(home, "F", f_start), lines_of(IDS["F"], f_start, repo_a, meta={"history_base": base}))
    c_start = datetime(2025, 2, 1, 8, tzinfo=timezone.utc)
    p["C"] = write(place(home, "C", c_start), lines_of(IDS["C"], c_start, repo_a))
    d_start = c_start + timedelta(days=1)
    ref = {"rollout_path": str(p["C"]), "thread_id": IDS["C"], "rollout_id": IDS["C"], "segment_id": "s2"}
    d_lines = lines_of(
        IDS["C"],
        d_start,
        repo_a / "sub",
        head=[{"timestamp": stamp(d_start), "type": "rollout_reference", "payload": ref}],
    )
    p["D"] = write(place(home, "C", d_start, "_" + IDS["D"]), d_lines)
    e_start = datetime(2025, 3, 1, 8, tzinfo=timezone.utc)
    p["E"] = write(place(home, "E", e_start), lines_of(IDS["E"], e_start, repo_b))
    g_start = datetime(2025, 3, 5, 8, tzinfo=timezone.utc)
    p["G"] = write(place(home, "G", g_start), lines_of(IDS["G"], g_start, repo_a))
    write(home / "archived_sessions" / p["G"].name, lines_of(IDS["G"], g_start, repo_b))  # another file, same name
    l_start = NOW - timedelta(minutes=2)
    p["L"] = write(place(home, "L", l_start), lines_of(IDS["L"], l_start, repo_a, open_turn=True))
    outside = write(root / "elsewhere" / "rollout-2025-01-15T08-00-00-x.jsonl", lines_of(IDS["S"], day, repo_a))
    s_start = datetime(2025, 1, 15, 8, tzinfo=timezone.utc)
    p["S"] = place(home, "S", s_start)
    p["S"].parent.mkdir(parents=True)
    p["S"].symlink_to(outside)
    p["O"] = write(home / "other" / place(home, "A", day).name, lines_of(IDS["A"], day, repo_a))
    p["stage"] = p["A"].parent / ".codex-rollout-stage-x1"
    p["stage"].write_text("partial")
    return home, p


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file below ``root`` (the journal left out): its bytes' hash and modification time, or a link's target."""
    out: dict[str, tuple] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if name == JOURNAL_NAME:
                continue
            key = str(path.relative_to(root))
            if path.is_symlink():
                out[key] = ("link", os.readlink(path))
            else:
                out[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return out


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {**os.environ, "ROLLOUT_LSP_INDEX": str(home.parent / "index.sqlite3"), **(env or {})}
    environ.pop("CODEX_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", "archive", "--codex-home", str(home), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environ,
        encoding="utf-8",
    )


def rel(home: Path, path: Path) -> str:
    return str(path.relative_to(home))


def size(path: Path) -> int:
    return path.stat().st_size


def held_lines(home: Path, p: dict[str, Path]) -> list[str]:
    return [
        "kept back 4:",
        f"  {rel(home, p['stage'])}: Codex's own move in progress (skipped)",
        f"  {rel(home, p['B'])}: read by {rel(home, p['F'])} (a fork by reference), which stays",
        f"  {rel(home, p['S'])}: a symbolic link (never followed)",
        f"  {rel(home, p['G'])}: archived_sessions/{p['G'].name} exists already (never overwritten)",
    ]


MOVED = ("A", "D", "C", "E")  # oldest first, a segment before the segment it reads


def test_dry_run_says_what_would_move_and_what_is_kept_back(tmp_path):
    home, p = build_home(tmp_path)
    before = snapshot(tmp_path)
    result = cli(home, "--older-than", "30")
    total = sum(size(p[k]) for k in MOVED)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"Codex home: {home}",
        f"would move 4 rollouts ({total} bytes) of the sessions older than 30 days to archived_sessions/:",
        *[f"  {rel(home, p[k])}  {size(p[k])} bytes" for k in MOVED],
        *held_lines(home, p),
        "2 other sessions stay (newer, or of another project).",
        STAY,
    ]
    assert snapshot(tmp_path) == before and not (home / JOURNAL_NAME).exists()


def test_project_limits_the_sessions(tmp_path):
    home, p = build_home(tmp_path)
    result = cli(home, "--older-than", "30", "--project", str(tmp_path / "repoA"))
    moved = ("A", "D", "C")
    assert result.stdout.splitlines() == [
        f"Codex home: {home}",
        f"would move 3 rollouts ({sum(size(p[k]) for k in moved)} bytes) of the sessions older than 30 days "
        f"of {tmp_path / 'repoA'} to archived_sessions/:",
        *[f"  {rel(home, p[k])}  {size(p[k])} bytes" for k in moved],
        *held_lines(home, p),
        "3 other sessions stay (newer, or of another project).",
        STAY,
    ]


def test_apply_moves_then_restore_puts_back_byte_for_byte(tmp_path):
    home, p = build_home(tmp_path)
    before = snapshot(tmp_path)
    sizes = {k: size(p[k]) for k in MOVED}
    result = cli(home, "--older-than", "30", "--apply")
    journal = home / JOURNAL_NAME
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"Codex home: {home}",
        *[f"moved {rel(home, p[k])} → archived_sessions/{p[k].name}  {sizes[k]} bytes" for k in MOVED],
        *held_lines(home, p),
        "2 other sessions stay (newer, or of another project).",
        f"moved 4 rollouts ({sum(sizes.values())} bytes) to archived_sessions/; journal: {journal}; "
        "`rollout-lsp archive --restore --apply` puts them back.",
        "Codex's own state database is not changed: `codex resume` may list a moved session until Codex finds "
        "it again (its archive and unarchive commands do update it).",
        f"index: none at {tmp_path / 'index.sqlite3'} (nothing to update)",
    ]
    after = snapshot(tmp_path)
    expected = {k: v for k, v in before.items() if k not in {str(p[m].relative_to(tmp_path)) for m in MOVED}}
    for k in MOVED:  # the same bytes and modification time, under the same name, in the flat archive
        expected[f"home/archived_sessions/{p[k].name}"] = before[str(p[k].relative_to(tmp_path))]
    assert after == expected
    ops = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(o["op"], o.get("from"), o.get("to")) for o in ops] == [
        x
        for k in MOVED
        for x in (("move", str(p[k]), str(home / "archived_sessions" / p[k].name)), ("done", None, None))
    ]
    # a second run finds nothing more to move
    again = cli(home, "--older-than", "30").stdout.splitlines()
    assert again[1] == "would move 0 rollouts (0 bytes) of the sessions older than 30 days to archived_sessions/:"

    dry = cli(home, "--restore")
    restored = ("E", "C", "D", "A")  # the latest move first
    assert dry.stdout.splitlines() == [
        f"Codex home: {home}",
        f"would restore 4 rollouts ({sum(sizes.values())} bytes):",
        *[f"  archived_sessions/{p[k].name} → {rel(home, p[k])}  {sizes[k]} bytes" for k in restored],
        "dry run: nothing was moved; run again with --apply to put them back.",
    ]
    assert snapshot(tmp_path) == after
    back = cli(home, "--restore", "--apply")
    assert (back.returncode, back.stderr) == (0, "")
    assert back.stdout.splitlines()[1:6] == [
        *[f"restored archived_sessions/{p[k].name} → {rel(home, p[k])}  {sizes[k]} bytes" for k in restored],
        f"restored 4 rollouts ({sum(sizes.values())} bytes); journal: {journal}",
    ]
    assert snapshot(tmp_path) == before
    assert cli(home, "--restore").stdout.splitlines()[1] == "would restore 0 rollouts (0 bytes):"


def test_a_live_session_is_kept_back(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    start = NOW - timedelta(minutes=10)  # its last line 7 minutes ago; the file is written now
    live = write(place(home, "L", start), lines_of(IDS["L"], start, repo, open_turn=True))
    done = write(place(home, "R", start), lines_of(IDS["R"], start, repo))
    result = cli(home, "--older-than", "0")
    assert result.stdout.splitlines() == [
        f"Codex home: {home}",
        f"would move 1 rollout ({size(done)} bytes) of the sessions older than 0 days to archived_sessions/:",
        f"  {rel(home, done)}  {size(done)} bytes",
        "kept back 1:",
        f"  {rel(home, live)}: {LIVE}",
        "0 other sessions stay (newer, or of another project).",
        STAY,
    ]


@pytest.mark.parametrize(
    "kill, env",
    [
        ("1:intent", {}),
        ("1:done", {}),
        ("2:moved", {}),
        ("3:intent", {}),
        ("4:moved", {}),
        ("2:linked", {NO_RENAMEAT2_ENV: "1"}),
        ("3:moved", {NO_RENAMEAT2_ENV: "1"}),
    ],
)
def test_a_killed_run_leaves_each_file_in_one_place_and_restores_exactly(tmp_path, kill, env):
    home, p = build_home(tmp_path)
    before = snapshot(tmp_path)
    killed = cli(home, "--older-than", "30", "--apply", env={KILL_ENV: kill, **env})
    assert killed.returncode == -9
    count, stage = int(kill.split(":")[0]), kill.split(":")[1]
    for number, k in enumerate(MOVED, 1):
        old, new = p[k], home / "archived_sessions" / p[k].name
        if stage == "linked" and number == count:  # one file under two names: reconciled below
            assert os.path.samefile(old, new)
            continue
        moved = number < count or (number == count and stage != "intent")
        assert (old.exists(), new.exists()) == (not moved, moved)
    ops = [json.loads(line) for line in (home / JOURNAL_NAME).read_text().splitlines()]
    assert sum(o["op"] == "move" for o in ops) == count
    assert sum(o["op"] == "done" for o in ops) == count - (stage != "done")
    said = cli(home, "--restore").stdout.splitlines()
    if stage != "done":
        k = MOVED[count - 1]
        what = {"intent": "not moved", "moved": "moved", "linked": "moved (its old name removed)"}[stage]
        assert said[1] == (
            f"journal: an interrupted archive of {p[k]} → {home / 'archived_sessions' / p[k].name}: {what} "
            "(settled in the journal by --apply)"
        )
    back = cli(home, "--restore", "--apply", env=env)
    assert back.returncode == 0, back.stdout + back.stderr
    assert snapshot(tmp_path) == before


def test_a_killed_run_is_finished_by_the_next(tmp_path):
    home, p = build_home(tmp_path)
    before = snapshot(tmp_path)
    assert cli(home, "--older-than", "30", "--apply", env={KILL_ENV: "2:moved"}).returncode == -9
    rerun = cli(home, "--older-than", "30", "--apply")
    assert rerun.stdout.splitlines()[1:4] == [
        f"journal: an interrupted archive of {p['D']} → {home / 'archived_sessions' / p['D'].name}: moved",
        f"moved {rel(home, p['C'])} → archived_sessions/{p['C'].name}  {size(home / 'archived_sessions' / p['C'].name)} bytes",
        f"moved {rel(home, p['E'])} → archived_sessions/{p['E'].name}  {size(home / 'archived_sessions' / p['E'].name)} bytes",
    ]
    assert all(not p[k].exists() for k in MOVED)
    assert cli(home, "--restore", "--apply").returncode == 0
    assert snapshot(tmp_path) == before


def test_the_index_follows_the_moves(tmp_path):
    home, p = build_home(tmp_path)
    db = tmp_path / "index.sqlite3"
    env = {**os.environ, "ROLLOUT_LSP_INDEX": str(db)}

    def search() -> list[str]:
        found = subprocess.run(
            [sys.executable, "-m", "lsp_server", "search", "--json", "pytest -q tests/"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            encoding="utf-8",
        )
        return sorted(str(Path(h["file"]).relative_to(home)) for h in json.loads(found.stdout or "[]"))

    subprocess.run(
        [sys.executable, "-m", "lsp_server", "index", str(home / "sessions"), str(home / "archived_sessions")],
        check=True,
        capture_output=True,
        cwd=ROOT,
        env=env,
    )
    indexed = search()
    assert len(indexed) == 10  # A to G, L, the link S (`index` reads it) and the other file named as G
    result = cli(home, "--older-than", "30", "--apply")
    assert result.stdout.splitlines()[-1] == f"index: 4 read, 4 removed ({db})"
    assert search() == sorted(
        [x for x in indexed if x not in {rel(home, p[k]) for k in MOVED}]
        + [f"archived_sessions/{p[k].name}" for k in MOVED]
    )
    back = cli(home, "--restore", "--apply")
    assert back.stdout.splitlines()[-1] == f"index: 4 read, 4 removed ({db})"
    assert search() == indexed


def test_a_thread_moves_whole_and_linked_folders_are_not_followed(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    old, young = datetime(2025, 4, 1, 8, tzinfo=timezone.utc), NOW - timedelta(days=2)
    first = write(place(home, "A", old), lines_of(IDS["A"], old, repo))
    reverted = write(place(home, "A", young, "_" + IDS["B"]), lines_of(IDS["A"], young, repo))  # same thread, newer
    alone = write(place(home, "C", old), lines_of(IDS["C"], old, repo))
    (tmp_path / "far").mkdir()
    write(tmp_path / "far" / "rollout-2025-01-01T00-00-00-x.jsonl", lines_of(IDS["E"], old, repo))
    (home / "sessions" / "2025" / "05").symlink_to(tmp_path / "far")
    result = cli(home, "--older-than", "30")
    assert result.stdout.splitlines() == [
        f"Codex home: {home}",
        f"would move 1 rollout ({size(alone)} bytes) of the sessions older than 30 days to archived_sessions/:",
        f"  {rel(home, alone)}  {size(alone)} bytes",
        "kept back 2:",
        f"  {rel(home, first)}: another rollout of its thread stays: {rel(home, reverted)}",
        "  sessions/2025/05: a symbolic link (never followed)",
        "1 other session stays (newer, or of another project).",
        STAY,
    ]


def test_usage_errors_and_a_second_run_at_once(tmp_path):
    home, _ = build_home(tmp_path)
    assert cli(home).returncode == 2
    assert cli(home, "--restore", "--older-than", "3").returncode == 2
    missing = cli(tmp_path / "nowhere", "--older-than", "3")
    assert (missing.returncode, missing.stderr) == (
        2,
        f"rollout-lsp archive: {tmp_path / 'nowhere'}: no such Codex home\n",
    )
    import fcntl

    with open(home / JOURNAL_NAME, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        busy = cli(home, "--older-than", "30", "--apply")
    assert (busy.returncode, busy.stdout) == (2, "")
    assert busy.stderr == (
        f"rollout-lsp archive: {home / JOURNAL_NAME} is held by another `rollout-lsp archive --apply`\n"
    )


def test_an_archive_folder_that_is_a_link_is_not_used(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    old = datetime(2025, 4, 1, 8, tzinfo=timezone.utc)
    write(place(home, "A", old), lines_of(IDS["A"], old, repo))
    (tmp_path / "far").mkdir()
    (home / "archived_sessions").symlink_to(tmp_path / "far")
    before = snapshot(tmp_path)
    for args in (("--older-than", "30", "--apply"), ("--restore", "--apply")):
        result = cli(home, *args)
        assert "  archived_sessions: a symbolic link (never followed): nothing is moved" in result.stdout
    assert snapshot(tmp_path) == before and list((tmp_path / "far").iterdir()) == []


def test_a_compressed_rollout_is_dated_by_its_last_line(tmp_path):
    import zstandard

    home, repo = tmp_path / "home", tmp_path / "repo"
    old, young = datetime(2025, 4, 1, 8, tzinfo=timezone.utc), NOW - timedelta(days=3)
    packed = {}
    for key, start in (("A", old), ("B", young)):
        plain = write(place(home, key, start), lines_of(IDS[key], start, repo))
        packed[key] = plain.with_name(plain.name + ".zst")
        packed[key].write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
        plain.unlink()
    result = cli(home, "--older-than", "30")
    assert result.stdout.splitlines()[1:4] == [
        f"would move 1 rollout ({size(packed['A'])} bytes) of the sessions older than 30 days to archived_sessions/:",
        f"  {rel(home, packed['A'])}  {size(packed['A'])} bytes",
        "1 other session stays (newer, or of another project).",
    ]
