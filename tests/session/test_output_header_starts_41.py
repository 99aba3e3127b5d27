"""A command output without an ``Output:`` line has its header's expressions tried at the starts of its first
three lines only, and an output keeping its line is made so at once (stop 41): the same readings."""

import pytest

from analysis.session import outputs
from analysis.session.outputs import KEPT_TEXT, read_call_output, read_exec_output, read_output


@pytest.mark.parametrize(
    "text, exit_code, wall, session",
    [
        ("Exit code: 3\nWall time: 1.5 seconds\nrest", 3, 1.5, None),
        ("first\nProcess exited with code 130\nWall time 2 seconds", 130, 2.0, None),
        ("a\nb\nc\nExit code: 4", None, None, None),  # the fourth line is not the header's
        ("Process running with session ID 77 and more", None, None, "77"),
        ("x Exit code: 5\n Wall time: 1 seconds", None, None, None),  # not at a line's start
        ("Exit code: 6" + " é😀" * 20_000, 6, None, None),  # one long line: read at its start
        ("[" + '{"text":"Exit code: 2"},' * 5_000 + "]", None, None, None),
        ("Wall time: 0.25 seconds\r\nExit code: -1\r\n", -1, 0.25, None),
    ],
)
def test_the_first_three_lines_are_read_at_their_starts(text, exit_code, wall, session):
    found = read_call_output(text)
    assert (found.exit_code, found.wall_time, found.session_id) == (exit_code, wall, session)
    assert found.status == ("running" if session else "completed")


def test_the_head_and_its_line_starts():
    assert outputs._head_and_starts("a\nbb\nccc\ndddd") == ("a\nbb\nccc", (0, 2, 5))
    assert outputs._head_and_starts("one line") == ("one line", (0,))
    assert outputs._head_and_starts("a\n") == ("a\n", (0, 2))
    assert outputs._head_and_starts("Exit code: 1\nOutput:\nx") == ("Exit code: 1\n", None)
    assert outputs._head("a\nb\nc\nd") == "a\nb\nc"


def test_a_large_output_keeps_its_line_and_the_same_fields():
    text = "Exit code: 2\nWall time: 3 seconds\nOutput:\n" + "é" * (KEPT_TEXT * 2)
    line = '{"payload":{"output":"' + text.replace("\n", "\\n") + '"}}'
    kept = read_output(text, line)
    assert kept.kept_texts is None and kept.line is line
    assert (kept.status, kept.exit_code, kept.wall_time) == ("completed", 2, 3.0)
    assert read_output(text) == read_call_output(text)
    assert read_output(text).kept_texts == (text,)


def test_a_large_exec_output_keeps_its_line():
    body = "Script completed\nWall time 0.5 seconds\nOutput:\n" + "x" * (KEPT_TEXT * 2)
    line = '{"output":' + repr(body) + "}"
    kept = read_exec_output(body, line)
    assert (kept.kept_texts, kept.line, kept.status, kept.wall_time) == (None, line, "completed", 0.5)
    assert read_exec_output(body).kept_texts == ("x" * (KEPT_TEXT * 2),)


def test_a_small_output_keeps_its_texts_even_with_its_line():
    found = read_output("Exit code: 0", '{"output":"Exit code: 0"}')
    assert found.kept_texts == ("Exit code: 0",) and found.line is None and found.exit_code == 0
