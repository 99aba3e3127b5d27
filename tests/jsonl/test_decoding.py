"""``decoding.loads`` is ``json.loads``: the same value, or the same exception with the same message and position,
on lines as rollouts hold them and on anything else."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.jsonl.decoding import loads

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


def outcome(function, text):
    try:
        return ("value", function(text))
    except Exception as error:
        return ("error", type(error), str(error), getattr(error, "pos", None))


def assert_same(text: str) -> None:
    assert repr(outcome(loads, text)) == repr(outcome(json.loads, text))


CASES = [
    '{"type":"event_msg","payload":{"type":"token_count"}}',
    ' {"a":1}',
    '{"a":1} ',
    '{"a":1}\n',
    '{"a":1}x',
    '{"a":1}{"b":2}',
    "\ufeff{}",
    "",
    " ",
    '{"a":',
    '{"a":"unterminated',
    '{"a":tru',
    '{"a":1.}',
    '{"a":"\\ud800"}',
    '{"a":"\\u12"}',
    "[" * 100_000,
    '{"n":' + "9" * 5000 + "}",
    '{"n":' + "9" * 40 + "}",  # an integer beyond 64 bits stays an int
    "NaN",
    "-Infinity",
    '"just a string"',
    "1",
    '{"a":1,}',
    '{"a" 1}',
    "{'a':1}",
]


def test_cases():
    for text in CASES:
        assert_same(text)
    assert loads('{"n":' + "9" * 40 + "}") == {"n": int("9" * 40)}


@settings(max_examples=500, deadline=None)
@given(JSON_VALUES, st.sampled_from(["", " ", "\n", "x", "}", ",", "\t "]), st.sampled_from(["", " ", "\ufeff"]))
def test_values_with_anything_around_them(value, after, before):
    text = json.dumps(value, separators=(",", ":"))
    assert_same(before + text + after)


@settings(max_examples=500, deadline=None)
@given(JSON_VALUES, st.data())
def test_lines_cut_anywhere(value, data):
    text = json.dumps(value)
    cut = data.draw(st.integers(0, len(text)))
    assert_same(text[:cut])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrul \\a', max_size=30))
def test_any_text(text):
    assert_same(text)
