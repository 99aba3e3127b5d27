import argparse
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys

import pytest
import zstandard

from analysis.cli import build_parser
from analysis.jsonl.source import NOT_A_ROLLOUT
from lsp_server.__main__ import ALL_COMMANDS
from tests.helpers import FIXTURES, ROOT, fixture, run_cli


def test_check_prints_compiler_style_lines_and_fails_on_warnings():
    result = run_cli("check", "fixtures/rollout-demo.jsonl")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "fixtures/rollout-demo.jsonl:9:132: hint unpaired-call no output record for call call_demo3",
        "fixtures/rollout-demo.jsonl:9:281: information expanded-command the command is computed from a constant "
        "list: its 2 commands are known exactly (git diff --stat -- README.md …)",
        "fixtures/rollout-demo.jsonl:9:362: warning dead-branch exec_command never runs: it is in dead code",
    ]


def test_fail_on_levels():
    assert run_cli("check", "--fail-on", "error", "fixtures/rollout-demo.jsonl").returncode == 0
    assert run_cli("check", "--fail-on", "hint", "fixtures/rollout-toplevel.jsonl").returncode == 0
    assert run_cli("check", "--fail-on", "error", "fixtures/rollout-invalid.jsonl").returncode == 1
    assert run_cli("check", "--fail-on", "hint", "fixtures/rollout-patches.jsonl").returncode == 1


def test_check_json():
    result = run_cli("check", "--json", "fixtures/rollout-patches.jsonl")
    rows = json.loads(result.stdout)
    assert result.returncode == 1
    assert rows[0] == {
        "file": "fixtures/rollout-patches.jsonl",
        "range": {"start": {"line": 2, "character": 414}, "end": {"line": 2, "character": 422}},
        "severity": "warning",
        "code": "unresolved-patch-path",
        "message": "patch path ${other} does not resolve to a const string; the file is not listed",
    }
    assert [r["code"] for r in rows] == ["unresolved-patch-path"] + ["patch-syntax"] * 4


def test_check_folders_recursively_including_zst(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    shutil.copy(FIXTURES / "rollout-demo.jsonl", tmp_path / "a" / "rollout-1.jsonl")
    data = zstandard.ZstdCompressor().compress(fixture("rollout-patches.jsonl").encode())
    (tmp_path / "a" / "b" / "rollout-2.jsonl.zst").write_bytes(data)
    (tmp_path / "a" / "notes.txt").write_text("not a rollout")
    result = run_cli("check", "--json", str(tmp_path))
    files = sorted({r["file"] for r in json.loads(result.stdout)})
    assert files == [str(tmp_path / "a" / "b" / "rollout-2.jsonl.zst"), str(tmp_path / "a" / "rollout-1.jsonl")]


def test_clean_file_exits_zero(tmp_path):
    path = tmp_path / "rollout-clean.jsonl"
    path.write_text(fixture("rollout-toplevel.jsonl"))
    result = run_cli("check", str(path))
    assert (result.returncode, result.stdout) == (0, "")


def test_unreadable_and_usage_errors_exit_2(tmp_path):
    missing = run_cli("check", str(tmp_path / "missing.jsonl"), "fixtures/rollout-demo.jsonl")
    assert missing.returncode == 2
    assert missing.stderr == f"rollout-lsp: cannot read {tmp_path / 'missing.jsonl'}: No such file or directory\n"
    assert len(missing.stdout.splitlines()) == 3  # the files that can be read are still checked
    bad_zst = tmp_path / "rollout-x.jsonl.zst"
    bad_zst.write_bytes(b"not zstd at all")
    assert run_cli("check", str(bad_zst)).returncode == 2
    assert run_cli("check").returncode == 2
    assert run_cli("check", "--fail-on", "fatal", "x").returncode == 2
    assert run_cli("check", str(tmp_path)).returncode == 2  # no rollout files there


def test_invalid_utf8_and_bom(tmp_path):
    path = tmp_path / "rollout-bytes.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + fixture("rollout-crlf.jsonl").encode()
        + b'{"type":"response_item","payload":{"type":"message","role":"user","content":"caf\xe9"}}\n'
    )
    result = run_cli("check", "--fail-on", "error", str(path))
    assert result.returncode == 1
    assert result.stdout == f"{path}:4:81: error invalid-json not UTF-8: byte 0xe9\n"


def test_outline_json_format():
    result = run_cli("outline", "--json", "fixtures/rollout-toplevel.jsonl")
    out = json.loads(result.stdout)
    assert result.returncode == 0
    assert set(out) == {"file", "turns", "records", "calls", "files", "diagnostics"}
    assert out["turns"] == []  # no task_started, no user message: no turn
    assert out["records"][0] == {
        "line": 1,
        "call_id": "call_top1",
        "name": "exec_command",
        "record": "function_call",
        "output": {"status": "completed", "exit_code": 0, "wall_time": 0.1, "line": 2},
    }
    assert out["calls"][0] == {
        "line": 1,
        "record": "function_call",
        "call_id": "call_top1",
        "tool": "exec_command",
        "kind": "command",
        "outcome": None,
        "command": "git status --short",
        "workdir": "/home/u/proj",
        "files": [],
        "computed": False,
        "expansion": None,
        "expansion_tools": None,
        "executed": "yes",
        "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 221}},
        "output": {"status": "completed", "exit_code": 0, "wall_time": 0.1, "line": 2},
        "event": None,
    }


def test_outline_position_encodings():
    def start(encoding):
        out = json.loads(
            run_cli("outline", "--json", "--position-encoding", encoding, "fixtures/rollout-unicode.jsonl").stdout
        )
        return out["calls"][0]["range"]["start"]["character"]

    assert (start("utf-32"), start("utf-16"), start("utf-8")) == (223, 225, 229)


def test_outline_text_for_people():
    result = run_cli("outline", "fixtures/rollout-demo.jsonl")
    assert result.returncode == 0
    assert result.stdout.splitlines()[:12] == [
        "fixtures/rollout-demo.jsonl",
        "  session: 5 calls, 1 failed (first: line 5, exit 1)",
        "  turn 1 (line 3): Fix the failing greeting test  [1 failed]",
        "    line 5: exec call_demo1  [completed, 0.4 s]",
        "      └─ [exit 1] exec_command: pytest -q tests/test_greet.py  in /home/u/proj",  # the script went on
        "    line 7: exec call_demo2  [completed, 1.2 s]",
        "      ├─ apply_patch: update src/greet.py (ran)",
        "      └─ exec_command: pytest -q  in /home/u/proj (ran)",
        "    line 9: exec call_demo3  [no output]",
        "      ├─ exec_command: 2 commands: git diff --stat -- README.md … (computed)",
        "      │    · exec_command: git diff --stat -- README.md",  # a known expansion: each exact command
        "      │    · exec_command: git diff --stat -- CHANGELOG.md",
    ]
    lines = result.stdout.splitlines()
    # one turn changed the file: listed once, under the turn
    assert lines[lines.index("    files changed (1):") + 1 :][:2] == [
        "      src/greet.py: updated (line 7)",
        "findings:",
    ]
    assert "files changed (1):" not in lines


def test_census_counts():
    result = run_cli("census", "--json", "fixtures")
    out = json.loads(result.stdout)
    # fixtures/not-a-rollout.jsonl and fixtures/session_index.jsonl (thread names, not a rollout)
    # 30: 24, and the 6 of issue 33 (rollout-statuses, the envelope-less file twice, fixtures/sessions/2026/11/01)
    assert (out["counts"]["rollouts"], out["skipped_files"]) == (30, 2)
    assert out["counts"]["scripts that do not parse"] == 2
    assert (
        out["calls_by_tool"]["exec_command"] == 72
    )  # 64, the 3 of fixtures/sessions/2026/09/01, 5 of rollout-statuses
    assert out["findings_by_code"]["secret"] == 8
    assert out["counts"]["computed commands with a known expansion"] == 2
    # "git " + "status" in rollout-computed.jsonl is exactly known: a literal command; 75: 66, and the 5 exec_command
    # of rollout-statuses and the 2 shell calls of each envelope-less file
    assert (out["counts"]["literal commands"], out["counts"]["computed commands"]) == (75, 7)
    assert isinstance(out["seconds"], float)


def test_version():
    result = run_cli("--version")
    assert (result.returncode, result.stdout) == (0, f"rollout-lsp {importlib.metadata.version('codex-rollout-lsp')}\n")


def test_dash_reads_standard_input_plain_or_zstd():
    text = fixture("rollout-demo.jsonl")
    plain = run_cli("check", "-", input=text)
    assert plain.returncode == 1
    assert plain.stdout.splitlines()[0] == "-:9:132: hint unpaired-call no output record for call call_demo3"
    packed = subprocess.run(
        [sys.executable, "-m", "lsp_server", "outline", "-"],
        capture_output=True,
        input=zstandard.ZstdCompressor().compress(text.encode()),
        cwd=ROOT,
    )
    assert packed.returncode == 0
    assert packed.stdout.decode().splitlines()[:2] == ["-", "  session: 5 calls, 1 failed (first: line 5, exit 1)"]
    census = json.loads(run_cli("census", "--json", "--jobs", "2", "-", input=text).stdout)
    assert census["counts"]["rollouts"] == 1 and census["counts"]["lines"] == 10


@pytest.mark.parametrize("command", [["check"], ["outline"], ["census"], ["match", "fixtures/rollout-demo.jsonl"]])
def test_a_missing_path_exits_2_with_one_line(command, tmp_path):
    missing = tmp_path / "missing.jsonl"
    result = run_cli(*command, str(missing))
    assert result.returncode == 2
    assert result.stderr == f"rollout-lsp: cannot read {missing}: No such file or directory\n"


def test_an_unreadable_file_exits_2(tmp_path):
    if os.geteuid() == 0:  # root reads any file: make the path a folder that cannot be read as a file instead
        locked = tmp_path / "rollout-dir.jsonl"
        locked.mkdir()
        reason = "Is a directory"
        assert run_cli("outline", str(locked)).stderr == f"rollout-lsp: cannot read {locked}: {reason}\n"
        return
    locked = tmp_path / "rollout-locked.jsonl"
    locked.write_text(fixture("rollout-demo.jsonl"))
    locked.chmod(0)
    for command in ("check", "outline", "census"):
        result = run_cli(command, str(locked))
        assert result.returncode == 2
        assert result.stderr == f"rollout-lsp: cannot read {locked}: Permission denied\n"


def test_census_exits_2_on_a_missing_path_or_an_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    empty = run_cli("census", str(tmp_path / "empty"))
    assert empty.returncode == 2
    assert empty.stderr == f"rollout-lsp: no .jsonl or .jsonl.zst files in {tmp_path / 'empty'}\n"
    missing = run_cli("census", "--json", str(tmp_path / "nope"), "fixtures/rollout-demo.jsonl")
    assert missing.returncode == 2
    assert json.loads(missing.stdout)["counts"]["rollouts"] == 1


def test_census_counts_lines_as_wc_does(tmp_path):
    text = fixture("rollout-demo.jsonl")
    (tmp_path / "rollout-a.jsonl").write_text(text)
    (tmp_path / "rollout-b.jsonl").write_text(text.rstrip("\n"))  # no newline after the last line
    out = json.loads(run_cli("census", "--json", str(tmp_path)).stdout)
    assert out["counts"]["lines"] == 2 * text.count("\n") == 20


def test_json_lines_that_are_not_rollouts_are_skipped_as_the_server_does(tmp_path):
    other = tmp_path / "data.jsonl"
    other.write_text(fixture("not-a-rollout.jsonl"))
    named = tmp_path / "rollout-named.jsonl"
    named.write_text(fixture("not-a-rollout.jsonl"))  # its name says rollout: checked whatever its content
    check = run_cli("check", str(tmp_path))
    assert check.stderr == f"rollout-lsp: {other}: {NOT_A_ROLLOUT}\n"
    assert {line.split(":")[0] for line in check.stdout.splitlines()} == {str(named)}
    assert check.returncode == 1
    census = run_cli("census", "--json", str(tmp_path))
    assert census.stderr == f"rollout-lsp: {other}: {NOT_A_ROLLOUT}\n"
    out = json.loads(census.stdout)
    assert (out["counts"]["rollouts"], out["skipped_files"], census.returncode) == (1, 1, 0)


def test_a_closed_pipe_ends_quietly_with_the_findings_status(tmp_path):
    big = tmp_path / "rollout-big.jsonl"
    big.write_text(fixture("rollout-demo.jsonl") * 3000)  # far more output than a pipe holds
    for args, status in (
        (["check", str(big)], 1),
        (["check", "--fail-on", "error", str(big)], 0),
        (["outline", str(big)], 0),
    ):
        reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE)
        with reader:
            writer = subprocess.run(
                [sys.executable, "-m", "lsp_server", *args], stdout=reader.stdin, stderr=subprocess.PIPE, cwd=ROOT
            )
        assert (writer.returncode, writer.stderr) == (status, b"")


@pytest.mark.parametrize(
    "args, message",
    [
        (["serve", "--tcp", "bogus"], "argument --tcp: expected HOST:PORT with a port from 0 to 65535, not 'bogus'"),
        (["serve", "--ws", "host:99999"], "argument --ws: expected HOST:PORT"),
        (["serve", "--log-level", "nonsense"], "argument --log-level: invalid choice: 'NONSENSE'"),
        (["census", "--jobs", "many", "fixtures"], "argument --jobs/-j: expected a whole number, not 'many'"),
        (["check", "--fail-on", "fatal", "x"], "argument --fail-on: invalid choice: 'fatal'"),
    ],
)
def test_argument_errors_are_usage_errors(args, message):
    result = run_cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"rollout-lsp {args[0]}: error: {message}")


def test_every_option_and_argument_is_described():
    parser = build_parser(None, ALL_COMMANDS)
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in [("rollout-lsp", parser), *commands.choices.items()]:
        assert command.description or name == "rollout-lsp", name
        for action in command._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
