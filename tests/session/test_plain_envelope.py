"""The envelope's reader written out (``records._plain_envelope``) reads what the field table's reader reads: the
same fields, the same extra fields, and None for the same values; and a record made by ``records._record`` is the
dataclass's own."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session import records
from analysis.session.records import Envelope, Record, parse_record

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.just({}),
    st.just({"type": "x"}),
    st.just([]),
)
KEYS = st.sampled_from(["timestamp", "type", "payload", "ordinal", "metadata", "extra", "record_type"])


def _same(a, b):
    if a is None or b is None:
        return a is b
    names = [name for name, _, _ in Envelope._fields]
    return [getattr(a, n) for n in names] == [getattr(b, n) for n in names] and a._extra == b._extra


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_the_written_out_reader_reads_as_the_table_does(value):
    assert _same(records._plain_envelope(value), records._PLAIN_READERS[Envelope](value))


def test_typical_envelopes():
    for value in (
        {"timestamp": "t", "type": "event_msg", "payload": {}},
        {"timestamp": "t", "type": "event_msg", "payload": {}, "extra": 1},
        {"timestamp": "t", "type": "event_msg", "extra": 1},
        {"type": "event_msg", "payload": None, "ordinal": 3},
        {"type": "event_msg", "ordinal": True},
        {"type": "event_msg", "metadata": {"a": 1}, "timestamp": None},
        {"timestamp": 5, "type": "x", "payload": 1},
        {"payload": 1},
    ):
        assert _same(records._plain_envelope(value), records._PLAIN_READERS[Envelope](value))
    envelope = records._plain_envelope({"timestamp": "t", "type": "event_msg", "payload": {}, "x": [1]})
    assert envelope.model_extra == {"x": [1]} and envelope.x == [1]


def test_a_record_made_fast_is_the_dataclass_s():
    line = '{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}'
    record = parse_record(json.loads(line))
    expected = Record(envelope=record.envelope, item={"type": "token_count"})
    assert record == expected and repr(record) == repr(expected)
    assert record.bare is False
