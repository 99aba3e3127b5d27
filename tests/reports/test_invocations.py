"""Invocation logs of recording shims, read and matched with the rollout of the same run.

The test writes a recording shim of its own (it runs nothing, appends one JSON line, exits with its
configured code), runs real commands through bash with the shims first on PATH, writes the rollout whose
exec scripts ran those commands (with the exit codes bash really saw), and checks the match both ways.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import analyze_text
from analysis.reports.invocations import match_invocations, read_invocation_log
from analysis.script.shell_words import read_command_line
from fixtures.build import exec_call, exec_output, meta, result, turn, user
from tests.helpers import run_cli

SHIM = """#!{python}
import json, os, sys, time
tool = os.path.basename(sys.argv[0])
code = int(os.environ.get("SHIM_EXIT_" + tool, "0"))
with open(os.path.join(os.environ["CLI_MOCKS"], "calls.jsonl"), "a") as log:
    log.write(json.dumps({{"ts": time.time(), "tool": tool, "argv": sys.argv[1:], "exit": code}}) + "\\n")
sys.exit(code)
"""

# what the agent ran: one exec script per command, as code mode writes it
COMMANDS = [
    "uip ixp projects delete proj-1",
    "cd /tmp && env REGION=eu uip ixp projects list --json | cat",
    "bash -c 'curl -s https://example.invalid/health'",  # (a login shell, -lc, may reset PATH)
    'uip login --tenant "acme corp"',
    "git --version >/dev/null",  # a tool nobody shimmed: not expected in the log
]


@pytest.fixture
def run(tmp_path: Path):
    """Runs COMMANDS through the shims; returns (rollout text, log path, exit codes bash saw)."""
    bin_dir, mocks = tmp_path / "bin", tmp_path / "cli_mocks"
    bin_dir.mkdir()
    mocks.mkdir()
    shim = bin_dir / "shim.py"
    shim.write_text(SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    for tool in ("uip", "curl"):
        (bin_dir / tool).symlink_to(shim)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CLI_MOCKS": str(mocks),
        "SHIM_EXIT_curl": "7",
    }

    def execute(commands: list[str]) -> str:
        lines = [meta(), turn(), user("Clean up the old IXP project")]
        for number, command in enumerate(commands, 1):
            done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True)
            call_id = f"call_{number}"
            script = f"text(await tools.exec_command({{cmd: {json.dumps(command)}}}));\n"
            lines += [exec_call(call_id, script), exec_output(call_id, result(done.returncode, done.stdout))]
        return "\n".join(lines) + "\n"

    return execute, mocks / "calls.jsonl"


def test_every_invocation_is_matched_to_the_command_that_made_it(run):
    execute, log_path = run
    rollout = execute(COMMANDS)
    log = read_invocation_log(log_path.read_text())
    assert [(i.tool, i.argv, i.exit) for i in log.invocations] == [
        ("uip", ("ixp", "projects", "delete", "proj-1"), 0),
        ("uip", ("ixp", "projects", "list", "--json"), 0),
        ("curl", ("-s", "https://example.invalid/health"), 7),
        ("uip", ("login", "--tenant", "acme corp"), 0),
    ]
    assert log.findings == []
    analysis = analyze_text(rollout)
    matched = match_invocations(analysis, log)
    assert [(m.invocation.line, m.command.located.line, m.command.line.text, m.exact) for m in matched.matches] == [
        (0, 3, COMMANDS[0], True),
        (1, 5, COMMANDS[1], True),
        (2, 7, COMMANDS[2], True),
        (3, 9, COMMANDS[3], True),
    ]
    assert matched.unexplained == [] and matched.missing == []
    # curl exited 7 and the rollout shows 7: the sole command of its line (through bash -c)
    assert [m.command.exit_code for m in matched.matches] == [0, None, 7, 0]
    assert matched.log_findings() == [] and matched.rollout_findings() == []


def test_a_stale_log_a_lost_record_and_a_wrong_exit_are_findings(run):
    execute, log_path = run
    execute(["uip ixp projects delete proj-0"])  # an earlier run wrote to the same log
    rollout = execute(COMMANDS[:2])
    lines = log_path.read_text().splitlines()
    # the shim of the second command could not write; the first's exit was recorded as a raw wait status
    first = json.loads(lines[1])
    first["exit"] = 256
    log_path.write_text("\n".join([lines[0], json.dumps(first)]) + "\n")
    log = read_invocation_log(log_path.read_text())
    analysis = analyze_text(rollout)
    matched = match_invocations(analysis, log)
    assert [i.argv for i in matched.unexplained] == [("ixp", "projects", "delete", "proj-0")]
    assert [(c.located.line, c.command.argv) for c in matched.missing] == [
        (5, ("uip", "ixp", "projects", "list", "--json"))
    ]
    assert [(f.code, f.span.line) for f in log.findings + matched.log_findings()] == [
        ("invocation-exit", 1),
        ("unexplained-invocation", 0),
        ("exit-mismatch", 1),
    ]
    assert (
        log.findings[0].message == "exit 256 is no process exit status (0..255): a raw wait status? 256 is exit code 1"
    )
    assert (
        matched.log_findings()[1].message
        == "recorded exit 256, but the rollout shows exit code 0 for `uip ixp projects delete proj-1` (line 4)"
    )
    (missing,) = matched.rollout_findings()
    assert (missing.code, missing.span.line) == ("missing-invocation", 5)


def test_log_lines_a_grader_would_skip_or_misread():
    text = (
        "\n".join(
            [
                '{"ts": 10.5, "tool": "uip", "argv": ["a"], "exit": 0}',
                "not json",
                '["ts", 1]',
                '{"ts": "11", "tool": "uip", "argv": "a b", "exit": 0}',
                '{"ts": 12, "tool": "../bin/uip", "argv": [], "exit": -1}',
                '{"ts": 9, "tool": "uip", "argv": [], "exit": 0}',
                '{"tool": "uip", "argv": [], "exit": true}',
            ]
        )
        + "\n"
    )
    log = read_invocation_log(text)
    lines = text.splitlines()
    assert [(f.code, f.span.line, lines[f.span.line][f.span.start : f.span.end]) for f in log.findings] == [
        ("invocation-invalid", 1, "not json"),
        ("invocation-invalid", 2, '["ts", 1]'),
        ("invocation-shape", 3, '"11"'),
        ("invocation-shape", 3, '"a b"'),
        ("invocation-tool", 4, '"../bin/uip"'),
        ("invocation-exit", 4, "-1"),
        ("invocation-order", 5, "9"),
        ("invocation-shape", 6, lines[6]),  # ts is missing: the whole line
        ("invocation-shape", 6, "true"),
    ]
    assert [f.message for f in log.findings if f.span.line == 3] == [
        "field 'ts': \"11\" is not a number (seconds)",
        "field 'argv': \"a b\" is not an array of strings",
    ]
    assert [i.line for i in log.invocations] == [0, 4, 5]
    empty = read_invocation_log("")
    assert [(f.code, f.severity.label) for f in empty.findings] == [("invocation-empty", "information")]


@pytest.mark.parametrize(
    "line, commands",
    [
        (
            "cd /x && uip a 'b c' | tee o; env -i X=1 curl -s u",
            [("cd", "/x"), ("uip", "a", "b c"), ("tee", "o"), ("curl", "-s", "u")],
        ),
        ("X=1 Y=2 /usr/local/bin/uip a", [("/usr/local/bin/uip", "a")]),
        ("bash -lc \"uip login && sh -c 'curl x'\"", [("uip", "login"), ("curl", "x")]),
        ("for p in 1 2; do uip get $p; done", [("uip", "get", None)]),
        ('echo $(uip token) "a&&b"', [("echo", None, "a&&b"), ("uip", "token")]),
    ],
)
def test_command_lines_split_as_a_shell_splits_them(line, commands):
    assert [c.argv for c in read_command_line(line).commands] == commands


def test_a_word_that_is_an_expansion_matches_any_argument_but_says_so(tmp_path):
    rollout = (
        "\n".join(
            [
                meta(),
                turn(),
                user("pages"),
                exec_call("call_1", 'await tools.exec_command({cmd: "for p in 1 2; do uip get $p; done"});\n'),
                exec_output("call_1", result(0, "")),
            ]
        )
        + "\n"
    )
    log = read_invocation_log('{"ts": 1, "tool": "uip", "argv": ["get", "1"], "exit": 0}\n')
    (match,) = match_invocations(analyze_text(rollout), log).matches
    assert (match.command.located.line, match.exact) == (3, False)


def test_match_and_check_on_the_command_line(run, tmp_path):
    execute, log_path = run
    rollout = execute(COMMANDS[:3])
    rollout_path = tmp_path / "rollout-run.jsonl"
    rollout_path.write_text(rollout)
    text = run_cli("match", str(rollout_path), str(log_path))
    assert text.returncode == 0
    assert text.stdout.splitlines()[1:3] == [
        f"  {log_path}:1: uip ixp projects delete proj-1  (exit 0)",
        f"    ← {rollout_path}:line 4, exec_command: uip ixp projects delete proj-1",
    ]
    out = json.loads(run_cli("match", "--json", str(rollout_path), str(log_path)).stdout)
    assert [(m["invocation"]["line"], m["command"]["line"], m["command"]["argv"]) for m in out["matches"]] == [
        (0, 3, ["uip", "ixp", "projects", "delete", "proj-1"]),
        (1, 5, ["uip", "ixp", "projects", "list", "--json"]),
        (2, 7, ["curl", "-s", "https://example.invalid/health"]),
    ]
    assert out["unexplained"] == [] and out["missing"] == [] and out["findings"] == []
    with log_path.open("a") as handle:
        handle.write("oops\n")
    checked = run_cli("check", str(log_path))
    assert (checked.returncode, checked.stdout) == (
        1,
        f"{log_path}:4:1: error invocation-invalid not a JSON object: a grader skips this line\n",
    )
    stale = run_cli("match", str(rollout_path), str(log_path))
    assert stale.returncode == 0  # a line the grader skips is a finding of the log, not an unmatched invocation
    assert stale.stdout.splitlines()[-2:] == [
        "findings:",
        f"  {log_path}:4:1: error invocation-invalid not a JSON object: a grader skips this line",
    ]
