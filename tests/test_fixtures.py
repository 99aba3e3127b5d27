"""Every fixture rollout, analysed whole: exact calls, files, findings and ranges."""

import json

import pytest

from analysis import analyze_text
from analysis.lines import split_lines
from analysis.report import outline_json
from tests.helpers import FIXTURES, fixture, json_escaped, range_text


def outline(name: str) -> dict:
    return outline_json(name, analyze_text(fixture(name)))


def findings(name: str) -> list[tuple]:
    text = fixture(name)
    return [(d["range"]["start"]["line"], d["code"], range_text(text, d["range"]))
            for d in outline(name)["diagnostics"]]


def test_fixture_files_are_what_the_builder_writes():
    import fixtures.build as build

    for name in build.FIXTURES:
        assert (FIXTURES / name).read_bytes() == build.render(name).encode("utf-8"), name


def test_demo_outline():
    out = outline("rollout-demo.jsonl")
    calls = [(c["line"], c["call_id"], c["tool"], c["kind"], c["command"], c["workdir"], c["files"], c["computed"],
              c["expansion"], c["executed"], c["output"]) for c in out["calls"]]
    assert calls == [
        (4, "call_demo1", "exec_command", "command", "pytest -q tests/test_greet.py", "/home/u/proj", [], False,
         None, "unknown", {"status": "completed", "exit_code": 1, "wall_time": 0.4, "line": 5}),
        (6, "call_demo2", "apply_patch", "patch", None, None,
         [{"action": "update", "path": "src/greet.py", "move_to": None}], False, None, "unknown",
         {"status": "completed", "exit_code": None, "wall_time": 1.2, "line": 7}),
        (6, "call_demo2", "exec_command", "command", "pytest -q", "/home/u/proj", [], False, None, "unknown",
         {"status": "completed", "exit_code": 0, "wall_time": 1.2, "line": 7}),
        (8, "call_demo3", "exec_command", "command", None, None, [], True,
         ["git diff --stat -- README.md", "git diff --stat -- CHANGELOG.md"], "unknown", None),
        (8, "call_demo3", "exec_command", "command", "git push --force", None, [], False, None, "no", None),
    ]
    assert all(c["record"] == "custom_tool_call" for c in out["calls"])
    text = fixture("rollout-demo.jsonl")
    assert [range_text(text, c["range"]) for c in out["calls"]][:1] == [json_escaped(
        'tools.exec_command({cmd: "pytest -q tests/test_greet.py", workdir: "/home/u/proj"})')]
    assert [(d["code"], d["severity"]) for d in out["diagnostics"]] == [
        ("unpaired-call", "hint"), ("expanded-command", "information"), ("dead-branch", "warning")]


def test_every_call_range_covers_its_call_expression():
    for path in sorted(FIXTURES.glob("rollout-*.jsonl")):
        text = fixture(path.name)
        analysis = analyze_text(text)
        for located in analysis.calls:
            rng = analysis.range_of(located.span).to_json()
            covered = range_text(text, rng)
            if located.record.is_exec:
                assert covered == json_escaped(located.call.source) or \
                    json.loads('"' + covered + '"') == located.call.source, (path.name, covered)
            else:
                assert covered == split_lines(text)[located.line]


def test_call_forms():
    out = outline("rollout-call-forms.jsonl")
    assert [(c["line"], c["tool"], c["command"], c["workdir"]) for c in out["calls"]] == [
        (1, "exec_command", "echo dot", None), (1, "exec_command", "echo optional", None),
        (1, "exec_command", "echo bracket", None), (1, "exec_command", "echo spaced", None),
        (1, "exec_command", "echo in-template", None), (1, "view_image", None, None),
        (1, "exec_command", "echo alias", "/tmp"), (1, "exec_command", "echo destructured", None),
        (1, "write_stdin", None, None), (1, "mcp__github__search_issues", None, None)]
    assert findings("rollout-call-forms.jsonl") == []


def test_legacy_dialect():
    out = outline("rollout-legacy-dialect.jsonl")
    assert [(c["line"], c["tool"], c["command"], [f["path"] for f in c["files"]]) for c in out["calls"]] == [
        (1, "exec_command", "ls -la", []), (1, "apply_patch", None, ["old.txt"]),
        (1, "mcp__ologs__append_notebook_logs_chart", None, []), (1, "exec_command", "uname -a", []),
        (2, "exec_command", "echo bare global", [])]


def test_dead_branches():
    out = outline("rollout-dead-branches.jsonl")
    assert [(c["command"], c["executed"]) for c in out["calls"]] == [
        ("rm -rf build", "no"), ("echo zero", "no"), ("echo empty", "no"), ("echo null", "no"),
        ("echo undefined", "no"), ("echo not-true", "no"), ("echo dry", "no"), ("echo live", "unknown"),
        ("echo else", "no"), ("echo while", "no"), ("echo for", "no"), ("echo and", "no"), ("echo or", "no"),
        ("echo after-return", "no"), ("echo reached", "unknown"), ("echo after-break", "no"),
        ("echo after-throw", "no"), ("echo let-not-dead", "unknown")]
    dead = [f for f in findings("rollout-dead-branches.jsonl") if f[1] == "dead-branch"]
    assert dead[0] == (1, "dead-branch", json_escaped('tools.exec_command({cmd: "rm -rf build"})'))
    assert len(dead) == 15


def test_computed():
    out = outline("rollout-computed.jsonl")
    assert [(c["line"], c["command"], c["computed"], c["expansion"]) for c in out["calls"]] == [
        (1, None, True, None), (1, None, True, None), (1, "git status", False, None), (1, None, True, None),
        (1, None, True, None), (2, None, True, ["git status", "git log -1"]), (2, None, True, None),
        (3, "wc -l src/app.py", False, None), (3, "pwd", False, None), (3, "cat b", False, None),
        (3, None, True, None)]
    # the mapped const array is known element by element: information, not a warning
    assert [f[1] for f in findings("rollout-computed.jsonl")] == ["computed-command"] * 4 + [
        "expanded-command", "computed-command", "computed-command"]


def test_patches():
    out = outline("rollout-patches.jsonl")
    assert [(c["line"], c["record"], c["executed"], c["files"]) for c in out["calls"]] == [
        (1, "custom_tool_call", "unknown", [{"action": "update", "path": "a.py", "move_to": None}]),
        (1, "custom_tool_call", "unknown", [{"action": "add", "path": "docs/new.md", "move_to": None}]),
        (1, "custom_tool_call", "unknown", [{"action": "delete", "path": "old/b.py", "move_to": None}]),
        (1, "custom_tool_call", "unknown", [{"action": "update", "path": "c.py", "move_to": "d.py"}]),
        (2, "custom_tool_call", "unknown", [{"action": "update", "path": "src/app.py", "move_to": None}]),
        (2, "custom_tool_call", "unknown", [{"action": "add", "path": "notes.txt", "move_to": None}]),
        (3, "custom_tool_call", "unknown", [{"action": "update", "path": "e.py", "move_to": None}]),
        (3, "custom_tool_call", "unknown", []),
        (4, "custom_tool_call", "yes", [{"action": "add", "path": "hello.txt", "move_to": None}]),
    ]
    assert findings("rollout-patches.jsonl") == [
        (2, "unresolved-patch-path", "${other}"),
        (3, "patch-syntax", "oops"),
        (3, "patch-syntax", "*** Frobnicate"),
        (3, "patch-syntax", "no patch here"),
        (4, "patch-syntax", "bye"),
    ]
    assert out["calls"][8]["output"] == {"status": "completed", "exit_code": 1, "wall_time": 0.0, "line": 8}


def test_invalid_lines_do_not_stop_the_analysis():
    text = fixture("rollout-invalid.jsonl")
    out = outline("rollout-invalid.jsonl")
    assert [(d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"], d["message"])
            for d in out["diagnostics"]] == [
        (1, 91, "invalid-json", "not JSON: Expecting property name enclosed in double quotes"),
        (2, 144, "record-shape", "payload.input: input should be a valid string (got a number)"),
        (3, 73, "record-shape", "payload must be an object, not a string"),
        (4, 129, "unpaired-call", "no output record for call call_bad2"),
        (4, 153, "record-shape", "payload.arguments: must be a JSON object in a string"),
        (5, 47, "unknown-record", "record type some_future_record is unknown to this version of rollout-lsp "
                                  "(1 record in this file): listed, not read"),
        (7, 0, "record-shape", "a rollout line must be a JSON object, not an array"),
        (11, 100, "invalid-json", "not JSON: Unterminated string starting at"),
    ]
    assert range_text(text, out["diagnostics"][1]["range"]) == "42"
    assert range_text(text, out["diagnostics"][2]["range"]) == '"just a string"'
    assert [(c["line"], c["command"]) for c in out["calls"]] == [(4, None), (9, "echo still analysed")]


def test_unicode_positions_are_utf16():
    text = fixture("rollout-unicode.jsonl")
    out = outline("rollout-unicode.jsonl")
    assert [(c["line"], c["command"]) for c in out["calls"]] == [
        (2, "echo 😀"), (3, "printf '\\u00e9'"), (4, "echo escaped")]
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
    assert [(c["line"], c["record"], c["tool"], c["kind"], c["command"], c["workdir"], c["executed"],
             c["output"]["exit_code"]) for c in out["calls"]] == [
        (1, "function_call", "exec_command", "command", "git status --short", "/home/u/proj", "yes", 0),
        (3, "function_call", "shell", "command", "bash -lc 'ls -la'", "/tmp", "yes", 2),
        (5, "local_shell_call", "local_shell", "command", "git log --oneline -3", "/home/u/proj", "yes", None),
        (6, "custom_tool_call", "apply_patch", "patch", None, None, "yes", 0)]
    assert out["calls"][3]["files"] == [{"action": "update", "path": "src/a.py", "move_to": "src/b.py"}]
    assert out["diagnostics"] == []


def test_outputs_follow_wait_and_errors():
    out = outline("rollout-outputs.jsonl")
    assert [(c["line"], c["tool"], c["output"]) for c in out["calls"]] == [
        (1, "exec_command", {"status": "completed", "exit_code": 0, "wall_time": 20.3, "line": 4}),
        (5, "exec_command", {"status": "failed", "exit_code": None, "wall_time": 0.2, "line": 6})]
    analysis = analyze_text(fixture("rollout-outputs.jsonl"))
    assert (analysis.records[3].kind, analysis.records[3].name, analysis.calls_on(3)) == ("function_call", "wait", [])
    assert analysis.output_of(3) == 4  # the wait call is a record paired with its output, not a tool call


def test_script_syntax():
    out = outline("rollout-script-syntax.jsonl")
    assert [(c["line"], c["command"]) for c in out["calls"]] == [
        (1, "echo before"), (1, "echo after"), (2, "echo modern syntax"), (3, "echo bad pragma")]
    assert findings("rollout-script-syntax.jsonl") == [
        (1, "script-syntax", ";"), (3, "script-syntax", '// @exec: {\\"timeout\\": 5}')]


def test_secrets():
    found = findings("rollout-secrets.jsonl")
    assert [f[1] for f in found] == ["secret"] * 8
    assert [f[2] for f in found] == [
        "sk-proj-" + "FAKEfake0123456789" * 2, "ghp_" + "F4kE" * 9, "AKIAFAKEFAKEFAKEFAKE",
        "Bearer FAKEtokenFAKEtoken123", 'signingKey: \\"FAKEsigningKEY123', "xoxb-0000000000-FAKEFAKE",
        "github_pat_FAKE0000000000000000000000", "-----BEGIN RSA PRIVATE KEY-----\\nMIIEFAKEFAKEFAKE\\nFAKEFAKE==\\n"]


@pytest.mark.parametrize("name", ["not-a-rollout.jsonl"])
def test_other_jsonl_is_not_a_rollout(name):
    assert analyze_text(fixture(name)).is_rollout is False
    assert analyze_text(fixture("rollout-demo.jsonl")).is_rollout is True
