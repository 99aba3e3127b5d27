"""Issue 32 (points 1, 2, 5): `sessions` and `cost` on a Codex home built here: two projects, a named thread, a
fork by reference, a v2 subagent tree two levels deep, an archived session, re-emitted token_count lines,
duplicated token_usage_record lines (one copied into a child's file) and a model without a price.  Costs are
checked against genai-prices' own calc_price, one response at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from decimal import Decimal

import pytest
from genai_prices import Usage, calc_price

from analysis.reports.library.document import document_cost
from analysis.session.rollout import analyze_text
from tests.helpers import ROOT

A = "01a0a000-0000-7000-8000-0000000000a1"  # root, project /w/alpha, named
B = "01a0a000-0000-7000-8000-0000000000b1"  # subagent of A (depth 1)
C = "01a0a000-0000-7000-8000-0000000000c1"  # subagent of B (depth 2)
D = "01a0a000-0000-7000-8000-0000000000d1"  # fork of A by reference
E = "01a0a000-0000-7000-8000-0000000000e1"  # project /w/beta, archived, a model without a price


def _line(time: str, kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": time, "type": kind, "payload": payload})


def _meta(sid: str, time: str, cwd: str, **extra) -> str:
    return _line(
        time,
        "session_meta",
        {"id": sid, "timestamp": time, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.160.0",
         "model_provider": "openai", **extra},
    )  # fmt: skip


def _turn(time: str, model: str, cwd: str, words: str) -> list[str]:
    return [
        _line(time, "event_msg", {"type": "task_started", "turn_id": None}),
        _line(time, "turn_context", {"cwd": cwd, "approval_policy": "never", "sandbox_policy": {"type": "x"},
                                     "model": model, "summary": "auto"}),
        _line(time, "event_msg", {"type": "user_message", "message": words}),
    ]  # fmt: skip


def _usage(i: int, c: int, o: int, r: int = 0) -> dict:
    return {"input_tokens": i, "cached_input_tokens": c, "output_tokens": o, "reasoning_output_tokens": r,
            "total_tokens": i + o}  # fmt: skip


def _record(time: str, thread: str, response: str, usage: dict, model: str, tier: str = "default") -> str:
    return _line(
        time,
        "token_usage_record",
        {"thread_id": thread, "session_id": A, "turn_id": "t", "response_id": response, "usage": usage,
         "attribution": {"model": model, "model_provider": "openai", "service_tier": tier}},
    )  # fmt: skip


def _count(time: str, last: dict, total: dict) -> str:
    return _line(time, "event_msg", {"type": "token_count", "info": {"last_token_usage": last,
                                                                      "total_token_usage": total}})  # fmt: skip


def _done(time: str) -> str:
    return _line(time, "event_msg", {"type": "task_complete", "turn_id": None, "last_agent_message": "ok"})


def _spawn(time: str, call: str, child: str) -> list[str]:
    return [
        _line(time, "response_item", {"type": "function_call", "name": "spawn_agent", "call_id": call,
                                      "arguments": json.dumps({"message": "look"})}),
        _line(time, "response_item", {"type": "function_call_output", "call_id": call,
                                      "output": json.dumps({"agent_id": child})}),
    ]  # fmt: skip


U1 = _usage(10_000, 8_000, 500, 100)
U2 = _usage(3_000, 1_000, 200)
U3 = _usage(7_000, 0, 900, 300)
U4 = _usage(4_000, 2_000, 100)
U5 = _usage(50_000, 40_000, 1_000)


def _home(tmp_path) -> str:
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "11" / "20"
    day.mkdir(parents=True)
    (home / "archived_sessions").mkdir()
    files = {
        day / f"rollout-2026-11-20T10-00-00-{A}.jsonl": [
            _meta(A, "2026-11-20T10:00:00.000Z", "/w/alpha", session_id=A),
            *_turn("2026-11-20T10:00:01.000Z", "gpt-5.2-codex", "/w/alpha", "Audit the build"),
            _record("2026-11-20T10:00:05.000Z", A, "resp_a1", U1, "gpt-5.2-codex", "priority"),
            _record("2026-11-20T10:00:05.000Z", A, "resp_a1", U1, "gpt-5.2-codex", "priority"),  # duplicated
            _count("2026-11-20T10:00:05.100Z", U1, U1),  # the same response: counted by its record
            _count("2026-11-20T10:00:06.000Z", U2, _usage(13_000, 9_000, 700, 100)),
            _count("2026-11-20T10:00:06.500Z", U2, _usage(13_000, 9_000, 700, 100)),  # re-emitted
            *_spawn("2026-11-20T10:00:07.000Z", "call_1", B),
            _done("2026-11-20T10:00:30.000Z"),
        ],
        day / f"rollout-2026-11-20T10-00-08-{B}.jsonl": [
            _meta(
                B,
                "2026-11-20T10:00:08.000Z",
                "/w/alpha",
                session_id=A,
                parent_thread_id=A,
                agent_path="/root/b",
                agent_nickname="Bee",
                multi_agent_version="v2",
                source={
                    "subagent": {
                        "thread_spawn": {
                            "parent_thread_id": A,
                            "depth": 1,
                            "agent_path": "/root/b",
                            "agent_nickname": "Bee",
                        }
                    }
                },
            ),
            *_turn("2026-11-20T10:00:09.000Z", "gpt-5.2-codex", "/w/alpha", "Check the tests"),
            _record("2026-11-20T10:00:05.000Z", A, "resp_a1", U1, "gpt-5.2-codex", "priority"),  # the parent's
            _record("2026-11-20T10:00:12.000Z", B, "resp_b1", U3, "gpt-5.2-codex"),
            *_spawn("2026-11-20T10:00:13.000Z", "call_2", C),
            _done("2026-11-20T10:00:20.000Z"),
        ],  # fmt: skip
        day / f"rollout-2026-11-20T10-00-14-{C}.jsonl": [
            _meta(
                C,
                "2026-11-20T10:00:14.000Z",
                "/w/alpha",
                session_id=A,
                parent_thread_id=B,
                agent_path="/root/b/c",
                agent_nickname="Cee",
                source={"subagent": {"thread_spawn": {"parent_thread_id": B, "depth": 2}}},
            ),
            *_turn("2026-11-20T10:00:15.000Z", "gpt-5.1-codex-mini", "/w/alpha", "Read one file"),
            _count("2026-11-20T10:00:16.000Z", U4, U4),
            _done("2026-11-20T10:00:17.000Z"),
        ],  # fmt: skip
        day / f"rollout-2026-11-20T11-00-00-{D}.jsonl": [
            _meta(
                D,
                "2026-11-20T11:00:00.000Z",
                "/w/alpha",
                forked_from_id=A,
                history_base={"thread_id": A, "end_ordinal_exclusive": 5, "end_byte_offset": 900},
            ),
            *_turn("2026-11-20T11:00:01.000Z", "gpt-5.2-codex", "/w/alpha", "Now the docs"),
            _done("2026-11-20T11:00:40.000Z"),
        ],  # fmt: skip
        home / "archived_sessions" / f"rollout-2026-11-18T09-00-00-{E}.jsonl": [
            _meta(E, "2026-11-18T09:00:00.000Z", "/w/beta"),
            *_turn("2026-11-18T09:00:01.000Z", "gpt-9-imaginary", "/w/beta", "Plan the release"),
            _count("2026-11-18T09:01:00.000Z", U5, U5),
            _done("2026-11-18T09:02:00.000Z"),
        ],
    }
    for path, lines in files.items():
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (1_700_000_000, 1_700_000_000))  # long ago: nothing is live
    (home / "session_index.jsonl").write_text(
        json.dumps({"id": A, "thread_name": "Build audit", "updated_at": "2026-11-20T10:05:00Z"}) + "\n"
    )
    return str(home)


def _price(usage: dict, model: str, time: str, tier: str | None = None) -> Decimal:
    found = calc_price(
        Usage(input_tokens=usage["input_tokens"], cache_read_tokens=usage["cached_input_tokens"],
              output_tokens=usage["output_tokens"]),
        model,
        provider_id="openai",
        genai_request_timestamp=datetime.fromisoformat(time.replace("Z", "+00:00")).astimezone(timezone.utc),
        price_context={"service_tier": tier} if tier else None,
    )  # fmt: skip
    return Decimal(found.total_price)


P1 = _price(U1, "gpt-5.2-codex", "2026-11-20T10:00:05.000Z", "priority")
P2 = _price(U2, "gpt-5.2-codex", "2026-11-20T10:00:06.000Z")
P3 = _price(U3, "gpt-5.2-codex", "2026-11-20T10:00:12.000Z")
P4 = _price(U4, "gpt-5.1-codex-mini", "2026-11-20T10:00:16.000Z")


def _usd(value: Decimal) -> float:
    return float(round(value, 6))


@pytest.fixture
def home(tmp_path):
    return _home(tmp_path)


def _cli(tmp_path, *args: str) -> tuple[int, str, str]:
    """The command line as a user runs it (its own index, days in UTC)."""
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", *args[:1], "--db", str(tmp_path / "index.sqlite3"), *args[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        encoding="utf-8",
        env={**os.environ, "TZ": "UTC", "CODEX_HOME": str(tmp_path / "no-home")},
    )
    return done.returncode, done.stdout, done.stderr


def test_sessions_json_lists_every_session_with_its_links_tokens_and_cost(tmp_path, home):
    code, out, err = _cli(tmp_path, "sessions", "--json", home)
    assert code == 0, err
    found = json.loads(out)
    assert [s["id"] for s in found] == [D, C, B, A, E]  # newest first
    by_id = {s["id"]: s for s in found}
    a, b, c, d, e = (by_id[x] for x in (A, B, C, D, E))
    assert P1 > _price(U1, "gpt-5.2-codex", "2026-11-20T10:00:05.000Z")  # the priority tier is priced
    assert {k: a[k] for k in ("project", "name", "request", "started", "ended", "duration_s", "turns")} == {
        "project": "/w/alpha",
        "name": "Build audit",
        "request": "Audit the build",
        "started": "2026-11-20T10:00:00.000Z",
        "ended": "2026-11-20T10:00:30.000Z",
        "duration_s": 30.0,
        "turns": 1,
    }
    assert (a["archived"], a["live"], e["archived"], a["calls"], a["failed_calls"]) == (False, False, True, 1, 0)
    assert a["bytes"] == os.path.getsize(a["rollout"])
    # resp_a1 once (its duplicate, its token_count and the child's copy not counted), U2 once (re-emitted)
    assert a["tokens"] == {"input": 13_000, "cached_input": 9_000, "output": 700, "reasoning_output": 100,
                           "total": 13_700}  # fmt: skip
    assert a["cost"] == {
        "usd": _usd(P1 + P2),
        "priced": True,
        "models": [{"model": "gpt-5.2-codex", "priced_as": "gpt-5.2", "responses": 2,
                    "tokens": a["tokens"], "usd": _usd(P1 + P2), "reason": None, "priced": True}],
        "prices_as_of": "genai-prices 0.2.3 (2026-11-10)",
    }  # fmt: skip
    assert (b["tokens"]["input"], b["cost"]["usd"], c["tokens"]["input"], c["cost"]["usd"]) == (
        7_000, _usd(P3), 4_000, _usd(P4))  # fmt: skip
    assert d["tokens"]["total"] == 0 and d["cost"]["usd"] == 0.0
    assert e["cost"]["usd"] is None and e["cost"]["priced"] is False
    assert e["cost"]["models"] == [
        {"model": "gpt-9-imaginary", "priced_as": None, "responses": 1, "tokens": e["tokens"], "usd": None,
         "reason": "gpt-9-imaginary is not in genai-prices 0.2.3 (2026-11-10)", "priced": False}
    ]  # fmt: skip
    assert e["tokens"]["input"] == 50_000 and e["project"] == "/w/beta" and e["name"] is None
    links = {s["id"]: (s["parent"], s["root"], s["parent_thread"], s["agent_path"], s["nickname"], s["children"],
                       s["referenced_by"]) for s in found}  # fmt: skip
    assert links == {
        A: (None, None, None, None, None, sorted([B, D]), [D]),
        B: (None, A, A, "/root/b", "Bee", [C], []),
        C: (None, A, B, "/root/b/c", "Cee", [], []),
        D: (A, None, None, None, None, [], []),
        E: (None, None, None, None, None, [], []),
    }


def test_sessions_filters(tmp_path, home):
    def ids(*args: str) -> list[str]:
        code, out, err = _cli(tmp_path, "sessions", "--json", *args, home)
        assert code == 0, err
        return [s["id"] for s in json.loads(out)]

    assert ids("--project", "/w/beta") == [E]
    assert ids("--since", "2026-11-20T10:30:00Z") == [D]
    assert ids("--older-than", "1") == [D, C, B, A, E]  # the clock is past 2026-11-21
    assert ids("--older-than", "100000") == []
    code, out, _ = _cli(tmp_path, "sessions", "--json", os.path.join(home, "archived_sessions"))
    assert [s["id"] for s in json.loads(out)] == [E]


def test_sessions_tree_nests_subagents_and_forks_under_their_parent(tmp_path, home):
    code, out, err = _cli(tmp_path, "sessions", "--tree", home)
    assert code == 0, err
    assert out.splitlines() == [
        "/w/alpha",
        "  2026-11-20",
        f"    Build audit · 30 s · 1 turn · ${_usd(P1 + P2):.4f}",
        f"      ↳ Check the tests · 12 s · 1 turn · ${_usd(P3):.4f}  [agent Bee]",
        f"        ↳ Read one file · 3 s · 1 turn · ${_usd(P4):.4f}  [agent Cee]",
        "      ↳ Now the docs · 40 s · 1 turn · no usage",
        "/w/beta",
        "  2026-11-18",
        "    Plan the release · 2 min 00 s · 1 turn · unpriced  [archived]",
    ]


def test_cost_by_each_grouping(tmp_path, home):
    def report(by: str) -> dict:
        code, out, err = _cli(tmp_path, "cost", "--json", "--by", by, home)
        assert code == 0, err
        return json.loads(out)

    by_model = report("model")
    assert [(g["key"], g["responses"], g["tokens"]["total"], g["cost"]["usd"]) for g in by_model["groups"]] == [
        ("gpt-5.1-codex-mini", 1, 4_100, _usd(P4)),
        ("gpt-5.2-codex", 3, 13_700 + 7_900, _usd(P1 + P2 + P3)),
        ("gpt-9-imaginary", 1, 51_000, None),
    ]
    assert by_model["total"]["responses"] == 5 and by_model["total"]["cost"]["usd"] is None
    assert by_model["prices_as_of"] == "genai-prices 0.2.3 (2026-11-10)"
    by_project = report("project")
    assert [(g["key"], g["cost"]["usd"]) for g in by_project["groups"]] == [
        ("/w/alpha", _usd(P1 + P2 + P3 + P4)),
        ("/w/beta", None),
    ]
    assert [(g["key"], g["responses"]) for g in report("day")["groups"]] == [("2026-11-20", 4), ("2026-11-18", 1)]
    assert [(g["key"], g["responses"]) for g in report("session")["groups"]] == [(C, 1), (B, 1), (A, 2), (E, 1)]


def test_an_appended_file_keeps_its_responses_counted_once(tmp_path, home):
    code, _, err = _cli(tmp_path, "cost", "--json", home)
    assert code == 0, err
    rollout = os.path.join(home, "sessions", "2026", "11", "20", f"rollout-2026-11-20T10-00-00-{A}.jsonl")
    with open(rollout, "a", encoding="utf-8") as handle:  # a repeat of the last total, then a new response
        handle.write(_count("2026-11-20T10:01:00.000Z", U2, _usage(13_000, 9_000, 700, 100)) + "\n")
        handle.write(_count("2026-11-20T10:01:05.000Z", U4, _usage(17_000, 11_000, 800, 100)) + "\n")
    code, out, err = _cli(tmp_path, "sessions", "--json", rollout)
    assert code == 0, err
    (a,) = json.loads(out)
    assert a["tokens"]["input"] == 13_000 + 4_000 and a["ended"] == "2026-11-20T10:01:05.000Z"
    assert a["cost"]["usd"] == _usd(P1 + P2 + _price(U4, "gpt-5.2-codex", "2026-11-20T10:01:05.000Z"))


def test_an_open_documents_cost_lens_text(home):
    rollout = os.path.join(home, "sessions", "2026", "11", "20", f"rollout-2026-11-20T10-00-00-{A}.jsonl")
    with open(rollout, encoding="utf-8") as handle:
        found = document_cost(analyze_text(handle.read()))
    assert found is not None
    assert found.text() == f"${_usd(P1 + P2):.4f} · 2 responses · 1 subagent"
    assert found.subagents == (B,)
