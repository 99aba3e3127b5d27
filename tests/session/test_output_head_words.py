"""A command output's header lines are searched only when they hold the words each line starts with: the guard
leaves every reading as the expressions alone read it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session import outputs
from analysis.session.outputs import read_call_output

PIECES = [
    "Exit code: 0",
    "Exit code: -3",
    "Exit code:7",
    "Process exited with code 130",
    "Process exited with code x",
    "Wall time: 0.5 seconds",
    "Wall time 12 seconds",
    "Wall time: 1. seconds",
    "Process running with session ID 42",
    "Process running with session ID ",
    "Output:",
    "Chunk ID: ab12",
    "text",
    " Exit code: 1",
    '[{"text":"Exit code: 2"}]',
]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=8).flatmap(
    lambda parts: st.lists(st.sampled_from(["\n", " ", "", "\r\n"]), min_size=len(parts), max_size=len(parts)).map(
        lambda seps: "".join(p + s for p, s in zip(parts, seps))
    )
)


def _unguarded(text: str):
    """What the three searches find on the header without the word tests."""
    head = outputs._head(text)
    exit_line = outputs._EXIT_LINE.search(head)
    exit_code = int(exit_line.group(1)) if exit_line else None
    wall = outputs._WALL_LINE.search(head)
    running = outputs._RUNNING_LINE.search(head) if exit_code is None else None
    return exit_code, float(wall.group(1)) if wall else None, running.group(1) if running else None


@settings(max_examples=600, deadline=None)
@given(TEXTS)
def test_the_header_reads_as_the_expressions_alone_read_it(text):
    found = read_call_output(text)
    if text.startswith(("apply_patch verification failed", "Script error:", "write_stdin failed")):
        return
    exit_code, wall, session = _unguarded(text)
    assert (found.exit_code, found.wall_time, found.session_id) == (exit_code, wall, session)
    assert found.status == ("running" if session is not None else "completed")


def test_a_long_one_line_text_without_the_words():
    text = '[{"text":"' + "x" * 50_000 + '"}]'
    found = read_call_output(text)
    assert (found.exit_code, found.wall_time, found.session_id, found.status) == (None, None, None, "completed")
