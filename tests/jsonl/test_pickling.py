"""Frozen dataclasses pickled by their fields (analysis.jsonl.pickling): the same objects come back."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from analysis.jsonl.lines import split_lines
from analysis.jsonl.pickling import pickled_by_fields
from analysis.jsonl.positions import EscapeMap, Span
from analysis.jsonl.source import load
from analysis.reports.stream import analyze_chunk
from analysis.script.calls import ToolCall
from analysis.session.record_analysis import LineAnalysis, analyze_line
from tests.helpers import FIXTURES

LINES = [line for path in sorted(FIXTURES.glob("*.jsonl")) for line in split_lines(load(str(path)).text)]


def test_every_fixture_line_analysis_comes_back_equal():
    analyses = [analyze_line(line) for line in LINES]
    assert len(analyses) > 200 and any(a.calls for a in analyses) and any(a.output for a in analyses)
    back = pickle.loads(pickle.dumps(analyses))
    # an escape map has no equality of its own: compared by its slots
    maps = [
        (type(m), [getattr(m, s) for s in EscapeMap.__slots__]) if m is not None else None
        for m in (a.script_map for a in analyses)
    ]
    assert [
        (type(m), [getattr(m, s) for s in EscapeMap.__slots__]) if m is not None else None
        for m in (a.script_map for a in back)
    ] == maps
    assert any(maps)
    assert [dataclasses.replace(a, script_map=None) for a in back] == [
        dataclasses.replace(a, script_map=None) for a in analyses
    ]


def test_thin_chunks_come_back_as_the_workers_made_them():
    facts = analyze_chunk(LINES)
    back = pickle.loads(pickle.dumps(facts))
    assert [(r.kind, r.calls, r.output, r.findings, r.event) for r in back.records] == [
        (r.kind, r.calls, r.output, r.findings, r.event) for r in facts.records
    ]


def test_fields_set_after_init_are_kept_and_init_does_not_run_again():
    call = ToolCall("multi_agent_v1__spawn_agent", "tool", 3, 9)
    assert call.namespace == "multi_agent_v1"  # set by __post_init__
    explicit = ToolCall("mcp__github__search", "tool", 0, 1, namespace="mcp__github")
    for original in (call, explicit):
        back = pickle.loads(pickle.dumps(original))
        assert back == original and back.namespace == original.namespace
        assert [getattr(back, f.name) for f in dataclasses.fields(ToolCall)] == [
            getattr(original, f.name) for f in dataclasses.fields(ToolCall)
        ]
    assert copy.copy(call) == call and copy.deepcopy(call) == call


def test_still_frozen_and_reduced_by_fields():
    span = pickle.loads(pickle.dumps(Span(1, 2, 3)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.line = 4  # type: ignore[misc]
    for cls in (Span, ToolCall, LineAnalysis):
        assert "__reduce__" in cls.__dict__  # not dataclasses' field lookup per object
    assert Span(1, 2, 3).__reduce__()[1] == (Span, (1, 2, 3))


def test_only_dataclasses_with_slots():
    class Plain:
        pass

    @dataclasses.dataclass
    class NoSlots:
        x: int

    for cls in (Plain, NoSlots):
        with pytest.raises(TypeError, match="a dataclass with slots is needed"):
            pickled_by_fields(cls)


def test_a_subclass_is_not_pickled_as_its_base():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Wider(Span):
        extra: int = 0

    with pytest.raises(TypeError, match="inherits Span's pickling by fields"):
        pickle.dumps(Wider(1, 2, 3, 4))
