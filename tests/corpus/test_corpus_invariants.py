"""The hardening invariants (tests/hostile.py) over every recorded rollout: whole documents written by real
Codex releases, where the fuzz tests of `make test` draw from the project's fixtures only."""

from __future__ import annotations

import pytest

from tests.helpers import CORPUS
from tests.hostile import check_invariants

RECORDED = sorted(p.name for p in CORPUS.glob("*.jsonl"))


def test_the_recorded_corpus_is_there():
    assert len(RECORDED) >= 3, f"expected the recorded rollouts in {CORPUS}"


@pytest.mark.parametrize("name", RECORDED)
def test_invariants_hold_on_recorded_rollout(name):
    analysis = check_invariants((CORPUS / name).read_bytes().decode("utf-8"))
    assert analysis.records
