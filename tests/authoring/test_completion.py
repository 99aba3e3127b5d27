"""Completions while authoring: types, tools, argument keys, waiting call ids, the exec snippet."""

from __future__ import annotations

import json

from analysis.authoring import completion
from analysis.authoring.completion import ARGUMENT_KEYS, complete, json_context
from analysis.session import vocabulary
from analysis.session.records import KNOWN_TYPES
from analysis.session.rollout import analyze_text
from tests.helpers import fixture, json_escaped

DEMO = analyze_text(fixture("rollout-demo.jsonl"))


def at(line: str, needle: str, offset: int = 0) -> int:
    return line.index(needle) + offset


def proposals(analysis, number: int, line: str, column: int) -> list[tuple]:
    return [(c.label, c.kind, line[c.start : c.end]) for c in complete(analysis, number, line, column)]


def test_record_types_in_an_unfinished_line():
    line = '{"timestamp":"2026-07-20T10:00:00.000Z","type":"resp'
    found = complete(DEMO, 10, line, len(line))
    assert [c.label for c in found] == sorted(KNOWN_TYPES)
    assert {(c.start, c.end) for c in found} == {(line.index("resp"), len(line))}


def test_payload_types_follow_the_record_type():
    line = '{"type":"response_item","payload":{"type":"cu"}}'
    found = proposals(DEMO, 10, line, at(line, 'cu"', 2))
    assert [f[0] for f in found][:6] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
    ]
    assert {f[2] for f in found} == {"cu"}
    line = '{"type":"event_msg","payload":{"type":""}}'
    assert [f[0] for f in proposals(DEMO, 10, line, at(line, '""}', 1))][:3] == [
        "user_message",
        "agent_message",
        "agent_reasoning",
    ]
    line = '{"type":"turn_context","payload":{"type":""}}'
    assert proposals(DEMO, 10, line, at(line, '""}', 1)) == []


def test_payload_types_offer_every_known_type_common_ones_first():
    """The vocabulary is the one list of known types: a type added there is offered with no change here."""
    line = '{"type":"response_item","payload":{"type":""}}'
    labels = [f[0] for f in proposals(DEMO, 10, line, at(line, '""}', 1))]
    common = list(completion.COMMON_RESPONSE_ITEM_TYPES)
    assert labels == common + sorted(vocabulary.RESPONSE_ITEM_TYPES - set(common))
    assert set(labels) == vocabulary.RESPONSE_ITEM_TYPES
    assert labels[len(common) :] == [
        "additional_tools",
        "agent_message",
        "compaction_summary",
        "ghost_snapshot",
        "local_shell_call_output",
        "other",
    ]
    line = '{"type":"event_msg","payload":{"type":""}}'
    labels = [f[0] for f in proposals(DEMO, 10, line, at(line, '""}', 1))]
    assert set(labels) == vocabulary.EVENT_TYPES
    assert labels[: len(completion.COMMON_EVENT_TYPES)] == list(completion.COMMON_EVENT_TYPES)
    assert len(labels) == len(set(labels))


def test_keys_and_other_values_get_nothing():
    line = '{"type":"response_item","payload":{"ty'
    assert complete(DEMO, 10, line, len(line)) == []
    line = '{"timestamp":"2026'
    assert complete(DEMO, 10, line, len(line)) == []


def test_call_ids_waiting_for_an_output():
    line = '{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_","output":""}}'
    found = complete(DEMO, 10, line, at(line, 'call_"', 5))
    assert [(c.label, c.detail, line[c.start : c.end]) for c in found] == [
        ("call_demo3", "line 9: exec, waiting for its output", "call_")
    ]
    # the output being written does not count as the answer to its own call; the nearest call comes first
    text = fixture("rollout-demo.jsonl")
    lines = text.split("\n")
    analysis = analyze_text(text)
    assert [c.label for c in complete(analysis, 5, lines[5], at(lines[5], "call_demo1", 4))] == [
        "call_demo1",
        "call_demo3",
    ]
    line = '{"type":"response_item","payload":{"type":"function_call_output","call_id":""}}'
    assert [c.label for c in complete(analysis, 5, line, at(line, '""}', 1))] == ["call_demo1", "call_demo3"]


def exec_line(script: str) -> str:
    return (
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call",'
        '"call_id":"c9","name":"exec","input":"' + json_escaped(script) + '"}}'
    )


def test_tool_names_after_tools_dot_through_escapes():
    line = exec_line('text("é😀\\n");\nawait tools.ex')
    found = complete(DEMO, 10, line, len(line) - 3)
    assert [c.label for c in found] == [
        "exec_command",
        "write_stdin",
        "apply_patch",
        "update_plan",
        "view_image",
        "shell_command",
    ]
    assert {line[c.start : c.end] for c in found} == {"ex"}
    assert found[0].start == line.index("tools.ex") + 6
    line = exec_line("await tools?.")
    assert complete(DEMO, 10, line, len(line) - 3)[0].label == "exec_command"


def test_no_tool_names_inside_strings_comments_or_other_objects():
    for script in ('text("tools.")', "// tools.", "other.tools.", "`tools.`", "/tools./", "f(`${x}tools.`)"):
        line = exec_line(script)
        cursor = line.index("tools.") + 6
        assert complete(DEMO, 10, line, cursor) == [], script
    line = exec_line("f(`${tools.}`)")
    assert complete(DEMO, 10, line, line.index("tools.") + 6)[0].label == "exec_command"


def test_mcp_and_dynamic_tools_of_the_rollout():
    meta = {
        "type": "session_meta",
        "payload": {
            "id": "s",
            "dynamic_tools": [
                {"type": "namespace", "name": "codex_app", "tools": [{"type": "function", "name": "open-in-codex"}]},
                {"type": "namespace", "name": "mcp__docs__", "tools": [{"type": "function", "name": "search"}]},
            ],
        },
    }
    call = {
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "name": "exec",
            "call_id": "c1",
            "input": "await tools.mcp__github__search_issues({q: 'x'});",
        },
    }
    top = {
        "type": "response_item",
        "payload": {"type": "function_call", "name": "mcp__ologs__chart", "arguments": "{}", "call_id": "c2"},
    }
    analysis = analyze_text("\n".join(json.dumps(v) for v in (meta, call, top)) + "\n")
    line = exec_line("tools.")
    assert [c.label for c in complete(analysis, 3, line, len(line) - 3)][6:] == [
        "codex_app__open_in_codex",
        "mcp__docs__search",
        "mcp__github__search_issues",
        "mcp__ologs__chart",
    ]


def test_argument_keys_of_the_tools():
    line = exec_line('await tools.exec_command({cmd: "ls", w})')
    found = proposals(DEMO, 10, line, at(line, "w})", 1))
    assert [f[0] for f in found] == [
        "workdir",
        "shell",
        "login",
        "tty",
        "yield_time_ms",
        "max_output_tokens",
        "sandbox_permissions",
        "justification",
        "prefix_rule",
    ]
    assert {f[2] for f in found} == {"w"}
    line = exec_line("await tools.write_stdin({})")
    assert [f[0] for f in proposals(DEMO, 10, line, at(line, "{}", 1))] == [
        "session_id",
        "chars",
        "yield_time_ms",
        "max_output_tokens",
    ]
    line = exec_line("await tools.shell_command({ })")
    assert [f[0] for f in proposals(DEMO, 10, line, at(line, "{ }", 1))][:2] == ["command", "workdir"]
    line = exec_line("await tools.apply_patch({})")
    assert [f[0] for f in proposals(DEMO, 10, line, at(line, "{}", 1))] == ["input"]
    line = exec_line('import { exec_command as run } from "tools.js";\nawait run({})')
    assert [f[0] for f in proposals(DEMO, 10, line, at(line, "{})", 1))][0] == "cmd"


def unfinished_exec_line(script: str) -> str:
    """An exec record typed up to the end of ``script``: the JSON string and the line end there, as in an
    editor that closes no bracket inside a JSON string."""
    return (
        '{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"c9","input":"'
        + json.dumps(script)[1:-1]
    )


def test_argument_keys_after_an_unclosed_object():
    """`tools.exec_command({` with nothing closed yet: the keys, as inside a balanced `({})`."""
    line = unfinished_exec_line("await tools.exec_command({")
    found = proposals(DEMO, 10, line, len(line))
    assert [f[0] for f in found] == list(ARGUMENT_KEYS["exec_command"]) and {f[2] for f in found} == {""}
    line = unfinished_exec_line('const r = await tools.exec_command({cmd: "ls -la", wo')
    found = proposals(DEMO, 10, line, len(line))
    assert [f[0] for f in found][:2] == ["workdir", "shell"] and "cmd" not in [f[0] for f in found]
    assert {f[2] for f in found} == {"wo"}
    line = unfinished_exec_line('await tools.exec_command({cmd: "a"});\nawait tools.write_stdin({')
    assert [f[0] for f in proposals(DEMO, 10, line, len(line))] == list(ARGUMENT_KEYS["write_stdin"])
    line = unfinished_exec_line("await tools.exec_command({cmd: [")  # in a value: nothing
    assert complete(DEMO, 10, line, len(line)) == []
    line = unfinished_exec_line('text("await tools.exec_command({')  # in a string: nothing
    assert complete(DEMO, 10, line, len(line)) == []
    line = unfinished_exec_line("await other({")
    assert complete(DEMO, 10, line, len(line)) == []


def test_no_keys_in_values_or_other_calls():
    line = exec_line('await tools.exec_command({cmd: "ls", workdir: x})')
    assert complete(DEMO, 10, line, at(line, "x})", 1)) == []
    assert complete(DEMO, 10, line, at(line, "ls", 1)) == []
    line = exec_line("await f({})")
    assert complete(DEMO, 10, line, at(line, "{}", 1)) == []
    line = exec_line("await tools.view_image({})")
    assert complete(DEMO, 10, line, at(line, "{}", 1)) == []


def test_the_exec_snippet_on_a_blank_line():
    text = fixture("rollout-demo.jsonl")
    analysis = analyze_text(text)
    [found] = complete(analysis, 10, "", 0)
    call, output = found.text.split("\n")
    assert json.loads(call) == {
        "timestamp": "2026-07-20T10:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "call_new1",
            "name": "exec",
            "input": 'const r = await tools.exec_command({cmd: "git status --short"});\ntext(r.output);\n',
        },
    }
    assert json.loads(output)["payload"]["call_id"] == "call_new1"
    assert json.loads(output)["timestamp"] == "2026-07-20T10:00:00.000Z"
    assert found.snippet == (
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call",'
        '"status":"completed","call_id":"call_new1","name":"exec","input":"${1:const r = await '
        'tools.exec_command({cmd: \\\\"git status --short\\\\"\\});\\\\ntext(r.output);\\\\n}"\\}\\}\n'
        '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call_output",'
        '"call_id":"call_new1","output":[{"type":"input_text","text":"Script completed\\\\nWall time 0.1 seconds'
        '\\\\nOutput:\\\\n"\\},{"type":"input_text","text":"$2"\\}]\\}\\}$0'
    )
    taken = analyze_text(
        text
        + json.dumps(
            {
                "type": "response_item",
                "payload": {"type": "custom_tool_call", "name": "exec", "input": "", "call_id": "call_new1"},
            }
        )
        + "\n"
    )
    assert complete(taken, 12, "", 0)[0].detail == "call_new2 at 2026-07-20T10:00:00.000Z"


def test_json_context_paths():
    line = '{"a":[1,{"b":"xy"}],"type":"t","payload":{"type":"p","name":"n"}}'
    context = json_context(line, line.index("xy") + 1)
    assert (context.path, context.is_key, line[context.content_start : context.content_end]) == (
        ("a", 1, "b"),
        False,
        "xy",
    )
    assert context.fields == {("type",): "t", ("payload", "type"): "p", ("payload", "name"): "n"}
    assert json_context(line, line.index('"b"') + 1).is_key


def test_argument_keys_inside_a_top_level_calls_arguments():
    line = (
        '{"type":"response_item","payload":{"type":"function_call","name":"exec_command",'
        '"arguments":"{\\"cmd\\":\\"ls\\",\\"wo\\"}","call_id":"c1"}}'
    )
    found = complete(DEMO, 10, line, at(line, 'wo\\"', 2))
    assert [(c.label, line[c.start : c.end], c.text) for c in found][:2] == [
        ("workdir", "wo", "workdir"),
        ("shell", "wo", "shell"),
    ]
    assert "cmd" not in [c.label for c in found]  # already there
    assert len(found) == len(ARGUMENT_KEYS["exec_command"]) - 1


def test_whole_escaped_keys_where_a_key_goes_in_arguments():
    line = (
        '{"type":"response_item","payload":{"type":"function_call","name":"shell_command",'
        '"arguments":"{\\"command\\":\\"ls\\", }","call_id":"c1"}}'
    )
    column = at(line, ", }", 2)
    found = complete(DEMO, 10, line, column)
    assert [(c.label, c.start, c.end, c.text) for c in found][:2] == [
        ("workdir", column, column, '\\"workdir\\":'),
        ("timeout_ms", column, column, '\\"timeout_ms\\":'),
    ]
    edited = line[:column] + found[0].text + '\\"/tmp\\"' + line[column:]
    assert json.loads(json.loads(edited)["payload"]["arguments"]) == {"command": "ls", "workdir": "/tmp"}


def test_no_argument_keys_in_values_nested_objects_or_unknown_tools():
    line = (
        '{"type":"response_item","payload":{"type":"function_call","name":"exec_command",'
        '"arguments":"{\\"cmd\\":\\"ls\\",\\"env\\":{\\"P\\"}}","call_id":"c1"}}'
    )
    assert complete(DEMO, 10, line, at(line, 'ls\\"', 1)) == []  # inside the command's value
    assert complete(DEMO, 10, line, at(line, 'P\\"', 1)) == []  # a key of a nested object
    other = line.replace('"exec_command"', '"mcp__docs__search"')
    assert complete(DEMO, 10, other, at(other, 'ls\\"', 1)) == []
