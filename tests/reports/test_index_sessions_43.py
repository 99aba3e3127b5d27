"""Stop 43: the index's session rows (``session_rows.plan_session``) read each line with names looked up once,
ask only ``token_count`` events (and payloads that are not objects) for a usage row, and read plain usage counts
without building a ``TokenUsage``.  Pinned here against the reading before it (kept below as the reference),
on the fixtures and on rollouts written to reach every branch, and ``_usage`` against ``TokenUsage.from_json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.reports.index.planning import _analyse
from analysis.reports.index.rows import _TITLE_LIMIT, _clean, _Work
from analysis.reports.index.session_rows import (
    _ENDS,
    _STARTS,
    _count_row,
    _inherited_message,
    _payload,
    _record_row,
    _text,
    _usage,
    plan_session,
)
from analysis.session.lineage import lineage
from analysis.session.usage import _FIELDS, TokenUsage
from tests.helpers import ROOT

SID = "019a0000-0000-7000-8000-000000000043"


def _reference_rows(analysis, work: _Work, base_line: int, stable_lines: int) -> tuple[dict, list[tuple]]:
    """The per-line loop of ``plan_session`` as it was before stop 43 (state and usage rows of a whole read)."""
    state: dict[str, Any] = dict.fromkeys(work.session or {})
    found = lineage(analysis)
    replay = found.inherited
    if found.identity is not None:  # the provider session_meta names, as plan_session reads it first
        meta = analysis.records[found.identity.line].session
        extra = (meta.model_extra or {}) if meta is not None else {}
        state["provider"] = _clean(_text(getattr(meta, "model_provider", None)) or _text(extra.get("model_provider")))
    own_id = work.session_id
    for number, line in enumerate(analysis.records):
        absolute = base_line + number
        if absolute >= stable_lines:
            break
        record = line.record
        if record is None:
            continue
        inherited = replay is not None and replay.start <= number <= replay.end
        timestamp = _clean(record.envelope.timestamp)
        if timestamp and not inherited:
            state["started"] = state["started"] or timestamp
            if state["ended"] is None or timestamp > state["ended"]:
                state["ended"] = timestamp
        kind = record.envelope.type
        if kind == "turn_context" and line.settings is not None and line.settings.model:
            state["model"] = _clean(line.settings.model)
        payload = _payload(record) if kind in ("event_msg", "turn_context") else None
        if payload is not None and kind == "event_msg":
            event = payload.get("type")
            if event == "thread_settings_applied" and isinstance(payload.get("thread_settings"), dict):
                settings_ = payload["thread_settings"]
                state["model"] = _clean(_text(settings_.get("model"))) or state["model"]
                state["service_tier"] = _clean(_text(settings_.get("service_tier"))) or state["service_tier"]
                state["provider"] = _clean(_text(settings_.get("model_provider_id"))) or state["provider"]
            elif event in _STARTS and not inherited:
                state["open_turn"] = 1
            elif event in _ENDS and not inherited:
                state["open_turn"] = 0
        if kind == "turn_context" and payload is not None and _text(payload.get("service_tier")):
            state["service_tier"] = _clean(payload["service_tier"])
        if line.prompt and not inherited and state["request"] is None and not _inherited_message(record):
            state["request"] = _clean(line.prompt, _TITLE_LIMIT)
        rows = _Work(**{**work.__dict__, "responses": []})
        if kind == "token_usage_record":
            _record_row(analysis, number, absolute, own_id, state, timestamp, inherited, rows)
        elif kind == "event_msg":
            _count_row(analysis, number, absolute, own_id, state, timestamp, inherited, rows)
        work.responses += rows.responses
    return state, work.responses


def _planned(text: str, stable_lines: int | None = None) -> tuple[_Work, _Work]:
    analysis = _analyse(text)
    stable = len(analysis.lines) if stable_lines is None else stable_lines
    work = _Work("f.jsonl", None, False, 0, 0, 0, 0, stable, "", analysis.session_id, None, None, None)
    plan_session(analysis, work, 0, stable, None)
    reference = _Work("f.jsonl", None, False, 0, 0, 0, 0, stable, "", analysis.session_id, None, None, None)
    reference.session = dict(work.session or {})
    state, _ = _reference_rows(analysis, reference, 0, stable)
    reference.session = state
    return work, reference


def _same(text: str, stable_lines: int | None = None) -> _Work:
    work, reference = _planned(text, stable_lines)
    assert work.responses == reference.responses
    new = work.session or {}
    # the per-line columns (the identity columns are set before the loop, the same way)
    for column in ("started", "ended", "open_turn", "request", "model", "service_tier", "provider"):
        if column == "open_turn" and reference.session[column] is None:
            continue  # left to the last turn after the loop
        assert new[column] == reference.session[column], column
    return work


def _line(time: Any, kind: str, payload: Any) -> str:
    return json.dumps({"timestamp": time, "type": kind, "payload": payload})


def _meta(time: str = "2026-12-03T09:00:00.000Z") -> str:
    return _line(time, "session_meta", {"id": SID, "timestamp": time, "cwd": "/w", "originator": "codex_cli_rs",
                                        "cli_version": "0.160.0", "model_provider": "openai"})  # fmt: skip


def _count(time: str, last: Any, total: Any, kind: str = "token_count") -> str:
    return _line(time, "event_msg", {"type": kind, "info": {"last_token_usage": last, "total_token_usage": total}})


def _usage_of(i: Any, c: Any = 0, o: Any = 0, r: Any = 0, t: Any = None, w: Any = None) -> dict:
    out = {"input_tokens": i, "cached_input_tokens": c, "output_tokens": o, "reasoning_output_tokens": r}
    if t is not None:
        out["total_tokens"] = t
    if w is not None:
        out["cache_write_input_tokens"] = w
    return out


BRANCHES = [
    _meta(),
    _line("2026-12-03T09:00:01.000Z", "event_msg", {"type": "task_started", "turn_id": "t1"}),
    _line(
        "2026-12-03T09:00:01.500Z",
        "turn_context",
        {
            "cwd": "/w",
            "approval_policy": "never",
            "sandbox_policy": {"type": "x"},
            "model": "gpt-5",
            "summary": "auto",
            "service_tier": "priority",
        },
    ),  # fmt: skip
    _line("2026-12-03T09:00:02.000Z", "event_msg", {"type": "user_message", "message": "fix the build"}),
    _count("2026-12-03T09:00:03.000Z", _usage_of(10, 2, 5, 1, 15), _usage_of(10, 2, 5, 1, 15)),
    _count("2026-12-03T09:00:04.000Z", _usage_of(7, 0, 3), _usage_of(17, 2, 8, 1)),  # no totals: input + output
    _count("2026-12-03T09:00:05.000Z", _usage_of(1, None, 2, w=4), _usage_of(1, 0, 2, t=0, w=4)),  # null: 0
    _count("2026-12-03T09:00:06.000Z", _usage_of(True, 0, 1), _usage_of(1, 0, 1)),  # a bool: no row
    _count("2026-12-03T09:00:07.000Z", _usage_of(1.5, 0, 1), _usage_of(1, 0, 1)),  # a float: no row
    _count("2026-12-03T09:00:08.000Z", "text", _usage_of(1, 0, 1)),  # not an object: no row
    _count("2026-12-03T09:00:09.000Z", _usage_of(2**70, 0, -1), _usage_of(2**70, 0, -1, t=2**71)),
    _count("2026-12-03T09:00:10.000Z", _usage_of(1, 0, 1), _usage_of(1, 0, 1), kind="token_count_other"),
    _line("2026-12-03T09:00:11.000Z", "event_msg", {"type": "token_count", "info": None}),
    _line("2026-12-03T09:00:12.000Z", "event_msg", ["token_count"]),  # a payload that is not an object
    _line("2026-12-03T09:00:13.000Z", "event_msg", "token_count"),
    _line(
        "2026-12-03T09:00:14.000Z",
        "event_msg",
        {
            "type": "thread_settings_applied",
            "thread_settings": {"model": "gpt-5.1", "service_tier": "flex", "model_provider_id": "azure"},
        },
    ),  # fmt: skip
    _count("2026-12-03T09:00:15.000Z", _usage_of(3, 1, 1), _usage_of(20, 3, 9, 1)),
    _line(
        "2026-12-03T09:00:16 sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd",
        "event_msg",
        {"type": "agent_message", "message": "a timestamp that is not one"},
    ),  # fmt: skip
    _line("2026-12-03T09:00:17.000Zé", "event_msg", {"type": "agent_message", "message": "not ASCII"}),
    _line(12345, "event_msg", {"type": "agent_message", "message": "a number for a timestamp"}),
    _line(None, "event_msg", {"type": "task_complete", "turn_id": "t1"}),
    _count("2026-12-03T09:00:18.000Z", _usage_of(4, 0, 4), _usage_of(24, 3, 13, 1)),
]


def test_every_branch_gives_the_rows_and_state_of_the_reading_before():
    work = _same("\n".join(BRANCHES) + "\n")
    keys = [r[4] for r in work.responses]
    assert keys == ["10/2/5/1/15", "17/2/8/1/25", "1/0/2/0/3", f"{2**70}/0/-1/0/{2**71}", "20/3/9/1/29", "24/3/13/1/37"]
    assert [r[5:8] for r in work.responses][-2:] == [("gpt-5.1", "flex", "azure")] * 2
    assert work.responses[2][9:14] == (1, 0, 2, 0, 4)


@pytest.mark.parametrize("stable", [0, 1, 4, 5, 12, 17])
def test_the_stable_lines_end_the_reading_where_they_ended_it(stable: int):
    _same("\n".join(BRANCHES) + "\n", stable)


@pytest.mark.parametrize("path", sorted((ROOT / "fixtures").glob("*.jsonl")), ids=lambda p: p.name)
def test_each_fixture_gives_the_rows_and_state_of_the_reading_before(path: Path):
    _same(path.read_text(encoding="utf-8", errors="replace"))


_NUMBER = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80),
    st.integers(min_value=0, max_value=3),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.dictionaries(st.sampled_from([*_FIELDS, "other"]), _NUMBER, max_size=7),
        st.lists(st.integers(), max_size=3),
        st.none(),
        st.integers(),
        st.text(max_size=3),
    )
)
def test_usage_reads_what_token_usage_from_json_reads(value: Any):
    usage = TokenUsage.from_json(value)
    expected = (
        None
        if usage is None
        else (usage.input, usage.cached, usage.output, usage.reasoning, usage.total, usage.cache_write)
    )
    assert _usage(value) == expected


def test_usage_of_an_object_that_is_not_a_plain_dict_is_from_json_s():
    class Counts(dict):
        pass

    value = Counts(input_tokens=3, output_tokens=4)
    assert _usage(value) == (3, 0, 4, 0, 7, 0)
