"""Where a JSON value sits in its line: spans through any spacing, escaped keys, duplicate keys."""

import json
import math

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


_FLAT_KEYS = st.sampled_from(["input", "inputs", "inpu", "type", "payload", "call_id", "a\\b", 'q"', "é", ""])
_FLAT = st.none() | st.booleans() | st.integers() | st.floats() | st.text(st.sampled_from('ab"\\\n\x01é/'), max_size=4)


def _non_finite(value):
    if isinstance(value, list):
        return any(map(_non_finite, value))
    return isinstance(value, float) and not math.isfinite(value)


@given(
    st.lists(st.tuples(_FLAT_KEYS, _FLAT | st.lists(_FLAT, max_size=2)), max_size=8),
    st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\r\n")]),
    st.booleans(),
)
def test_one_path_is_found_where_every_path_is(members, separators, ascii_only):
    # the members no path wants are passed over in one match when they are plain (stop 38): each key asked alone
    # is found where it is found among every key asked at once (the member loop), duplicates and NaN included
    line = (
        "{"
        + separators[0].join(
            json.dumps(k, ensure_ascii=ascii_only) + separators[1] + json.dumps(v, ensure_ascii=ascii_only)
            for k, v in members
        )
        + "}"
    )
    line = '{"payload"' + separators[1] + line + "}"
    paths = [("payload", k) for k in dict(members)]
    together = locate(line, paths)
    for path in paths:
        assert locate(line, [path]) == ({path: together[path]} if path in together else {})
    if not any(map(_non_finite, (v for _, v in members))):
        assert set(together) == set(paths)  # NaN and Infinity are no JSON numbers: no span past one
        for path in paths:
            start, end = together[path]
            assert json.loads(line[start:end]) == dict(members)[path[1]]
