"""An exec output's result objects (``exec_command`` results in its texts) are read as ``json.loads`` reads them:
found where a text starts with ``{``, holds ``"output"`` and decodes to an object with ``output`` and
``wall_time_seconds``; anything else (bad JSON, whitespace, nesting, a list) is no result."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session.outputs import ExecResult, read_exec_output

HEADER = "Script completed\nWall time 1.5 seconds\nOutput:\n"


def _expected(texts):
    """The results as the reader read them before stop 43 (``json.loads`` of each candidate text)."""
    found = []
    for index, text in enumerate(texts):
        if not text.startswith("{") or '"output"' not in text:
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(value, dict) or "output" not in value or "wall_time_seconds" not in value:
            continue

        def number(v):
            return v if isinstance(v, int) and not isinstance(v, bool) else None

        found.append(ExecResult(number(value.get("exit_code")), index, number(value.get("session_id"))))
    return tuple(found)


TEXTS = [
    '{"wall_time_seconds":0.5,"exit_code":0,"output":"a\\nb"}',
    '{"wall_time_seconds":0.5,"exit_code":1,"session_id":7,"output":""}',
    '{"wall_time_seconds":0.5,"exit_code":true,"output":"x"}',  # a bool is no exit code
    '{"wall_time_seconds":0.5,"exit_code":2,"exit_code":3,"output":"x"}',  # the last key wins
    '{"wall_time_seconds":0.5,"output":"x"}  ',  # whitespace after: json.loads reads it
    '{"wall_time_seconds":0.5,"output":"x"} {}',  # extra data: no result
    '{"output":"x"}',  # no wall time: no result
    '{"wall_time_seconds":0.5,"output":"unterminated}',
    '{"wall_time_seconds":0.5,"output":"bad \\x escape"}',
    '{"wall_time_seconds":0.5,"output":"\\ud800 lone"}',
    '{"a":' * 3000 + "1" + "}" * 3000 + ' "output"',  # nested past the recursion limit: no result
    ' {"wall_time_seconds":0.5,"output":"x"}',  # does not start with {
    '{"wall_time_seconds":0.5,"output":"x","exit_code":12345678901234567890}',
    '{"wall_time_seconds":NaN,"output":"x","exit_code":-1}',
    "{}",
    "plain text",
    "",
]


def test_each_kind_of_text():
    assert read_exec_output(HEADER).results == ()
    output = read_exec_output([_item(HEADER)] + [_item(t) for t in TEXTS])
    assert output.status == "completed" and output.texts == tuple(TEXTS)
    assert output.results == _expected(TEXTS)
    assert [r.index for r in output.results] == [0, 1, 2, 3, 4, 9, 12, 13]
    assert [r.exit_code for r in output.results] == [0, 1, None, 3, None, None, 12345678901234567890, -1]
    assert [r.session_id for r in output.results] == [None, 7, None, None, None, None, None, None]


def _item(text):
    class Item:
        type = "input_text"

    item = Item()
    item.text = text
    return item


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(TEXTS[:10]),
            st.builds(
                lambda d: json.dumps(d),
                st.dictionaries(
                    st.sampled_from(["output", "wall_time_seconds", "exit_code", "session_id", "x"]),
                    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
                ),
            ),
            st.text(max_size=12).map(lambda t: "{" + t),
        ),
        max_size=6,
    )
)
def test_random_texts(texts):
    output = read_exec_output([_item(HEADER)] + [_item(t) for t in texts])
    assert output.results == _expected(list(output.texts))
