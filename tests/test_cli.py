import json
import shutil

import zstandard

from tests.helpers import FIXTURES, fixture, run_cli


def test_check_prints_compiler_style_lines_and_fails_on_warnings():
    result = run_cli("check", "fixtures/rollout-demo.jsonl")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "fixtures/rollout-demo.jsonl:9:132: hint unpaired-call no output record for call call_demo3",
        "fixtures/rollout-demo.jsonl:9:281: warning computed-command the command is computed at run time: "
        "`git diff --stat -- ${f}`",
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
        "severity": "warning", "code": "unresolved-patch-path",
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
    missing = run_cli("check", str(tmp_path / "missing.jsonl"))
    assert missing.returncode == 2
    assert missing.stdout == f"{tmp_path / 'missing.jsonl'}:1:1: error invalid-json cannot read " \
                             f"{tmp_path / 'missing.jsonl'}: No such file or directory\n"
    bad_zst = tmp_path / "rollout-x.jsonl.zst"
    bad_zst.write_bytes(b"not zstd at all")
    assert run_cli("check", str(bad_zst)).returncode == 2
    assert run_cli("check").returncode == 2
    assert run_cli("check", "--fail-on", "fatal", "x").returncode == 2
    assert run_cli("check", str(tmp_path)).returncode == 2  # no rollout files there


def test_invalid_utf8_and_bom(tmp_path):
    path = tmp_path / "rollout-bytes.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + fixture("rollout-crlf.jsonl").encode() +
                     b'{"type":"response_item","payload":{"type":"message","role":"user","content":"caf\xe9"}}\n')
    result = run_cli("check", "--fail-on", "error", str(path))
    assert result.returncode == 1
    assert result.stdout == f"{path}:4:81: error invalid-json not UTF-8: byte 0xe9\n"


def test_outline_json_format():
    result = run_cli("outline", "--json", "fixtures/rollout-toplevel.jsonl")
    out = json.loads(result.stdout)
    assert result.returncode == 0
    assert set(out) == {"file", "records", "calls", "diagnostics"}
    assert out["records"][0] == {"line": 1, "call_id": "call_top1", "name": "exec_command", "record": "function_call",
                                 "output": {"status": "completed", "exit_code": 0, "wall_time": 0.1, "line": 2}}
    assert out["calls"][0] == {
        "line": 1, "record": "function_call", "call_id": "call_top1", "tool": "exec_command", "kind": "command",
        "command": "git status --short", "workdir": "/home/u/proj", "files": [], "computed": False,
        "expansion": None, "executed": "yes",
        "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 221}},
        "output": {"status": "completed", "exit_code": 0, "wall_time": 0.1, "line": 2}, "event": None,
    }


def test_outline_position_encodings():
    def start(encoding):
        out = json.loads(run_cli("outline", "--json", "--position-encoding", encoding,
                                 "fixtures/rollout-unicode.jsonl").stdout)
        return out["calls"][0]["range"]["start"]["character"]
    assert (start("utf-32"), start("utf-16"), start("utf-8")) == (223, 225, 229)


def test_outline_text_for_people():
    result = run_cli("outline", "fixtures/rollout-demo.jsonl")
    assert result.returncode == 0
    assert result.stdout.splitlines()[:8] == [
        "fixtures/rollout-demo.jsonl",
        "  turn (line 3): Fix the failing greeting test",
        "    line 5: exec call_demo1  [completed, 0.4 s]",
        "      └─ exec_command: pytest -q tests/test_greet.py  in /home/u/proj",
        "    line 7: exec call_demo2  [completed, 1.2 s]",
        "      ├─ apply_patch: update src/greet.py",
        "      └─ exec_command: pytest -q  in /home/u/proj",
        "    line 9: exec call_demo3  [no output]",
    ]


def test_census_counts():
    result = run_cli("census", "--json", "fixtures")
    out = json.loads(result.stdout)
    assert out["counts"]["rollouts"] == 16
    assert out["counts"]["scripts that do not parse"] == 2
    assert out["calls_by_tool"]["exec_command"] == 61
    assert out["findings_by_code"]["secret"] == 8
    assert out["counts"]["computed commands with a known expansion"] == 2
    assert (out["counts"]["literal commands"], out["counts"]["computed commands"]) == (59, 8)
    assert isinstance(out["seconds"], float)
