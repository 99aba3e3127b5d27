"""What a reviewer reads at a glance: each call's outcome and label (analysis.session.labels), the files a
session changed (analysis.session.changes), the findings profiles (analysis.session.profiles) and the
`files` command."""

from __future__ import annotations

import json

import pytest

from analysis.jsonl.findings import COMPUTED_COMMAND, EXPANDED_COMMAND, Severity
from analysis.script.calls import COMMAND, PATCH, TOOL, ToolCall
from analysis.script.patch import PatchFile
from analysis.session.files_changed import call_touches, changed_files, relative
from analysis.session.labels import (
    call_label,
    call_outcome,
    continued_from,
    exit_outcome,
    failures,
    record_outcome,
    turn_label,
)
from analysis.session.profiles import AUTHOR, READER, default_profile, quiet_findings, severity_in
from analysis.session.rollout import analyze_text
from tests.helpers import fixture, run_cli
from tests.stream_support import streamed, whole


def tool(name: str, **arguments) -> ToolCall:
    return ToolCall(name, TOOL, 0, 1, arguments=arguments)


@pytest.mark.parametrize(
    "call, label",
    [
        (ToolCall("exec_command", COMMAND, 0, 1, command="pwd && ls"), "exec_command: pwd && ls"),
        (
            ToolCall(
                "apply_patch",
                PATCH,
                0,
                1,
                files=(PatchFile("delete", "v.py"), PatchFile("add", "v.py"), PatchFile("update", "a.py", "b.py")),
            ),
            "apply_patch: delete v.py, add v.py, update a.py → b.py",
        ),
        (
            tool("spawn_agent", task_name="timer_audit", message="gAAAAABqUak3gyKh39Kwv23o"),
            "spawn_agent: timer_audit (message encrypted)",
        ),
        (tool("spawn_agent", message="gAAAAABqUak3gyKh39Kwv23o"), "spawn_agent: message encrypted"),
        (tool("spawn_agent", message="Audit the timers\nin src/"), "spawn_agent: Audit the timers in src/"),
        (
            tool("mcp__desktop-commander__write_file", path="/mnt/d/a.txt", content="x"),
            "mcp__desktop-commander__write_file: /mnt/d/a.txt",
        ),
        (tool("mcp__docs__fetch", uri="https://x.test/a"), "mcp__docs__fetch: uri: https://x.test/a"),
        (
            tool("mcp__docs__search_openai_docs", query="codex hooks"),
            "mcp__docs__search_openai_docs: query: codex hooks",
        ),
        (
            tool("web_search", action="search", query="codex rollout format"),
            'web_search: search "codex rollout format"',
        ),
        (
            tool("web_search", action="open_page", url="https://developers.openai.com/codex/"),
            "web_search: open_page https://developers.openai.com/codex/",
        ),
        (
            tool("web_search", action="find_in_page", url="https://x.test/", pattern="archive"),
            'web_search: find_in_page "archive" in https://x.test/',
        ),
        (
            tool("web__run", search_query=[{"q": "k-skill hwp"}, {"q": "K-Skills hwp"}]),
            "web · run: search_query: k-skill hwp (+1)",
        ),
        (tool("web__run"), "web · run"),  # nothing identifies it further: the tool once, never twice
        (tool("view_image", path="/tmp/shot.png"), "view_image: /tmp/shot.png"),
        (
            tool("write_stdin", session_id=94014, chars="\u0003"),
            'write_stdin: session 94014 "\\u0003"',
        ),  # Ctrl-C, shown
        (tool("wait", cell_id="8", yield_time_ms=20000), "wait: cell 8"),
        (tool("update_plan", plan=[{"step": "a"}, {"step": "b"}]), "update_plan: 2 steps"),
    ],
)
def test_labels_name_each_call_by_what_identifies_it(call, label):
    assert call_label(call) == label


def test_exit_codes_read_as_a_reader_knows_them():
    assert [exit_outcome(c).text for c in (1, 2, 124, 130, 137, 143)] == [
        "exit 1",
        "exit 2",
        "timed out (exit 124)",
        "interrupted (exit 130)",
        "killed (exit 137)",
        "terminated (exit 143)",
    ]
    assert all(exit_outcome(c).failed for c in (1, 124, 130))


def test_outcomes_of_the_records_fixture():
    analysis = analyze_text(fixture("rollout-records.jsonl"))
    outcomes = {line + 1: o.text for line in analysis.call_records if (o := record_outcome(analysis, line))}
    assert outcomes == {9: "interrupted (exit 130)", 17: "exit 2", 50: "failed at its call", 52: "failed", 54: "exit 1"}
    # the write_stdin and wait records that carry on a call are its chunks: no outcome of their own
    assert continued_from(analysis) == {10: 8, 12: 8, 45: 43, 47: 43}
    assert failures(analysis) == [
        (8, "interrupted (exit 130)"),
        (16, "exit 2"),
        (49, "execution error: Io(NotADirectory)"),  # the script's one command says why, counted once
        (51, "failed"),
        (53, "exit 1"),
    ]
    assert turn_label(2, 38) == "turn 2 (line 39)"


def test_a_call_in_a_script_reads_its_own_outcome():
    analysis = analyze_text(fixture("rollout-demo.jsonl"))
    nested = [
        (c.line + 1, call_label(c.call), o.text if (o := call_outcome(analysis, c)) else None) for c in analysis.calls
    ]
    assert nested == [
        (5, "exec_command: pytest -q tests/test_greet.py", "exit 1"),
        (7, "apply_patch: update src/greet.py", None),
        (7, "exec_command: pytest -q", None),
        (9, "exec_command: 2 commands: git diff --stat -- README.md …", None),
        (9, "exec_command: git push --force", "dead"),
    ]


def _script_session(events: list[dict], status: str) -> str:
    """A rollout with one exec script of three commands, the events given, and its output's status."""
    script = (
        'await tools.exec_command({cmd: "make"});\nawait tools.exec_command({cmd: "make test"});\n'
        'await tools.exec_command({cmd: "make dist"});'
    )
    lines = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/p"}},
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t"}},
        {
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": script},
        },
    ]
    lines += [
        {
            "type": "event_msg",
            "payload": {
                "type": "exec_command_end",
                "command": ["/bin/bash", "-lc", cmd],
                "exit_code": code,
                "call_id": f"exec-{n}",
            },
        }
        for n, (cmd, code) in enumerate(events)
    ]
    lines.append(
        {
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call_output",
                "call_id": "c1",
                "output": f"Script {status}\nWall time 1.0 seconds\nOutput:\n",
            },
        }
    )
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_calls_after_a_script_failed_did_not_run():
    def outcomes(analysis):
        return [(call_label(c.call), o.text if (o := call_outcome(analysis, c)) else None) for c in analysis.calls]

    assert outcomes(analyze_text(_script_session([("make", 0)], "failed"))) == [
        ("exec_command: make", None),
        ("exec_command: make test", "the script failed at or before it"),
        ("exec_command: make dist", "not run: the script failed before it"),
    ]
    assert outcomes(analyze_text(_script_session([("make", 0), ("make test", 2)], "failed"))) == [
        ("exec_command: make", None),
        ("exec_command: make test", "exit 2"),
        ("exec_command: make dist", "the script failed at or before it"),
    ]
    # the same script completed: the last call is not known to have failed or not run
    analysis = analyze_text(_script_session([("make", 0), ("make test", 2)], "completed"))
    assert call_outcome(analysis, analysis.calls[2]) is None


def test_files_changed_per_call_and_per_file():
    analysis = analyze_text(fixture("rollout-events.jsonl"))
    assert [(t.path, t.action, t.line, t.index, t.applied) for t in call_touches(analysis)] == [
        ("/home/u/proj/z.py", "update", 8, 0, False),  # patch_apply_end success: false
        ("/home/u/proj/a.py", "update", 11, 0, True),  # in a script, as its event reports it
        ("/home/u/proj/docs/b.md", "add", 11, 2, True),
        ("/home/u/proj/c.py", "delete", 11, 3, True),
    ]
    assert [(f.path, f.final) for f in changed_files(analysis)] == [
        ("z.py", "not applied"),
        ("a.py", "updated"),
        ("docs/b.md", "added"),
        ("c.py", "deleted"),
    ]
    patches = analyze_text(fixture("rollout-patches.jsonl"))
    assert [(f.path, f.final) for f in changed_files(patches)][:5] == [
        ("a.py", "updated"),
        ("docs/new.md", "added"),
        ("old/b.py", "deleted"),
        ("c.py", "moved"),
        ("d.py", "moved"),
    ]
    assert (relative("/p/src/a.py", "/p"), relative("/q/a.py", "/p"), relative("a.py", "/p")) == (
        "src/a.py",
        "/q/a.py",
        "a.py",
    )
    assert relative(r"C:\Work\Proj\Script\A.lua", r"c:\work\proj") == "Script/A.lua"  # as Windows compares


def test_profiles():
    assert default_profile("/home/u/.codex/sessions/2026/07/20/rollout-x.jsonl") == READER
    assert default_profile("/home/u/.codex/archived_sessions/rollout-x.jsonl") == READER
    assert default_profile("/work/fixtures/rollout-demo.jsonl") == AUTHOR
    analysis = analyze_text(fixture("rollout-computed.jsonl"))  # every script completed
    quiet = quiet_findings(analysis.calls)
    assert [
        (f.span.line, f.code, severity_in(READER, f, quiet).label, severity_in(AUTHOR, f, quiet).label)
        for f in analysis.findings
        if f.code in (COMPUTED_COMMAND, EXPANDED_COMMAND)
    ] == [(1, "computed-command", "hint", "warning")] * 4 + [
        (2, "expanded-command", "hint", "information"),
        (2, "computed-command", "hint", "warning"),
        (3, "computed-command", "hint", "warning"),
    ]
    # a script with no output: nothing says its computed command ran, a reader is warned
    unanswered = analyze_text(
        '{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c",'
        '"name":"exec","input":"await tools.exec_command({cmd: x});"}}\n'
    )
    [finding] = [f for f in unanswered.findings if f.code == COMPUTED_COMMAND]
    assert severity_in(READER, finding, quiet_findings(unanswered.calls)) == Severity.WARNING


def test_check_takes_a_profile():
    author = run_cli("check", "--json", "--profile", "author", "fixtures/rollout-demo.jsonl")
    reader = run_cli("check", "--json", "--profile", "reader", "fixtures/rollout-demo.jsonl")

    def pick(out):
        return [
            (d["range"]["start"]["line"], d["code"], d["severity"])
            for d in json.loads(out.stdout)
            if d["code"] in (COMPUTED_COMMAND, EXPANDED_COMMAND)
        ]

    assert pick(author) == [(8, "expanded-command", "information")]
    assert pick(reader) == [(8, "expanded-command", "hint")]
    assert Severity.parse("hint") == Severity.HINT


def test_files_command():
    result = run_cli("files", "fixtures/rollout-events.jsonl", "fixtures/rollout-records.jsonl")
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "fixtures/rollout-events.jsonl (session 019f0000-0000-7000-8000-000000000001): 3 files changed, 1 not applied",
        "  turn 1 (line 2): Patch and test",
        "    z.py: not applied (line 9)",
        "    a.py: updated (line 12)",
        "    docs/b.md: added (line 12)",
        "    c.py: deleted (line 12)",
        "fixtures/rollout-records.jsonl (session 019f0000-0000-7000-8000-000000000001): 0 files changed, 2 not applied",
        "  turn 2 (line 39): Now wait for the slow build",
        "    a.py: not applied (line 52)",
        "    gone.py: not applied (line 54)",
    ]
    [session] = json.loads(run_cli("files", "--json", "fixtures/rollout-demo.jsonl").stdout)
    assert session == {
        "file": "fixtures/rollout-demo.jsonl",
        "session": "019f0000-0000-7000-8000-000000000001",
        "files": [
            {
                "path": "src/greet.py",
                "final": "updated",
                "touches": [
                    {
                        "path": "src/greet.py",
                        "action": "update",
                        "move_to": None,
                        "line": 6,
                        "index": 0,
                        "applied": True,
                    }
                ],
                "row": "updated (line 7)",
            }
        ],
        "turns": [
            {
                "turn": 1,
                "line": 2,
                "title": "Fix the failing greeting test",
                "files": [
                    {
                        "path": "src/greet.py",
                        "final": "updated",
                        "touches": [
                            {
                                "path": "src/greet.py",
                                "action": "update",
                                "move_to": None,
                                "line": 6,
                                "index": 0,
                                "applied": True,
                            }
                        ],
                        "row": "updated (line 7)",
                    }
                ],
            }
        ],
        "outside_turns": [],
    }


def _thrown_session(script: str, error: str) -> str:
    """A rollout whose one exec script failed with ``error`` as its ``Script error:`` item (as Windows
    sessions show a ``shell_command`` that exited non-zero)."""
    lines = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "C:\\\\w"}},
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t"}},
        {
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": script},
        },
        {
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call_output",
                "call_id": "c1",
                "output": [
                    {"type": "input_text", "text": "Script failed\nWall time 0.4 seconds\nOutput:\n"},
                    {"type": "input_text", "text": "Script error:\n" + error},
                ],
            },
        },
    ]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


JQ = 'const r = await tools.shell_command({"command":"jq --version","timeout_ms":10000}); text(r);\n'
NOT_FOUND = "Exit code: 1\nWall time: 0.4 seconds\nOutput:\njq : The term 'jq' is not recognized\r\n"


@pytest.mark.parametrize(
    "script, error, expected",
    [
        (JQ, NOT_FOUND, [("shell_command: jq --version", "exit 1")]),  # ../shared/corpus/wild has 12 such scripts
        (JQ, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n", [("shell_command: jq --version", None)]),
        (JQ, "TypeError: r.trim is not a function", [("shell_command: jq --version", None)]),  # the script's own error
        # two commands: which one exited 1 is not known
        (
            JQ + 'await tools.shell_command({command: "node --version"});',
            NOT_FOUND,
            [("shell_command: jq --version", None), ("shell_command: node --version", None)],
        ),
        # one call that ran once per element: which run exited 1 is not known
        (
            'for (const c of ["jq --version", "yq --version"]) await tools.shell_command({command: c});',
            NOT_FOUND,
            [("shell_command: 2 commands: jq --version …", None)],
        ),
    ],
)
def test_a_command_whose_result_the_script_threw_ended_with_its_exit_code(script, error, expected, tmp_path):
    analysis = analyze_text(_thrown_session(script, error))
    assert [
        (call_label(c.call), o.text if (o := call_outcome(analysis, c)) else None) for c in analysis.calls
    ] == expected
    path = tmp_path / "rollout-2026-01-01T00-00-00-thrown.jsonl"
    path.write_text(_thrown_session(script, error), encoding="utf-8")
    assert streamed(str(path))[0] == whole(str(path))  # the streamed outline keeps the thrown exit code
