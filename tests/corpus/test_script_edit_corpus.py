"""Every exec record of every corpus rollout decodes and re-encodes to the identical line, byte for byte."""

from __future__ import annotations

import pytest

from tests.helpers import SHARED
from tests.test_script_edit import assert_round_trips

ROLLOUTS = sorted((SHARED / "corpus").rglob("*.jsonl"))


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: str(p.relative_to(SHARED / "corpus")))
def test_every_corpus_exec_record_reencodes_byte_for_byte(path):
    assert_round_trips(path.read_bytes().decode("utf-8", "surrogatepass"))


def test_the_corpus_has_exec_records_to_check():
    counts = [assert_round_trips(p.read_bytes().decode("utf-8", "surrogatepass")) for p in ROLLOUTS]
    assert len(ROLLOUTS) >= 50 and sum(counts) >= 300
