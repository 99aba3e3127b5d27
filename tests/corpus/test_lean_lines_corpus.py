"""On every line of the recorded, peer and wild rollouts, the stream's lean reading (``lean_fields`` thinned by
``thin_fields``) keeps exactly what the whole analysis thinned keeps (tests/reports/test_lean_lines.py on the
fixtures)."""

import pytest

from analysis.jsonl.line_stream import read_lines
from analysis.jsonl.source import rollout_files
from tests.helpers import SHARED
from tests.reports.lean_support import differences

FILES = rollout_files([str(SHARED / "corpus" / name) for name in ("recorded", "peer", "wild")])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1][-48:])
def test_a_lean_line_thins_as_its_whole_analysis(path):
    found = {number: differences(line) for number, (line, _) in enumerate(read_lines(path))}
    assert {number: diff for number, diff in found.items() if diff} == {}


def test_the_corpus_is_there():
    assert len(FILES) > 50
