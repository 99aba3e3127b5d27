import pytest

from analysis.session.records import (
    CustomToolCall,
    FunctionCallOutput,
    LocalShellCall,
    Message,
    OtherItem,
    RecordShapeError,
    SessionMeta,
    parse_record,
)


def test_known_payloads_are_typed():
    record = parse_record(
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "name": "exec",
                "input": "x",
                "call_id": "c",
                "namespace": "functions",
            },
        }
    )
    assert isinstance(record.item, CustomToolCall)
    assert (record.kind, record.item.name, record.item.call_id) == ("custom_tool_call", "exec", "c")
    meta = parse_record({"type": "session_meta", "payload": {"id": "s", "cwd": "/w", "cli_version": "0.157.1"}})
    assert isinstance(meta.item, SessionMeta) and meta.item.cwd == "/w" and meta.kind == "session_meta"


def test_unknown_types_and_fields_are_kept():
    record = parse_record({"type": "world_state", "payload": {"x": 1}, "ordinal": 7})
    assert record.kind == "world_state" and record.item == {"x": 1} and record.envelope.ordinal == 7
    item = parse_record({"type": "response_item", "payload": {"type": "web_search_call", "new": True}}).item
    assert isinstance(item, OtherItem) and item.model_extra == {"new": True}
    message = parse_record(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hi"}],
                "later": 1,
            },
        }
    ).item
    assert isinstance(message, Message) and message.text() == "hi" and message.model_extra == {"later": 1}


def test_outputs_take_strings_and_item_lists():
    a = parse_record(
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": "plain"}}
    ).item
    b = parse_record(
        {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c",
                "output": [{"type": "input_text", "text": "t"}],
            },
        }
    ).item
    assert isinstance(a, FunctionCallOutput) and a.output == "plain"
    assert b.output[0].text == "t"


def test_local_shell_call():
    item = parse_record(
        {
            "type": "response_item",
            "payload": {
                "type": "local_shell_call",
                "call_id": "c",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls", "-l"], "working_directory": "/w"},
            },
        }
    ).item
    assert isinstance(item, LocalShellCall) and item.action.command == ["ls", "-l"]


@pytest.mark.parametrize(
    "value, message, loc",
    [
        (
            {"type": "response_item", "payload": {"type": "custom_tool_call", "name": "exec", "input": 3}},
            "payload.input: input should be a valid string (got a number)",
            ("payload", "input"),
        ),
        ({"type": "response_item", "payload": "text"}, "payload must be an object, not a string", ("payload",)),
        ({"type": "session_meta", "payload": []}, "payload must be an object, not an array", ("payload",)),
        ({"payload": {}}, "type: field required (got an object)", ("type",)),
        ([1], "a rollout line must be a JSON object, not an array", ()),
        (
            {"type": "response_item", "payload": {"type": "function_call_output", "output": 5}},
            "payload.output: wrong type (got a number)",
            ("payload", "output"),
        ),
    ],
)
def test_wrong_types_are_record_shape_errors(value, message, loc):
    with pytest.raises(RecordShapeError) as caught:
        parse_record(value)
    assert str(caught.value) == message
    assert caught.value.loc == loc


def test_an_unconditional_call_ran_when_its_script_completed():
    import json
    from dataclasses import replace

    from analysis.session.outputs import read_exec_output
    from analysis.session.record_analysis import analyze_line
    from analysis.session.rollout import CallOutput, pair_call

    record = analyze_line(
        json.dumps(
            {
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "name": "exec",
                    "call_id": "c",
                    "input": 'await tools.exec_command({cmd: "ls"});',
                },
            }
        )
    )
    call = replace(record.calls[0], unconditional=True)  # as the script reading marks a call that always runs

    def paired(header, *texts, call=call):
        body = [{"type": "input_text", "text": header}] + [{"type": "input_text", "text": t} for t in texts]
        output = read_exec_output(
            parse_record(
                {
                    "type": "response_item",
                    "payload": {"type": "custom_tool_call_output", "call_id": "c", "output": body},
                }
            ).item.output
        )
        return pair_call(0, 0, call, record, CallOutput(1, output.status, None, output.wall_time, output), None)

    assert paired("Script completed\nWall time 0.1 seconds\nOutput:\n").call.executed == "yes"
    assert paired("Script failed\nWall time 0.1 seconds\nOutput:\n").call.executed == "unknown"
    assert (
        paired("Script completed\nWall time 0.1 seconds\nOutput:\n", "Script error:\nboom").call.executed == "unknown"
    )
    assert paired("Script running with cell ID 3\nWall time 10.0 seconds\nOutput:\n").call.executed == "unknown"
    conditional = replace(record.calls[0], unconditional=False)
    assert paired("Script completed\nWall time 0.1 seconds\nOutput:\n", call=conditional).call.executed == "unknown"


def test_values_pydantic_converts_are_read_as_it_reads_them():
    # a field not of its plain JSON type goes to pydantic: what it converts is kept converted
    record = parse_record({"type": "t", "ordinal": 3.0, "payload": {}})
    assert record.envelope.ordinal == 3 and type(record.envelope.ordinal) is int
    with pytest.raises(RecordShapeError) as caught:
        parse_record({"type": "t", "ordinal": 3.5})
    assert (
        str(caught.value) == "ordinal: input should be a valid integer, got a number with a fractional part "
        "(got a number)"
    )


def test_extra_fields_read_as_attributes_and_dumped_after_the_declared_ones():
    meta = parse_record({"type": "session_meta", "payload": {"id": "s", "type": "x", "later": [1]}}).item
    assert meta.type == "x" and meta.model_extra == {"type": "x", "later": [1]}
    assert list(meta.model_dump()) == [
        "id",
        "timestamp",
        "cwd",
        "originator",
        "cli_version",
        "source",
        "model_provider",
        "git",
        "history_mode",
        "type",
        "later",
    ]
    with pytest.raises(AttributeError):
        meta.missing  # noqa: B018
    with pytest.raises(AttributeError):
        meta.id = "other"


# -- the plain readers, written out per class, against the field-by-field loop they replace ------------------
from analysis.session import records as _records  # noqa: E402


def _loop_plain(cls, value):
    """The reading the written-out readers must equal: each declared field checked by ``_check`` in turn."""
    out = {}
    for name, kind, default in cls._fields:
        if name in value:
            field = _records._check(kind, value[name])
            if field is _records._BAD:
                return None
        elif default is _records._REQUIRED:
            return None
        else:
            field = [] if default is list else default
        out[name] = field
    return out, {k: v for k, v in value.items() if k not in cls._names} or None


_VALUES = [
    None,
    "",
    "message",
    "function_call",
    "reasoning",
    "local_shell_call",
    "input_text",
    0,
    7,
    True,
    1.5,
    [],
    ["ls", "-l"],
    ["ls", 1],
    [{"type": "input_text", "text": "t"}],
    [{"type": 1}],
    [{"text": "t"}],
    {},
    {"command": ["ls"]},
    {"command": "ls", "timeout_ms": 5},
    {"command": 3},
    {"content": "x"},
]


def _cases(cls):
    """Every declared field absent or holding each value, the others holding a value they accept, with and
    without a key the class does not declare."""
    values = _VALUES + [kind[1] for _, kind, _ in cls._fields if isinstance(kind, tuple)]
    accepted = {}
    for name, kind, _default in cls._fields:
        accepted[name] = next(v for v in values if _records._check(kind, v) is not _records._BAD)
    for name, _, _ in cls._fields:
        for value in [_records._REQUIRED, *values]:
            case = {k: v for k, v in accepted.items() if k != name}
            if value is not _records._REQUIRED:
                case[name] = value
            yield case
            yield {**case, "later": 1}


@pytest.mark.parametrize("cls", list(_records._PLAIN_READERS), ids=lambda c: c.__name__)
def test_written_out_readers_read_as_the_field_loop(cls):
    cases = list(_cases(cls))
    accepted = refused = 0
    for case in cases:
        expected = _loop_plain(cls, case)
        got = _records._plain(cls, case)
        if expected is None:
            assert got is None, case
            refused += 1
            continue
        fields, extra = expected
        assert type(got) is cls, case
        assert {n: getattr(got, n) for n, _, _ in cls._fields} == fields, case
        assert object.__getattribute__(got, "_extra") == extra, case
        accepted += 1
    assert accepted and (refused or all(kind == _records.ANY for _, kind, _ in cls._fields)), (accepted, refused)


def test_a_typed_payload_is_not_kept_in_the_envelope():
    value = {"timestamp": "t", "type": "response_item", "payload": {"type": "reasoning", "summary": []}, "x": 2}
    record = parse_record(value)
    assert record.envelope.payload is None and record.envelope.model_extra == {"x": 2}
    assert value["payload"] == {"type": "reasoning", "summary": []}  # the line's dict is left as it was
    kept = parse_record({"type": "event_msg", "payload": {"type": "agent_message"}})
    assert kept.envelope.payload == {"type": "agent_message"} and kept.item == {"type": "agent_message"}
    with pytest.raises(RecordShapeError) as refused:  # an envelope the plain reader refuses: pydantic words why
        parse_record({"type": "turn_context", "timestamp": 5, "payload": {"cwd": "/w"}})
    assert refused.value.loc == ("timestamp",)


def test_a_record_without_its_item_keeps_its_kind():
    a = parse_record(
        {
            "type": "response_item",
            "timestamp": "t",
            "payload": {"type": "function_call_output", "call_id": "c", "output": "x", "more": 1},
        }
    )
    b = parse_record({"type": "response_item", "payload": {"type": "function_call_output", "output": "y"}})
    bare_a, bare_b = a.without_item(), b.without_item()
    assert bare_a.kind == bare_b.kind == "function_call_output"
    assert isinstance(bare_a.item, OtherItem) and bare_a.item.model_extra == {}
    assert bare_a.envelope is a.envelope and bare_a.envelope.timestamp == "t" and bare_a != bare_b
    kept = parse_record({"type": "event_msg", "payload": {"type": "x"}}).without_item()
    assert kept.item is None and kept.kind == "event_msg"
