"""The short path for straight-line scripts reads every exec script of ../shared/corpus (wild, recorded, peer)
exactly as the full path does: calls, arguments, ranges, notes (see tests/script/test_straight_line.py)."""

from __future__ import annotations

import pytest

from analysis import analyze_text
from analysis.jsonl.source import load, rollout_files
from tests.helpers import SHARED
from tests.script.test_straight_line import assert_same_paths


@pytest.mark.parametrize("part", ["wild", "recorded", "peer"])
def test_short_path_on_the_corpus(part: str) -> None:
    sources = [
        r.script
        for path in rollout_files([str(SHARED / "corpus" / part)])
        for r in analyze_text(load(path).text).records
        if r.is_exec and r.script is not None
    ]
    taken = [assert_same_paths(s) for s in sources]
    assert sources and sum(taken) > 0
    if part == "wild":  # most real scripts are straight-line (570 of 700 when this was written)
        assert len(sources) >= 700 and sum(taken) >= 0.7 * len(sources)
