"""The per-line dispatch written out (stop 41): ``parse_record``'s plain-envelope path, an event's unknown type read
from its payload at once, ``Record.kind`` in the line's fields, and a reasoning item read as before."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.session.record_analysis import analyze_line, lean_fields
from analysis.session.record_parts import RecordShapeError
from analysis.session.records import Envelope, OtherItem, Reasoning, parse_record
from analysis.session.vocabulary import EVENT_TYPES, unknown_type_of_record

_TYPES = st.one_of(st.sampled_from(sorted(EVENT_TYPES)), st.text(max_size=8), st.none(), st.integers())


@given(_TYPES)
def test_an_events_unknown_type(kind) -> None:
    payload = {} if kind is None else {"type": kind}
    record = parse_record({"timestamp": "t", "type": "event_msg", "payload": payload})
    expected = f"event_msg/{kind}" if isinstance(kind, str) and kind not in EVENT_TYPES else None
    assert unknown_type_of_record(record) == expected


def test_the_plain_envelope_path() -> None:
    event = parse_record({"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}})
    assert event.envelope.payload == {"type": "token_count"} and event.item == {"type": "token_count"}
    item = parse_record({"timestamp": "t", "type": "response_item", "payload": {"type": "reasoning", "summary": []}})
    assert type(item.item) is Reasoning and item.envelope.payload is None and item.kind == "reasoning"
    other = parse_record({"type": "response_item", "payload": {"type": "web_search_call"}})
    assert type(other.item) is OtherItem and other.kind == "web_search_call"
    with pytest.raises(RecordShapeError, match="payload.type: input should be a valid string"):
        parse_record({"type": "response_item", "payload": {"type": ["x"]}})  # a list as a type: refused as before
    meta = parse_record({"type": "session_meta", "payload": {"id": "s"}})
    assert meta.item.id == "s" and meta.envelope.payload is None
    world = parse_record({"type": "world_state", "payload": [1]})
    assert world.item == [1] and world.envelope.payload == [1]
    for bad, loc in (
        ({"type": "response_item", "payload": [1]}, ("payload",)),
        ({"type": "session_meta", "payload": "x"}, ("payload",)),
    ):
        with pytest.raises(RecordShapeError, match="payload must be an object, not") as error:
            parse_record(bad)
        assert error.value.loc == loc
    # an envelope the plain reader refuses (a float ordinal) is read by the table's path, as before
    assert parse_record({"type": "t", "ordinal": 3.0, "payload": {}}).envelope.ordinal == 3
    assert isinstance(parse_record({"type": "t"}).envelope, Envelope)


@pytest.mark.parametrize(
    "value",
    [
        {"timestamp": "t", "type": "response_item", "payload": {"type": "reasoning", "summary": [], "content": None}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user", "content": "hi"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "agent_message", "message": "m"}},
        {"timestamp": "t", "type": "turn_context", "payload": {"turn_id": "u"}},
        {"type": "reasoning", "summary": []},  # envelope-less (before 0.58): no payload key
    ],
)
def test_a_lines_kind_and_fields(value) -> None:
    line = json.dumps(value)
    whole = analyze_line(line)
    assert whole.kind == whole.record.kind
    lean = lean_fields(line)
    assert not isinstance(lean, type(whole)) and lean["kind"] == whole.kind and lean["record"] == whole.record
