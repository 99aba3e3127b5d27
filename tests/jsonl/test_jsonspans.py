"""Where a JSON value sits in its line: spans through any spacing, escaped keys, duplicate keys."""

import json

from hypothesis import given
from hypothesis import strategies as st

from analysis.jsonl.jsonspans import locate

_KEYS = st.sampled_from(["payload", "input", "type", 'a"b', "\\", "é", "\u2028", "x\ny", ""])
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)


def _paths(value, path=()):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, path + (index,))
    if path:
        yield path, value


@given(
    st.dictionaries(_KEYS, _VALUES, max_size=4),
    st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\r\n")]),
    st.booleans(),
)
def test_every_span_holds_its_value(value, separators, ascii_only):
    line = json.dumps(value, separators=separators, ensure_ascii=ascii_only)
    paths = list(_paths(value))
    leaves = [path for path, child in paths if not isinstance(child, (dict, list))]
    found = locate(line, leaves)  # all leaves at once; a container alone (a path ends where a value is wanted)
    for path, expected in paths:
        start, end = found[path] if path in leaves else locate(line, [path])[path]
        assert json.loads(line[start:end]) == expected


def test_an_escaped_key_is_its_decoded_name_and_the_last_duplicate_wins():
    line = '{"payload" : {"\\u0069nput":"a", "input" :\t"bc"}, "payload":{"type":1,"input":"def"}}'
    assert locate(line, [("payload", "input")]) == {("payload", "input"): (line.index('"def"'), len(line) - 2)}
    line = '{"payload":{"\\u0069nput":"a","type":2}}'
    assert locate(line, [("payload", "input")]) == {("payload", "input"): (line.index('"a"'), line.index('"a"') + 3)}


def test_a_line_cut_short_keeps_the_spans_read_before_the_cut():
    line = '{"payload": {"input": "ab", "other": "c'
    assert locate(line, [("payload", "input")]) == {("payload", "input"): (22, 26)}
    assert locate('{"payload": {"inp', [("payload", "input")]) == {}
    assert locate('{"a": "x\x01"}', [("a",)]) == {}  # a control character: not JSON
