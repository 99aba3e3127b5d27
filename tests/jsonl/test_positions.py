import json

from hypothesis import given
from hypothesis import strategies as st

import analysis.jsonl.positions as positions
from analysis.jsonl.lines import first_lines, split_lines, strip_bom
from analysis.jsonl.positions import EscapeMap, LineColumns, PositionEncoding, Span, span_to_range


def test_split_lines_breaks_only_at_cr_lf():
    text = "a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg\r\nh\ri\nj"
    assert split_lines(text) == ["a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg", "h", "i", "j"]


def test_split_lines_final_newline_gives_empty_last_line():
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("a\r\n\r\n") == ["a", "", ""]
    assert split_lines("") == [""]


def test_strip_bom():
    assert strip_bom("\ufeff{}") == "{}"
    assert strip_bom("{}") == "{}"


def test_columns_in_every_encoding():
    line = "a😀é\u2028b"
    cols = LineColumns(line)
    # code points: a=0 😀=1 é=2 \u2028=3 b=4
    assert [cols.to_units(c, PositionEncoding.UTF16) for c in range(6)] == [0, 1, 3, 4, 5, 6]
    assert [cols.to_units(c, PositionEncoding.UTF8) for c in range(6)] == [0, 1, 5, 7, 10, 11]
    assert [cols.to_units(c, PositionEncoding.UTF32) for c in range(6)] == [0, 1, 2, 3, 4, 5]
    assert cols.from_units(3, PositionEncoding.UTF16) == 2
    assert cols.from_units(2, PositionEncoding.UTF16) == 1  # inside the surrogate pair: its start
    assert cols.from_units(7, PositionEncoding.UTF8) == 3


def test_escape_map_through_every_json_escape():
    decoded = 'a\n"\\/é😀\t\u2028z'
    raw = json.dumps(decoded, ensure_ascii=True)[1:-1]
    raw = raw.replace("/", "\\/")  # JSON may escape the solidus too
    line = '{"input":"' + raw + '"}'
    start = line.index(raw)
    assert json.loads(line)["input"] == decoded
    escapes = EscapeMap(raw, start)
    pieces = [line[escapes.start(i) : escapes.end(i + 1)] for i in range(len(decoded))]
    assert pieces == ["a", "\\n", '\\"', "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\t", "\\u2028", "z"]
    assert escapes.end(0) == start
    assert escapes.span(3, 1, 3) == Span(3, start + 1, start + 5)


@given(st.text(st.sampled_from('ab\n\t"\\/u\u00e9\u2028\U0001f600\x01')), st.booleans(), st.booleans())
def test_escape_map_pieces_decode_to_each_character(decoded, ascii_only, solidus):
    raw = json.dumps(decoded, ensure_ascii=ascii_only)[1:-1]
    if solidus:
        raw = raw.replace("/", "\\/")
    escapes = EscapeMap(raw, 3)
    pieces = [raw[escapes.start(i) - 3 : escapes.end(i + 1) - 3] for i in range(len(decoded))]
    assert [json.loads(f'"{piece}"') for piece in pieces] == list(decoded)
    assert "".join(pieces) == raw


def test_escape_map_of_raw_text_is_an_offset():
    escapes = EscapeMap("plain 😀 text", 10)
    assert escapes.start(7) == 17 and escapes.end(13) == 23


def test_span_to_range_uses_utf16_by_default():
    rng = span_to_range(Span(4, 2, 3), "😀😀x")
    assert (rng.start.line, rng.start.character, rng.end.character) == (4, 4, 5)
    rng8 = span_to_range(Span(4, 2, 3), "😀😀x", PositionEncoding.UTF8)
    assert (rng8.start.character, rng8.end.character) == (8, 9)


def test_escape_tables_are_32_bit_and_64_bit_past_it(monkeypatch):
    raw = 'a\\"b\\\\c\\u00e9d'  # a"b\cé d: three escapes
    small = EscapeMap(raw, 5)
    assert small._dec.typecode == "i" and small._dec.itemsize == 4
    monkeypatch.setattr(positions, "_INT32_MAX", 3)  # as if the line were longer than 2 GB
    large = EscapeMap(raw, 5)
    assert large._dec.typecode == "q"
    for m in (small, large):
        assert [m.start(i) for i in range(7)] == [5, 6, 8, 9, 11, 12, 18]
        assert [m.end(i) for i in range(1, 8)] == [6, 8, 9, 11, 12, 18, 19]


@given(st.text(alphabet="a\r\n\u2028 ", max_size=40), st.integers(0, 12))
def test_first_lines_are_the_first_of_split_lines(text, count):
    assert first_lines(text, count) == split_lines(text)[:count]


@given(st.text(st.sampled_from('ab\\\\"\n\t/é')), st.integers(0, 5))
def test_short_escape_tables_are_the_escapes_read_one_by_one(decoded, run):
    # runs of escaped backslashes, paired from the left, beside other escapes: the split-made tables (stop 38)
    # give each escape where reading the raw text escape by escape (the regex it replaced) puts it
    raw = json.dumps("\\" * run + decoded, ensure_ascii=False)[1:-1]
    assert "\\u" not in raw
    raw_at = [m.start() for m in positions._SHORT_ESCAPE.finditer(raw)]
    expected = ([a - k for k, a in enumerate(raw_at)], raw_at, [a + 2 for a in raw_at])
    assert positions._short_escapes(raw) == expected
