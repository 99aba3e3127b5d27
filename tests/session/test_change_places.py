"""Where a change's file is on this machine, and where its hunk starts in the file as it is now
(analysis/session/change_places.py)."""

from analysis.session import change_places
from analysis.session.change_places import first_hunk_line, hunk_start, local_target
from analysis.session.changes import FileChange, Hunk

FILE = ["import os", "", "def main():", "    x = 1  ", "    y = 2", "    return x + y", "", "def other():", "    pass"]


def test_the_new_side_found_whole_ignoring_trailing_spaces():
    assert hunk_start(FILE, Hunk("@@ def main():", (" def main():", "-    x = 0", "+    x = 1", "+    y = 2"))) == 2


def test_the_first_added_block_counted_back_when_the_context_changed():
    hunk = Hunk(None, (" def main_old():", "+    x = 1", "+    y = 2", " never there"))
    assert hunk_start(FILE, hunk) == 2


def test_the_anchor_when_nothing_added_is_left():
    assert hunk_start(FILE, Hunk("@@ def other():", ("-    gone()", " gone too"))) == 7
    assert hunk_start(FILE, Hunk("@@", ("+nowhere",))) is None
    assert hunk_start(FILE, Hunk(None, ("+", "+"))) is None  # blank lines alone are not placed


def test_the_first_hunk_the_file_still_has():
    hunks = (Hunk(None, ("+nowhere",)), Hunk(None, ("+def other():",)))
    assert first_hunk_line(FILE, hunks) == 7
    assert first_hunk_line(FILE, ()) == 0


def _change(path: str, move_to: str | None = None) -> FileChange:
    return FileChange(3, 0, 0, "update", path, move_to, path, move_to, "yes", (), False)


def test_a_file_of_another_machine_is_found_below_a_workspace_folder():
    here = {"/work/repo/src/app.py", "/work/other/lib/x.py", "/ws/proj/src/app.py", "/mine/app.py"}
    exists = here.__contains__
    folders = ["/work/repo", "/ws/proj"]
    assert local_target(_change("/mine/app.py"), "/elsewhere", folders, exists=exists) == "/mine/app.py"  # here already
    assert (
        local_target(_change("/home/alice/repo/src/app.py"), "/home/alice/repo", folders, exists=exists)
        == "/work/repo/src/app.py"
    )  # the first folder that holds it
    # the session's cwd in a subfolder of its checkout: the checkout is one folder up
    assert (
        local_target(_change("/home/alice/repo/src/app.py"), "/home/alice/repo/pkg", folders, exists=exists)
        == "/work/repo/src/app.py"
    )
    assert (
        local_target(
            _change("C:\\Users\\Alice\\Repo\\SRC\\app.py"),
            "c:\\users\\alice\\repo",
            ["/work/repo"],
            exists=lambda p: p == "/work/repo/SRC/app.py",
        )
        == "/work/repo/SRC/app.py"
    )  # Windows: any case
    assert local_target(_change("/home/alice/repo/src/gone.py"), "/home/alice/repo", folders, exists=exists) is None
    assert local_target(_change("/etc/passwd"), "/home/alice/repo", folders, exists=exists) is None  # not below the cwd
    assert local_target(_change("/home/alice/repo/src/app.py"), None, folders, exists=exists) is None  # no cwd known
    assert local_target(_change("/home/alice/repo/src/app.py"), "/home/alice/repo", [], exists=exists) is None
    moved = _change("/home/alice/repo/old.py", "/home/alice/repo/src/app.py")
    assert local_target(moved, "/home/alice/repo", folders, exists=exists) == "/work/repo/src/app.py"  # where it went
    # a repository the caller says is another one is passed over, for the next folder
    asked: list[tuple[str, str]] = []
    other = local_target(
        _change("/home/alice/repo/src/app.py"),
        "/home/alice/repo",
        folders,
        lambda candidate, target: asked.append((candidate, target)) or candidate.startswith("/ws/"),
        exists=exists,
    )
    assert other == "/ws/proj/src/app.py"
    assert asked == [
        ("/work/repo/src/app.py", "/home/alice/repo/src/app.py"),
        ("/ws/proj/src/app.py", "/home/alice/repo/src/app.py"),
    ]


def test_the_longest_path_below_the_session_folder_wins():
    """A monorepo: the session ran in packages/web; its package.json is that package's, not the root's."""
    here = {"/work/mono/package.json", "/work/mono/packages/web/package.json"}
    found = local_target(
        _change("/home/alice/mono/packages/web/package.json"),
        "/home/alice/mono/packages/web",
        ["/work/mono"],
        exists=here.__contains__,
    )
    assert found == "/work/mono/packages/web/package.json"
    # the workspace folder above the checkout: the path below a folder above the cwd
    assert (
        local_target(
            _change("/home/alice/repo/src/app.py"),
            "/home/alice/repo",
            ["/ws"],
            exists={"/ws/repo/src/app.py"}.__contains__,
        )
        == "/ws/repo/src/app.py"
    )


def test_path_parts_split_windows_paths_at_either_separator_and_posix_ones_at_slashes():
    assert change_places.path_parts("C:\\Users\\a/b\\c.py") == ["C:", "Users", "a", "b", "c.py"]
    assert change_places.path_parts("/home/a/we\\ird.py") == ["home", "a", "we\\ird.py"]
    assert (
        local_target(
            _change("/home/a/repo/we\\ird.py"), "/home/a/repo", ["/ws"], exists={"/ws/we\\ird.py"}.__contains__
        )
        == "/ws/we\\ird.py"
    )


def test_the_folders_above_the_cwd_stop_below_the_root():
    assert change_places._bases("/home/alice/repo/pkg") == ["/home/alice/repo/pkg", "/home/alice/repo", "/home/alice"]
    assert change_places._bases("/home") == ["/home"]
    assert change_places._bases("C:\\Users\\a") == ["C:\\Users\\a", "C:\\Users"]
    assert change_places._bases("/") == [] and change_places._bases("C:\\") == []  # below the root is everything
