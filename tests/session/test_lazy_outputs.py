"""A large output keeps no decoded texts, only its record's line, and reads them again when asked: exactly the
texts, readable text, result blocks, hovers and exports it gave when it kept them."""

import json
import pickle
from types import SimpleNamespace

from lsprotocol import types

from analysis import analyze_text
from analysis.jsonl.positions import PositionEncoding
from analysis.reports.export import export
from analysis.reports.stream import analyze_chunk, thin
from analysis.session import outputs
from analysis.session.lineage import lineage
from analysis.session.outputs import KEPT_TEXT, readable_text
from analysis.session.record_analysis import analyze_line
from lsp_server.features.hover import HoverFeature

SERVER = SimpleNamespace(masker=lambda text: text, settings=SimpleNamespace(hover_output_lines=10_000))
TIME = "2026-07-20T10:00:00.000Z"
BIG = "".join(f'line {n}: caf\u00e9 \u2603 "quoted" \\ tab\t\n' for n in range(200))  # escapes, non-ASCII
SMALL_RESULT = '{"chunk_id":"b","wall_time_seconds":0.1,"exit_code":0,"output":"ok\\n"}'
BIG_RESULT = json.dumps({"chunk_id": "a", "wall_time_seconds": 0.5, "exit_code": 2, "output": BIG})
CHILD = "019f7ef8-0010-7000-8000-0000000000c1"


def line(payload: dict, kind: str = "response_item") -> str:
    return json.dumps({"timestamp": TIME, "type": kind, "payload": payload}, ensure_ascii=False, separators=(",", ":"))


def rollout() -> str:
    script = 'text(await tools.exec_command({cmd: "make test"}));\n'
    return (
        "\n".join(
            [
                line(
                    {"id": "019f0000-0000-7000-8000-000000000001", "cwd": "/p", "cli_version": "0.157.1"},
                    "session_meta",
                ),
                line(
                    {
                        "type": "custom_tool_call",
                        "status": "completed",
                        "call_id": "c1",
                        "name": "exec",
                        "namespace": "functions",
                        "input": script,
                    }
                ),
                line(
                    {
                        "type": "custom_tool_call_output",
                        "call_id": "c1",
                        "output": [
                            {"type": "input_text", "text": "Script completed\nWall time 0.6 seconds\nOutput:\n"},
                            {"type": "input_text", "text": BIG_RESULT},
                            {"type": "input_text", "text": "after \u00e9"},
                            {"type": "input_text", "text": "Script error:\nError: late"},
                        ],
                    }
                ),
                line(
                    {
                        "type": "custom_tool_call",
                        "status": "completed",
                        "call_id": "c2",
                        "name": "exec",
                        "namespace": "functions",
                        "input": script,
                    }
                ),
                line(
                    {
                        "type": "custom_tool_call_output",
                        "call_id": "c2",
                        "output": [
                            {"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
                            {"type": "input_text", "text": SMALL_RESULT},
                        ],
                    }
                ),
                line(
                    {
                        "type": "function_call",
                        "name": "exec_command",
                        "call_id": "c3",
                        "arguments": json.dumps({"cmd": "cat log"}),
                    }
                ),
                line(
                    {
                        "type": "function_call_output",
                        "call_id": "c3",
                        "output": json.dumps({"output": BIG, "metadata": {"exit_code": 0, "duration_seconds": 0.2}}),
                    }
                ),
                line(
                    {
                        "type": "function_call",
                        "name": "spawn_agent",
                        "call_id": "c4",
                        "arguments": json.dumps({"task_name": "audit"}),
                    }
                ),
                line(
                    {
                        "type": "function_call_output",
                        "call_id": "c4",
                        "output": json.dumps({"agent_id": CHILD, "note": "x" * (KEPT_TEXT + 1)}),
                    }
                ),
            ]
        )
        + "\n"
    )


def test_a_large_output_keeps_only_its_line_and_reads_its_texts_again():
    analysis = analyze_text(rollout())
    out = analysis.records[2].output
    assert out.kept_texts is None and out.line is analysis.lines[2]  # the document's own string, not a copy
    assert out.texts == (BIG_RESULT, "after \u00e9")
    assert (out.status, out.wall_time, out.error, out.exit_codes) == ("failed", 0.6, "Error: late", [2])
    assert out.result_output(out.results[0]) == BIG
    assert readable_text(out) == f"[exit 2]\n{BIG.rstrip()}\nafter \u00e9\nScript error: Error: late"
    assert out.text() == f"{BIG_RESULT}\nafter \u00e9"
    top = analysis.records[6].output
    assert (top.kept_texts, top.line is analysis.lines[6], top.texts, top.exit_code) == (None, True, (BIG,), 0)


def test_a_small_output_keeps_its_texts():
    analysis = analyze_text(rollout())
    out = analysis.records[4].output
    assert (out.kept_texts, out.line, out.texts) == ((SMALL_RESULT,), None, (SMALL_RESULT,))
    assert out.result_output(out.results[0]) == "ok\n"


def test_a_line_with_a_byte_order_mark_is_read_again_as_it_was_read():
    text = "\ufeff" + rollout().split("\n")[6]
    out = analyze_text(text).records[0].output
    assert (out.kept_texts, out.line, out.texts) == (None, text, (BIG,))


def test_what_is_shown_is_the_same_as_when_every_output_kept_its_texts(monkeypatch):
    lazy = analyze_text(rollout())
    # every output keeping its texts, as before outputs were read again on demand
    monkeypatch.setattr(outputs, "KEPT_TEXT", 10**9)
    kept = analyze_text(rollout())
    assert [r.output.kept_texts is None for r in kept.records if r.output] == [False] * 4
    assert [r.output.kept_texts is None for r in lazy.records if r.output] == [True, False, True, True]
    feature = HoverFeature(SERVER)
    for number in range(len(lazy.lines)):
        columns = [0] + [c.call.start + 1 for c in lazy.calls_on(number)]
        for column in columns:
            position = types.Position(number, column)
            a, b = (feature.hover_of(x, position, PositionEncoding.UTF32) for x in (lazy, kept))
            if number == len(lazy.lines) - 1:  # the last line is empty
                assert a is b is None
            else:
                assert (a.contents.value, a.range) == (b.contents.value, b.range)
    [call] = lazy.calls_on(1)
    assert feature.hover_of(
        lazy, types.Position(1, call.call.start + 1), PositionEncoding.UTF32
    ).contents.value.endswith(f"```\n{BIG.rstrip()}\n```")  # the call's own result block, read again
    for fmt in ("md", "html"):
        assert export(lazy, "r.jsonl", fmt) == export(kept, "r.jsonl", fmt)
    assert [(s.call_id, s.child, s.child_line) for s in lineage(lazy).spawns] == [("c4", CHILD, 8)]


def test_an_output_pickles_with_its_line_and_compares_by_it():
    text = rollout().split("\n")[2]
    record = analyze_line(text)
    again = pickle.loads(pickle.dumps(record))
    assert again == record and again.output.texts == (BIG_RESULT, "after \u00e9")
    # equal lines (not the same object) make equal analyses, as an edited document's and a fresh one's are
    assert analyze_line("".join(list(text))) == record
    other = text.replace("after \u00e9", "after e")
    assert analyze_line(other).output != record.output


def test_streaming_keeps_neither_texts_nor_the_line():
    text = rollout().split("\n")[2]
    thinned = thin(analyze_line(text))
    assert (thinned.output.kept_texts, thinned.output.line, thinned.output.texts) == ((), None, ())
    assert (thinned.output.status, thinned.output.exit_codes) == ("failed", [2])
    facts = analyze_chunk(rollout().split("\n"))
    assert all(r.output.line is None and r.output.kept_texts == () for r in facts.records if r.output)
    assert len(pickle.dumps(facts)) < len(BIG)


def _nested_output(depth: int) -> str:
    """An output line whose item holds, beside its text, a list nested ``depth`` deep."""
    item = (
        '{"type":"input_text","text":"Exit code: 0\\nOutput:\\n'
        + "x" * 300
        + '","extra":'
        + "[" * depth
        + "]" * depth
        + "}"
    )
    return (
        '{"timestamp":"%s","type":"response_item","payload":{"type":"function_call_output","call_id":"c1",'
        '"output":[%s]}}' % (TIME, item)
    )


def test_a_line_nested_almost_to_the_recursion_limit_is_read_again_from_deeper_in_the_stack():
    """The C JSON decoder counts nesting against the recursion limit: a hover asks from deeper in the stack
    than the first reading ran, and decoding the line there failed (the hover showed nothing)."""
    depth = max(d for d in range(850, 1000, 5) if analyze_text(_nested_output(d) + "\n").records[0].kind != "invalid")
    output = analyze_text(_nested_output(depth) + "\n").records[0].output
    assert output.kept_texts is None

    def from_deeper(frames: int) -> str:
        return readable_text(output) if frames == 0 else from_deeper(frames - 1)

    assert from_deeper(60) == "Exit code: 0\nOutput:\n" + "x" * 300


def test_texts_that_are_a_small_share_of_their_line_are_kept():
    """Beside an image's data URL, reading 300 characters again would mean decoding the whole line."""
    image = {"type": "input_image", "image_url": "data:image/png;base64," + "A" * 100_000}
    text = {"type": "input_text", "text": "Exit code: 0\nOutput:\n" + "y" * 300}
    record = line({"type": "function_call_output", "call_id": "c1", "output": [text, image]})
    output = analyze_line(record).output
    assert output.kept_texts == ("Exit code: 0\nOutput:\n" + "y" * 300,) and output.line is None
    assert output.images == 1


def test_the_last_output_read_again_is_remembered(monkeypatch):
    """A pointer resting on a call asks for its hover again and again: its output is decoded once."""
    reads = []
    original = outputs._texts_of_line

    def counting(line):
        reads.append(line)
        return original(line)

    monkeypatch.setattr(outputs, "_texts_of_line", counting)
    analysis = analyze_text(rollout())
    output = analysis.records[2].output
    assert output.kept_texts is None
    first = output.texts
    assert output.texts is first and readable_text(output) == readable_text(output)
    assert reads == [analysis.lines[2]]
    other = analyze_text(rollout().replace("after", "later")).records[2].output
    assert other.texts == tuple(t.replace("after", "later") for t in first)  # another line: read again
    assert len(reads) == 2


def test_the_remembered_output_is_let_go_when_its_line_is_edited_away_or_its_document_closes():
    from analysis.jsonl.lines import split_lines
    from analysis.session.rollout import LineCache, analyze_lines
    from lsp_server.store import AnalysisStore

    cache = LineCache()
    lines = split_lines(rollout())
    analysis = analyze_lines(list(lines), cache)
    assert analysis.records[2].output.texts and outputs.READ_AGAIN.line is analysis.lines[2]
    cache.keep_only(set(lines))  # a prune that keeps the line keeps what was read from it
    assert outputs.READ_AGAIN.line is analysis.lines[2]
    lines[2] = lines[2].replace("after", "later")
    cache.keep_only(set(lines))  # the line is edited away
    assert outputs.READ_AGAIN.last == (None, ())
    assert analysis.records[2].output.texts[1] == "after \u00e9"  # read again when asked
    assert outputs.READ_AGAIN.line is analysis.lines[2]
    AnalysisStore().close("file:///tmp/never-opened.jsonl")  # any closed document: let go
    assert outputs.READ_AGAIN.last == (None, ())
