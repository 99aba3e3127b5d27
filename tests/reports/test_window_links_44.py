"""Stop 44: a window read without a sink is linked without its located calls and turns, and the window's intake
checks only the lines that can refer back (calls, outputs, events).  Neither may change what any reader gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.jsonl.positions import PositionEncoding
from analysis.reports.stream import stream_rollout
from analysis.reports.stream import window as window_module
from analysis.reports.stream.collect import _ReferredBack
from analysis.reports.stream.thinning import analyze_chunk
from analysis.reports.stream.window import _Stream
from analysis.session import rollout as rollout_module
from analysis.session.record_analysis import analyze_line
from analysis.session.rollout import link_records
from tests.stream_support import TIGHT, whole

FIXTURES = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "fixtures").glob("rollout-*.jsonl"))


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").split("\n")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).name)
def test_unlocated_link_is_the_located_one_without_calls_and_turns(path: str) -> None:
    lines = _lines(path)
    records = [analyze_line(line) for line in lines]
    full = link_records(lines, records)
    lean = link_records(lines, records, located=False)
    assert lean.findings == full.findings
    assert lean.call_records == full.call_records
    assert lean.record_outputs == full.record_outputs
    assert lean.outputs_by_call_id == full.outputs_by_call_id
    assert lean.calls_by_call_id == full.calls_by_call_id
    assert lean.events == full.events
    assert lean.matched_events == full.matched_events
    assert lean.calls == [] and lean.turns == []
    if full.call_records:
        assert full.calls  # the located link still makes them


def test_the_fixtures_have_calls_outputs_and_turns() -> None:
    # the comparison above is not vacuous: calls paired with outputs, events matched, turns read
    paired = matched = turns = 0
    for path in FIXTURES:
        lines = _lines(path)
        full = link_records(lines, [analyze_line(line) for line in lines])
        paired += len(full.record_outputs)
        matched += len(full.matched_events)
        turns += len(full.turns)
    assert paired > 20 and matched > 5 and turns > 10


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).name)
def test_a_stream_without_a_sink_locates_no_call(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    paired, turns = rollout_module._paired_calls, rollout_module.read_turns

    def paired_spy(*args, **kwargs):
        made.append("calls")
        return paired(*args, **kwargs)

    def turns_spy(*args, **kwargs):
        made.append("turns")
        return turns(*args, **kwargs)

    monkeypatch.setattr(rollout_module, "_paired_calls", paired_spy)
    monkeypatch.setattr(rollout_module, "read_turns", turns_spy)
    for options in TIGHT:
        made.clear()
        streamed = stream_rollout(path, PositionEncoding.UTF16, **options)
        if streamed.whole:  # a line referred back: the whole-file analysis, which locates its calls, was read
            continue
        assert made == [], options


def test_most_fixtures_are_streamed_to_their_end() -> None:
    # the test above is not vacuous: most fixtures are read as streams, not whole
    streamed = sum(not stream_rollout(path, PositionEncoding.UTF16).whole for path in FIXTURES)
    assert streamed >= len(FIXTURES) - 5


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).name)
def test_a_stream_without_a_sink_finds_what_the_whole_file_finds(path: str) -> None:
    expected = whole(path)["findings"]
    for options in TIGHT:
        streamed = stream_rollout(path, PositionEncoding.UTF16, **options)
        assert [row for _, row in streamed.findings] == expected, options


def test_a_stream_with_a_sink_still_locates_its_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    original = window_module.link_records

    def spy(lines, records, file_lines=None, located=True):
        seen.append(located)
        return original(lines, records, file_lines, located)

    monkeypatch.setattr(window_module, "link_records", spy)

    class Sink:
        def __init__(self) -> None:
            self.calls: list = []

        def record(self, line, record, output) -> None:
            pass

        def call(self, located, ranges) -> None:
            self.calls.append(located)

    demo = next(p for p in FIXTURES if p.endswith("rollout-demo.jsonl"))
    streamed = stream_rollout(demo, PositionEncoding.UTF16, make_sink=Sink)
    assert seen and all(seen)
    assert streamed.sink.calls
    seen.clear()
    stream_rollout(demo, PositionEncoding.UTF16)
    assert seen and not any(seen)


def _chunk(lines: list[str]):
    return analyze_chunk(lines)


def test_the_intake_checks_calls_outputs_and_events_only(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list = []
    original = _Stream._check

    def spy(self, record, count):
        checked.append(record)
        return original(self, record, count)

    monkeypatch.setattr(_Stream, "_check", spy)
    for path in FIXTURES:
        lines = _lines(path)
        facts = _chunk(lines)
        state = _Stream(PositionEncoding.UTF16, None, False, 10**6, 10**6)
        checked.clear()
        try:
            state.take(lines, [None] * len(lines), facts, 0)
        except _ReferredBack:
            continue
        expected = [r for r in facts.records if r.is_call or r.is_output or r.event is not None]
        assert checked == expected
        assert state.lines == lines and state.records == facts.records
        assert state.numbers == list(range(len(lines)))


def test_the_intake_appends_after_earlier_chunks() -> None:
    demo = next(p for p in FIXTURES if p.endswith("rollout-demo.jsonl"))
    lines = _lines(demo)
    half = len(lines) // 2
    state = _Stream(PositionEncoding.UTF16, None, False, 10**6, 10**6)
    state.take(lines[:half], [None] * half, _chunk(lines[:half]), 0)
    state.take(lines[half:], [None] * (len(lines) - half), _chunk(lines[half:]), half)
    assert state.lines == lines
    assert state.numbers == list(range(len(lines)))
    assert state.count == len(lines)


def test_an_output_of_a_settled_call_still_refers_back() -> None:
    call = (
        '{"timestamp":"2026-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"function_call",'
        '"name":"shell","arguments":"{\\"command\\":[\\"ls\\"]}","call_id":"call_1"}}'
    )
    output = (
        '{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call_output",'
        '"call_id":"call_1","output":"ok"}}'
    )
    plain = (
        '{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}'
    )
    state = _Stream(PositionEncoding.UTF16, None, False, 0, 0)
    first = [call, plain]
    state.take(first, [None, None], _chunk(first), 0)  # forced at once: the call settles without its output
    assert state.released_unpaired == {"call_1"}
    later = [plain, output]
    with pytest.raises(_ReferredBack):
        state.take(later, [None, None], _chunk(later), 2)
