"""``TokenUsage.from_json`` reads a usage object exactly as its first, field-by-field form did (kept here as the
reference): absent or null counts are 0, a bool, float or string refuses the whole object, a missing total is
input + output."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session.usage import _FIELDS, TokenUsage


def _reference(value):
    if not isinstance(value, dict):
        return None
    numbers = []
    for name in _FIELDS:
        number = value.get(name, 0)
        if number is None:
            number = 0
        if not isinstance(number, int) or isinstance(number, bool):
            return None
        numbers.append(number)
    usage = TokenUsage(*numbers)
    if not usage.total:
        usage = TokenUsage(
            usage.input, usage.cached, usage.output, usage.reasoning, usage.input + usage.output, usage.cache_write
        )
    return usage


COUNTS = st.one_of(st.integers(-5, 10**6), st.none(), st.booleans(), st.floats(allow_nan=False), st.text(max_size=3))
USAGES = st.one_of(
    st.dictionaries(st.sampled_from([*_FIELDS, "other"]), COUNTS),
    st.dictionaries(st.sampled_from(_FIELDS), st.integers(0, 10**9)),
    st.lists(st.integers(), max_size=3),
    st.none(),
)


@settings(max_examples=1500, deadline=None)
@given(USAGES)
def test_from_json_is_the_reference(value):
    assert TokenUsage.from_json(value) == _reference(value)


def test_examples():
    assert TokenUsage.from_json({"input_tokens": 10, "output_tokens": 5}) == TokenUsage(10, 0, 5, 0, 15, 0)
    assert TokenUsage.from_json({"input_tokens": True}) is None
    assert TokenUsage.from_json({"input_tokens": None, "total_tokens": 7}) == TokenUsage(0, 0, 0, 0, 7, 0)
