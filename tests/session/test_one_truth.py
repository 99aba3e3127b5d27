"""One truth per call (issue 34 point 4), on fixtures: the words of a changed file's row, a one-turn
session's files listed once, a script's own error told on its call, durations in one format."""

from __future__ import annotations

import pytest

from analysis.session.durations import seconds
from analysis.session.events import ToolEvent
from analysis.session.files_changed import ChangedFile, FileTouch, changed_files, file_row, session_list
from analysis.session.labels import failures, record_outcome
from analysis.session.labels import seconds as labels_seconds
from analysis.session.rollout import analyze_text
from analysis.session.script_errors import script_error
from tests.helpers import fixture
from tests.session.test_reviewer import _script_session


def _file(*touches: tuple[int, str, bool | None]) -> ChangedFile:
    return ChangedFile(
        "src/a.py", [FileTouch("src/a.py", action, line - 1, 0, None, ok) for line, action, ok in touches]
    )


def test_a_row_never_counts_a_patch_that_did_not_apply_for_what_it_tried():
    assert file_row(_file((7, "update", True))) == "updated (line 7)"
    assert file_row(_file((171, "add", True), (216, "update", None))) == "added (lines 171, 216)"
    assert file_row(_file((213, "update", False), (222, "update", False), (228, "update", True))) == (
        "updated (line 228; not applied: lines 213, 222)"
    )
    assert file_row(_file((71, "update", False))) == "not applied (line 71)"
    assert file_row(_file((52, "update", False), (54, "delete", False))) == "not applied (lines 52, 54)"


def test_a_one_turn_session_lists_its_files_once():
    demo = analyze_text(fixture("rollout-demo.jsonl"))  # one turn patched src/greet.py
    assert [f.path for f in changed_files(demo)] == ["src/greet.py"]
    assert session_list(demo) == []
    records = analyze_text(fixture("rollout-records.jsonl"))  # both patches in turn 2
    assert session_list(records) == []
    events = analyze_text(fixture("rollout-events.jsonl"))
    assert [(f.path, file_row(f)) for f in changed_files(events)] == [
        ("z.py", "not applied (line 9)"),
        ("a.py", "updated (line 12)"),
        ("docs/b.md", "added (line 12)"),
        ("c.py", "deleted (line 12)"),
    ]


def test_a_session_of_two_turns_keeps_its_own_list():
    """The demo's turn repeated: two turns changed src/greet.py, so the session's list gathers them."""
    lines = fixture("rollout-demo.jsonl").rstrip("\n").split("\n")
    again = lines + [line.replace("call_demo", "call_again") for line in lines[2:]]
    analysis = analyze_text("\n".join(again) + "\n")
    assert len(analysis.turns) == 2
    assert [(f.path, file_row(f)) for f in session_list(analysis)] == [("src/greet.py", "updated (lines 7, 15)")]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        ('execution error: Io(Os { code: 267, kind: NotADirectory, message: "x" })', "execution error: NotADirectory"),
        ("execution error: Io(NotADirectory)", "execution error: Io(NotADirectory)"),
        ("`powershell.exe -Command 'rm -r x'` rejected: blocked by policy", "rejected: blocked by policy"),
        ("apply_patch verification failed: Failed to find expected lines in a.py", "apply_patch verification failed"),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\n", None),  # thrown_exit's
        ("TypeError: tools.nope is not a function", None),  # JavaScript's own: no call named
        ("", None),
    ],
)
def test_the_reason_a_script_error_gives_its_call(error: str, reason: str | None):
    assert script_error(error) == reason
    if reason is not None:
        assert script_error(reason) == reason  # what a streamed reading keeps reads the same


def test_durations_in_one_format():
    assert labels_seconds is seconds
    assert [seconds(v) for v in (0.1962, 0.2, 20.0, 31.54, 0.04, 10.002)] == [
        "0.2 s",
        "0.2 s",
        "20 s",
        "31.5 s",
        "0 s",
        "10 s",
    ]
    event = ToolEvent("exec_command_end", "command", "c", exit_code=1, duration=1.217)
    assert event.summary() == "exit 1 · 1.2 s"


def test_an_exec_row_says_at_which_call_its_script_failed():
    """A failed script with one failed call: the row says where (``failed at its call 2`` among three), the
    call what (``exit 2``), counted once; with no failed call, or a script that completed, the row is as before."""
    analysis = analyze_text(_script_session([("make", 0), ("make test", 2)], "failed"))
    assert record_outcome(analysis, 2).text == "failed at its call 2"
    assert failures(analysis) == [(2, "exit 2")]
    analysis = analyze_text(_script_session([("make", 0)], "failed"))  # no call failed: where is not known
    assert record_outcome(analysis, 2).text == "failed"
    assert failures(analysis) == [(2, "failed")]
    assert record_outcome(analyze_text(_script_session([("make", 0), ("make test", 2)], "completed")), 2) is None
