"""Today's Codex (0.147 to 0.157) on our own fixtures (fixtures/build.py, fixtures/sessions/2026/09/01): paginated
turns, turns that failed, were interrupted or rolled back, token_usage_record counted once, settings folded,
forks and segments by reference, thread names, compacted records summarised."""

from __future__ import annotations

import json
import shutil

import zstandard

from analysis.reports.export import _md as md_text
from analysis.reports.export import export
from analysis.reports.report import outline_json
from analysis.session.compaction import LARGE_LINE
from analysis.session.lineage import lineage, search_roots
from analysis.session.references import find_rollout, parents, references
from analysis.session.rollout import analyze_text
from analysis.session.settings import record_settings_changes
from analysis.session.thread_names import read_index, thread_name
from analysis.session.turn_events import error_info_text
from analysis.session.usage import TokenUsage, session_usage
from fixtures import build
from tests.helpers import FIXTURES, fixture, range_text, run_cli

PAGED = build.PAGED_NAME
FORK = build.SESSIONS_9 + f"rollout-2026-09-01T11-00-00-{build.FORK_ID}.jsonl"
ORPHAN = build.SESSIONS_9 + f"rollout-2026-09-01T11-01-40-{build.ORPHAN_ID}.jsonl"
SEGMENT_1 = build.SESSIONS_9 + f"rollout-2026-09-01T12-00-00-{build.SEG_ID}.jsonl"
SEGMENT_2 = build.SESSIONS_9 + f"rollout-2026-09-01T12-30-00-{build.SEG_ID}_{build.SEG_ROLLOUT_2}.jsonl"
CURRENT = [PAGED, FORK, ORPHAN, SEGMENT_1, SEGMENT_2, "rollout-compacted.jsonl"]


def analysis_of(name: str):
    return analyze_text(fixture(name))


def test_no_record_of_the_current_format_is_unknown():
    for name in CURRENT:
        assert [f for f in analysis_of(name).findings if f.code == "unknown-record"] == [], name


def test_paginated_turns_are_titled_with_the_users_words_and_say_how_they_ended():
    analysis = analysis_of(PAGED)
    turns = [
        (t.line, t.title, t.status, t.error_info, t.error, t.reason, t.duration_ms, t.time_to_first_token_ms)
        for t in analysis.turns
    ]
    assert turns == [
        (2, "Run the tests and fix what fails", "completed", None, None, None, 8200, 1300),
        (
            22,
            "Deploy it to staging",
            "failed",
            "unauthorized",
            "Your access token could not be refreshed. Please log in again.",
            None,
            410,
            None,
        ),
        (
            28,
            "Try the deploy again",
            "failed",
            "response_too_many_failed_attempts (HTTP 429)",
            "exceeded retry limit, last status: 429 Too Many Requests",
            None,
            95000,
            2100,
        ),
        (36, "Show me the deploy log", "interrupted", None, None, "interrupted", 4300, None),
        (42, "Delete the staging database", "rolled_back", None, None, None, 3000, 800),
        (50, "Ask an agent to review the deploy script", "completed", None, None, None, 5000, 900),
    ]
    assert [(t.error_line, t.ended_line, t.rolled_back_line) for t in analysis.turns] == [
        (None, 16, None),
        (27, 27, None),
        (34, 35, None),
        (None, 41, None),
        (None, 48, 49),
        (None, 57, None),
    ]
    # the user's words come from the UserMessage item, the agent's from the AgentMessage item
    items = [(n, r.turn_item.type, r.turn_item.text) for n, r in enumerate(analysis.records) if r.turn_item]
    assert items[:4] == [
        (6, "UserMessage", "Run the tests and fix what fails"),
        (7, "Reasoning", "Looking at the test runner"),
        (13, "AgentMessage", "All 12 tests pass."),
        (26, "UserMessage", "Deploy it to staging"),
    ]
    assert analysis.records[13].turn_item.phase == "final_answer"


def test_a_failed_turn_is_one_information_finding_with_its_error():
    text = fixture(PAGED)
    out = outline_json(PAGED, analyze_text(text))
    assert [
        (d["range"]["start"]["line"], d["code"], d["severity"], range_text(text, d["range"]), d["message"])
        for d in out["diagnostics"]
    ] == [
        (
            27,
            "turn-failed",
            "information",
            '{"message":"Your access token could not be refreshed. Please log in again.",'
            '"codex_error_info":"unauthorized"}',
            "the turn failed: unauthorized — Your access token could not be refreshed. Please log in again.",
        ),
        (
            34,
            "turn-failed",
            "information",
            '"exceeded retry limit, last status: 429 Too Many Requests"',
            "the turn failed: response_too_many_failed_attempts (HTTP 429) — exceeded retry limit, last status: 429 "
            "Too Many Requests",
        ),
    ]  # the error event and the turn_complete.error after it: one finding
    # duplicate ordinals (openai/codex#35746: lines 12 and 13 share ordinal 11) are no finding
    ordinals = [json.loads(line)["ordinal"] for line in text.splitlines()]
    assert ordinals[11] == ordinals[12] == 11


def test_codex_error_info_in_both_forms():
    assert error_info_text("unauthorized") == "unauthorized"
    assert (
        error_info_text({"response_too_many_failed_attempts": {"http_status_code": 429}})
        == "response_too_many_failed_attempts (HTTP 429)"
    )
    assert error_info_text({"sandbox_error": {}}) == "sandbox_error"
    assert (
        error_info_text({"response_stream_disconnected": {"http_status_code": None}}) == "response_stream_disconnected"
    )
    assert error_info_text(None) is None and error_info_text(42) is None


def test_token_usage_record_and_token_count_count_each_response_once():
    usage = session_usage(analysis_of(PAGED))
    # by hand: resp_1 (12,000 in, 400 out) and resp_2 (14,000 in, 600 out) are reported by both kinds of record,
    # resp_3 (15,000 in) by a token_usage_record alone, resp_5 (16,000 in, 300 out) by a token_count alone
    assert usage.own == TokenUsage(
        input=12000 + 14000 + 15000 + 16000,
        cached=9000 + 12000 + 14000 + 15000,
        output=400 + 600 + 0 + 300,
        reasoning=120 + 200 + 0 + 100,
        total=12400 + 14600 + 15000 + 16300,
        cache_write=3000,
    )
    assert usage.requests == 4
    assert [(t.line, t.usage.total, t.requests) for t in usage.turns] == [
        (2, 12400 + 14600, 2),
        (22, 0, 0),
        (28, 15000, 1),
        (36, 0, 0),
        (42, 16300, 1),
        (50, 0, 0),
    ]
    assert [(r.line, r.source, r.new, r.counted.total) for r in usage.records] == [
        (9, "token_usage_record", True, 12400),
        (10, "token_count", False, 0),
        (14, "token_usage_record", True, 14600),
        (15, "token_count", False, 0),
        (33, "token_usage_record", True, 15000),
        (47, "token_count", True, 16300),
    ]


def test_a_turns_usage_is_the_same_whichever_record_the_file_has():
    lines = fixture(PAGED).splitlines()
    only_counts = "\n".join(line for line in lines if '"type":"token_usage_record"' not in line)
    only_records = "\n".join(line for line in lines if '"type":"token_count"' not in line)
    first_turn = [
        session_usage(analyze_text(text)).turns[0].usage for text in (fixture(PAGED), only_counts, only_records)
    ]
    assert first_turn[0] == first_turn[1] == first_turn[2] == TokenUsage(26000, 21000, 1000, 320, 27000, 3000)


def test_settings_changes_are_folded():
    changes = record_settings_changes(analysis_of(PAGED).records)
    assert [(c.line, c.changed, c.records, c.text()) for c in changes] == [
        (
            1,
            ("model", "effort", "approval", "permissions", "cwd"),
            3,
            "model gpt-5.6-sol · effort medium · approval on-request · permissions :workspace · cwd /home/u/app",
        ),
        (
            19,
            ("model", "approval", "permissions"),
            1,
            "model gpt-5.5 · approval never · permissions :danger-full-access",
        ),
    ]


def test_outline_text_of_a_paginated_session():
    result = run_cli("outline", f"fixtures/{PAGED}")
    assert result.stdout.splitlines() == [
        f"fixtures/{PAGED}",
        "  thread name: Fix the tests and deploy",
        "  session: 2 calls, 0 failed",
        "  turn 1 (line 3): Run the tests and fix what fails  [8.2 s, first token after 1.3 s]",
        "    line 9: exec_command call_p1  [completed, 2 s]",
        "      └─ exec_command: npm test  in /home/u/app",
        "    settings changed (line 20): model gpt-5.5 · approval never · permissions :danger-full-access",
        "  turn 2 (line 23): Deploy it to staging  [failed: unauthorized — Your access token could not be refreshed. "
        "Please log in again. · 0.4 s]",
        "  turn 3 (line 29): Try the deploy again  [failed: response_too_many_failed_attempts (HTTP 429) — exceeded "
        "retry limit, last status: 429 Too Many Requests · 95 s, first token after 2.1 s]",
        "  turn 4 (line 37): Show me the deploy log  [interrupted · 4.3 s]",
        "  turn 5 (line 43): Delete the staging database  [rolled back · 3 s, first token after 0.8 s]",
        "  turn 6 (line 51): Ask an agent to review the deploy script  [5 s, first token after 0.9 s]",
        "    line 56: multi_agent_v1__spawn_agent call_ns1  [completed]",
        "      └─ multi_agent_v1 · spawn_agent: deploy_review",
        "findings:",
        "  28:244: information turn-failed the turn failed: unauthorized — Your access token could not be refreshed. "
        "Please log in again.",
        "  35:109: information turn-failed the turn failed: response_too_many_failed_attempts (HTTP 429) — exceeded "
        "retry limit, last status: 429 Too Many Requests",
    ]


def test_outline_json_turns_of_a_paginated_session():
    out = json.loads(run_cli("outline", "--json", f"fixtures/{PAGED}").stdout)
    assert [
        (t["line"], t["status"], t["codex_error_info"], t["reason"], t["duration_ms"], t["time_to_first_token_ms"])
        for t in out["turns"]
    ] == [
        (2, "completed", None, None, 8200, 1300),
        (22, "failed", "unauthorized", None, 410, None),
        (28, "failed", "response_too_many_failed_attempts (HTTP 429)", None, 95000, 2100),
        (36, "interrupted", None, "interrupted", 4300, None),
        (42, "rolled_back", None, None, 3000, 800),
        (50, "completed", None, None, 5000, 900),
    ]
    assert out["turns"][1]["error"] == "Your access token could not be refreshed. Please log in again."
    assert [c["tool"] for c in out["calls"]] == ["exec_command", "multi_agent_v1__spawn_agent"]
    assert [d["code"] for d in out["diagnostics"]] == ["turn-failed", "turn-failed"]


def test_export_says_how_a_turn_ended():
    md = export(analysis_of(PAGED), str(FIXTURES / PAGED), "md")
    outcomes = [line for line in md.splitlines() if line.startswith("**Outcome")]
    assert outcomes == [
        "**Outcome: failed: unauthorized — Your access token could not be refreshed. Please log in again. · 0.4 s**",
        "**Outcome: failed: response\\_too\\_many\\_failed\\_attempts (HTTP 429) — exceeded retry limit, last status: "
        "429 Too Many Requests · 95 s, first token after 2.1 s**",
        "**Outcome: interrupted · 4.3 s**",
        "**Outcome: rolled back · 3 s, first token after 0.8 s**",
    ]
    assert "- **thread name**: Fix the tests and deploy" in md.splitlines()
    fork = export(analysis_of(FORK), str(FIXTURES / FORK), "md")
    # the path as Markdown shows it: a clone in a folder named like ``solo_parent`` has its ``_`` escaped
    assert (
        f"> This rollout continues session {build.PAGED_ID}: its first 17 lines (1 turn, in {md_text(str(FIXTURES / PAGED))}) "
        "are inherited and not repeated here." in fork.splitlines()
    )
    html = export(analysis_of(PAGED), str(FIXTURES / PAGED), "html")
    assert '<p class="outcome"><strong>Outcome: interrupted · 4.3 s</strong></p>' in html


def test_a_namespaced_top_level_spawn_is_a_spawn():
    analysis = analysis_of(PAGED)
    assert analysis.records[55].name == "multi_agent_v1__spawn_agent"  # as a script calls it
    [call] = analysis.calls_on(55)
    assert (call.call.namespace, call.call.bare_tool, call.call.shown_tool, call.call.key_text) == (
        "multi_agent_v1",
        "spawn_agent",
        "multi_agent_v1 · spawn_agent",
        "deploy_review",
    )
    spawns = lineage(analysis).spawns
    assert [(s.line, s.task, s.child) for s in spawns] == [
        (55, "deploy_review", build._uuid7(build.T9_MS + 400_000, "a7"))
    ]


def test_a_fork_by_reference_inherits_the_parents_first_lines():
    path = str(FIXTURES / FORK)
    analysis = analysis_of(FORK)
    [ref] = references(analysis)
    assert (ref.line, ref.kind, ref.rollout_id, ref.end_byte_offset, ref.end_ordinal) == (
        0,
        "history_base",
        build.PAGED_ID,
        build.FORK_OFFSET,
        build.FORK_ORDINAL,
    )
    [parent] = parents(analysis, path, search_roots(path))
    assert (parent.path, parent.lines, parent.turns, parent.fork_line) == (str(FIXTURES / PAGED), 17, 1, 16)
    # the byte offset is the end of the parent's line 17, its first turn's turn_complete
    assert (
        fixture(PAGED).encode("utf-8")[: build.FORK_OFFSET].decode("utf-8").splitlines()[-1]
        == fixture(PAGED).splitlines()[16]
    )
    # usage counts only the child's own records: resp_f1, 9,000 in and 250 out
    usage = session_usage(analysis)
    assert (usage.own, usage.inherited) == (TokenUsage(9000, 4000, 250, 50, 9250, 5000), TokenUsage())
    assert run_cli("outline", f"fixtures/{FORK}").stdout.splitlines()[1:3] == [
        "  thread name: Faster tests",
        f"  inherited from session {build.PAGED_ID} (1 turn): {FIXTURES / PAGED}, lines 1–17",
    ]


def test_a_fork_whose_parent_is_gone_is_said_plainly():
    result = run_cli("check", "--fail-on", "error", f"fixtures/{ORPHAN}")
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        f"fixtures/{ORPHAN}:1:403: information parent-missing this fork continues session {build.GONE_ID} "
        "(no rollout of it in this sessions tree): its inherited history cannot be shown"
    ]
    out = json.loads(run_cli("outline", "--json", f"fixtures/{ORPHAN}").stdout)
    assert [(d["code"], range_text(fixture(ORPHAN), d["range"])[:15]) for d in out["diagnostics"]] == [
        ("parent-missing", '{"thread_id":"0')
    ]
    assert (
        run_cli("outline", f"fixtures/{ORPHAN}").stdout.splitlines()[1]
        == f"  inherited from session {build.GONE_ID} (not found): its rollout is not found"
    )


def test_a_segment_continues_the_previous_one():
    path = str(FIXTURES / SEGMENT_2)
    analysis = analysis_of(SEGMENT_2)
    [ref] = references(analysis)
    assert (ref.line, ref.kind, ref.rollout_id) == (1, "rollout_reference", build.SEG_ID)
    [parent] = parents(analysis, path, search_roots(path))  # its rollout_path is another machine's: found by id
    assert (parent.path, parent.lines, parent.turns) == (str(FIXTURES / SEGMENT_1), 8, 1)
    assert [t.title for t in analysis.turns] == ["Add the migration steps to the notes"]


def test_reverted_thread_names_and_compressed_parents(tmp_path):
    roots = [str(FIXTURES / "sessions")]
    assert find_rollout(build.SEG_ROLLOUT_2, roots) == str(FIXTURES / SEGMENT_2)  # <thread id>_<rollout id>
    assert find_rollout(build.SEG_ID, roots) == str(FIXTURES / SEGMENT_1)  # the thread's own file, not the revert
    day = tmp_path / "home" / "sessions" / "2026" / "09" / "01"
    day.mkdir(parents=True)
    (day / (FIXTURES / PAGED).name).with_suffix(".jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress((FIXTURES / PAGED).read_bytes())
    )
    shutil.copy(FIXTURES / FORK, day / (FIXTURES / FORK).name)
    child = str(day / (FIXTURES / FORK).name)
    [parent] = parents(analyze_text(fixture(FORK)), child, search_roots(child))
    assert (parent.path, parent.lines, parent.turns) == (str(day / (FIXTURES / PAGED).name) + ".zst", 17, 1)


def test_thread_names_from_session_index(tmp_path, monkeypatch):
    assert read_index(FIXTURES / "session_index.jsonl") == {
        build.PAGED_ID: "Fix the tests and deploy",
        build.FORK_ID: "Faster tests",
    }  # newest wins
    paged = str(FIXTURES / PAGED)
    assert thread_name(paged, lineage(analysis_of(PAGED)).identity) == "Fix the tests and deploy"
    assert thread_name(str(FIXTURES / ORPHAN), lineage(analysis_of(ORPHAN)).identity) is None
    # a rollout outside a sessions tree: the Codex home given, else $CODEX_HOME
    alone = tmp_path / "rollout-alone.jsonl"
    alone.write_text(fixture(PAGED))
    home = tmp_path / "home"
    home.mkdir()
    (home / "session_index.jsonl").write_text(
        json.dumps({"id": build.PAGED_ID, "thread_name": "Given", "updated_at": "2026-09-02T00:00:00Z"}) + "\n"
    )
    identity = lineage(analysis_of(PAGED)).identity
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert thread_name(str(alone), identity) is None
    assert thread_name(str(alone), identity, str(home)) == "Given"
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert thread_name(str(alone), identity) == "Given"


def test_a_compacted_record_is_summarised_not_kept():
    analysis = analysis_of("rollout-compacted.jsonl")
    summary = analysis.records[3].compacted
    assert summary.sentence() == (
        "replacement history: 4 items (3 message, 1 compaction); the record is "
        f"{len(fixture('rollout-compacted.jsonl').splitlines()[3]):,} characters, 1 image "
        f"of {len(build._IMAGE):,} characters; context window 2"
    )
    kept = analysis.records[3].record.item
    assert "replacement_history" not in kept and kept["window_number"] == 2
    assert (
        run_cli("outline", "fixtures/rollout-compacted.jsonl")
        .stdout.splitlines()[3]
        .startswith("    compacted (line 4): replacement history: 4 items (3 message, 1 compaction)")
    )


def test_a_large_compacted_record_is_read_once_and_not_searched_for_secrets():
    image = "data:image/png;base64," + "QUJD" * (LARGE_LINE // 4 + 10)
    secret = "sk-proj-" + "FAKEfake0123456789" * 2
    record = json.dumps(
        {
            "timestamp": build.T0,
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"key {secret}"}]},
                    {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": image}]},
                ],
            },
        },
        separators=(",", ":"),
    )
    analysis = analyze_text(
        fixture("rollout-compacted.jsonl").replace(fixture("rollout-compacted.jsonl").splitlines()[3], record)
    )
    summary = analysis.records[3].compacted
    assert (summary.items, summary.images, summary.image_chars) == (2, 1, len(image))
    assert [f.code for f in analysis.findings] == []  # the secret is in the history: reported where it was said


def test_search_names_the_thread(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "sessions" / "2026" / "09", home / "sessions" / "2026" / "09")
    shutil.copy(FIXTURES / "session_index.jsonl", home / "session_index.jsonl")
    db = str(tmp_path / "index.sqlite3")
    assert run_cli("index", str(home / "sessions"), "--db", db).returncode == 0
    hits = json.loads(run_cli("search", "--json", "npm test --", "--db", db).stdout)
    assert [(h["session_id"], h["thread_name"]) for h in hits] == [
        (build.FORK_ID, "Faster tests"),
        (build.ORPHAN_ID, None),
    ]
    text = run_cli("search", "npm test --", "--db", db).stdout.splitlines()
    assert f'session {build.FORK_ID} "Faster tests"' in text[0] and f"session {build.ORPHAN_ID}," in text[1]
