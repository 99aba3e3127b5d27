"""The prefilter's sentinel matches only at a text's end (``\\z``, not an empty pattern, which made every state a
match state): it must still be named on every text RE2 reads to its end, and the set must still name exactly the
patterns that match somewhere."""

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.jsonl import secrets
from analysis.jsonl.pattern_set import PatternSet

SOURCES = ["abc", "x[0-9]{3,}y", "(?:^|[ \\t])-u", "\\n"]


def test_the_sentinel_is_named_on_every_text_read_to_its_end():
    match = secrets._PREFILTER._match
    for text in ("", "a", "\n", "line\n", "\n\n", "é", "sk-proj-" + "A1" * 12, '{"type":"x"}\n '):
        assert 0 in match(text.encode())
    pattern_set = PatternSet(SOURCES)
    assert pattern_set.matches("") == frozenset()
    assert pattern_set.matches("zzz\n") == {3}
    assert pattern_set.matches("abc x123y") == {0, 1}


def _each_alone(source: str, text: str) -> bool:
    return re2.compile(source).search(text) is not None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcxyq0123 \t\n-ué", max_size=40))
def test_the_set_names_exactly_the_patterns_that_match(text):
    pattern_set = PatternSet(SOURCES)
    expected = {i for i, source in enumerate(pattern_set.sources) if _each_alone(source, text)}
    assert pattern_set.matches(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_the_secret_prefilter_names_what_each_loosened_pattern_finds(text):
    gates = secrets._PREFILTER.matches(text)
    if gates is None:  # a lone surrogate: undecided, scanned whole
        return
    for index, (source, scan) in enumerate(zip(secrets._PREFILTER.sources, secrets.SCANS)):
        alone = re2.compile(("(?i)" if scan.ignore_case else "") + source).search(text) is not None
        assert (index in gates) == alone, (source, text)
