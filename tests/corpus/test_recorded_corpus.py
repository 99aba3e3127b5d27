"""The real recorded Codex 0.157 rollouts, pinned record by record as ../shared/corpus/recorded/SOURCE.md says."""

from analysis import analyze_text
from analysis.reports.report import outline_json
from tests.helpers import corpus, json_escaped, range_text

WORKTREE = "/Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/review-cxh55-b"


def analysis_of(name):
    text = corpus(name)
    return text, analyze_text(text), outline_json(name, analyze_text(text))


def test_slice_of_a_0_157_rollout():
    text, analysis, out = analysis_of("codex-0.157-custom-calls.jsonl")
    kinds = [r.kind for r in analysis.records if r.kind != "blank"]
    assert kinds == [
        "message",
        "message",
        "custom_tool_call",
        "custom_tool_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "message",
    ]
    assert analysis.calls_on(2) == []  # line 3: ALL_TOOLS.filter, no tool call
    calls = [
        (c["line"] + 1, c["tool"], c["kind"], c["command"], c["workdir"], c["computed"], c["executed"])
        for c in out["calls"]
    ]
    assert calls == [
        (4, "exec_command", "command", None, WORKTREE, True, "unknown"),  # its script has no output
        # each runs whenever its script runs, and its script completed: they ran
        (5, "apply_patch", "patch", None, None, False, "yes"),
        (7, "exec_command", "command", "git checkout -- src/CodexHeadless.ts", WORKTREE, False, "yes"),
        (
            7,
            "exec_command",
            "command",
            "rg -n 'snapshotPlain\\(' src/terminal/HeadlessTerminal.ts",
            WORKTREE,
            False,
            "yes",
        ),
        (9, "exec_command", "command", "rm node_modules", WORKTREE, False, "yes"),
    ]
    assert out["calls"][0]["expansion"] == [
        "cat README.md",
        "git diff 5db3b93..b575fdd -- src/terminal/HeadlessTerminal.ts API.md",
        "sed -n '1,210p' src/parsers/ComposerState.recorded.test.ts",
        "sed -n '1,140p' src/CodexHeadless.settledScreen.test.ts",
        "ls -ld node_modules",
    ]
    assert out["calls"][1]["files"] == [
        {"action": "update", "path": WORKTREE + "/src/CodexHeadless.ts", "move_to": None}
    ]
    assert out["calls"][1]["output"] == {"status": "completed", "exit_code": None, "wall_time": 0.1, "line": 5}
    assert analysis.records[5].output.texts == ("{}",)
    assert analysis.records[7].output.exit_codes == [0, 0]
    assert [c["output"]["status"] for c in out["calls"][2:]] == ["completed"] * 3
    assert out["calls"][4]["output"]["exit_code"] == 0
    assert range_text(text, out["calls"][2]["range"]) == json_escaped(
        f'tools.exec_command({{cmd:"git checkout -- src/CodexHeadless.ts",workdir:"{WORKTREE}"}})'
    )
    assert [(d["range"]["start"]["line"] + 1, d["code"]) for d in out["diagnostics"]] == [
        (3, "unpaired-call"),
        (4, "unpaired-call"),
        (4, "expanded-command"),
    ]  # its 5 commands are known
    assert range_text(text, out["diagnostics"][0]["range"]) == '"call_FLWoy52jdAoWyfuwHRn0Bb2Z"'


def test_custom_call_forms():
    text, analysis, out = analysis_of("codex-custom-call-forms.jsonl")
    root = "/Users/xxxxxxxxxxxx/Desktop/Development/agent-code/.worktrees/"
    calls = [
        (c["line"] + 1, c["record"], c["tool"], c["kind"], c["command"], c["files"], c["executed"])
        for c in out["calls"]
    ]
    assert calls == [
        (
            1,
            "custom_tool_call",
            "apply_patch",
            "patch",
            None,
            [
                {
                    "action": "update",
                    "path": root + "review-1326-c/src/renderer/src/workspace/hook/actions/session.ts",
                    "move_to": None,
                }
            ],
            "unknown",
        ),
        (
            2,
            "custom_tool_call",
            "apply_patch",
            "patch",
            None,
            [{"action": "delete", "path": "src/app/page.tsx", "move_to": None}],
            "yes",
        ),
        (
            3,
            "custom_tool_call",
            "apply_patch",
            "patch",
            None,
            [
                {
                    "action": "update",
                    "path": root + "feed-render-rewrite/testing/fixtures/feed-presentation/operation-families.json",
                    "move_to": None,
                },
                {
                    "action": "update",
                    "path": root + "feed-render-rewrite/testing/unit/scripts/renderingFixtureTools.test.ts",
                    "move_to": None,
                },
            ],
            "unknown",
        ),
        (4, "custom_tool_call", "mcp__agent_code__orchestration_wait_agents", "tool", None, [], "unknown"),
    ]
    assert analysis.calls[3].call.arguments == {
        "runId": "mail-merge-review",
        "timeoutMs": 30000,
        "maxTotalChars": 5000,
        "maxCharsPerAgent": 2200,
        "maxCharsPerMessage": 2000,
        "maxMessagesPerAgent": 2,
    }
    assert range_text(text, out["calls"][2]["range"]) == "tools.apply_patch(patch)"
    assert [d["code"] for d in out["diagnostics"]] == ["unpaired-call"] * 4


def test_patch_forms_are_the_first_two_records():
    _, _, forms = analysis_of("codex-custom-call-forms.jsonl")
    _, _, patch_forms = analysis_of("codex-custom-call-patch-forms.jsonl")
    strip = lambda calls: [{k: v for k, v in c.items() if k != "output"} for c in calls]  # noqa: E731
    assert strip(patch_forms["calls"]) == strip(forms["calls"][:2])


def test_corpus_has_no_secret_false_positives():
    for name in ("codex-0.157-custom-calls.jsonl", "codex-custom-call-forms.jsonl"):
        assert all(f.code != "secret" for f in analyze_text(corpus(name)).findings)
