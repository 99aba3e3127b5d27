"""A string of short escapes maps decoded indices to raw columns by counting its backslashes (stop 41), with no
tables until asked out of order too often: exact through ``\\\\``, ``\\"``, ``\\n``, non-ASCII and astral
characters, past the end, in any order."""

import json
import random

import pytest

from analysis.jsonl.jsonspans import locate, string_content
from analysis.jsonl.positions import EscapeMap


def reference(raw: str) -> tuple[list[int], list[int]]:
    """Each decoded character's raw start and end, read escape by escape."""
    starts, ends = [], []
    i = 0
    while i < len(raw):
        width = 2 if raw[i] == "\\" else 1
        starts.append(i)
        ends.append(i + width)
        i += width
    return starts, ends


def expected_start(raw: str, index: int) -> int:
    starts, ends = reference(raw)
    if index < 0:
        return index
    if index < len(starts):
        return starts[index]
    return (ends[-1] if ends else 0) + index - len(starts)


def expected_end(raw: str, index: int) -> int:
    if index <= 0:
        return 0
    starts, ends = reference(raw)
    return ends[index - 1] if index - 1 < len(ends) else expected_start(raw, index - 1) + 1


RAW = 'a\\\\b\\"é\\n😀\\\\\\nz'  # a, \\, b, \", é, \n, 😀, \\, \n, z


@pytest.mark.parametrize(
    "index, start, end",
    [(0, 0, 0), (1, 1, 1), (2, 3, 3), (3, 4, 4), (4, 6, 6), (5, 7, 7), (6, 9, 9), (7, 10, 10), (8, 12, 12)]
    + [(9, 14, 14), (10, 15, 15), (12, 17, 17)],
)
def test_each_index_of_a_string_of_short_escapes(index, start, end):
    escapes = EscapeMap(RAW, 100)
    assert escapes.start(index) == 100 + start
    assert escapes.end(index) == 100 + end


def test_the_ends_of_escaped_characters_are_after_both_raw_characters():
    escapes = EscapeMap(RAW, 0)
    # "\\" decodes to character 1; its end (index 2) is past both backslashes
    assert (escapes.start(1), escapes.end(2)) == (1, 3)
    # characters 5 (the "\n" escape at columns 7-8) to 6: past the escape's two raw characters
    found = escapes.span(4, 5, 6)
    assert (found.line, found.start, found.end) == (4, 7, 9)


def test_out_of_order_questions_go_over_to_the_tables_and_stay_exact():
    raw = '\\\\n\\"x' * 200
    decoded = len(json.loads('"' + raw + '"'))
    escapes = EscapeMap(raw, 7)
    indexes = list(range(decoded + 3, -2, -1))
    answers = [(escapes.start(i), escapes.end(i)) for i in indexes]
    assert escapes._flat is None  # counted past twice the string: the tables were made
    assert answers == [(7 + expected_start(raw, i), 7 + expected_end(raw, i)) for i in indexes]


def test_random_strings_and_questions_match_the_reference():
    rng = random.Random(41)
    pieces = ["a", "é", "😀", "\\n", "\\\\", '\\"', "\\/", "\\t", "\\\\n", "\\\\\\\\"]
    for _ in range(400):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
        decoded = len(json.loads('"' + raw + '"'))
        escapes = EscapeMap(raw, 3)
        indexes = [rng.randrange(-2, decoded + 4) for _ in range(rng.randrange(1, 12))]
        if rng.random() < 0.5:
            indexes.sort()
        for index in indexes:
            assert escapes.start(index) == 3 + expected_start(raw, index), (raw, index)
            assert escapes.end(index) == 3 + expected_end(raw, index), (raw, index)


def test_a_script_in_its_line_maps_to_the_exact_columns():
    script = 'const p = "C:\\\\Users\\\\é";\nawait tools.exec_command({cmd: "echo \\"😀\\""});\n'
    line = json.dumps({"type": "response_item", "payload": {"type": "custom_tool_call", "input": script}})
    start, raw = string_content(line, locate(line, [("payload", "input")])[("payload", "input")])
    escapes = EscapeMap(raw, start)
    call = script.index("tools.")
    call_end = script.index(");\n", call) + 1
    first, last = escapes.start(call), escapes.end(call_end)
    assert json.loads('"' + line[first:last] + '"') == script[call:call_end]
    assert line[first:last] == 'tools.exec_command({cmd: \\"echo \\\\\\"\\ud83d\\ude00\\\\\\"\\"})'
