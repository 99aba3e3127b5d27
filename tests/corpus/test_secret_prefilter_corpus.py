"""Every line of every rollout in ../shared/corpus/: the prefiltered secret scan equals the exact scan of every
pattern, and no scan that finds something on a line was skipped by the prefilter."""

import pytest

from analysis.jsonl import secrets
from analysis.jsonl.line_stream import read_lines
from analysis.jsonl.secrets import SCANS, exact_secrets, find_secrets
from tests.helpers import SHARED

FILES = sorted((SHARED / "corpus").rglob("*.jsonl"))


def test_the_corpus_is_there():
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED / "corpus")))
def test_prefiltered_scan_equals_exact_scan(path):
    for line, _ in read_lines(str(path)):
        assert find_secrets(line) == exact_secrets(line)
        gates = secrets._PREFILTER.matches(line)
        assert gates is not None  # the corpus is UTF-8 and the automaton's budget suffices: decided each time
        missed = [scan.source for index, scan in enumerate(SCANS) if index not in gates and scan.find(line)]
        assert missed == []
