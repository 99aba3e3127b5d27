"""A freeform call's input is found without walking its line (``call_records.input_span``): on every line, the
span is the one ``locate(line, [("payload", "input")])`` finds, whether the line is written as Codex writes it
(its head matched, the input written back and compared in place) or any other way (walked as before)."""

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.jsonl.jsonspans import locate
from analysis.session import call_records
from analysis.session.call_records import input_span
from analysis.session.record_analysis import analyze_line

ROOT = Path(__file__).resolve().parents[2]
INPUT = ("payload", "input")
HEAD = '{"timestamp":"2026-01-02T03:04:05.678Z","type":"response_item","payload":{"type":"custom_tool_call",'


def walked(line: str):
    return locate(line, [INPUT]).get(INPUT)


def assert_same(line: str) -> None:
    value = json.loads(line)
    assert input_span(line, value["payload"]["input"]) == walked(line), line


def test_a_line_as_codex_writes_it_is_not_walked(monkeypatch):
    line = HEAD + '"id":"ctc_1","status":"completed","call_id":"call_1","name":"exec","input":"text(\\"hi\\")\\n"}}'
    monkeypatch.setattr(call_records, "locate", lambda *a: (_ for _ in ()).throw(AssertionError("walked")))
    start = line.index('"input":') + len('"input":')
    assert input_span(line, 'text("hi")\n') == (start, len(line) - 2)


def test_a_line_written_otherwise_is_walked(monkeypatch):
    walks = []
    real = call_records.locate

    def counting(line, paths):
        walks.append(line)
        return real(line, paths)

    monkeypatch.setattr(call_records, "locate", counting)
    line = HEAD + '"name":"exec","input":"a\\/b"}}'  # an escape json does not write: compared, differs, walked
    assert input_span(line, "a/b") == walked(line) == (line.index('"a\\/b"'), len(line) - 2)
    assert walks == [line]


LINES = [
    # the plain layouts: no member before the input but the type, members after it, metadata after it
    HEAD + '"input":"x"}}',
    HEAD + '"status":"completed","call_id":"c","name":"exec","input":"x","metadata":{"turn_id":"t"}}}',
    HEAD + '"name":"apply_patch","input":"*** Begin Patch\\n*** End Patch"}}',
    # a later input member, plain or escaped, or one nested in a later member: the decoder keeps another
    HEAD + '"name":"exec","input":"x","input":"y"}}',
    HEAD + '"name":"exec","input":"x","\\u0069nput":"x"}}',
    HEAD + '"name":"exec","input":"x","meta":{"input":"x"}}}',
    HEAD + '"name":"exec","input":"x"},"payload":{"type":"custom_tool_call","name":"exec","input":"x"}}',
    HEAD + '"name":"exec","input":"x"},"\\u0070ayload":{"type":"custom_tool_call","name":"exec","input":"x"}}',
    # the input's escapes as json writes them, and as it does not
    HEAD + '"input":"\\u00e9\\"\\\\\\n\\t\\u0001"}}',
    HEAD + '"input":"\\u00E9"}}',
    HEAD + '"input":"é\u2028\U0001f600"}}',
    HEAD + '"input":"\\ud83d\\ude00"}}',
    HEAD + '"input":"\\ud800"}}',
    # a key before the input written with an escape, or an object before it: not the plain head
    HEAD + '"n\\u0061me":"exec","input":"x"}}',
    HEAD + '"meta":{"a":1},"input":"x"}}',
    HEAD + '"input" : "x"}}',
    '{"type":"response_item","timestamp":"t","payload":{"type":"custom_tool_call","input":"x"}}',
    # a value that only looks like the head's end
    HEAD + '"name":"\\"input\\":","input":"x"}}',
    HEAD + '"name":"exec","input":"x","note":"\\"input\\""}}',
]


def test_written_lines():
    for line in LINES:
        assert_same(line)


def test_every_fixture_input():
    seen = 0
    for path in sorted((ROOT / "fixtures").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if '"input"' not in line:
                continue
            try:
                value = json.loads(line)
            except ValueError:
                continue
            payload = value.get("payload") if isinstance(value, dict) else None
            if isinstance(payload, dict) and isinstance(payload.get("input"), str):
                assert_same(line)
                seen += 1
    assert seen > 20


MEMBERS = st.sampled_from(['"id":"ctc_1",', '"status":"completed",', '"call_id":"call_9",', '"name":"exec",', ""])
TAILS = st.sampled_from(
    [
        "}}",
        ',"metadata":{"turn_id":"t"}}}',
        ',"input":"other"}}',
        ',"\\u0069nput":"other"}}',
        ',"x":{"input":"y"}}}',
        '},"payload":{"input":"z"}}',
        ',"note":"\\\\"}}',
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(MEMBERS, max_size=4), st.text(), TAILS, st.booleans())
def test_generated_lines(members, text, tail, ascii_only):
    line = HEAD + "".join(members) + '"input":' + json.dumps(text, ensure_ascii=ascii_only) + tail
    assert_same(line)


def test_the_exec_line_reads_as_before():
    line = HEAD + '"call_id":"c1","name":"exec","input":"const r = await tools.exec_command({cmd:\\"ls\\"}); text(r)"}}'
    [call] = analyze_line(line).calls
    assert line[call.start : call.end].startswith("tools.exec_command(")
