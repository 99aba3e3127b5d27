"""``unknown_type_of_record`` tells the usual records at once (a known envelope, a response item read into its
class, an event of a known type): its answers are those of the full reading on every kind of record."""

from __future__ import annotations

import json

import pytest

from analysis.session import vocabulary
from analysis.session.legacy_records import LEGACY_STATE
from analysis.session.record_analysis import LineAnalysis, lean_fields
from analysis.session.vocabulary import unknown_type_of_record


def _full_reading(record):
    """The reading without the quick answers (as it was)."""
    kind = record.envelope.type
    if record.bare and kind == LEGACY_STATE:
        return None
    if kind not in vocabulary.KNOWN_TYPES:
        return kind
    if kind not in ("response_item", "event_msg"):
        return None
    payload_type = vocabulary._payload_type(record)
    if payload_type is None:
        return None
    known = vocabulary.RESPONSE_ITEM_TYPES if kind == "response_item" else vocabulary.EVENT_TYPES
    return None if payload_type in known else f"{kind}/{payload_type}"


LINES = [
    {
        "type": "session_meta",
        "payload": {"id": "s", "timestamp": "t", "cwd": "/", "originator": "o", "cli_version": "1"},
    },
    {"type": "turn_context", "payload": {"cwd": "/", "model": "m"}},
    {"type": "compacted", "payload": {"message": "m"}},
    {"type": "frobnicate", "payload": {}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}},
    {"type": "response_item", "payload": {"type": "web_search_call"}},
    {"type": "response_item", "payload": {"type": "hologram"}},
    {"type": "response_item", "payload": {"type": ["not", "a", "string"]}},
    {"type": "response_item", "payload": {"type": "message", "role": 3}},  # not the class's shape
    {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
    {"type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "c"}},
    {"type": "event_msg", "payload": {"type": "brand_new_event"}},
    {"type": "event_msg", "payload": {"type": 7}},
    {"type": "event_msg", "payload": {"type": ["x"]}},
    {"type": "event_msg", "payload": {}},
    {"type": "event_msg", "payload": "text"},
    {"type": "message", "role": "user", "content": "bare"},  # an envelope-less line
    {"record_type": "state"},
]


@pytest.mark.parametrize("value", LINES, ids=lambda v: json.dumps(v)[:60])
def test_quick_answer_is_the_full_readings(value):
    read = lean_fields(json.dumps(value))
    record = None if isinstance(read, LineAnalysis) else read["record"]
    assert unknown_type_of_record(record) == (None if record is None else _full_reading(record))


def test_unknown_ones_are_still_named():
    named = [unknown_type_of_record(lean_fields(json.dumps(v))["record"]) for v in (LINES[3], LINES[7], LINES[12])]
    assert named == ["frobnicate", "response_item/hologram", "event_msg/brand_new_event"]
