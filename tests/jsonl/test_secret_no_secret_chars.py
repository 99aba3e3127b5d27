"""The secret scan's shortcut for texts made only of :data:`~analysis.jsonl.secrets.NO_SECRET_CHARS` (timestamps,
UUIDs, hex digests, numbers) skips no text the exact scan flags: no scan's expression matches such a text, and
every text any scan's expression matches holds a character outside them."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.jsonl import secrets
from analysis.jsonl.secrets import NO_SECRET_CHARS, SCANS, exact_secrets, find_secrets, redact_all

SAFE = st.text(NO_SECRET_CHARS, max_size=400)


def _flags(index: int) -> int:
    return re.IGNORECASE if SCANS[index].ignore_case else 0


@settings(max_examples=800, deadline=None)
@given(SAFE)
def test_no_scan_matches_a_text_of_these_characters(text):
    assert not text.strip(NO_SECRET_CHARS)
    for index, scan in enumerate(SCANS):
        assert re.search(scan.source, text, _flags(index)) is None, scan.source
        assert re.search(scan.source, text.lower(), _flags(index)) is None, scan.source
    assert exact_secrets(text) == []
    assert find_secrets(text) == []
    assert redact_all(text) == text


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@pytest.mark.parametrize("index", range(len(SCANS)))
@given(data=st.data())
def test_every_match_of_each_scan_holds_another_character(index, data):
    match = data.draw(st.from_regex(re.compile(SCANS[index].source, _flags(index)), fullmatch=True), label="match")
    assert match.strip(NO_SECRET_CHARS), (SCANS[index].source, match)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(SAFE, st.sampled_from(["sk-", ":AA", "@", "=", "_", "A", "key", "gh"])), max_size=8))
def test_the_shortcut_changes_no_result(pieces):
    text = "".join(pieces)
    assert find_secrets(text) == exact_secrets(text)


def test_timestamps_and_ids_take_the_shortcut(monkeypatch):
    def no_pass(line):
        raise AssertionError(f"prefilter asked about {line!r}")

    monkeypatch.setattr(secrets._PREFILTER, "matches", no_pass)
    for text in ("2025-10-01T12:34:56.789Z", "0199a0a4-5e2b-7c11-8f3e-2d3c4b5a6978", "", "3.25", "+01:00"):
        assert find_secrets(text) == []
    # one character outside the set sends the text to the prefilter
    with pytest.raises(AssertionError, match="prefilter asked"):
        find_secrets("2025-10-01T12:34:56Zx")
    monkeypatch.undo()
    # a configured pattern still runs on them
    [match] = find_secrets("2025-10-01", (re.compile(r"\d{4}"),))
    assert (match.kind, match.start, match.end) == ("configured pattern", 0, 4)
