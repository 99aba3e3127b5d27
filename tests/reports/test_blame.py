"""``rollout-lsp blame``: the sessions behind a file and the patch behind each line, from the index.

A generated repository worked on by four sessions: A adds files (and makes a patch that fails), B (newer,
from a subfolder, with a script whose patch event comes later) changes, moves and deletes them, C (newest,
recorded on Windows) changes a line, D is another repository with the same relative path.  A person then
edits one line by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.reports.blame import attribute_lines, distinctive, file_history, read_lines, same_remote
from analysis.reports.index import RolloutIndex
from analysis.script.patch import parse_patch
from analysis.session.changes import Hunk, file_changes, patch_hunks, path_key, relative_key, resolve
from analysis.session.rollout import analyze_text
from tests.blame_support import Session, add, build_world, delete, patch_text, update
from tests.helpers import run_cli


@pytest.fixture
def world(tmp_path: Path):
    return build_world(tmp_path)


def history_of(db: Path, path: Path | str) -> list:
    with RolloutIndex.open_existing(db) as index:
        return file_history(index, str(path))


def test_changes_of_a_session_are_read_with_paths_hunks_and_applied(world):
    repo, folder, db, made = world
    changes = file_changes(analyze_text(made["b"].text()))
    assert [
        (c.action, c.path, c.move_to, c.absolute, c.move_absolute, c.applied, c.nested, c.next_command) for c in changes
    ] == [
        ("update", "app.py", None, str(repo / "src" / "app.py"), None, "yes", True, "pytest -q"),
        (
            "update",
            "old_name.py",
            "new_name.py",
            str(repo / "src" / "old_name.py"),
            str(repo / "src" / "new_name.py"),
            "yes",
            True,
            "pytest -q",
        ),
        ("delete", "gone.py", None, str(repo / "src" / "gone.py"), None, "yes", True, "pytest -q"),
    ]
    assert changes[0].hunks == (
        Hunk(
            "@@",
            (
                "-def compute_greeting(name):",
                '-    return f"hello {name}"',
                "+def compute_greeting(name):",
                '+    return f"Hello, {name}!"',
            ),
        ),
    )
    assert changes[0].hunks[0].added == ("def compute_greeting(name):", '    return f"Hello, {name}!"')
    assert changes[2].hunks == ()
    failed = file_changes(analyze_text(made["a"].text()))[-1]
    assert (failed.path, failed.applied, failed.nested, failed.hunks[0].added) == (
        "src/app.py",
        "no",
        False,
        ('    log("the failed patch added this")',),
    )
    [windows] = file_changes(analyze_text(made["c"].text()))
    assert (windows.absolute, windows.applied) == ("C:\\Users\\dev\\repo\\src\\app.py", "yes")


def test_paths_resolve_on_windows_and_posix():
    assert resolve("src/a.py", "/home/u/proj") == "/home/u/proj/src/a.py"
    assert resolve("../b.py", "/home/u/proj/src") == "/home/u/proj/b.py"
    assert resolve("/etc/x", "/home/u") == "/etc/x"
    assert resolve("src\\a.py", "C:\\Users\\dev\\repo") == "C:\\Users\\dev\\repo\\src\\a.py"
    assert resolve("src/a.py", "c:/work") == "c:\\work\\src\\a.py"
    assert resolve("D:\\other\\x.py", "C:\\repo") == "D:\\other\\x.py"
    assert resolve("\\\\server\\share\\x.py", None) == "\\\\server\\share\\x.py"
    assert resolve("src/a.py", None) is None and resolve("src/a.py", "relative/base") is None
    assert path_key("C:\\Users\\Dev\\Repo\\A.py") == "c:/users/dev/repo/a.py"
    assert path_key("/home/u/Proj/") == "/home/u/Proj"
    assert relative_key("C:\\Users\\Dev\\Repo\\src\\A.py", "c:/users/dev/repo") == "src/a.py"
    assert relative_key("/home/u/proj/src/a.py", "/home/u/proj") == "src/a.py"
    assert relative_key("/home/u/project/a.py", "/home/u/proj") is None


def test_hunks_of_each_file_of_a_patch():
    text = patch_text(
        add("n.py", ["one", "two"]),
        update("u.py", "@@ def f():\n x\n-y\n+z\n@@\n+w\n*** End of File\n"),
        delete("d.py"),
        update("m.py", "", move_to="m2.py"),
    )
    parsed = parse_patch(text)
    assert patch_hunks(text, parsed.files) == [
        (Hunk(None, ("+one", "+two")),),
        (Hunk("@@ def f():", (" x", "-y", "+z")), Hunk("@@", ("+w",))),
        (),
        (),
    ]
    assert Hunk(None, ("+a", "-b", "+c", " d", "+e")).added_runs() == [("a", "c"), ("e",)]


def test_blame_lists_the_sessions_of_a_file_newest_first(world):
    repo, folder, db, made = world
    history = history_of(db, repo / "src" / "app.py")
    assert [(c.session_id[:4], c.action, c.applied, c.matched_by, c.turn_title) for c in history] == [
        ("019c", "update", "yes", "repository", "add a review note"),
        ("019b", "update", "yes", "path", "capitalise the greeting"),
        ("019a", "update", "no", "path", "log something"),
        ("019a", "add", "yes", "path", "create the app"),
    ]
    # session D changed src/app.py of another repository (another remote): not listed


def test_each_line_is_the_newest_applied_patch_that_added_it(world):
    repo, folder, db, made = world
    history = history_of(db, repo / "src" / "app.py")
    blamed = attribute_lines(read_lines(str(repo / "src" / "app.py")), history)
    owners = [(b.change.session_id[:4], b.run) if b else None for b in blamed]
    assert owners == [
        ("019a", (0, 3)),
        ("019a", (0, 3)),
        ("019a", (0, 3)),
        ("019a", (0, 3)),  # a run of A's added file
        ("019c", (4, 4)),  # a distinctive line alone: C, recorded on Windows
        ("019a", (5, 5)),  # distinctive alone, A's (the human edit below parts it from its run)
        None,  # edited by a person after A added it
        ("019a", (7, 10)),
        ("019a", (7, 10)),
        ("019a", (7, 10)),  # A's run, whose last line B added again …
        ("019b", (10, 11)),
        ("019b", (10, 11)),  # … and B, newer, wins it
        None,
    ]  # only the failed patch added it: never attributed


def test_common_lines_are_not_attributed_alone(tmp_path: Path):
    repo = tmp_path / "r"
    (repo / ".git").mkdir(parents=True)
    s = Session("019e0000-0000-7000-8000-00000000000e", "2026-05-01", str(repo))
    s.turn("braces")
    s.top_patch("call_e", patch_text(add("x.js", ["function f() {", "  return 1;", "}", "", "}"])), success=True)
    folder = tmp_path / "s"
    folder.mkdir()
    s.save(folder)
    (repo / "x.js").write_text("// mine\n}\n\nlet y = 2;\n  return 1;\n", encoding="utf-8")
    with RolloutIndex.open(tmp_path / "i.sqlite3") as index:
        index.update([str(folder)])
        history = file_history(index, str(repo / "x.js"))
    blamed = attribute_lines(read_lines(str(repo / "x.js")), history)
    # "}" and "" match two consecutive added lines, but both are punctuation or blank: not a run worth naming;
    # "  return 1;" is distinctive alone
    assert [b.run if b else None for b in blamed] == [None, None, None, None, (4, 4)]
    assert not distinctive("}", 1, 1) and not distinctive("  x = 1", 2, 1) and not distinctive("  x = 1", 1, 4)
    assert distinctive("  x = 1", 1, 3)


def test_a_moved_file_keeps_the_history_of_its_earlier_name(world):
    repo, folder, db, made = world
    history = history_of(db, repo / "src" / "new_name.py")
    assert [(c.session_id[:4], c.action, c.path, c.move_to, c.leaves) for c in history] == [
        ("019b", "update", "old_name.py", "new_name.py", False),
        ("019a", "add", "src/old_name.py", None, False),
    ]
    # from the old name, the move took the file away
    assert [(c.session_id[:4], c.leaves) for c in history_of(db, repo / "src" / "old_name.py")] == [
        ("019b", True),
        ("019a", False),
    ]
    blamed = attribute_lines(["VALUE = 42", "OTHER = 'x'"], history)
    assert [b.change.session_id[:4] for b in blamed] == ["019b", "019a"]


def test_a_deleted_file_lists_its_sessions(world):
    repo, folder, db, made = world
    history = history_of(db, repo / "src" / "gone.py")
    assert [(c.session_id[:4], c.action, c.leaves) for c in history] == [
        ("019b", "delete", True),
        ("019a", "add", False),
    ]
    # a file written again after the delete holds nothing of the patches before it
    assert attribute_lines(["print('soon gone')"], history) == [None]
    assert attribute_lines(["print('soon gone')"], history[1:])[0].change.session_id[:4] == "019a"


def test_a_windows_path_is_looked_up_as_windows_compares_it(world):
    repo, folder, db, made = world
    history = history_of(db, "c:\\users\\DEV\\repo\\SRC\\app.py")
    assert [(c.session_id[:4], c.matched_by) for c in history] == [("019c", "path")]


def test_remotes_compare_across_url_forms():
    assert same_remote("git@github.com:dev/repo.git", "https://github.com/dev/repo")
    assert same_remote("https://user@GitHub.com/dev/repo.git/", "ssh://git@github.com/dev/repo")
    assert not same_remote("https://github.com/dev/repo", "https://github.com/other/repo")
    assert not same_remote(None, "https://github.com/dev/repo")


def test_the_index_keeps_changes_fresh_when_a_rollout_grows(world, tmp_path: Path):
    repo, folder, db, made = world
    b = made["b"]
    rollout = next(folder.glob(f"*{b.id}.jsonl"))
    call_line = next(n for n, r in enumerate(b.records) if r["payload"].get("call_id") == "call_b1")
    rollout.write_text(b.text(call_line + 1), encoding="utf-8")  # the script, before its event and output
    with RolloutIndex.open(db) as index:
        index.update([str(folder)])
        pending = [c.applied for c in file_history(index, str(repo / "src" / "gone.py"))]
    assert pending == ["unknown", "yes"]
    rollout.write_text(b.text(), encoding="utf-8")
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        grown = _changes(index)
        assert [c.applied for c in file_history(index, str(repo / "src" / "gone.py"))] == ["yes", "yes"]
    assert stats.appended == 1
    with RolloutIndex.open(tmp_path / "scratch.sqlite3") as scratch:
        scratch.update([str(folder)])
        assert grown == _changes(scratch)


def _changes(index: RolloutIndex) -> list[tuple]:
    return index.db.execute(
        "SELECT f.path, ch.line, ch.call_index, ch.file_index, ch.action, ch.absolute, "
        "ch.path_key, ch.repo_path, ch.applied, ch.hunks, ch.turn_title, ch.timestamp FROM changes ch "
        "JOIN files f ON f.id = ch.file_id ORDER BY f.path, ch.line, ch.call_index, ch.file_index"
    ).fetchall()


def test_cli_blame(world):
    repo, folder, db, made = world
    app = str(repo / "src" / "app.py")
    listed = run_cli("blame", app, "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    out = listed.stdout.splitlines()
    assert out[0] == f"{app}: changed by 3 sessions (4 changes), newest first"
    assert out[1].startswith(
        "2026-03-01T10:00:05.000Z  update  applied  session 019c0000-0000-7000-8000-00000000000c"
        '  turn 1 (line 3) "add a review note"  as C:\\Users\\dev\\repo\\src\\app.py  '
    )
    assert out[3].startswith(
        '2026-01-01T10:00:09.000Z  update  FAILED  session 019a0000-0000-7000-8000-00000000000a  turn 2 (line 7) "log something"  '
    )
    as_json = json.loads(run_cli("blame", app, "--db", str(db), "--json", "--lines").stdout)
    # the turn numbered as the Outline, outline and files number it: its ordinal, then its line (from 1)
    assert [(c["session_id"][:4], c["turn"]) for c in as_json["changes"]] == [
        ("019c", {"number": 1, "line": 2, "title": "add a review note"}),
        ("019b", {"number": 1, "line": 2, "title": "capitalise the greeting"}),
        ("019a", {"number": 2, "line": 6, "title": "log something"}),
        ("019a", {"number": 1, "line": 2, "title": "create the app"}),
    ]
    assert as_json["sessions"] == [
        "019c0000-0000-7000-8000-00000000000c",
        "019b0000-0000-7000-8000-00000000000b",
        "019a0000-0000-7000-8000-00000000000a",
    ]
    assert as_json["repository_path"] == "src/app.py"
    by_id = {c["id"]: c for c in as_json["changes"]}
    assert [by_id[b["change"]]["session_id"][:4] if b else None for b in as_json["lines"]] == [
        "019a",
        "019a",
        "019a",
        "019a",
        "019c",
        "019a",
        None,
        "019a",
        "019a",
        "019a",
        "019b",
        "019b",
        None,
    ]
    lines = run_cli("blame", app, "--db", str(db), "--lines").stdout.splitlines()
    assert lines[4] == " 5 2026-03-01T10:00:05 019c0000  │     # reviewed on windows"
    assert lines[6] == " 7                               │     print(greeting.upper())"
    untouched = repo / "README.md"
    untouched.write_text("hi\n", encoding="utf-8")
    nothing = run_cli("blame", str(untouched), "--db", str(db))
    assert (nothing.returncode, nothing.stdout) == (1, f"{untouched}: no indexed session changed it\n")
    missing = run_cli("blame", str(repo / "src" / "gone.py"), "--db", str(db), "--lines")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
