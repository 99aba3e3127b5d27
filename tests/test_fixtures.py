"""Every fixture rollout, analysed whole: exact calls, files, findings and ranges."""

import json

import pytest

from analysis import analyze_text
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.reports.report import outline_json, outline_text
from analysis.session.rollout import Turn
from tests.helpers import FIXTURES, fixture, json_escaped, range_text


def outline(name: str) -> dict:
    return outline_json(name, analyze_text(fixture(name)))


def findings(name: str) -> list[tuple]:
    text = fixture(name)
    return [
        (d["range"]["start"]["line"], d["code"], range_text(text, d["range"])) for d in outline(name)["diagnostics"]
    ]


def test_fixture_files_are_what_the_builder_writes():
    import fixtures.build as build

    for name in build.FIXTURES:
        assert (FIXTURES / name).read_bytes() == build.render(name).encode("utf-8"), name


def test_demo_outline():
    out = outline("rollout-demo.jsonl")
    calls = [
        (
            c["line"],
            c["call_id"],
            c["tool"],
            c["kind"],
            c["command"],
            c["workdir"],
            c["files"],
            c["computed"],
            c["expansion"],
            c["executed"],
            c["output"],
        )
        for c in out["calls"]
    ]
    assert calls == [
        (
            4,
            "call_demo1",
            "exec_command",
            "command",
            "pytest -q tests/test_greet.py",
            "/home/u/proj",
            [],
            False,
            None,
            "yes",
            {"status": "completed", "exit_code": 1, "wall_time": 0.4, "line": 5},
        ),
        (
            6,
            "call_demo2",
            "apply_patch",
            "patch",
            None,
            None,
            [{"action": "update", "path": "src/greet.py", "move_to": None}],
            False,
            None,
            "yes",
            {"status": "completed", "exit_code": None, "wall_time": 1.2, "line": 7},
        ),
        (
            6,
            "call_demo2",
            "exec_command",
            "command",
            "pytest -q",
            "/home/u/proj",
            [],
            False,
            None,
            "yes",
            {"status": "completed", "exit_code": 0, "wall_time": 1.2, "line": 7},
        ),
        (
            8,
            "call_demo3",
            "exec_command",
            "command",
            None,
            None,
            [],
            True,
            ["git diff --stat -- README.md", "git diff --stat -- CHANGELOG.md"],
            "unknown",
            None,
        ),
        (8, "call_demo3", "exec_command", "command", "git push --force", None, [], False, None, "no", None),
    ]
    assert all(c["record"] == "custom_tool_call" for c in out["calls"])
    text = fixture("rollout-demo.jsonl")
    assert [range_text(text, c["range"]) for c in out["calls"]][:1] == [
        json_escaped('tools.exec_command({cmd: "pytest -q tests/test_greet.py", workdir: "/home/u/proj"})')
    ]
    assert [(d["code"], d["severity"]) for d in out["diagnostics"]] == [
        ("unpaired-call", "hint"),
        ("expanded-command", "information"),
        ("dead-branch", "warning"),
    ]


def test_every_call_range_covers_its_call_expression():
    for path in sorted(FIXTURES.glob("rollout-*.jsonl")):
        text = fixture(path.name)
        analysis = analyze_text(text)
        for located in analysis.calls:
            rng = analysis.range_of(located.span).to_json()
            covered = range_text(text, rng)
            if located.record.is_exec:
                assert (
                    covered == json_escaped(located.call.source)
                    or json.loads('"' + covered + '"') == located.call.source
                ), (path.name, covered)
            else:
                assert covered == split_lines(text)[located.line]


def test_call_forms():
    out = outline("rollout-call-forms.jsonl")
    assert [(c["line"], c["tool"], c["command"], c["workdir"]) for c in out["calls"]] == [
        (1, "exec_command", "echo dot", None),
        (1, "exec_command", "echo optional", None),
        (1, "exec_command", "echo bracket", None),
        (1, "exec_command", "echo spaced", None),
        (1, "exec_command", "echo in-template", None),
        (1, "view_image", None, None),
        (1, "exec_command", "echo alias", "/tmp"),
        (1, "exec_command", "echo destructured", None),
        (1, "write_stdin", None, None),
        (1, "mcp__github__search_issues", None, None),
    ]
    assert findings("rollout-call-forms.jsonl") == []


def test_legacy_dialect():
    out = outline("rollout-legacy-dialect.jsonl")
    assert [(c["line"], c["tool"], c["command"], [f["path"] for f in c["files"]]) for c in out["calls"]] == [
        (1, "exec_command", "ls -la", []),
        (1, "apply_patch", None, ["old.txt"]),
        (1, "mcp__ologs__append_notebook_logs_chart", None, []),
        (1, "exec_command", "uname -a", []),
        (2, "exec_command", "echo bare global", []),
    ]


def test_dead_branches():
    out = outline("rollout-dead-branches.jsonl")
    assert [(c["command"], c["executed"]) for c in out["calls"]] == [
        ("rm -rf build", "no"),
        ("echo zero", "no"),
        ("echo empty", "no"),
        ("echo null", "no"),
        ("echo undefined", "no"),
        ("echo not-true", "no"),
        ("echo dry", "no"),
        ("echo live", "unknown"),
        ("echo else", "no"),
        ("echo while", "no"),
        ("echo for", "no"),
        ("echo and", "no"),
        ("echo or", "no"),
        ("echo after-return", "no"),
        ("echo reached", "yes"),
        ("echo after-break", "no"),
        ("echo after-throw", "no"),
        ("echo let-not-dead", "unknown"),
    ]
    dead = [f for f in findings("rollout-dead-branches.jsonl") if f[1] == "dead-branch"]
    assert dead[0] == (1, "dead-branch", json_escaped('tools.exec_command({cmd: "rm -rf build"})'))
    assert len(dead) == 15


def test_computed():
    out = outline("rollout-computed.jsonl")
    assert [(c["line"], c["command"], c["computed"], c["expansion"]) for c in out["calls"]] == [
        (1, None, True, None),
        (1, None, True, None),
        (1, "git status", False, None),
        (1, None, True, None),
        (1, None, True, None),
        (2, None, True, ["git status", "git log -1"]),
        (2, None, True, None),
        (3, "wc -l src/app.py", False, None),
        (3, "pwd", False, None),
        (3, "cat b", False, None),
        (3, None, True, None),
    ]
    # the mapped const array is known element by element: information, not a warning
    assert [f[1] for f in findings("rollout-computed.jsonl")] == ["computed-command"] * 4 + [
        "expanded-command",
        "computed-command",
        "computed-command",
    ]


def test_patches():
    out = outline("rollout-patches.jsonl")
    assert [(c["line"], c["record"], c["executed"], c["files"]) for c in out["calls"]] == [
        (1, "custom_tool_call", "yes", [{"action": "update", "path": "a.py", "move_to": None}]),
        (1, "custom_tool_call", "yes", [{"action": "add", "path": "docs/new.md", "move_to": None}]),
        (1, "custom_tool_call", "yes", [{"action": "delete", "path": "old/b.py", "move_to": None}]),
        (1, "custom_tool_call", "yes", [{"action": "update", "path": "c.py", "move_to": "d.py"}]),
        (2, "custom_tool_call", "yes", [{"action": "update", "path": "src/app.py", "move_to": None}]),
        (2, "custom_tool_call", "yes", [{"action": "add", "path": "notes.txt", "move_to": None}]),
        (3, "custom_tool_call", "yes", [{"action": "update", "path": "e.py", "move_to": None}]),
        (3, "custom_tool_call", "yes", []),
        (4, "custom_tool_call", "yes", [{"action": "add", "path": "hello.txt", "move_to": None}]),
    ]
    assert findings("rollout-patches.jsonl") == [
        (2, "unresolved-patch-path", "${other}"),
        (3, "patch-syntax", "oops"),
        (3, "patch-syntax", "*** Frobnicate"),
        (3, "patch-syntax", "no patch here"),
        (4, "patch-syntax", "bye"),
    ]
    # a patch whose output reports a non-zero exit did not apply
    assert out["calls"][8]["output"] == {"status": "failed", "exit_code": 1, "wall_time": 0.0, "line": 8}


def test_invalid_lines_do_not_stop_the_analysis():
    text = fixture("rollout-invalid.jsonl")
    out = outline("rollout-invalid.jsonl")
    assert [
        (d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"], d["message"])
        for d in out["diagnostics"]
    ] == [
        (
            1,
            91,
            "invalid-json",
            "this line is cut off: its JSON stops at column 92, unfinished (a rollout still being written, or "
            "truncated)",
        ),
        (2, 144, "record-shape", "payload.input: input should be a valid string (got a number)"),
        (3, 73, "record-shape", "payload must be an object, not a string"),
        (4, 129, "unpaired-call", "no output record for call call_bad2"),
        (4, 153, "record-shape", "payload.arguments: must be a JSON object in a string"),
        (
            5,
            47,
            "unknown-record",
            "record type some_future_record is unknown to this version of rollout-lsp "
            "(1 record in this file): listed, not read",
        ),
        (7, 0, "record-shape", "a rollout line must be a JSON object, not an array"),
        (
            11,
            100,
            "invalid-json",
            "this line is cut off: it ends inside a string that starts at column 101 (a rollout still being "
            "written, or truncated)",
        ),
    ]
    assert range_text(text, out["diagnostics"][1]["range"]) == "42"
    assert range_text(text, out["diagnostics"][2]["range"]) == '"just a string"'
    assert [(c["line"], c["tool"], c["command"]) for c in out["calls"]] == [
        (4, "exec_command", None),
        (6, "web_search", None),
        (9, "exec_command", "echo still analysed"),
    ]


def test_unicode_positions_are_utf16():
    text = fixture("rollout-unicode.jsonl")
    out = outline("rollout-unicode.jsonl")
    assert [(c["line"], c["command"]) for c in out["calls"]] == [
        (2, "echo 😀"),
        (3, "printf '\\u00e9'"),
        (4, "echo escaped"),
    ]
    lines = split_lines(text)
    assert len(lines) == 9 and "\u2028" in lines[1]  # the raw U+2028 does not split the line
    covered = [range_text(text, c["range"]) for c in out["calls"]]
    assert covered[0] == json_escaped('tools.exec_command({cmd: "echo 😀"})')
    assert covered[1] == json_escaped("tools.exec_command({cmd: \"printf '\\\\u00e9'\"})")
    assert covered[2] == 'tools.exec_command({cmd: \\"echo escaped\\"})'
    # the astral characters before the call count two UTF-16 units each
    start = out["calls"][0]["range"]["start"]["character"]
    assert start == lines[2].index("tools.exec_command") + 2


def test_crlf_line_endings():
    text = fixture("rollout-crlf.jsonl")
    out = outline("rollout-crlf.jsonl")
    assert "\r\n" in text
    assert [(c["line"], c["command"], c["output"]["status"]) for c in out["calls"]] == [(1, "echo crlf", "completed")]
    assert range_text(text, out["calls"][0]["range"]) == 'tools.exec_command({cmd: \\"echo crlf\\"})'


def test_top_level_calls():
    out = outline("rollout-toplevel.jsonl")
    assert [
        (
            c["line"],
            c["record"],
            c["tool"],
            c["kind"],
            c["command"],
            c["workdir"],
            c["executed"],
            c["output"]["exit_code"],
        )
        for c in out["calls"]
    ] == [
        (1, "function_call", "exec_command", "command", "git status --short", "/home/u/proj", "yes", 0),
        (3, "function_call", "shell", "command", "bash -lc 'ls -la'", "/tmp", "yes", 2),
        (5, "local_shell_call", "local_shell", "command", "git log --oneline -3", "/home/u/proj", "yes", None),
        (6, "custom_tool_call", "apply_patch", "patch", None, None, "yes", 0),
    ]
    assert out["calls"][3]["files"] == [{"action": "update", "path": "src/a.py", "move_to": "src/b.py"}]
    assert out["diagnostics"] == []


def test_outputs_follow_wait_and_errors():
    out = outline("rollout-outputs.jsonl")
    assert [(c["line"], c["tool"], c["output"]) for c in out["calls"]] == [
        # the cell yielded after 10 s; the wait on its cell ended it 20.3 s later
        (
            1,
            "exec_command",
            {
                "status": "completed",
                "exit_code": 0,
                "wall_time": 30.3,
                "line": 4,
                "first_line": 2,
                "continued_by": [3],
                "via": "wait",
            },
        ),
        (3, "wait", {"status": "completed", "exit_code": None, "wall_time": 20.3, "line": 4}),
        (5, "exec_command", {"status": "failed", "exit_code": None, "wall_time": 0.2, "line": 6}),
    ]
    analysis = analyze_text(fixture("rollout-outputs.jsonl"))
    assert (analysis.records[3].kind, analysis.records[3].name, analysis.calls_on(3)[0].call.kind) == (
        "function_call",
        "wait",
        "tool",
    )
    assert analysis.calls_on(3)[0].call.arguments == {"cell_id": "3", "yield_time_ms": 30000}
    assert analysis.output_of(3) == 4  # the wait record shows its own output


def test_script_syntax():
    out = outline("rollout-script-syntax.jsonl")
    assert [(c["line"], c["command"]) for c in out["calls"]] == [
        (1, "echo before"),
        (1, "echo after"),
        (2, "echo modern syntax"),
        (3, "echo bad pragma"),
    ]
    assert findings("rollout-script-syntax.jsonl") == [
        (1, "script-syntax", ";"),
        (3, "script-syntax", '// @exec: {\\"timeout\\": 5}'),
    ]


def test_secrets():
    found = findings("rollout-secrets.jsonl")
    assert [f[1] for f in found] == ["secret"] * 8
    assert [f[2] for f in found] == [
        "sk-proj-" + "FAKEfake0123456789" * 2,
        "ghp_" + "F4kE" * 9,
        "AKIAFAKEFAKEFAKEFAKE",
        "Bearer FAKEtokenFAKEtoken123",
        'signingKey: \\"FAKEsigningKEY123',
        "xoxb-0000000000-FAKEFAKE",
        "github_pat_FAKE0000000000000000000000",
        "-----BEGIN RSA PRIVATE KEY-----\\nMIIEFAKEFAKEFAKE\\nFAKEFAKE==\\n",
    ]


@pytest.mark.parametrize("name", ["not-a-rollout.jsonl"])
def test_other_jsonl_is_not_a_rollout(name):
    assert analyze_text(fixture(name)).is_rollout is False
    assert analyze_text(fixture("rollout-demo.jsonl")).is_rollout is True


def test_every_call_record_is_paired_with_its_output():
    out = outline("rollout-records.jsonl")
    records = [(r["line"], r["call_id"], r["name"], r["record"], r["output"]) for r in out["records"]]

    def plain(line, status, exit_code=None, wall=None):
        return {"status": status, "exit_code": exit_code, "wall_time": wall, "line": line}

    assert records == [
        (6, "call_sc", "shell_command", "function_call", plain(7, "completed", 0, 0.5)),
        # the command left its process running; the last write_stdin on session 94014 saw it exit with 130
        (
            8,
            "call_ec",
            "exec_command",
            "function_call",
            {**plain(13, "completed", 130, 6.2), "first_line": 9, "continued_by": [10, 12], "via": "write_stdin"},
        ),
        (10, "call_ws1", "write_stdin", "function_call", plain(11, "running", None, 5.0)),
        (12, "call_ws2", "write_stdin", "function_call", plain(13, "completed", 130, 0.2)),
        (14, "call_sh", "shell", "function_call", plain(15, "completed", 0, 0.1)),
        (16, "call_ce", "container.exec", "function_call", plain(17, "completed", 2, 0.1)),
        (18, "call_ls", "local_shell", "local_shell_call", plain(19, "completed")),
        (20, "call_plan", "update_plan", "function_call", plain(21, "completed")),
        (22, "call_ask", "request_user_input", "function_call", plain(23, "completed")),
        (24, "call_spawn", "spawn_agent", "function_call", plain(25, "completed")),
        (26, "call_res", "list_mcp_resources", "function_call", plain(27, "completed")),
        (28, "call_mcp", "mcp__desktop-commander__start_process", "function_call", plain(29, "completed")),
        (30, None, "web_search", "web_search_call", plain(30, "completed")),  # no output record: it says itself
        (31, "call_ts", "tool_search", "tool_search_call", plain(32, "completed")),
        (33, "call_js", "js_repl", "custom_tool_call", plain(34, "completed")),  # paired across output kinds
        (35, "call_none", "exec", "custom_tool_call", plain(36, "completed", None, 0.4)),  # no tool call
        # the cell yielded after 10 s; two waits on cell 8 carried it on (20 s, then 1.5 s) to completion
        (
            43,
            "call_cell",
            "exec",
            "custom_tool_call",
            {**plain(48, "completed", None, 31.5), "first_line": 44, "continued_by": [45, 47], "via": "wait"},
        ),
        (45, "call_w1", "wait", "function_call", plain(46, "running", None, 20.0)),
        (47, "call_w2", "wait", "function_call", plain(48, "completed", None, 1.5)),
        (49, "call_err", "exec", "custom_tool_call", plain(50, "failed", None, 0.1)),  # Script error:
        (51, "call_p1", "apply_patch", "custom_tool_call", plain(52, "failed")),  # verification failed
        (53, "call_p2", "apply_patch", "custom_tool_call", plain(54, "failed", 1, 0.0)),  # metadata.exit_code 1
    ]
    assert [d["code"] for d in out["diagnostics"]] == []  # the sk- inside encrypted_content is no secret


def test_top_level_commands_are_decoded_exactly():
    out = outline("rollout-records.jsonl")
    commands = [
        (c["line"], c["tool"], c["command"], c["workdir"], c["computed"])
        for c in out["calls"]
        if c["kind"] == "command" and c["record"] != "custom_tool_call"
    ]
    assert commands == [
        (6, "shell_command", "Get-ChildItem -Force", "C:\\work", False),
        (8, "exec_command", "npm test", "/home/u/proj", False),
        (14, "shell", "bash -lc 'echo '\"'\"'hi there'\"'\"''", "/tmp", False),
        (16, "container.exec", "ls -la 'my dir'", None, False),
        (18, "local_shell", "git status", "/home/u/proj", False),
    ]
    analysis = analyze_text(fixture("rollout-records.jsonl"))
    # arguments the format added later are kept, never a reason to call the command computed
    assert analysis.calls_on(6)[0].call.arguments == {
        "timeout_ms": 10000,
        "login": False,
        "sandbox_permissions": "require_escalated",
        "justification": "list files",
    }
    assert analysis.calls_on(8)[0].call.arguments == {
        "yield_time_ms": 1000,
        "prefix_rule": ["npm", "test"],
        "max_output_tokens": 4000,
    }


def test_other_calls_are_tool_calls_with_their_arguments():
    analysis = analyze_text(fixture("rollout-records.jsonl"))
    tools = [
        (c.line, c.call.tool, c.call.kind, c.call.executed, c.call.arguments)
        for c in analysis.calls
        if c.call.kind == "tool"
    ]
    assert tools == [
        (10, "write_stdin", "tool", "yes", {"session_id": 94014, "chars": "", "yield_time_ms": 5000}),
        (12, "write_stdin", "tool", "yes", {"session_id": 94014, "chars": "\u0003"}),
        (20, "update_plan", "tool", "yes", {"plan": [{"step": "list files", "status": "completed"}]}),
        (22, "request_user_input", "tool", "yes", {"questions": [{"id": "go", "question": "Run the tests?"}]}),
        (24, "spawn_agent", "tool", "yes", {"agent_type": "explorer", "message": "map the repo"}),
        (26, "list_mcp_resources", "tool", "yes", {}),
        (28, "mcp__desktop-commander__start_process", "tool", "yes", {"command": "npm run dev", "timeout_ms": 5000}),
        (30, "web_search", "tool", "yes", {"action": "search", "query": "codex rollout format"}),
        (31, "tool_search", "tool", "yes", {"query": "calendar tools"}),
        (33, "js_repl", "tool", "yes", {"input": "1 + 1"}),
        (45, "wait", "tool", "yes", {"cell_id": "8", "yield_time_ms": 20000}),
        (47, "wait", "tool", "yes", {"cell_id": "8", "yield_time_ms": 20000}),
    ]


def test_outline_text_says_how_each_call_ended():
    text = outline_text("r", analyze_text(fixture("rollout-records.jsonl")), [], PositionEncoding.UTF16)
    lines = text.splitlines()
    assert lines[1] == "  session: 21 calls, 5 failed (first: line 9, interrupted (exit 130))"
    assert lines[2] == "  turn 1 (line 2): List the files and run the tests  [2 failed]"
    # a process carried on by write_stdin is one call: its outcome is the last chunk's, the chunks say so
    assert "    line 9: exec_command call_ec  [interrupted (exit 130), 6.2 s, after 2 write_stdin calls]" in lines
    assert "    line 11: write_stdin call_ws1  [running, 5 s, continues line 9]" in lines
    assert "    line 13: write_stdin call_ws2  [completed, exit 130, 0.2 s, continues line 9]" in lines
    assert '      └─ write_stdin: session 94014 "\\u0003"' in lines
    assert "    line 17: container.exec call_ce  [exit 2, 0.1 s]" in lines
    assert "    line 31: web_search  [completed]" in lines
    assert '      └─ web_search: search "codex rollout format"' in lines
    assert "      └─ mcp__desktop-commander__start_process: npm run dev" in lines
    assert "      └─ update_plan: 1 step" in lines
    assert "    line 36: exec call_none  [completed, 0.4 s]" in lines
    assert "  turn 2 (line 39): Now wait for the slow build  [3 failed]" in lines
    assert "    line 44: exec call_cell  [completed, 31.5 s, after 2 waits]" in lines
    assert "    line 50: exec call_err  [failed at its call, 0.1 s]" in lines  # where: the call says how
    assert "    line 52: apply_patch call_p1  [failed]" in lines
    assert "    line 54: apply_patch call_p2  [exit 1, 0 s]" in lines
    # both patches are turn 2's: listed once, under it (a one-turn change has no session list)
    assert lines[-3:] == [
        "    files changed (2):",
        "      a.py: not applied (line 52)",
        "      gone.py: not applied (line 54)",
    ]
    assert not any("[no output]" in line for line in lines)


def test_turns_start_where_codex_starts_them():
    analysis = analyze_text(fixture("rollout-records.jsonl"))
    assert analysis.turns == [
        Turn(1, 37, "List the files and run the tests", "turn-1"),
        Turn(38, 54, "Now wait for the slow build", "turn-2"),
    ]


def test_events_are_ground_truth():
    out = outline("rollout-events.jsonl")
    calls = [
        (
            c["line"],
            c["tool"],
            c["executed"],
            c["output"]["status"] if c["output"] else None,
            c["output"]["exit_code"] if c["output"] else None,
            c["event"] and c["event"]["line"],
        )
        for c in out["calls"]
    ]
    assert calls == [
        (5, "shell_command", "yes", "completed", 0, 6),
        (8, "apply_patch", "yes", "failed", 0, 9),  # patch_apply_end success: false
        (11, "apply_patch", "yes", "completed", None, 12),  # a.py: the first patch event
        (11, "exec_command", "yes", "completed", 2, 13),  # make test: exit 2, from the event
        (11, "apply_patch", "yes", "completed", None, 15),  # docs/b.md: matched by its file, not by order
        (11, "apply_patch", "yes", "completed", None, 14),  # c.py: in dead code, yet the event reports it
        (20, "mcp__files__read", "yes", "completed", None, 21),
        (23, "exec_command", "yes", "completed", 0, 24),  # item_completed CommandExecution
        (27, "web_search", "yes", "completed", None, 26),
    ]
    assert out["calls"][3]["event"] == {
        "line": 13,
        "type": "exec_command_end",
        "call_id": "exec-0002",
        "success": False,
        "exit_code": 2,
        "duration": 3.0,
        "cwd": "/home/u/proj",
        "files": [],
    }
    assert out["calls"][4]["event"]["files"] == [{"path": "/home/u/proj/docs/b.md", "action": "add", "move_to": None}]
    assert out["calls"][0]["event"]["duration"] == 1.5
    assert [r["output"]["status"] for r in out["records"] if r["line"] == 8] == ["failed"]
    assert [(d["range"]["start"]["line"], d["code"], d["message"]) for d in out["diagnostics"]] == [
        (11, "dead-branch", "apply_patch never runs: it is in dead code"),
        (
            11,
            "event-contradicts",
            "patch_apply_end on line 15 reports that apply_patch ran, but the analysis found it in dead code",
        ),
        (18, "unmatched-event", "patch_apply_end reports call call_gone that no call record lists"),
        (19, "unmatched-event", "the user ran `ls` in a shell (exit 1); no call record lists it"),
    ]


def test_a_call_that_always_runs_ran_when_its_script_completed():
    analysis = analyze_text(fixture("rollout-records.jsonl"))
    [build] = analysis.calls_on(43)  # the cell completed after two waits
    [error] = analysis.calls_on(49)  # the script threw (Script error:)
    assert (build.call.command, build.call.unconditional, build.call.executed) == ("make build", True, "yes")
    assert (error.call.command, error.call.unconditional, error.call.executed) == ("true", True, "unknown")
    demo = analyze_text(fixture("rollout-demo.jsonl"))
    assert [(c.line, c.call.executed) for c in demo.calls] == [
        (4, "yes"),
        (6, "yes"),
        (6, "yes"),
        (8, "unknown"),
        (8, "no"),
    ]  # line 8 has no output: unknown
