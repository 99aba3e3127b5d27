"""A content item's reader written out (``records._content_item``) reads what the field table's reader reads: the
same fields, the same extra fields, and None for the same values; and an output or message holding such items
reads as before."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session import records
from analysis.session.record_analysis import analyze_line
from analysis.session.records import ContentItem, parse_record

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=4),
    st.just({}),
    st.just([]),
    st.just("input_text"),
)
KEYS = st.sampled_from(["type", "text", "image_url", "detail", "extra"])


def _same(a, b):
    if a is None or b is None:
        return a is b
    names = [name for name, _, _ in ContentItem._fields]
    same_fields = [getattr(a, n) for n in names] == [getattr(b, n) for n in names]
    return type(a) is type(b) is ContentItem and same_fields and a._extra == b._extra


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_the_written_out_reader_reads_as_the_table_does(value):
    assert _same(records._content_item(value), records._PLAIN_READERS[ContentItem](value))


def test_typical_items():
    for value in (
        {"type": "input_text", "text": "Script completed\n"},
        {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
        {"type": "input_image", "image_url": "data:,", "detail": "high"},
        {"type": "output_text", "text": "t", "annotations": []},
        {"type": "input_text", "text": None},
        {"type": "input_text", "text": 5},
        {"type": None, "text": "t"},
        {"text": "t"},
        {},
    ):
        assert _same(records._content_item(value), records._PLAIN_READERS[ContentItem](value))
    item = records._content_item({"type": "output_text", "text": "t", "annotations": [1]})
    assert item.model_extra == {"annotations": [1]} and item.text == "t" and item.image_url is None


def test_an_output_with_a_bad_item_is_read_by_pydantic_as_before():
    good = {"type": "custom_tool_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "a"}]}
    record = parse_record({"timestamp": "t", "type": "response_item", "payload": good})
    assert [(i.type, i.text) for i in record.item.output] == [("input_text", "a")]
    bad = {**good, "output": [{"type": "input_text", "text": "a"}, {"text": 3}]}
    line = json.dumps({"timestamp": "t", "type": "response_item", "payload": bad})
    la = analyze_line(line)
    assert la.kind == "invalid" and la.findings[0].code == "record-shape"
