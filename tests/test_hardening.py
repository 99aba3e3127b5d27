"""Hostile and broken rollouts: the analysis never raises, ranges stay inside the document, a line reads the
same inside a document and alone, redaction keeps JSON valid, and no regex backtracks catastrophically."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from analysis import analyze_text
from analysis.jsonl.lines import split_lines
from analysis.reports.report import call_json, finding_json
from analysis.script.calls import find_calls
from analysis.script.script import ExecScript
from analysis.session.rollout import LineCache
from tests.helpers import FIXTURES, PEAK_SCRIPT, ROOT, run_cli
from tests.hostile import (
    PLACEHOLDER_FORMS,
    TERMINAL_ATTACKS,
    check_invariants,
    check_redaction,
    documents,
    exec_line,
    hostile_rollout,
    mutated,
    real_lines,
    real_scripts,
    record_lines,
    secret_forms,
    zstd_bomb,
)


@contextmanager
def watchdog(seconds: int):
    """Fails instead of hanging: a catastrophic backtrack or an endless loop would never return.  It counts
    this process's CPU time, not the clock, so a machine busy with other work does not make it fire."""

    def expired(*_):
        raise TimeoutError(f"no answer within {seconds} s of CPU time")

    old = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


@given(documents())
def test_random_documents(text):
    check_invariants(text)


@given(record_lines())
def test_records_of_any_shape(line):
    analysis = check_invariants(line)
    assert all(
        f.code
        in (
            "invalid-json",
            "record-shape",
            "secret",
            "unpaired-call",
            "patch-syntax",
            "script-syntax",
            "computed-command",
            "dead-branch",
            "unresolved-patch-path",
            "unknown-record",
        )
        for f in analysis.findings
    )


@given(st.data())
def test_mutated_real_lines(data):
    line = data.draw(mutated(data.draw(st.sampled_from(real_lines()))))
    check_invariants(line)
    check_redaction(line)


@given(st.data())
def test_mutated_scripts(data):
    script = data.draw(mutated(data.draw(st.sampled_from(real_scripts()))))
    check_invariants(exec_line(script))
    result = find_calls(ExecScript(script))
    assert all(0 <= c.start <= c.end <= len(script) for c in result.calls)


@given(st.text())
def test_random_scripts(script):
    check_invariants(exec_line(script))


@given(
    st.text(
        alphabet=st.sampled_from(
            ["\n", "\r", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "a", "{", '"', "\\", "\ufeff", "\x00"]
        ),
        max_size=60,
    )
)
def test_line_breaks_and_odd_characters(text):
    analysis = check_invariants(text)
    assert len(analysis.lines) == text.count("\n") + text.count("\r") - text.count("\r\n") + 1


@given(st.text(max_size=40))
@example("TOKEN=")  # found by Hypothesis: once the bearer token was redacted, `TOKEN=Bearer` read as a credential
def test_secret_redaction_keeps_json(text):
    for secret in ("sk-proj-" + "Ab1" * 8, "ghp_" + "x1Y2" * 9, "AKIAABCDEFGHIJKLMNOP", "Bearer abcdefghijklmnopq12"):
        check_redaction(json.dumps({"t": text + secret + text}))


HOSTILE = {
    "JSON nested 100,000 deep": '{"type":"response_item","payload":' + "[" * 100_000 + "]" * 100_000 + "}",
    "JSON opened 100,000 deep": "{" * 100_000,
    "JS parentheses 100,000 deep": exec_line(
        "tools.exec_command({cmd: " + "(" * 100_000 + '"x"' + ")" * 100_000 + "})"
    ),
    "JS arrays 100,000 deep": exec_line("const a = " + "[" * 100_000 + "]" * 100_000 + ";"),
    "JS blocks 100,000 deep": exec_line("{" * 100_000 + "tools.exec_command({cmd: 'x'})" + "}" * 100_000),
    "JS destructuring 50,000 deep": exec_line("const " + "[" * 50_000 + "x" + "]" * 50_000 + " = y;"),
    "JS && chain of 50,000": exec_line("false && " * 50_000 + "tools.exec_command({cmd: 'x'})"),
    "JS functions 10,000 deep": exec_line(
        "(" + "function(a){ return " * 10_000 + "tools.exec_command({cmd: a})" + "}" * 10_000 + ")"
    ),
    "JS consts shadowed 20,000 deep": exec_line(
        "{ const a = 1; " * 20_000 + "tools.exec_command({cmd: a})" + "}" * 20_000
    ),
    "5 MB line": exec_line("tools.exec_command({cmd: '" + "a" * 5_000_000 + "'})"),
    "NUL raw and escaped": '{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c","name":'
    '"exec","input":"tools.exec_command({cmd: \\"a\\u0000b\\"})"}}\x00',
    "lone surrogates": '{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c","name":"exec",'
    '"input":"\\ud800 tools.exec_command({cmd: \\"\\udc00x\\"}) \\udbff"}}',
    "an endless loop": exec_line("while (true) {} for (;;) {} tools.exec_command({cmd: 'x'})"),
    "mixed endings and BOM": "\ufeff"
    + exec_line("tools.exec_command({cmd: 'a'})")
    + "\r\n\r"
    + exec_line("x")
    + "\n\u2028\u2029\u0085\n",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_inputs(name):
    with watchdog(60):
        check_invariants(HOSTILE[name])


REDOS = [
    "sk-" + "a" * 200_000 + "!",
    "ghp_" + "a" * 200_000,
    "github_pat_" + "_" * 200_000,
    "AKIA" * 50_000,
    "xoxb-" + "-" * 200_000,
    "Bearer " + "a" * 200_000 + " ",
    "password" + " " * 200_000 + ":",
    "token" + '\\"' * 100_000,
    'key: \\"' + "a" * 200_000,
    "-----BEGIN " + "A " * 100_000,
    "-----BEGIN PRIVATE KEY-----" + "\\\\" * 100_000,
    "\\" * 200_000,
    "\\u" * 100_000,
    "\\ud83d" * 50_000,
    "Script completed\nWall time " + "1" * 200_000,
    "Exit code: " + "1" * 200_000,
    "Wall time: " + "9." * 100_000,
    "*** Begin Patch\n" + "*** " * 100_000,
    "// @exec:" + " " * 200_000,
    "${" * 100_000,
    "PASSWORD=" * 50_000,
    "A" * 200_000 + "_PASSWORD=x",
    "postgres://" + "a" * 200_000,
    "://a:" * 50_000,
    "mysql " * 50_000 + "-p",
    " -u a:" * 50_000,
    "1" * 200_000 + ":AA",
    "0" * 200_000 + "-us1",
    "eyJ" * 70_000,
]


@pytest.mark.parametrize("index", range(len(REDOS)))
def test_no_catastrophic_backtracking(index):
    hostile = REDOS[index]
    lines = [
        json.dumps(
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": hostile}]},
            }
        ),
        exec_line(f"tools.exec_command({{cmd: {json.dumps(hostile)}}}); tools.apply_patch(`{hostile}`)"),
        json.dumps(
            {"type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "c", "output": hostile}}
        ),
        hostile,
    ]
    with watchdog(60):
        for line in lines:
            check_invariants(line)


def test_check_answers_hostile_files(tmp_path):
    for index, text in enumerate(HOSTILE.values()):
        if len(text) > 1_000_000:
            continue
        (tmp_path / f"rollout-{index}.jsonl").write_text(text, encoding="utf-8", errors="surrogatepass")
    (tmp_path / "rollout-bytes.jsonl").write_bytes(b'{"type":"x"}\n\xff\xfe\x00garbage\n\xc3')
    result = run_cli("check", "--json", str(tmp_path))
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    rows = json.loads(result.stdout)
    files = {row["file"] for row in rows}
    assert str(tmp_path / "rollout-bytes.jsonl") in files
    assert any(r["message"] == "not UTF-8: byte 0xff" for r in rows)


def test_check_reports_a_file_it_cannot_read(tmp_path):
    link = tmp_path / "rollout-gone.jsonl"
    link.symlink_to(tmp_path / "deleted-target.jsonl")
    (tmp_path / "rollout-ok.jsonl").write_text(HOSTILE["an endless loop"] + "\n")
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr == f"rollout-lsp: cannot read {link}: No such file or directory\n"
    assert result.stdout.splitlines()[0].startswith(f"{tmp_path / 'rollout-ok.jsonl'}:1:")  # the rest is checked


def line_view(analysis, number: int) -> tuple[list, list]:
    """What the analysis says about one line, as the command line reports it (ranges, messages, calls),
    with that line numbered 0; the pairing with outputs and events on other lines left out."""

    def at_zero(value):
        if isinstance(value, dict):
            return {k: (0 if k == "line" and isinstance(v, int) else at_zero(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [at_zero(v) for v in value]
        return value

    pairing = ("output", "event", "executed", "outcome")  # what other lines say
    calls = [
        at_zero({k: v for k, v in call_json(analysis, c).items() if k not in pairing})
        for c in analysis.calls
        if c.line == number
    ]
    findings = [
        at_zero(finding_json(analysis, f))
        for f in analysis.findings
        if f.span.line == number
        and f.code not in ("unpaired-call", "unknown-record", "unmatched-event", "event-contradicts")
    ]
    return calls, findings


@given(st.data())
def test_a_line_reads_the_same_inside_a_document_and_alone(data):
    """A line's calls and findings (with their exact ranges and messages) inside a document of other
    lines, joined by any line ending, equal those of the line alone, each analysed with its own cache."""
    pool = real_lines() + [exec_line(s) for s in real_scripts()[:20]]
    before = data.draw(st.lists(st.sampled_from(pool), max_size=4))
    line = data.draw(st.sampled_from(pool))
    after = data.draw(st.lists(st.sampled_from(pool), max_size=4))
    ending = data.draw(st.sampled_from(["\n", "\r\n", "\r"]))
    document = analyze_text(ending.join(before + [line] + after), LineCache())
    alone = analyze_text(line, LineCache())
    assert document.lines[len(before)] == line
    assert line_view(document, len(before)) == line_view(alone, 0)


def test_every_real_line_reads_the_same_inside_its_file():
    """Each fixture line, in its own file and alone: the same calls, findings and ranges."""
    for path in sorted(FIXTURES.glob("*.jsonl")):
        text = path.read_bytes().decode("utf-8")
        document = analyze_text(text, LineCache())
        for number, line in enumerate(split_lines(text)):
            assert line_view(document, number) == line_view(analyze_text(line, LineCache()), 0), (path.name, number)


def _value_paths(value, path=()):
    """Every path to a value inside a JSON value (the first three items of a list)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _value_paths(inner, path + (key,))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            yield from _value_paths(inner, path + (index,))
    if path:
        yield path


def _replaced(value, path, new):
    value = json.loads(json.dumps(value))
    inner = value
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = new
    return value


def test_every_value_of_every_fixture_record_replaced_by_another_json_type():
    """Each value of each fixture record (a type, a path, a call id, an item kind…) replaced by an object, a
    list, a number, null or a boolean: the line is read, never a traceback (an object where a string was once
    ended the reading of a patch event's change type and of a turn item's type)."""
    lines = [line for path in sorted(FIXTURES.glob("*.jsonl")) for line in path.read_text().split("\n")]
    mutations = 0
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        for path in _value_paths(value):
            for new in ({"a": 1}, [1], 3, None, True):
                text = json.dumps(_replaced(value, path, new))
                check_invariants(text)
                mutations += 1
    assert mutations > 7_000  # every fixture line was read (7,620 mutations when this was written)


# -- lone surrogates and terminal control characters in every output (issue 23, points 1 and 6) -------------

CUT_EMOJI = "\ud83d"  # half of a surrogate pair: what a tool that cut its output mid-character leaves


@pytest.mark.parametrize(
    "command",
    [["outline"], ["outline", "--json"], ["export"], ["export", "--format", "html"], ["check"], ["check", "--json"]],
)
def test_a_lone_surrogate_is_written_safely(tmp_path, command):
    path = tmp_path / "rollout-cut.jsonl"
    path.write_text(hostile_rollout(CUT_EMOJI + " sk-abc"), encoding="utf-8")
    result = run_cli(*command, str(path))
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr == ""
    if command == ["outline", "--json"]:  # exact: the surrogate is a JSON escape that decodes to itself
        assert "\\ud83d" in result.stdout
        assert json.loads(result.stdout)["calls"][0]["command"] == "echo \ud83d sk-abc"
    elif command[0] != "check":  # for people: U+FFFD
        assert "echo \ufffd sk-abc" in result.stdout


def test_index_skips_what_it_cannot_store_and_indexes_the_rest(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "rollout-a-cut.jsonl").write_text(hostile_rollout(CUT_EMOJI), encoding="utf-8")
    (folder / "rollout-b-huge-exit.jsonl").write_text(
        hostile_rollout("x").replace(
            '"output": "said x"', '"output": {"output": "x", "metadata": {"exit_code": 99999999999999999999999}}'
        )
    )
    (
        folder / "rollout-c-name-\udcff.jsonl".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    ).write_text(hostile_rollout("y"))
    (folder / "rollout-d-fine.jsonl").write_text(hostile_rollout("fine"))
    db = tmp_path / "index.sqlite3"
    result = run_cli("index", "--db", str(db), str(folder))
    assert "Traceback" not in result.stderr
    assert (
        result.stderr
        == f"rollout-lsp index: cannot index {folder}/rollout-c-name-\ufffd.jsonl: its name is not UTF-8\n"
    )
    assert result.returncode == 1
    found = run_cli("search", "--db", str(db), "--json", "echo")
    texts = sorted((Path(h["file"]).name, h["text"]) for h in json.loads(found.stdout))
    assert texts == [
        ("rollout-a-cut.jsonl", "echo \ufffd"),
        ("rollout-b-huge-exit.jsonl", "echo x"),
        ("rollout-d-fine.jsonl", "echo fine"),
    ]


@pytest.mark.parametrize(
    "command", [["outline"], ["check", "--fail-on", "error"], ["export"], ["export", "--format", "html"]]
)
def test_control_characters_reach_no_terminal(tmp_path, command):
    path = tmp_path / "rollout-escapes.jsonl"
    path.write_text(hostile_rollout(TERMINAL_ATTACKS + ' {"password": "hunter2hunter2'))
    result = run_cli(*command, str(path))
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert not any(c in shown for c in "\x1b\x07\x08\r"), shown
    if command[0] != "check":
        assert "echo \\x1b]0;TITLE\\x07" in result.stdout


def test_control_characters_in_search_and_match(tmp_path):
    path = tmp_path / "rollout-escapes.jsonl"
    path.write_text(hostile_rollout(TERMINAL_ATTACKS))
    db = tmp_path / "index.sqlite3"
    assert run_cli("index", "--db", str(db), str(path)).returncode == 0
    found = run_cli("search", "--db", str(db), "TITLE")
    assert found.returncode == 0
    assert (
        "echo \\x1b]0;TITLE\\x07 \\x1b]52;c;aGVsbG8=\\x07 \\x1b[2J \\x08  [exec_command, session s-\\x1b]0"
        in found.stdout
    )
    assert not any(c in found.stdout for c in "\x1b\x07\x08\r")
    exact = json.loads(run_cli("search", "--db", str(db), "--json", "TITLE").stdout)
    assert exact[0]["text"] == "echo " + TERMINAL_ATTACKS  # machine output stays exact
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"ts": 1.5, "tool": "echo", "argv": [TERMINAL_ATTACKS], "exit": 0}) + "\n")
    matched = run_cli("match", str(path), str(log))
    assert "Traceback" not in matched.stderr
    assert not any(c in matched.stdout + matched.stderr for c in "\x1b\x07\x08\r")


def test_export_refuses_to_overwrite_its_input(tmp_path):
    path = tmp_path / "rollout-a.jsonl"
    text = hostile_rollout("x")
    path.write_text(text)
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    for out in (path, link, tmp_path / "." / "rollout-a.jsonl"):
        result = run_cli("export", "-o", str(out), str(path))
        assert result.returncode == 2
        assert result.stderr == f"rollout-lsp: refusing to write {out}: it is the rollout being exported\n"
    assert path.read_text() == text
    assert run_cli("export", "-o", str(tmp_path / "a.md"), str(path)).returncode == 0


# -- linear in the number of calls (issue 23, point 2; times are shown by bench/hostile.py) ------------------


class _CountingBytes(bytes):
    """A script's bytes that count the substring searches made over them (each a pass over the script)."""

    searches = 0

    def __contains__(self, item) -> bool:
        type(self).searches += 1
        return super().__contains__(item)


@pytest.mark.parametrize("chain", ["", "hooks?.before?.("])
def test_whole_script_searches_do_not_grow_with_its_calls(chain):
    def searches(n: int) -> int:
        closing = ")" if chain else ""
        script = ExecScript(
            "".join(f'{chain}await tools.exec_command({{cmd: "echo {i}"}}){closing};\n' for i in range(n))
        )
        script.data = _CountingBytes(script.data)
        _CountingBytes.searches = 0
        result = find_calls(script)
        assert len(result.calls) == n
        return _CountingBytes.searches

    assert searches(10) == searches(60)


def test_index_rebuild_refuses_a_database_that_is_not_an_index(tmp_path):
    import sqlite3

    other = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE calls(x)")
        db.execute("INSERT INTO calls VALUES (1)")
        db.commit()
    (tmp_path / "rollout-a.jsonl").write_text(hostile_rollout("x"))
    for flags in (["--rebuild"], []):
        result = run_cli("index", *flags, "--db", str(other), str(tmp_path / "rollout-a.jsonl"))
        assert result.returncode == 2
        assert (
            result.stderr.endswith(f"{other} is an SQLite database of something else; not overwriting it\n")
            if not flags
            else result.stderr == f"rollout-lsp index: {other} is not a rollout-lsp index; not overwriting it\n"
        )
    with contextlib.closing(sqlite3.connect(other)) as db:
        assert db.execute("SELECT x FROM calls").fetchall() == [(1,)]
    index = tmp_path / "index.sqlite3"
    assert run_cli("index", "--db", str(index), str(tmp_path / "rollout-a.jsonl")).returncode == 0
    assert run_cli("index", "--rebuild", "--db", str(index), str(tmp_path / "rollout-a.jsonl")).returncode == 0


# -- folders scanned safely, compressed files whole (issue 23, points 5 and 8) --------------------------------


def test_fifos_and_devices_in_a_folder_are_skipped_with_a_message(tmp_path):
    import os

    os.mkfifo(tmp_path / "rollout-fifo.jsonl")  # opening it would wait for a writer forever
    (tmp_path / "rollout-zero.jsonl").symlink_to("/dev/zero")  # reading it never ends
    (tmp_path / "rollout-ok.jsonl").write_text(hostile_rollout("ok"))
    skipped = [
        f"skipped {tmp_path}/rollout-fifo.jsonl: a FIFO, not a regular file",
        f"skipped {tmp_path}/rollout-zero.jsonl: a character device, not a regular file",
    ]
    for command in (["check"], ["census"]):
        result = subprocess.run(
            [sys.executable, "-m", "lsp_server", *command, str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.stderr.splitlines() == [f"rollout-lsp: {s}" for s in skipped]
        assert result.returncode in (0, 1)
    index = subprocess.run(
        [sys.executable, "-m", "lsp_server", "index", "--db", str(tmp_path / "i.db"), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert index.stderr.splitlines() == [f"rollout-lsp index: {s}" for s in skipped]
    assert index.stdout.splitlines()[-1].endswith(": 1 files, 2 calls")
    named = run_cli("check", "/dev/zero")
    assert (named.returncode, named.stderr) == (
        2,
        "rollout-lsp: cannot read /dev/zero: not a regular file (a character device)\n",
    )


def _zst(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize(
    "command", [["check"], ["check", "--json"], ["outline"], ["outline", "--json"], ["census"], ["export"]]
)
def test_a_truncated_or_corrupt_zst_is_an_error(tmp_path, command):
    whole = _zst(hostile_rollout("x").encode() * 20)
    for name, data in (
        ("head", whole[:60]),
        ("half", whole[: len(whole) // 2]),
        ("corrupt", whole[: len(whole) // 2] + bytes(range(256)) * 4),
    ):
        path = tmp_path / f"rollout-{name}.jsonl.zst"
        path.write_bytes(data)
        result = run_cli(*command, str(path))
        assert result.returncode == 2, (name, result.stdout)
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(f"rollout-lsp: cannot read {path}:")
        assert "Traceback" not in result.stderr
    concatenated = tmp_path / "rollout-two-frames.jsonl.zst"
    concatenated.write_bytes(_zst(hostile_rollout("a").encode()) + _zst(hostile_rollout("b").encode()))
    assert run_cli(*command, str(concatenated)).returncode in (0, 1)


def test_index_reports_a_truncated_zst(tmp_path):
    (tmp_path / "rollout-cut.jsonl.zst").write_bytes(_zst(hostile_rollout("x").encode())[:-5])
    result = run_cli("index", "--db", str(tmp_path / "i.db"), str(tmp_path))
    assert result.returncode == 1
    assert result.stderr == (
        f"rollout-lsp index: cannot read {tmp_path}/rollout-cut.jsonl.zst: truncated zstd "
        "data: the file ends inside a frame\n"
    )


# -- secrets, both ways (issue 23, point 7) ------------------------------------------------------------------


def _detect_secrets_types(text: str) -> list[str]:
    """What detect-secrets' plugins (their rule set, without the two entropy heuristics and public IPs)
    flag in ``text``."""
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    noise = {"Base64 High Entropy String", "Hex High Entropy String", "Public IP (ipv4)"}
    with default_settings():
        return sorted({s.type for line in text.split("\n") for s in scan_line(line) if s.type not in noise})


def secret_coverage() -> list[tuple[str, bool, list[str], str]]:
    """For each form: its name, whether our redaction hides it (in the raw JSON line, as the server and the
    index see it, and in the decoded text, as export does), what detect-secrets flags, the gitleaks rule."""
    from analysis.jsonl.secrets import redact_all

    rows = []
    for name, text, secret, rule in secret_forms():
        line = json.dumps(
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": text}}
        )
        hidden = secret not in json.loads(redact_all(line))["payload"]["output"] and secret not in redact_all(text)
        rows.append((name, hidden, _detect_secrets_types(text), rule))
    return rows


def coverage_table(rows) -> str:
    lines = ["| form | redacted | detect-secrets plugin | gitleaks rule |", "| --- | --- | --- | --- |"]
    for name, hidden, types, rule in rows:
        lines.append(f"| {name} | {'yes' if hidden else 'NO'} | {', '.join(types) or '—'} | {rule} |")
    flagged = [r for r in rows if r[2]]
    lines.append("")
    lines.append(
        f"{sum(r[1] for r in rows)} of {len(rows)} forms redacted; of the {len(flagged)} forms "
        f"detect-secrets' plugins flag, {sum(r[1] for r in flagged)} redacted; "
        f"{sum(1 for r in rows if r[1] and not r[2])} redacted that no detect-secrets plugin flags."
    )
    return "\n".join(lines)


def test_every_secret_form_is_redacted_and_the_coverage_is_documented():
    rows = secret_coverage()
    assert len(rows) >= 40
    assert [name for name, hidden, _, _ in rows if not hidden] == []
    doc = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    start = doc.index("<!-- secret-coverage -->\n") + len("<!-- secret-coverage -->\n")
    end = doc.index("<!-- /secret-coverage -->")
    assert doc[start:end].strip() == coverage_table(rows), "regenerate: python -m tests.test_hardening"


@pytest.mark.parametrize("text", PLACEHOLDER_FORMS)
def test_placeholders_are_not_secrets(text):
    from analysis.jsonl.secrets import find_secrets

    line = json.dumps(
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": text}}
    )
    assert find_secrets(line) == [] and find_secrets(text) == []


def test_the_index_stores_nothing_export_would_redact(tmp_path):
    from analysis.jsonl.secrets import find_secrets

    forms = secret_forms()
    records = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}]
    for n, (_, text, _, _) in enumerate(forms):
        records.append(
            {
                "timestamp": "2026-01-01T00:00:01Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": f"c{n}",
                    "arguments": json.dumps({"cmd": text, "workdir": "/w"}),
                },
            }
        )
    path = tmp_path / "rollout-secrets.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    db = tmp_path / "i.db"
    assert run_cli("index", "--db", str(db), str(path)).returncode == 0
    hits = json.loads(run_cli("search", "--db", str(db), "--json", "").stdout)
    assert len(hits) == len(forms)
    stored = "\n".join(h["text"] for h in hits)
    assert [name for name, _, secret, _ in forms if secret in stored] == []
    assert [h["text"] for h in hits if find_secrets(h["text"])] == []
    exported = run_cli("export", str(path)).stdout
    assert [name for name, _, secret, _ in forms if secret in exported] == []


if __name__ == "__main__":  # prints the coverage table for docs/findings.md
    print(coverage_table(secret_coverage()))


# -- bounded memory on long lines (issue 23, point 4) --------------------------------------------------------


@given(st.text(alphabet=st.sampled_from(["a", "é", "\r", "\n"]), max_size=40), st.integers(1, 8))
def test_lines_over_the_limit_are_skipped_and_the_rest_read_exactly(tmp_path_factory, text, limit):
    import os

    from analysis.jsonl import line_stream
    from analysis.jsonl.source import load

    path = tmp_path_factory.mktemp("lines") / "rollout-x.jsonl"
    path.write_bytes(text.encode("utf-8"))
    old = os.environ.get("ROLLOUT_LSP_MAX_LINE")
    os.environ["ROLLOUT_LSP_MAX_LINE"] = str(limit)
    try:
        streamed = list(line_stream.read_lines(str(path)))
        loaded = load(str(path))
    finally:
        os.environ.pop("ROLLOUT_LSP_MAX_LINE") if old is None else os.environ.__setitem__("ROLLOUT_LSP_MAX_LINE", old)
    lines = split_lines(text)
    assert len(streamed) == len(lines) == len(split_lines(loaded.text))
    for number, ((got, finding), line) in enumerate(zip(streamed, lines)):
        if len(line) > limit:
            assert (got, finding.message, finding.span.line) == (
                "",
                f"a line of {len(line)} characters, over the limit of {limit} (ROLLOUT_LSP_MAX_LINE): skipped, "
                "not read",
                number,
            )
        else:
            assert (got, finding) == (line, None)
    assert [f.message for f in loaded.findings] == [f.message for _, f in streamed if f is not None]


def _run_limited(*args: str, limit: int) -> subprocess.CompletedProcess:
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        # a 300 MiB line: over the default decompressed limit (256 MiB, analysis/jsonl/limits.py), raised here
        env = {**os.environ, "ROLLOUT_LSP_MAX_LINE": str(limit), "ROLLOUT_LSP_MAX_DECOMPRESSED": str(1 << 30)}
        env["PEAK_FILE"] = peak_file
        result = subprocess.run(
            [sys.executable, "-c", PEAK_SCRIPT, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600
        )
        with open(peak_file) as handle:
            result.peak_kb = int(handle.read())
    return result


@pytest.mark.parametrize(
    "command", [["check"], ["check", "--json"], ["outline"], ["outline", "--json"], ["census"], ["export"]]
)
def test_a_zstd_bomb_line_is_skipped_without_being_read(tmp_path, command):
    prefix = json.dumps(
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": ""},
        }
    )[:-3].encode()
    after = hostile_rollout("after the bomb").encode()
    bomb = tmp_path / "rollout-bomb.jsonl.zst"  # 300 MB of one line, 9 KB on disk
    bomb.write_bytes(zstd_bomb(prefix, b"a", 300 << 20, b'"}}\n' + after))
    result = _run_limited(*command, str(bomb), limit=1 << 20)
    assert "Traceback" not in result.stderr and result.returncode in (0, 1), result.stderr
    size = len(prefix) + (300 << 20) + 3
    if command[0] == "check":
        assert (
            f"a line of {size} characters, over the limit of 1048576 (ROLLOUT_LSP_MAX_LINE): skipped, not read"
            in result.stdout
        )
    if command[0] in ("outline", "export"):
        assert "after the bomb" in result.stdout
    assert result.peak_kb < 150_000  # the 300 MB line was never held (about 70 MB here)


def test_a_long_plain_line_is_skipped(tmp_path):
    path = tmp_path / "rollout-long.jsonl"
    long = json.dumps(
        {
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a" * 5000}]},
        }
    )
    path.write_text(hostile_rollout("before") + long + "\n" + hostile_rollout("after"))
    for command in (["check", "--json"], ["outline", "--json"]):
        result = _run_limited(*command, str(path), limit=4096)
        out = json.loads(result.stdout)
        findings = out if command[0] == "check" else out["diagnostics"]
        assert [f["message"] for f in findings if f["code"] == "invalid-json"] == [
            f"a line of {len(long)} characters, over the limit of 4096 (ROLLOUT_LSP_MAX_LINE): skipped, not read"
        ]
        assert [f["range"]["start"]["line"] for f in findings if f["code"] == "invalid-json"] == [5]


# -- the smaller ones (issue 23, point 10) -----------------------------------------------------------------


def test_search_limit_must_be_positive_and_output_lines_zero_keeps_none(tmp_path):
    for limit in ("0", "-1"):
        result = run_cli("search", "--limit", limit, "x")
        assert result.returncode == 2 and "argument --limit: must be 1 or more" in result.stderr
    path = tmp_path / "rollout-a.jsonl"
    path.write_text(hostile_rollout("x"))
    none = run_cli("export", "--output-lines", "0", str(path)).stdout
    assert "said x" not in none and "… (1 more line)" in none
    assert "said x" in run_cli("export", "--output-lines", "1", str(path)).stdout
    negative = run_cli("export", "--output-lines", "-1", str(path))
    assert negative.returncode == 2 and "argument --output-lines: must be 0 or more" in negative.stderr


def test_match_with_its_arguments_swapped_says_so(tmp_path):
    rollout = tmp_path / "rollout-a.jsonl"
    rollout.write_text(hostile_rollout("x"))
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"ts": 1.5, "tool": "echo", "argv": ["x"], "exit": 0}) + "\n")
    result = run_cli("match", str(log), str(rollout))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"rollout-lsp: {log} is an invocation log, not a rollout: the rollout comes first "
        "(rollout-lsp match ROLLOUT CALLS)\n"
    )


def test_since_keeps_fractional_seconds():
    from analysis.reports.index import parse_since

    since = parse_since("2026-03-01T10:00:00.5Z")
    assert since == "2026-03-01T10:00:00.5"
    assert "2026-03-01T10:00:00.123Z" < since <= "2026-03-01T10:00:00.500Z" < "2026-03-01T10:00:00.600Z"
    assert parse_since("2026-03-01T11:00:00.250+01:00") == "2026-03-01T10:00:00.25"
    assert parse_since("2026-03-01T10:00:00Z") == "2026-03-01T10:00:00"


def test_invocation_order_prints_timestamps_as_written():
    from analysis.reports.invocations import read_invocation_log

    log = read_invocation_log(
        json.dumps({"ts": 1784540001.25, "tool": "a", "argv": [], "exit": 0})
        + "\n"
        + json.dumps({"ts": 1784540000.125, "tool": "b", "argv": [], "exit": 0})
        + "\n"
    )
    assert [f.message for f in log.findings if f.code == "invocation-order"] == [
        "ts 1784540000.125 is earlier than the line before (1784540001.25): appends from several processes "
        "interleaved, or the log was edited"
    ]


def test_invalid_json_messages_say_where():
    messages = [f.message for f in analyze_text('{"a": "abc').findings]
    assert messages == [
        "this line is cut off: it ends inside a string that starts at column 7 (a rollout still being written, "
        "or truncated)"
    ]
    assert [f.message for f in analyze_text('{"a": "b"} x').findings] == ["not JSON: Extra data"]
    assert [f.message for f in analyze_text('{"a": "a\x01"}').findings] == [
        "not JSON: Invalid control character at column 9"
    ]


def test_index_reports_a_folder_it_cannot_list(tmp_path, monkeypatch):
    """As root every folder can be listed: the refusal is made by os.walk's error callback, as the OS makes it."""
    import os

    from analysis.jsonl import source
    from analysis.reports.index import RolloutIndex

    (tmp_path / "sessions" / "locked").mkdir(parents=True)
    (tmp_path / "sessions" / "rollout-a.jsonl").write_text(hostile_rollout("x"))
    walk = os.walk

    def walking(top, onerror=None, followlinks=False):
        for folder, dirs, names in walk(top, onerror=onerror, followlinks=followlinks):
            if folder.endswith("locked"):
                onerror(PermissionError(13, "Permission denied", folder))
                continue
            yield folder, dirs, names

    monkeypatch.setattr(source.os, "walk", walking)
    with RolloutIndex.open(tmp_path / "i.db") as index:
        stats = index.update([str(tmp_path / "sessions")])
    assert stats.errors == [f"cannot read {tmp_path}/sessions/locked: Permission denied"]
    assert stats.calls_added == 2
