"""Codex 0.158 to 0.169 (issue 33): a v2 subagent tree read from its session_meta lines, usage records counted once
per (thread, response) and for the thread they name, response_item metadata, world_state, turn events; and the
envelope-less files of Codex before 0.58, and statuses that follow the last word.  Fixtures: fixtures/build.py."""

from __future__ import annotations

import json

from analysis.reports.export import export
from analysis.session.rollout import analyze_text
from analysis.session.usage import TokenUsage, session_usage
from fixtures import build
from tests.helpers import FIXTURES, fixture, run_cli

ROOT = build.SESSIONS_11 + f"rollout-2026-11-01T10-00-00-{build.ROOT_ID}.jsonl"
KID = build.SESSIONS_11 + f"rollout-2026-11-01T10-00-05-{build.KID_ID}.jsonl"
GRANDKID = build.SESSIONS_11 + f"rollout-2026-11-01T10-00-09-{build.GRANDKID_ID}.jsonl"
LEGACY = f"rollout-2025-08-12T09-14-03-{build.LEGACY_ID}.jsonl"
STATUSES = "rollout-statuses.jsonl"


def outline(name: str) -> str:
    done = run_cli("outline", str(FIXTURES / name))
    assert done.returncode == 0, done.stderr
    return done.stdout.replace(str(FIXTURES) + "/", "")


def outline_json(name: str) -> dict:
    done = run_cli("outline", "--json", str(FIXTURES / name))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_outline_labels_the_child_its_path_and_its_parent():
    assert outline(KID).splitlines()[:7] == [
        KID,
        "  agent: Hypatia (reviewer)",
        "  agent path: /root/review_retry",
        "  depth: 1",
        f"  subagent of: session {build.ROOT_ID} (root thread, path /root)",
        "  session: 1 call, 0 failed",
        "  turn 1 (line 2): Retry the review  [9 s, first token after 0.4 s]",  # not the inherited prompt
    ]
    assert outline(GRANDKID).splitlines()[1:8] == [
        "  agent: Euclid (linter)",
        "  agent path: /root/review_retry/lint",
        "  depth: 2",
        f"  subagent of: session {build.KID_ID} (Hypatia, path /root/review_retry)",  # the parent's name, read there
        f"  session tree: root session {build.ROOT_ID}",
        "  session: 0 calls, 0 failed",
        "  turn 1 (line 2): Lint the patch  [2 s, first token after 0.3 s]",
    ]


def test_the_root_keeps_its_turn_events_and_no_record_is_unknown():
    assert outline(ROOT).splitlines()[1:] == [
        "  session: 1 call, 0 failed",
        "  turn 1 (line 2): Review the patch  [30 s, first token after 0.8 s]",
        "    line 6: multi_agent_v2__spawn_agent call_spawn11  [completed]",
        "      └─ multi_agent_v2 · spawn_agent: review_retry",
        "  turn 2 (line 12): Stop  [interrupted (replaced) · 1.2 s]",
    ]
    for name in (ROOT, KID, GRANDKID, LEGACY, STATUSES):
        done = run_cli("check", str(FIXTURES / name))
        assert (done.returncode, done.stdout) == (0, ""), name


def test_outline_json_has_a_session_section_for_a_tree_member():
    out = outline_json(GRANDKID)
    assert list(out) == ["file", "turns", "records", "calls", "files", "diagnostics", "session"]
    session = out["session"]
    assert {k: v for k, v in session.items() if k not in ("parent", "usage")} == {
        "id": build.GRANDKID_ID,
        "session_id": build.ROOT_ID,
        "agent": {"nickname": "Euclid", "role": "linter", "path": "/root/review_retry/lint", "depth": 2},
        "forked_from_id": None,
        "thread_source": "subagent",
        "multi_agent_version": "v2",
        "cli_version": "0.169.0",
    }
    assert session["parent"] == {
        "id": build.KID_ID,
        "nickname": "Hypatia",
        "path": "/root/review_retry",
        "root": False,
        "file": str(FIXTURES / KID),
    }
    usage = session["usage"]
    assert (usage["own"]["total"], usage["requests"], usage["elsewhere"]) == (
        330,
        1,
        {build.KID_ID: TokenUsage(2000, 500, 200, 50, 2200).to_json()},
    )
    assert "session" not in outline_json("rollout-demo.jsonl")  # not a tree member: the outline as before


def test_usage_records_count_once_for_the_thread_they_name():
    own = {name: session_usage(analyze_text(fixture(name))) for name in (ROOT, KID, GRANDKID)}
    assert [u.own.total for u in own.values()] == [1100, 2200, 330]  # the hand sums
    assert [u.requests for u in own.values()] == [1, 1, 1]
    kid = own[KID]
    assert {t: u.total for t, u in kid.elsewhere.items()} == {build.ROOT_ID: 1100}
    assert [(r.line, r.for_other, r.new) for r in kid.records] == [(5, True, True), (6, False, True), (7, False, False)]
    [response] = kid.responses  # the public per-response list, with who answered
    assert (response.response_id, response.thread_id, response.usage.total) == ("resp_kid1", build.KID_ID, 2200)
    assert (response.attribution.model, response.attribution.provider, response.attribution.service_tier) == (
        "gpt-5.6-sol",
        "openai",
        "priority",
    )
    assert kid.window == 258400 and kid.context == 2200
    census = run_cli("census", str(FIXTURES / build.SESSIONS_11))
    assert "  total                                      3630\n" in census.stdout


def test_messages_marked_inherited_delivered_or_compaction_never_title_a_turn():
    analysis = analyze_text(fixture(KID))
    assert [analysis.records[n].delivery for n in (2, 8, 9, 10)] == [
        "inherited",
        "incomplete: stream cut after 2 lines",
        "client authored",
        "compaction output",
    ]
    assert [t.title for t in analysis.turns] == ["Retry the review"]
    root = analyze_text(fixture(ROOT))
    full, patch = root.records[3].world_state, root.records[9].world_state
    assert (full.full, full.keys, patch.full, patch.keys) == (True, ("files", "env"), False, ("files",))
    assert full.words() == "full snapshot of files, env · 1.6 kB"
    assert root.records[3].record.item == {"full": True}  # the state itself is not kept


def test_export_never_puts_the_childs_name_after_the_parents_id():
    out = export(analyze_text(fixture(GRANDKID)), str(FIXTURES / GRANDKID), "md")
    assert (
        "- **agent**: Euclid (linter)\n- **agent path**: /root/review\\_retry/lint\n- **depth**: 2\n"
        f"- **subagent of**: session {build.KID_ID} (Hypatia, path /root/review\\_retry)\n"
        f"- **session tree**: root session {build.ROOT_ID}\n"
    ) in out


def test_an_envelope_less_file_reads_as_any_later_one():
    assert outline(LEGACY).splitlines()[1:] == [
        "  session: 2 calls, 1 failed (first: line 9, exit 1)",
        "  turn 1 (line 3): List the files  [1 failed]",
        "    line 7: shell call_l1  [completed, 0.1 s]",
        "      └─ shell: bash -lc ls  in /home/u/r",
        "    line 9: shell call_l2  [exit 1, 0 s]",
        "      └─ shell: bash -lc false",
    ]
    analysis = analyze_text(fixture(LEGACY))
    assert analysis.is_rollout and analysis.session_id == build.LEGACY_ID
    assert [f.code for f in analysis.findings] == []
    census = run_cli("census", str(FIXTURES / "legacy"))  # a name no rollout pattern matches: read by its content
    assert census.stdout.startswith("rollouts                                     1\nlines                 ")
    assert "literal commands                             2\n" in census.stdout


def test_an_index_counts_an_envelope_less_file(tmp_path):
    db = tmp_path / "index.sqlite"
    done = run_cli("index", "--db", str(db), str(FIXTURES / "legacy"))
    assert done.returncode == 0, done.stderr
    found = run_cli("search", "--db", str(db), "bash -lc false")
    assert "owner__repo__rollout-2025-08-12T09-14-03" in found.stdout


def test_statuses_follow_the_last_word():
    calls = outline_json(STATUSES)["calls"]
    rows = [(c["line"] + 1, c["call_id"], c["outcome"], c["output"]["status"], c["output"]["exit_code"]) for c in calls]
    failure = (
        "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"
    )
    assert rows == [
        (4, "cA", "exit 1", "completed", 1),  # its own exec_command_end, after a running write_stdin
        (6, "wA", "running", "running", None),
        (9, "cB", None, "completed", 0),  # running, then its end event
        (12, "cC", f"running; {failure}", "running", None),  # a failed write says only that writing failed
        (14, "wC", "write failed", "write_failed", None),
        (16, "cD", None, "completed", 0),  # an end event, then a later output: the output
        (19, "wD", None, "completed", 0),
        (21, "cE", "exit 1", "completed", 1),  # the end event names the write_stdin's call id
        (23, "wE", "exit 1", "completed", 1),
    ]
    assert calls[3]["output"]["write_error"] == failure


def test_an_end_event_far_below_its_command_still_ends_it_in_the_streamed_outline(tmp_path):
    lines = fixture(STATUSES).splitlines()
    filler = [
        json.dumps({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": []}})
    ] * 3000  # far more lines than the stream's window margin between the output and the end event
    path = tmp_path / "rollout-far.jsonl"
    path.write_text("\n".join(lines[:10] + filler + lines[10:]) + "\n")
    done = run_cli("outline", "--json", str(path))
    calls = json.loads(done.stdout)["calls"]
    assert [(c["call_id"], c["output"]["status"], c["output"]["exit_code"]) for c in calls[:3]] == [
        ("cA", "completed", 1),
        ("wA", "running", None),
        ("cB", "completed", 0),
    ]
