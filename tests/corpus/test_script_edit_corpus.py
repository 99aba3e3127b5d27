"""Every exec record of every corpus rollout decodes and re-encodes to the identical line, byte for byte."""

from __future__ import annotations

import pytest

from tests.authoring.test_script_edit import assert_round_trips
from tests.helpers import SHARED

ROLLOUTS = sorted((SHARED / "corpus").rglob("*.jsonl"))


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: str(p.relative_to(SHARED / "corpus")))
def test_every_corpus_exec_record_reencodes_byte_for_byte(path):
    assert_round_trips(path.read_bytes().decode("utf-8", "surrogatepass"))


def test_the_corpus_has_exec_records_to_check():
    counts = [assert_round_trips(p.read_bytes().decode("utf-8", "surrogatepass")) for p in ROLLOUTS]
    assert len(ROLLOUTS) >= 50 and sum(counts) >= 300


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: str(p.relative_to(SHARED / "corpus")))
def test_semantic_tokens_of_every_corpus_line_are_ordered_and_inside_their_string(path):
    from analysis.authoring.script_edit import script_span
    from analysis.authoring.semantic_tokens import line_tokens
    from analysis.session.rollout import analyze_text

    analysis = analyze_text(path.read_bytes().decode("utf-8", "surrogatepass"))
    for number, line in enumerate(analysis.lines):
        record = analysis.records[number]
        tokens = line_tokens(line, record)
        assert all(a.end <= b.start for a, b in zip(tokens, tokens[1:])), number
        if record.is_exec and tokens:
            start, raw = script_span(line)
            assert start <= tokens[0].start and tokens[-1].end <= start + len(raw), number
