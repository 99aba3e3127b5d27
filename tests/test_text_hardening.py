"""What the terminal shows of a hostile rollout (issue 31, points 5 and 7): the "Trojan Source" trick
(bidirectional overrides and isolates that show a command or a file name in another order than it has) and
other invisible format characters are escaped in every text output, and over-long names are cut with a mark
that says how much was cut; JSON output stays exact."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from analysis.jsonl import display
from analysis.jsonl.display import for_people, shown
from tests.blame_support import Session, add, patch_text
from tests.helpers import run_cli

SESSION = "019c0000-0000-7000-8000-00000000000c"
LONG_SESSION = "019d0000-0000-7000-8000-00000000000d"
RLO, PDF, LRI, RLI, FSI, PDI = "\u202e", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069"
TAG_A = "\U000e0041"  # a tag character: hidden ASCII "A"
# the classic: "access level is admin" shown, reversed text actually there
COMMAND = f"echo ok {RLO} }}{LRI}// admin check{PDI}{{ {PDF}; rm -rf {RLI}~/x{PDI}"
FILE_NAME = f"src/report{RLO}fdp.exe{PDF}{FSI}{TAG_A}{PDI}.py"
REQUEST = f"review {RLO}gnp.sj{PDF} and {LRI}this{PDI}"
THREAD = f"thread {RLI}hidden{PDI} {RLO}eman{PDF}"
LONG_THREAD = "n" * 200_000


def _session(repo: Path, id: str, words: str, command: str, file_name: str) -> Session:
    s = Session(id, "2026-01-01", str(repo), {"branch": "main"})
    s.turn(words)
    s.write(
        "response_item",
        {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": json.dumps({"cmd": command})},
    )
    s.write("response_item", {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 0\nok"})
    s.top_patch("c2", patch_text(add(file_name, ["x = 1"])), success=True)
    return s


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A Codex home with two sessions (a Trojan Source one, one with a 200,000-character thread name), their
    names in its session index, the repository they wrote in, and an index of both."""
    tmp_path = tmp_path_factory.mktemp("text")
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    trojan = _session(repo, SESSION, REQUEST, COMMAND, FILE_NAME).save(day)
    long = _session(repo, LONG_SESSION, "n" * 300, "echo " + "m" * 500, "src/plain.py").save(day)
    (home / "session_index.jsonl").write_text(
        "".join(
            json.dumps({"id": i, "thread_name": n, "updated_at": "2026-01-01T11:00:00Z"}, ensure_ascii=False) + "\n"
            for i, n in ((SESSION, THREAD), (LONG_SESSION, LONG_THREAD))
        ),
        encoding="utf-8",
    )
    (repo / FILE_NAME).write_text("x = 1\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    assert run_cli("index", "--db", str(db), str(home / "sessions")).returncode == 0
    return {"repo": repo, "trojan": trojan, "long": long, "db": db}


def _no_raw_format(text: str) -> None:
    assert not [c for c in text if unicodedata.category(c) == "Cf" or c in "\u2028\u2029"], text


def _rollout_dir(world) -> str:
    return str(world["trojan"].parent)


# what the Trojan Source session's texts print as
SHOWN_COMMAND = r"echo ok \u202e }\u2066// admin check\u2069{ \u202c; rm -rf \u2067~/x\u2069"
SHOWN_FILE = r"src/report\u202efdp.exe\u202c\u2068\U000e0041\u2069.py"
SHOWN_REQUEST = r"review \u202egnp.sj\u202c and \u2066this\u2069"
SHOWN_THREAD = r"thread \u2067hidden\u2069 \u202eeman\u202c"


def test_trojan_source_outline(world):
    result = run_cli("outline", str(world["trojan"]))
    assert result.returncode == 0, result.stderr
    _no_raw_format(result.stdout + result.stderr)
    assert result.stdout.splitlines() == [
        str(world["trojan"]),
        f"  thread name: {SHOWN_THREAD}",
        "  session: 2 calls, 0 failed",
        f"  turn 1 (line 3): {SHOWN_REQUEST}",
        "    line 4: exec_command c1  [completed]",
        f"      └─ exec_command: {SHOWN_COMMAND}",
        "    line 6: apply_patch c2  [completed, 0.1 s]",
        f"      └─ apply_patch: add {SHOWN_FILE}",
        "    files changed (1):",
        f"      {SHOWN_FILE}: added (line 6)",
    ]


def test_trojan_source_outline_json_stays_exact(world):
    outline = json.loads(run_cli("outline", "--json", str(world["trojan"])).stdout)
    assert outline["calls"][0]["command"] == COMMAND
    assert outline["files"][0]["path"] == FILE_NAME


def test_trojan_source_files(world):
    result = run_cli("files", str(world["trojan"]))
    assert result.returncode == 0, result.stderr
    _no_raw_format(result.stdout + result.stderr)
    assert result.stdout.splitlines() == [
        f"{world['trojan']} (session {SESSION}): 1 file changed",
        f"  turn 1 (line 3): {SHOWN_REQUEST}",
        f"    {SHOWN_FILE}: added (line 6)",
    ]
    exact = json.loads(run_cli("files", "--json", str(world["trojan"])).stdout)
    assert exact[0]["files"][0]["path"] == FILE_NAME


def test_trojan_source_search(world):
    result = run_cli("search", "--db", str(world["db"]), "admin check")
    assert result.returncode == 0, result.stderr
    _no_raw_format(result.stdout + result.stderr)
    assert result.stdout.splitlines() == [
        f"{world['trojan']}:4:1: {SHOWN_COMMAND}  [exec_command, exit 0, session {SESSION} "
        f'"{SHOWN_THREAD}", turn 1 (line 3) "{SHOWN_REQUEST}", 2026-01-01T10:00:05.000Z]'
    ]
    exact = json.loads(run_cli("search", "--db", str(world["db"]), "--json", "admin check").stdout)
    assert (exact[0]["text"], exact[0]["thread_name"]) == (COMMAND, THREAD)


def test_trojan_source_blame(world):
    target = world["repo"] / FILE_NAME
    result = run_cli("blame", "--db", str(world["db"]), str(target))
    assert result.returncode == 0, result.stderr
    _no_raw_format(result.stdout + result.stderr)
    assert result.stdout.splitlines() == [
        f"{world['repo']}/{SHOWN_FILE}: changed by 1 session (1 change), newest first",
        f'2026-01-01T10:00:07.000Z  add  applied  session {SESSION}  turn 1 (line 3) "{SHOWN_REQUEST}"  {world["trojan"]}:6:1',
    ]
    lines = run_cli("blame", "--db", str(world["db"]), "--lines", str(target))
    assert lines.stdout.splitlines() == ["1 2026-01-01T10:00:07 019c0000  │ x = 1"]
    exact = json.loads(run_cli("blame", "--db", str(world["db"]), "--json", str(target)).stdout)
    assert exact["file"] == str(target)


@pytest.mark.parametrize(
    "command",
    [["check", "--fail-on", "error"], ["export"], ["export", "--format", "html"], ["census", "--jobs", "1"]],
)
def test_trojan_source_other_text_outputs(world, command):
    """check's, export's and census's text go through the same escaping (the command line's output guard)."""
    result = run_cli(*command, str(world["trojan"]))
    assert result.returncode == 0, result.stderr
    _no_raw_format(result.stdout + result.stderr)
    if command[0] == "export":
        assert SHOWN_COMMAND.replace("&", "&amp;") in result.stdout or SHOWN_COMMAND in result.stdout


def test_thread_name_of_200000_characters_outline(world):
    result = run_cli("outline", str(world["long"]))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        str(world["long"]),
        "  thread name: " + "n" * 100 + "… (+199,900 chars)",
        "  session: 2 calls, 0 failed",
        "  turn 1 (line 3): " + "n" * 70 + "… (+230 chars)",
        "    line 4: exec_command c1  [completed]",
        "      └─ exec_command: echo " + "m" * 91 + "… (+409 chars)",
        "    line 6: apply_patch c2  [completed, 0.1 s]",
        "      └─ apply_patch: add src/plain.py",
        "    files changed (1):",
        "      src/plain.py: added (line 6)",
    ]


def test_thread_name_of_200000_characters_search_and_files(world):
    found = run_cli("search", "--db", str(world["db"]), "mmm")
    assert found.stdout.splitlines() == [
        f"{world['long']}:4:1: echo " + "m" * 155 + "… (+345 chars)  [exec_command, exit 0, session "
        f'{LONG_SESSION} "' + "n" * 60 + '… (+199,940 chars)", turn 1 (line 3) "' + "n" * 60 + '… (+240 chars)", '
        "2026-01-01T10:00:05.000Z]"
    ]
    files = run_cli("files", str(world["long"]))
    assert files.stdout.splitlines()[1] == "  turn 1 (line 3): " + "n" * 70 + "… (+230 chars)"
    exact = json.loads(run_cli("search", "--db", str(world["db"]), "--json", "mmm").stdout)
    assert exact[0]["thread_name"] == LONG_THREAD


def test_escaped_characters_are_every_format_character():
    """The literal class equals Unicode's category Cf as this Python knows it, plus the line and paragraph
    separators and the Hangul fillers."""
    every = {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    literal = {chr(c) for low, high in display.FORMAT_RANGES for c in range(low, high + 1)}
    assert literal == every
    for c in every | {"\u2028", "\u2029", "\u3164", "\u115f"}:
        assert for_people("a" + c + "b") == "a" + (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}") + "b"
    assert for_people("déjà vu 👩‍💻") == "déjà vu 👩\\u200d💻"  # a joiner shows: a spoofed name cannot hide
    assert for_people("\x1b[2J\ud83d") == "\\x1b[2J\ufffd"


def test_shown_cuts_with_a_count():
    assert shown("fix the parser", 20) == "fix the parser"
    assert shown("a\r\nb", 20) == "a⏎ b"
    assert shown("x" * 25, 20) == "x" * 20 + "… (+5 chars)"
    assert shown("y" * 1_000_001, 10) == "y" * 10 + "… (+999,991 chars)"


def test_names_of_thousands_of_characters_in_check_and_census(tmp_path):
    """A finding's message quotes a call id or a record type: cut in check's text; census cuts tool names."""
    records = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/tmp"}},
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": "t" * 5000 + RLO, "call_id": "c" * 3000, "arguments": "{}"},
        },
        {"type": "response_item", "payload": {"type": "nonsense_" + "z" * 5000}},
    ]
    path = tmp_path / "rollout-long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    check = run_cli("check", "--fail-on", "error", str(path))
    assert check.stdout.splitlines() == [
        f"{path}:2:5093: hint unpaired-call no output record for call " + "c" * 374 + "… (+2,626 chars)",
        f"{path}:3:47: information unknown-record record type response_item/nonsense_" + "z" * 365 + "… (+4,719 chars)",
    ]
    exact = json.loads(run_cli("check", "--json", str(path)).stdout)
    assert exact[0]["message"] == "no output record for call " + "c" * 3000
    census = run_cli("census", "--jobs", "1", str(path)).stdout.splitlines()
    assert "  " + "t" * 80 + "… (+4,921 chars) 1" in census
    assert "  (no version) response_item/nonsense_" + "z" * 44 + "… (+4,956 chars) 1" in census
