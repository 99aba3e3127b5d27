"""A scan whose loosened expression costs RE2's automaton many states is gated by a part of its expression
(``secrets._GATES``): every match of the scan holds a match of its gate, so the prefilter names the scan wherever
the scan finds something, and the findings are the exact scans' findings."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.jsonl import secrets
from analysis.jsonl.pattern_set import loosened
from analysis.jsonl.secrets import SCANS, exact_secrets, find_secrets

GATED = [index for index, scan in enumerate(SCANS) if scan.gate is not None]


def test_the_gated_scans():
    assert [SCANS[i].source for i in GATED] == [r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])"]
    assert [secrets._PREFILTER.sources[i] for i in GATED] == ["-us[0-9]"]
    # every other scan is prefiltered by its own expression, loosened
    assert [s for i, s in enumerate(secrets._PREFILTER.sources) if i not in GATED] == [
        loosened(scan.source) for i, scan in enumerate(SCANS) if i not in GATED
    ]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.parametrize("index", GATED)
@given(data=st.data())
def test_every_match_holds_its_gate(index, data):
    scan = SCANS[index]
    match = data.draw(st.from_regex(re.compile(scan.source), fullmatch=True), label="match")
    assert re.search(scan.gate, match), (scan.gate, match)
    line = data.draw(st.text(max_size=20), label="before") + match + data.draw(st.text(max_size=20), label="after")
    gates = secrets._PREFILTER.matches(line)
    assert gates is None or index in gates
    assert find_secrets(line) == exact_secrets(line)


KEY = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (f'{{"text":"mailchimp {KEY}-us12 in the config"}}', [("Mailchimp key", KEY + "-us12")]),
        (f'{{"text":"{KEY}-us7"}}', [("Mailchimp key", KEY + "-us7")]),
        (f'{{"text":"{KEY[1:]}-us12: one digit short"}}', []),
        (f'{{"text":"{KEY}-us123: a third digit"}}', []),
        (f'{{"text":"{KEY}-usa"}}', []),
        ('{"text":"en-us1 and -us9 without a key before them"}', []),
    ],
)
def test_mailchimp_keys_are_found_as_before(line, found):
    matches = find_secrets(line)
    assert [(m.kind, line[m.start : m.end]) for m in matches] == found
    assert matches == exact_secrets(line)


def test_a_hex_run_without_the_gate_is_not_scanned():
    line = f'{{"sha":"{KEY * 4}","text":"no region here"}}'
    assert secrets._PREFILTER.matches(line) == frozenset()
