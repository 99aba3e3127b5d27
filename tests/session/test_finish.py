"""One place finishes a file (analysis/session/finish.py): the order of findings, whether a file is a rollout,
``parent-missing``, a finding's JSON form; the same for the whole-file analysis, the stream and ``check``."""

from __future__ import annotations

from analysis.jsonl.findings import PARENT_MISSING, Finding, finding_sort_key, log_finding_sort_key
from analysis.jsonl.positions import PositionEncoding, Span
from analysis.jsonl.source import load
from analysis.reports.report import finding_json as report_finding_json
from analysis.reports.stream import stream_rollout
from analysis.session.finish import (
    HEAD_RECORDS,
    finding_json,
    head_parent_findings,
    is_rollout_file,
    known_in_head,
    missing_parents,
    sorted_findings,
    sorted_pairs,
    with_parent_findings,
)
from analysis.session.rollout import analyze_text
from tests.helpers import FIXTURES

ORPHAN = FIXTURES / "sessions/2026/09/01/rollout-2026-09-01T11-01-40-01a05ca1-c220-7000-8000-0000000000f2.jsonl"
DEMO = FIXTURES / "rollout-demo.jsonl"


def finding(line: int, start: int, end: int, code: str = "secret") -> Finding:
    return Finding(code, "m", Span(line, start, end))


def test_findings_are_ordered_by_place_then_code():
    a, b, c, d = finding(0, 5, 9), finding(0, 5, 7, "secret"), finding(0, 5, 7, "dead-branch"), finding(1, 0, 1)
    assert sorted_findings([d, a], [b, c]) == [c, b, a, d]
    assert finding_sort_key(a) == (0, 5, 9, "secret")
    assert log_finding_sort_key(a) == (0, 5, "secret")  # an invocation log's: where it ends does not count


def test_pairs_are_ordered_by_their_finding_and_stay_stable():
    a, b = finding(2, 0, 1), finding(1, 0, 1)
    assert sorted_pairs([(a, "a")], [(b, "b"), (a, "a2")]) == [(b, "b"), (a, "a"), (a, "a2")]


def test_a_name_decides_before_the_content_is_asked():
    asked = []

    def content() -> bool:
        asked.append(True)
        return False

    assert is_rollout_file("/x/rollout-2026-01-01T00-00-00-abc.jsonl", content)
    assert asked == []
    assert not is_rollout_file("/x/data.jsonl", content) and asked == [True]
    assert is_rollout_file("/x/data.jsonl", True) and not is_rollout_file("/x/data.jsonl", False)
    assert is_rollout_file("file:///x/data.jsonl", False, named=lambda uri: uri.startswith("file:"))


def test_a_rollout_record_must_be_among_the_first_lines():
    assert HEAD_RECORDS == 50
    assert known_in_head(0) and known_in_head(49)
    assert not known_in_head(50) and not known_in_head(None)
    for path in (DEMO, FIXTURES / "not-a-rollout.jsonl"):
        assert stream_rollout(str(path)).is_rollout == analyze_text(load(str(path)).text).is_rollout


def test_parent_missing_is_found_the_same_from_the_whole_file_and_from_its_head():
    analysis = analyze_text(load(str(ORPHAN)).text)
    whole = missing_parents(analysis, str(ORPHAN))
    assert [f.code for f in whole] == [PARENT_MISSING]
    head_analysis, from_head = head_parent_findings(str(ORPHAN))
    assert head_analysis is not None and from_head == whole
    assert missing_parents(analysis, None) == whole  # no file: looked for in the workspace (none here)
    assert missing_parents(analyze_text(load(str(DEMO)).text), str(DEMO)) == []


def test_a_head_without_a_reference_is_not_analysed():
    head = DEMO.read_text(encoding="utf-8").splitlines()
    assert head_parent_findings(str(DEMO), head) == (None, [])
    found = [(finding(0, 0, 1), {"code": "secret"})]
    assert with_parent_findings(str(DEMO), found, PositionEncoding.UTF16, head) is found


def test_parent_missing_joins_the_findings_in_order():
    analysis = analyze_text(load(str(ORPHAN)).text)
    later = finding(len(analysis.lines) - 1, 0, 1)
    pairs = with_parent_findings(str(ORPHAN), [(later, {})], PositionEncoding.UTF16)
    assert [f.code for f, _ in pairs] == [PARENT_MISSING, "secret"]
    missing = pairs[0][0]
    assert pairs[0][1] == finding_json(analysis, missing, PositionEncoding.UTF16)
    assert report_finding_json is finding_json  # where the command line found it before
