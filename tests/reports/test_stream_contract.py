"""The streaming contract (analysis/reports/stream/thinning.py): every field of a line's analysis is declared
kept, thinned or dropped once, and ``thin()`` keeps exactly what it declares, on every line of every fixture.
A field added to ``LineAnalysis`` and classified nowhere fails here, so a new record type's facts cannot
silently vanish from streamed ``check``."""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import pytest

from analysis.jsonl.lines import split_lines
from analysis.jsonl.source import load
from analysis.reports.stream import DROPPED, KEPT, THINNED, RecordStub, thin
from analysis.session.record_analysis import LineAnalysis, analyze_line
from tests.helpers import FIXTURES

FIELDS = [f.name for f in dataclasses.fields(LineAnalysis)]
DEFAULT = LineAnalysis("default")


def is_set(la: LineAnalysis, name: str) -> bool:
    return getattr(la, name) != getattr(DEFAULT, name)


@lru_cache(maxsize=1)
def fixture_analyses() -> tuple[LineAnalysis, ...]:
    out = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        out.extend(analyze_line(line) for line in split_lines(load(str(path)).text))
    return tuple(out)


def test_every_field_of_a_line_analysis_is_classified_once():
    declared = KEPT + THINNED + DROPPED
    assert len(declared) == len(set(declared)), "a field is in two of KEPT, THINNED, DROPPED"
    unclassified = [name for name in FIELDS if name not in declared]
    assert unclassified == [], (
        "classify these LineAnalysis fields in analysis/reports/stream/thinning.py "
        "(KEPT, THINNED or DROPPED): what does the stream read of them?"
    )
    assert [name for name in declared if name not in FIELDS] == []


def test_the_fixtures_set_every_field_somewhere():
    """Else the tests below would not look at it."""
    assert [name for name in FIELDS if not any(is_set(la, name) for la in fixture_analyses())] == []


@pytest.mark.parametrize("sessions", [False, True])
def test_thin_keeps_every_kept_field_as_it_is(sessions):
    for la in fixture_analyses():
        thinned = thin(la, sessions)
        assert {name: getattr(thinned, name) for name in KEPT} == {name: getattr(la, name) for name in KEPT}


@pytest.mark.parametrize("sessions", [False, True])
def test_thin_loses_only_what_it_may_drop(sessions):
    """A field set before and unset after is a dropped one (or a record no reader after thin() needs)."""
    for la in fixture_analyses():
        thinned = thin(la, sessions)
        lost = {name for name in FIELDS if is_set(la, name) and not is_set(thinned, name)}
        assert lost <= set(DROPPED) | {"record"}, la
        assert not any(is_set(thinned, name) for name in DROPPED)


@pytest.mark.parametrize("sessions", [False, True])
def test_thinned_fields_keep_what_is_read_of_them(sessions):
    for la in fixture_analyses():
        thinned = thin(la, sessions)
        assert len(thinned.calls) == len(la.calls)
        for before, after in zip(la.calls, thinned.calls):
            assert (after.tool, after.kind, after.start, after.end) == (
                before.tool,
                before.kind,
                before.start,
                before.end,
            )
            assert (after.source, after.patch, after.computed_expression) == ("", None, None)
            assert after.arguments == ({} if la.is_exec else before.arguments)
        assert (thinned.output is None) == (la.output is None)
        if la.output is not None:
            assert (thinned.output.status, thinned.output.exit_codes, thinned.output.kept_texts) == (
                la.output.status,
                la.output.exit_codes,
                (),
            )
        if la.kind == "message":
            assert isinstance(thinned.record, RecordStub)
            assert thinned.record.item.role == getattr(la.record.item, "role", None)
        elif sessions and la.kind in ("session_meta", "token_usage_record"):
            assert thinned.record is la.record
        elif not sessions:
            assert thinned.record is None


@pytest.mark.parametrize("name", [name for name in KEPT if name != "kind"])
def test_a_line_that_sets_one_kept_field_alone_keeps_it(name):
    """thin() keeps by the list, not by a list of its own: a line is plain (shared, nothing kept) only when it
    sets no kept field."""
    value = next(getattr(la, name) for la in fixture_analyses() if is_set(la, name))
    alone = dataclasses.replace(LineAnalysis("event_msg"), **{name: value})
    assert getattr(thin(alone), name) == value


def test_plain_lines_are_one_shared_analysis():
    first, second = thin(LineAnalysis("reasoning")), thin(LineAnalysis("reasoning"))
    assert first is second and first == LineAnalysis("reasoning")
