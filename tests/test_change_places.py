"""Where a change's hunk starts in the file as it is now (analysis/session/change_places.py)."""

from analysis.session.change_places import first_hunk_line, hunk_start
from analysis.session.changes import Hunk

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
