"""The whole session on our own fixtures: usage per record, turn and session; a subagent's inherited
history; links between sessions; unknown record types; export to Markdown and HTML."""

from __future__ import annotations

import json

from analysis.reports.export import ExportOptions, build_document, export
from analysis.session.lineage import find_session_file, lineage, search_roots
from analysis.session.rollout import analyze_text
from analysis.session.usage import TokenUsage, session_usage
from fixtures import build
from tests.helpers import FIXTURES, fixture, range_text, run_cli

PARENT = build.SESSIONS + f"rollout-2026-07-20T10-00-00-{build.PARENT_ID}.jsonl"
CHILD = build.SESSIONS + f"rollout-2026-07-20T10-00-10-{build.CHILD_ID}.jsonl"


def usage(d: dict) -> TokenUsage:
    return TokenUsage(
        d["input_tokens"], d["cached_input_tokens"], d["output_tokens"], d["reasoning_output_tokens"], d["total_tokens"]
    )


A, B, P2, C1, C2 = (usage(u) for u in (build.USAGE_A, build.USAGE_B, build.USAGE_P2, build.USAGE_C1, build.USAGE_C2))


def test_each_response_counts_once_and_a_repeated_total_adds_nothing():
    analysis = analyze_text(fixture(PARENT))
    result = session_usage(analysis)
    assert [(r.line, r.new, r.counted) for r in result.records] == [
        (4, True, A),
        (8, True, B),
        (9, False, TokenUsage()),
        (19, True, P2),
    ]
    assert result.own == A + B + P2 and result.requests == 3
    assert result.inherited == TokenUsage()
    assert result.reported == A + B + P2
    assert [line for line in (r.line for r in result.limits)] == [16]  # info null: rate limits only
    assert result.rate_limits == {
        "primary": {"used_percent": 15.0, "window_minutes": 300},
        "secondary": {"used_percent": 3.0, "window_minutes": 10080},
    }


def test_usage_per_turn_and_the_context_it_ended_with():
    analysis = analyze_text(fixture(PARENT))
    turns = session_usage(analysis).turns
    # one usage per turn, whichever record a turn starts at (its task_started, or the user's message)
    assert [(t.line, t.end_line) for t in turns] == [(t.line, t.end_line) for t in analysis.turns]
    assert [(t.usage, t.requests, t.context, t.window) for t in turns] == [
        (A + B, 2, B.total, 258400),
        (P2, 1, P2.total, 258400),
    ]
    assert round(turns[1].context_share, 4) == round(15250 / 258400, 4)


def test_a_subagent_counts_only_its_own_usage():
    analysis = analyze_text(fixture(CHILD))
    result = session_usage(analysis)
    assert result.own == C1 + C2 and result.requests == 2
    assert result.inherited == A + B  # the parent's, replayed
    assert result.reported == A + B + C1 + C2  # Codex's running total includes the inherited usage
    assert [(r.line, r.inherited) for r in result.records] == [(5, True), (6, True), (12, False), (13, False)]


def test_the_inherited_history_of_a_subagent():
    analysis = analyze_text(fixture(CHILD))
    facts = lineage(analysis)
    ident = facts.identity
    assert (ident.id, ident.parent, ident.forked_from, ident.nickname, ident.role, ident.depth) == (
        build.CHILD_ID,
        build.PARENT_ID,
        build.PARENT_ID,
        "Ada",
        "explorer",
        1,
    )
    region = facts.inherited
    assert (region.start, region.end, region.session_id, region.turns) == (1, 6, build.PARENT_ID, 1)
    assert region.label() == f"inherited from session {build.PARENT_ID}"
    assert analysis.lines[region.end + 1].find('"task_started"') > 0  # its own first turn starts right after
    assert facts.links_at(0) == [build.PARENT_ID]
    assert facts.links_at(1) == [build.PARENT_ID]  # the replayed session_meta of the parent


def test_a_resumed_session_is_not_an_inheritance():
    facts = lineage(analyze_text(fixture(PARENT)))
    assert facts.inherited is None
    assert facts.resumes == [14]


def test_spawn_agent_names_its_child_and_the_child_is_found():
    facts = lineage(analyze_text(fixture(PARENT)))
    assert [(s.line, s.call_id, s.task, s.child, s.child_line) for s in facts.spawns] == [
        (5, "call_spawn1", "timer_audit", build.CHILD_ID, 6)
    ]
    assert facts.links_at(5) == [build.CHILD_ID] and facts.links_at(6) == [build.CHILD_ID]
    roots = search_roots(str(FIXTURES / PARENT))
    # fixtures/sessions is a sessions tree: the Codex home is fixtures/, wherever CODEX_HOME pointed
    assert roots == [str(FIXTURES / "sessions"), str(FIXTURES / "archived_sessions")]
    assert find_session_file(build.CHILD_ID, roots) == str(FIXTURES / CHILD)
    assert find_session_file(build.PARENT_ID, roots, exclude=str(FIXTURES / PARENT)) is None
    assert find_session_file("*", roots) is None


def test_sessions_folder_of_codex_is_searched_whole(tmp_path):
    day = tmp_path / ".codex" / "sessions" / "2026" / "07" / "20"
    day.mkdir(parents=True)
    assert search_roots(str(day / "rollout-x.jsonl"), ["/work"]) == [
        str(tmp_path / ".codex" / "sessions"),
        str(tmp_path / ".codex" / "archived_sessions"),
        "/work",
    ]


def test_unknown_record_types_get_one_finding_per_type():
    text = fixture(PARENT)
    analysis = analyze_text(text)
    found = [f for f in analysis.findings if f.code == "unknown-record"]
    assert [(f.span.line, f.severity.label, f.message) for f in found] == [
        (
            10,
            "information",
            "record type event_msg/frobnicated is unknown to this version of rollout-lsp "
            "(2 records in this file): listed, not read",
        ),
        (
            18,
            "information",
            "record type future_record is unknown to this version of rollout-lsp "
            "(1 record in this file): listed, not read",
        ),
    ]
    line = text.split("\n")[10]
    assert line[found[0].span.start : found[0].span.end] == '"frobnicated"'
    line = text.split("\n")[18]
    assert line[found[1].span.start : found[1].span.end] == '"future_record"'


def test_known_types_that_are_skipped_are_not_unknown():
    analysis = analyze_text(fixture("rollout-demo.jsonl"))
    assert [f for f in analysis.findings if f.code == "unknown-record"] == []


def test_export_markdown_follows_the_session():
    out = export(analyze_text(fixture(CHILD)), CHILD, "md")
    assert out.startswith(f"# Codex session {build.CHILD_ID}\n\n- **file**: {CHILD}\n")
    # the child's own name, its path and its parent each under its own label: "Ada" is never put after the
    # parent's id (it is the child's name)
    assert (
        "- **agent**: Ada (explorer)\n- **agent path**: /root/timer\\_audit\n- **depth**: 1\n"
        f"- **subagent of**: session {build.PARENT_ID} (root thread, path /root)\n"
    ) in out
    assert (
        f"> Lines 2–7 replay the history of session {build.PARENT_ID} (1 turn); it is not repeated here, "
        "and its 22,800 tokens count for that session." in out
    )  # a note, not a copy
    assert "Audit the timers" not in out
    analysis = analyze_text(fixture(CHILD))
    own = analysis.turns[-1]  # the subagent's own turn: the one before it is the parent's, replayed
    assert (
        f"## Turn {len(analysis.turns)} (line {own.line + 1})\n\n> Look at the timers\n\n*Usage: in 41k "
        "(cached 29k) · out 1.1k (reasoning 400) · context 8% of 258.4k*" in out
    )
    assert "- exec\\_command: grep -rn setInterval src\n\n  ```sh\n  grep -rn setInterval src\n  ```" in out
    assert "Output:\n\n```text\n[exit 0]\nsrc/clock.js:3: setInterval(tick, 1000)\n```" in out


def test_export_marks_failures_and_lists_the_files_changed():
    out = export(analyze_text(fixture("rollout-demo.jsonl")), "demo", "md")
    assert "- **Codex version**: 0.157.1\n" in out  # a version is no ordered list: no escaped dot
    assert "- **calls**: 5, 1 failed (first: line 5, exit 1)\n" in out
    # one turn changed the file: listed once, in the turn (no session list repeating it)
    assert out.count("- src/greet.py: updated (line 7)\n") == 1 and "**Files changed** (" not in out
    assert "**Files changed in this turn** (1):\n\n- src/greet.py: updated (line 7)\n" in out
    assert "## Turn 1 (line 3) · 1 failed (first: line 5, exit 1)\n" in out
    assert "- \\[exit 1\\] exec\\_command: pytest -q tests/test\\_greet.py — *in /home/u/proj*\n" in out
    assert "### `[no output] exec` (line 9) · no output\n" in out
    page = export(analyze_text(fixture("rollout-demo.jsonl")), "demo", "html")
    assert "break-all" not in page and "overflow-wrap: anywhere" in page  # words break only where they must
    assert '<h2>Turn 1 (line 3) <span class="failed">1 failed (first: line 5, exit 1)</span></h2>' in page


def test_export_shows_every_chunk_of_a_continued_process():
    document = build_document(analyze_text(fixture("rollout-records.jsonl")), "r")
    [part] = [p for t in document.turns for p in t.parts if getattr(p, "line", None) == 8 and hasattr(p, "entries")]
    assert (part.name, part.status) == (
        "[interrupted (exit 130)] exec_command",
        "interrupted (exit 130) · 6.2 s · after 2 write_stdin calls",
    )
    assert part.output == "..\n^C"  # each chunk's output, its header left out


def test_export_markdown_shows_transcript_text_as_text():
    text = fixture("rollout-demo.jsonl").replace(
        "Fix the failing greeting test", "1. see [this](http://e.x) <b>now</b>\\n# not a heading"
    )
    out = export(analyze_text(text), "demo", "md")
    assert "> 1\\. see \\[this\\](http://e.x) \\<b\\>now\\</b\\>\n> \\# not a heading\n" in out


def test_export_patches_as_diffs_and_outputs_trimmed():
    document = build_document(analyze_text(fixture("rollout-demo.jsonl")), "demo", ExportOptions(output_lines=1))
    parts = [p for t in document.turns for p in t.parts if hasattr(p, "entries")]
    patch = parts[1].entries[0]
    assert (patch.title, patch.language) == ("apply_patch: update src/greet.py", "diff")
    assert patch.body.startswith('*** Begin Patch\n*** Update File: src/greet.py\n@@\n-    return "hello"')
    assert parts[0].output == "[exit 1]\n… (2 more lines)"
    assert [e.note for e in parts[2].entries] == [
        "computed from a list: `git diff --stat -- ${f}`",
        "never runs: it is in dead code",
    ]


def test_export_redacts_secrets_unless_asked_not_to():
    analysis = analyze_text(fixture("rollout-secrets.jsonl"))
    for fmt in ("md", "html"):
        redacted = export(analysis, "s", fmt)
        kept = export(analysis, "s", fmt, ExportOptions(redact=False))
        assert "ghp_" in redacted and "AKIA" in redacted  # the prefix that names the kind stays
        for secret in ("FAKE", "sk-proj", "MIIE"):
            assert secret not in redacted, (fmt, secret)
        assert "FAKE" in kept


def test_export_html_is_escaped_self_contained_and_collapsible():
    text = fixture("rollout-demo.jsonl").replace(
        "Fix the failing greeting test", "Fix <script>alert(1)</script> & the test"
    )
    out = export(analyze_text(text), "demo", "html")
    assert out.startswith("<!DOCTYPE html>")
    assert "<script" not in out and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; the test" in out
    assert "src=" not in out and "href=" not in out and "@import" not in out and "url(" not in out
    assert out.count("<details><summary>output</summary>") == 2
    assert '<span class="add">+    return &quot;Hello&quot;</span>' in out


def test_export_command_line(tmp_path):
    target = tmp_path / "out.html"
    result = run_cli("export", "--format", "html", "-o", str(target), "fixtures/rollout-demo.jsonl")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    md = run_cli("export", "fixtures/rollout-demo.jsonl")
    assert md.returncode == 0 and md.stdout.startswith("# Codex session")
    missing = run_cli("export", "fixtures/no-such.jsonl")
    assert missing.returncode == 2 and missing.stderr.startswith("rollout-lsp: cannot read fixtures/no-such.jsonl")


def test_census_token_totals_and_unknown_types(tmp_path):
    out = json.loads(run_cli("census", "--json", "--jobs", "1", "fixtures/sessions/2026/07/20").stdout)
    own = A + B + P2 + C1 + C2
    assert out["tokens"] == {
        "input": own.input,
        "cached": own.cached,
        "output": own.output,
        "reasoning": own.reasoning,
        "total": own.total,
        "inherited_total": (A + B).total,
        "reported_total": (A + B + P2).total + (A + B + C1 + C2).total,
        "sessions_with_usage": 2,
        "cache_write": 0,
    }
    assert out["unknown_types_by_cli_version"] == {"0.157.1": {"event_msg/frobnicated": 2, "future_record": 1}}


def test_range_of_unknown_record_in_outline_json():
    out = json.loads(run_cli("outline", "--json", PARENT.join(["fixtures/", ""])).stdout)
    found = [d for d in out["diagnostics"] if d["code"] == "unknown-record"]
    assert [range_text(fixture(PARENT), d["range"]) for d in found] == ['"frobnicated"', '"future_record"']
