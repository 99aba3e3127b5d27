"""The whole session on the wild corpus (../shared/corpus/wild): usage counted once, forks and subagents
with their inherited history, spawned agents found in the same corpus, unknown record types by version,
export of real sessions."""

from __future__ import annotations

import json
import re

import pytest

from analysis.jsonl.source import load, rollout_files
from analysis.reports.export import export
from analysis.session.lineage import find_session_file, lineage, search_roots
from analysis.session.rollout import analyze_text
from analysis.session.usage import TokenUsage, session_usage
from tests.helpers import SHARED, run_cli

WILD = SHARED / "corpus" / "wild"
PARENT = "doudouqie66__CommonTools__rollout-2026-07-11T10-22-29-019f4efb-ae76-7e30-b44e-3fa464c16193.jsonl"
SUBAGENT = "doudouqie66__CommonTools__rollout-2026-07-11T10-24-23-019f4efd-69cb-70d1-9b5a-1941180791a6.jsonl"
OTHER_SUBAGENT = "LAF-US__IDAHO-VAULT__rollout-2026-04-15T11-58-23-019d924b-53f5-78f1-a0d4-69aa13191f54.jsonl"
RESUMED = "doudouqie66__CommonTools__rollout-2026-06-15T12-35-19-019ec98f-f005-7dc2-bf71-e0692a8fe28d.jsonl"
RESTARTED = "tvvshow__gokao__rollout-2025-12-25T06-56-06-019b5293-a6da-70d1-95f9-95bdb1810b75.jsonl"


def analysis_of(name: str):
    return analyze_text(load(str(WILD / name)).text)


def test_a_subagent_replays_its_parents_history_and_counts_its_own_usage():
    analysis = analysis_of(SUBAGENT)
    facts = lineage(analysis)
    ident = facts.identity
    assert (ident.id, ident.parent, ident.forked_from, ident.nickname, ident.depth) == (
        "019f4efd-69cb-70d1-9b5a-1941180791a6",
        "019f4efb-ae76-7e30-b44e-3fa464c16193",
        "019f4efb-ae76-7e30-b44e-3fa464c16193",
        "Heisenberg",
        1,
    )
    region = facts.inherited
    # line 2 is the parent's session_meta; line 18 the task_started of the subagent's own first turn
    assert (region.start + 1, region.end + 1, region.session_id) == (2, 17, "019f4efb-ae76-7e30-b44e-3fa464c16193")
    assert '"type":"task_started"' in analysis.lines[region.end + 1].replace(" ", "")
    usage = session_usage(analysis)
    assert usage.inherited == TokenUsage(42074, 33024, 689, 170, 42763)  # the parent's first three responses
    assert usage.own == TokenUsage(2089019, 1948416, 6242, 2382, 2095261)
    assert usage.reported.total == usage.own.total + usage.inherited.total == 2138024
    assert (usage.requests, usage.context, usage.window) == (25, 137084, 353400)


def test_another_subagent_of_another_version():
    analysis = analysis_of(OTHER_SUBAGENT)
    region = lineage(analysis).inherited
    assert (region.start + 1, region.end + 1, region.session_id) == (2, 18, "019d9249-e0ee-7020-a305-b6369cd02251")
    usage = session_usage(analysis)
    # line 24 repeats the running total of line 18 at the start of the subagent's turn: it adds nothing
    assert [r.new for r in usage.records if r.line + 1 in (18, 24)] == [True, False]
    assert usage.inherited.total == 237037 and usage.own.total == 706026
    assert usage.reported.total == 943063


def test_resumes_replay_nothing_and_restarts_keep_counting():
    resumed = analysis_of(RESUMED)
    facts = lineage(resumed)
    assert facts.inherited is None and len(facts.resumes) == 18 and facts.resumes[0] + 1 == 53
    assert session_usage(resumed).own == session_usage(resumed).reported  # nothing counted twice
    restarted = session_usage(analysis_of(RESTARTED))
    # the running total falls from 47.8M to 81k on the last line (a new process): that response still counts
    assert restarted.reported.total == 81151
    assert restarted.own.total == 48007411 and restarted.records[-1].new


def test_spawn_agent_calls_name_their_threads_and_the_subagent_is_found_beside_its_parent():
    analysis = analysis_of(PARENT)
    facts = lineage(analysis)
    assert [(s.line + 1, s.task, s.child) for s in facts.spawns] == [
        (18, "timer_audit", "019f4efd-0137-7790-9622-c175e1415048"),
        (22, "rpc_audit", "019f4efd-37a3-7730-acde-568b9592cea0"),
        (26, "lifecycle_audit", "019f4efd-69cb-70d1-9b5a-1941180791a6"),
    ]
    roots = search_roots(str(WILD / PARENT))
    assert find_session_file(facts.spawns[2].child, roots) == str((WILD / SUBAGENT).resolve())
    assert find_session_file(facts.spawns[0].child, roots) is None  # not in the corpus
    child = lineage(analysis_of(SUBAGENT)).identity
    assert find_session_file(child.parent, search_roots(str(WILD / SUBAGENT)), exclude=str(WILD / SUBAGENT)) == str(
        (WILD / PARENT).resolve()  # found by its real path, as above (../shared may be a link)
    )


def test_session_meta_lines_of_the_corpus():
    """207 session_meta lines in 58 files: a few forks' replayed parents, the rest resumes."""
    files = [p for p in rollout_files([str(WILD)])]
    metas = inherited = resumes = 0
    for path in files:
        facts = lineage(analyze_text(load(path).text))
        metas += len(facts.metas)
        inherited += facts.inherited is not None
        resumes += len(facts.resumes)
    assert (len(files), metas, inherited, resumes) == (58, 209, 2, 149)


def test_no_unknown_record_type_in_the_corpus():
    """Every record type of the corpus is known (thread_settings_applied, 0.144 to 0.146, was the last)."""
    out = json.loads(run_cli("census", "--json", "--jobs", "1", str(WILD)).stdout)
    assert out["unknown_types_by_cli_version"] == {}
    assert "unknown-record" not in out["findings_by_code"]
    assert out["tokens"]["total"] == 266237432 and out["tokens"]["inherited_total"] == 279800
    name = "doudouqie66__CommonTools__rollout-2026-07-10T20-37-56-019f4c08-c7e9-71d3-8898-dc4df991d60e.jsonl"
    analysis = analysis_of(name)
    assert [f for f in analysis.findings if f.code == "unknown-record"] == []
    assert analysis.records[36].settings is not None and analysis.records[36].settings.model == "gpt-5.6-terra"


def test_how_the_turns_of_the_corpus_ended():
    """16 turn_aborted events (11 turns left interrupted, 5 taken back by the thread_rolled_back after them),
    6 thread_rolled_back of one turn each, 2 turns failed with an error event (codex_error_info "other")."""
    statuses: dict = {}
    failed = []
    for path in sorted(WILD.glob("*.jsonl")):
        analysis = analyze_text(load(str(path)).text)
        for turn in analysis.turns:
            statuses[turn.status] = statuses.get(turn.status, 0) + 1
            if turn.status == "failed":
                failed.append((turn.line + 1, turn.title, turn.error_info, turn.error))
    assert statuses == {"completed": 304, None: 104, "interrupted": 11, "rolled_back": 6, "failed": 2}
    assert failed == [
        (
            2,
            "Good evening, traveler",
            "other",
            "registry.ollama.ai/library/mistral:7b-instruct-q4_K_M does not support tools",
        ),
        (18, "Hello?", "other", "registry.ollama.ai/library/mistral:7b-instruct-q4_K_M does not support tools"),
    ]


@pytest.mark.parametrize(
    "name",
    [SUBAGENT, "seokhyeonhong__motion-jepa__rollout-2026-08-01T07-19-28-019fba42-ce37-78e1-a43b-ca31d6ad2dbe.jsonl"],
)
def test_export_of_real_sessions(name):
    analysis = analysis_of(name)
    md = export(analysis, name, "md")
    html = export(analysis, name, "html")
    assert md.startswith("# Codex session ") and html.startswith("<!DOCTYPE html>")
    tags = re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", html)  # transcript text is escaped: only our own tags remain
    assert set(tags) <= {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "h1",
        "h2",
        "h3",
        "dl",
        "dt",
        "dd",
        "p",
        "section",
        "blockquote",
        "span",
        "strong",
        "br",
        "code",
        "ul",
        "li",
        "pre",
        "details",
        "summary",
    }
    assert not re.search(r"<[^>]*\s(src|href)=", html)
    calls = sum(1 for r in analysis.records if r.is_call)
    inherited = lineage(analysis).inherited
    own_calls = sum(
        1
        for n, r in enumerate(analysis.records)
        if r.is_call and not (inherited and inherited.start <= n <= inherited.end)
    )
    assert md.count("\n### `") == own_calls <= calls
    assert html.count("<h3><code>") == own_calls
