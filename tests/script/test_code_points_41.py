"""Code points of byte offsets counted by the UTF-8 decoder from the last offset answered (stop 41): exact on
non-ASCII, astral characters and lone surrogates, in any order of questions, before and after the tables."""

import random

import pytest

from analysis.script.code_points import CodePoints
from analysis.script.script import ExecScript


def expected(text: str, byte: int) -> int:
    """The definition: the characters whose bytes all come before ``byte`` (a byte inside a character: that
    character's offset), within the text."""
    data = text.encode("utf-8", "surrogatepass")
    if byte <= 0:
        return 0
    return len(data[:byte].decode("utf-8", "ignore")) if byte < len(data) else len(text)


TEXT = "a—b😀c\u00e9€\nz"  # bytes: a 0, — 1-3, b 4, 😀 5-8, c 9, é 10-11, € 12-14, \n 15, z 16


@pytest.mark.parametrize(
    "byte, column",
    [(0, 0), (1, 1), (2, 1), (3, 1), (4, 2), (5, 3), (6, 3), (8, 3), (9, 4), (10, 5), (11, 5), (12, 6), (15, 7)]
    + [(16, 8), (17, 9), (18, 9), (400, 9), (-1, 0)],
)
def test_each_byte_of_a_mixed_text(byte, column):
    assert CodePoints(TEXT).at(byte) == column


def test_questions_in_any_order_answer_alike():
    points = CodePoints(TEXT)
    assert [points.at(b) for b in (16, 5, 12, 1, 9, 0, 16, 4)] == [8, 3, 6, 1, 4, 0, 8, 2]


def test_a_lone_surrogate_counts_three_bytes_as_the_tables_do():
    text = "x\ud800y\udfffé"
    assert [CodePoints(text).at(b) for b in range(11)] == [0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 5]


def test_questions_backwards_go_over_to_the_tables_and_stay_exact():
    text = "é" * 300 + "😀" * 100
    points = CodePoints(text)
    size = len(text.encode())
    answers = [points.at(b) for b in range(size, -1, -7)]
    assert points._starts is not None  # the bytes decoded passed twice the text's: the tables were made
    assert answers == [expected(text, b) for b in range(size, -1, -7)]


def test_random_texts_and_questions_match_the_definition():
    rng = random.Random(41)
    alphabet = ["a", "\n", "é", "—", "中", "😀", "\U0010ffff", "\x7f", "\x80"]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40)))
        size = len(text.encode())
        points = CodePoints(text)
        for byte in [rng.randrange(-2, size + 3) for _ in range(rng.randrange(1, 10))]:
            assert points.at(byte) == expected(text, byte), (text, byte)


def test_a_call_after_non_ascii_text_has_its_character_span():
    source = 'const s = "é😀—";\nawait tools.exec_command({cmd: "ls ü"});\n'
    script = ExecScript(source)
    (call, _), *_ = script.call_sites()
    start, end = script.span(call)
    assert (start, end) == (source.index("tools."), source.index(");\n") + 1)
    assert source[start:end] == 'tools.exec_command({cmd: "ls ü"})'
