"""Writing an edited exec script back: the escape style of the line, one edit, valid JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from analysis.authoring.script_edit import EscapeStyle, StringEdit, script_edit, script_span
from analysis.session.rollout import analyze_text
from tests.helpers import FIXTURES


def exec_lines(text: str) -> list[str]:
    """Every exec record's line of a rollout, as the analysis finds them."""
    analysis = analyze_text(text)
    return [analysis.lines[n] for n, record in enumerate(analysis.records) if record.is_exec]


def reencoded(line: str) -> str:
    """The line with its script decoded and encoded again in the style read off the line."""
    start, raw = script_span(line)
    script = json.loads(line)["payload"]["input"]
    return line[:start] + EscapeStyle.of(raw).encode(script) + line[start + len(raw) :]


def assert_round_trips(text: str) -> int:
    lines = exec_lines(text)
    for line in lines:
        assert reencoded(line).encode("utf-8", "surrogatepass") == line.encode("utf-8", "surrogatepass")
        assert script_edit(line, json.loads(line)["payload"]["input"]).is_empty
    return len(lines)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_fixture_exec_record_reencodes_byte_for_byte(path: Path):
    assert_round_trips(path.read_bytes().decode("utf-8"))


def test_the_fixtures_hold_exec_records_of_every_style():
    lines = [line for path in FIXTURES.glob("*.jsonl") for line in exec_lines(path.read_bytes().decode("utf-8"))]
    raws = [script_span(line)[1] for line in lines]
    assert any("\\u00e9" in raw for raw in raws) and any("é" in raw for raw in raws)
    assert any("\\u2028" in raw for raw in raws)
    assert len(lines) >= 20


def record(raw_input: str) -> str:
    return (
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call",'
        '"call_id":"c1","name":"exec","input":"' + raw_input + '"}}'
    )


def edited(raw_input: str, new_script: str) -> tuple[StringEdit, str]:
    line = record(raw_input)
    edit = script_edit(line, new_script)
    return edit, edit.apply(line)


def test_serde_style_writes_new_characters_raw():
    edit, line = edited('text(\\"é\\");\\n', 'text("é ü 😀\u2028");\n')
    assert line == record('text(\\"é ü 😀\\u2028\\");\\n')
    assert edit.text == " ü 😀\\u2028"


def test_ascii_style_escapes_new_characters_with_its_hex_case():
    _, line = edited('text(\\"\\u00E9\\")', 'text("éü😀")')
    assert line == record('text(\\"\\u00E9\\u00FC\\uD83D\\uDE00\\")')
    _, line = edited('text(\\"\\u00e9\\")', 'text("\\t\t")')
    assert line == record('text(\\"\\\\t\\t\\")')


def test_a_character_keeps_the_escape_the_line_gave_it():
    _, line = edited("a \\u003c b \\/ \\u000a", "a < b / \n c < d / \n")
    assert line == record("a \\u003c b \\/ \\u000a c \\u003c d \\/ \\u000a")
    _, line = edited("x\\ud83d\\ude00 é", "x😀 é 😀")  # a pair the line escaped, amid raw non-ASCII
    assert line == record("x\\ud83d\\ude00 é \\ud83d\\ude00")


def test_raw_line_separators_stay_raw_where_the_line_has_them():
    _, line = edited("a\u2028b", "a\u2028b\u2028c\u2029")
    assert line == record("a\u2028b\u2028c\\u2029")


def test_unchanged_stretches_keep_their_raw_text_even_when_inconsistent():
    # the line writes é both ways; the edit touches neither
    edit, line = edited("\\u00e9 é x", "\u00e9 é y")
    assert line == record("\\u00e9 é y") and edit.text == "y"
    edit, line = edited("\\u00e9 é x é", "\u00e9 é y é")
    assert edit == StringEdit(edit.start, edit.start + 1, "y")


def test_the_edit_is_one_span_inside_the_quotes():
    line = record("const a = 1;\\nconst b = 2;\\n")
    edit = script_edit(line, "const a = 10;\nconst b = 2;\n")
    assert (line[edit.start : edit.end], edit.text) == ("", "0")
    assert line[: edit.start].endswith("const a = 1")
    assert script_edit(line, "") == StringEdit(line.index('"input":"') + 9, line.rindex('"}}'), "")


def test_lines_without_a_script_string_have_no_edit():
    assert script_edit('{"type":"response_item","payload":{"type":"message"}}', "x") is None
    assert script_edit('{"type":"response_item","payload":{"type":"custom_tool_call","input":"a', "x") is None
    assert script_edit('{"payload":{"input":12}}', "x") is None


def test_lone_surrogates_are_escaped():
    _, line = edited("a", "a\ud800")
    assert line == record("a\\ud800")


def write(script: str, style: int) -> str:
    """A line written by one of the common writers."""
    if style == 0:
        raw = json.dumps(script, ensure_ascii=False)[1:-1]
    elif style == 1:
        raw = json.dumps(script)[1:-1]
    elif style == 2:  # Go's encoding/json: HTML characters and line separators escaped
        raw = (
            json.dumps(script, ensure_ascii=False)[1:-1]
            .replace("<", "\\u003c")
            .replace(">", "\\u003e")
            .replace("&", "\\u0026")
            .replace("\u2028", "\\u2028")
            .replace("\u2029", "\\u2029")
        )
    else:  # upper-case hex, long control escapes
        raw = json.dumps(script)[1:-1]
        # per piece between escaped backslashes: in `\\t` (a backslash, then t) there is no tab escape
        raw = "\\\\".join(
            _upper_escape(piece.replace("\\n", "\\u000A").replace("\\t", "\\u0009")) for piece in raw.split("\\\\")
        )
    return record(raw)


def _upper_escape(piece: str) -> str:
    out, i = [], 0
    while i < len(piece):
        if piece.startswith("\\u", i):
            out.append("\\u" + piece[i + 2 : i + 6].upper())
            i += 6
        else:
            out.append(piece[i])
            i += 1
    return "".join(out)


scripts = st.text(st.characters(codec="utf-8") | st.sampled_from(list('\n\t"\\<>&/é😀\u2028\u2029')), max_size=60)


@given(scripts, st.integers(0, 3))
@example("\\t", 3)  # found by Hypothesis: the test's own writer took a backslash and a t for a tab escape
def test_every_writer_style_round_trips(script: str, style: int):
    line = write(script, style)
    assert json.loads(line)["payload"]["input"] == script
    assert reencoded(line) == line


@given(scripts, st.integers(0, 3), st.data())
def test_any_edit_gives_valid_json_with_the_new_script_and_nothing_else_changed(script, style, data):
    line = write(script, style)
    start = data.draw(st.integers(0, len(script)))
    end = data.draw(st.integers(start, len(script)))
    new_script = script[:start] + data.draw(scripts) + script[end:]
    edit = script_edit(line, new_script)
    after = edit.apply(line)
    value = json.loads(after)
    assert value["payload"]["input"] == new_script
    raw_start, raw = script_span(line)
    assert raw_start <= edit.start <= edit.end <= raw_start + len(raw)
    assert (
        after[:raw_start] == line[:raw_start]
        and after[len(after) - (len(line) - raw_start - len(raw)) :] == line[raw_start + len(raw) :]
    )
    if style in (1, 3) and not script.isascii():  # a line evidently written ASCII-only stays so
        assert after.isascii()
