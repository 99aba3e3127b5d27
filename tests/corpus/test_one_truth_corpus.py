"""One truth per call on real rollouts (../shared/corpus/wild, issue 34 point 4): a patch that did not
apply is listed as not applied, one file is one file however a Windows session spells it, a script's own
failure is told on its one call, durations in one format, a cut line read as cut."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import load
from analysis.reports.export import export
from analysis.reports.report import outline_text
from analysis.session.executed import executed
from analysis.session.labels import NOT_RUN, call_outcome, failures, record_outcome
from analysis.session.rollout import RolloutAnalysis, analyze_text
from tests.helpers import SHARED, run_cli

WILD = SHARED / "corpus" / "wild"
AGENTS = "doudouqie66__CommonTools__rollout-2026-07-11T10-22-29-019f4efb-ae76-7e30-b44e-3fa464c16193.jsonl"
WEB = "doudouqie66__CommonTools__rollout-2026-06-11T11-07-05-019eb4a5-ce35-7110-979d-d1ef09ca4131.jsonl"
BUFF = "doudouqie66__CommonTools__rollout-2026-07-21T18-10-17-019f8427-9d99-7202-b780-4a7bff01a13e.jsonl"
REPAIR = "doudouqie66__CommonTools__rollout-2026-07-28T21-42-03-019fa8f6-04ea-7c40-b0bf-9ac59bcf3f90.jsonl"


@cache
def analysis_of(name: str) -> RolloutAnalysis:
    return analyze_text(load(str(WILD / name)).text)


def test_a_patch_that_did_not_apply_is_listed_as_not_applied():
    """Lines 213 and 222 failed (apply_patch verification failed); 228 and 232 applied."""
    result = run_cli("files", str(WILD / AGENTS))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{WILD / AGENTS} (session 019f4efb-ae76-7e30-b44e-3fa464c16193): 2 files changed",
        "  turn 3 (line 199): 先帮我改前两个",
        "    Script/Blueprint/UGCPlayerController.lua: updated (line 228; not applied: lines 213, 222)",
        "    Script/Blueprint/UGCPlayerPawn.lua: updated (line 232; not applied: lines 213, 222)",
    ]
    [session] = json.loads(run_cli("files", "--json", str(WILD / AGENTS)).stdout)
    assert [(f["path"], f["final"], f["row"]) for f in session["files"]] == [
        ("Script/Blueprint/UGCPlayerController.lua", "updated", "updated (line 228; not applied: lines 213, 222)"),
        ("Script/Blueprint/UGCPlayerPawn.lua", "updated", "updated (line 232; not applied: lines 213, 222)"),
    ]
    # the same rows in outline and export; a one-turn change is listed once, under its turn
    text = outline_text(AGENTS, analysis_of(AGENTS), [], PositionEncoding.UTF16)
    assert text.count("Script/Blueprint/UGCPlayerController.lua: updated (line 228; not applied: lines 213, 222)") == 1
    assert "\nfiles changed (" not in text
    document = export(analysis_of(AGENTS), str(WILD / AGENTS), "md")
    assert document.count("- Script/Blueprint/UGCPlayerPawn.lua: updated (line 232; not applied: lines 213, 222)") == 1
    assert "**Files changed** (" not in document


def test_one_file_however_a_windows_session_spells_it():
    """``C:/Users/admin/.codex/AGENTS.md`` (a failed patch, line 71) and ``C:\\Users\\admin\\.codex\\AGENTS.md``
    are one file, named as the call that changed it spells it."""
    result = run_cli("files", str(WILD / WEB))
    assert (
        result.stdout.splitlines()[0] == f"{WILD / WEB} (session 019eb4a5-ce35-7110-979d-d1ef09ca4131): 1 file changed"
    )
    assert [line for line in result.stdout.splitlines() if line.startswith("    ")] == [
        "    C:\\Users\\admin\\.codex\\AGENTS.md: added (line 49)",
        "    C:\\Users\\admin\\.codex\\AGENTS.md: added (line 77; not applied: line 71)",
        "    C:\\Users\\admin\\.codex\\AGENTS.md: updated (line 107)",
    ]
    text = outline_text(WEB, analysis_of(WEB), [], PositionEncoding.UTF16).splitlines()
    assert text[text.index("files changed (1):") + 1] == (
        "  C:\\Users\\admin\\.codex\\AGENTS.md: added (lines 49, 77, 107; not applied: line 71)"
    )


def test_a_script_error_is_told_on_the_call_it_stopped_at():
    cases = [
        (WEB, 95, "execution error: NotADirectory"),  # PowerShell: the shell_command's workdir is no folder
        (REPAIR, 215, "rejected: blocked by policy"),  # the sandbox policy refused the one command
        (BUFF, 46, "apply_patch verification failed"),
    ]
    for name, line, reason in cases:
        analysis = analysis_of(name)
        [located] = analysis.calls_on(line)
        outcome = call_outcome(analysis, located)
        assert (outcome.text, outcome.failed) == (reason, True), name
        assert record_outcome(analysis, line).text == "failed at its call"  # where; the call says how
        # counted once: the call, not the exec as well
        assert [f for f in failures(analysis) if f[0] == line] == [(line, reason)]
    # the streamed reading (outline --json) says the same
    out = json.loads(run_cli("outline", "--json", str(WILD / REPAIR)).stdout)
    assert [c["outcome"] for c in out["calls"] if c["line"] == 215] == ["rejected: blocked by policy"]
    text = outline_text(REPAIR, analysis_of(REPAIR), [], PositionEncoding.UTF16)
    assert "      └─ [rejected: blocked by policy] shell_command: $repairDir = " in text
    # the exec row says where the failure is, the call what it is
    assert "    line 216: exec call_Bu2iI5eqyicj2zHDyQsE8baV  [failed at its call, 0 s]" in text.splitlines()
    # the patch did not apply: the files list says so
    assert run_cli("files", str(WILD / BUFF)).stdout.splitlines()[2:] == [
        "    Script/Blueprint/Prefabs/Buffs/Buff04.lua: updated (line 55; not applied: line 47)"
    ]


def test_a_cut_last_line_reads_as_cut(tmp_path: Path):
    """A real rollout cut in the middle of its last line, as a session still being written is read."""
    lines = (WILD / AGENTS).read_text(encoding="utf-8").split("\n")
    cut = "\n".join(lines[:20]) + "\n" + lines[20][:126]
    rollout = tmp_path / AGENTS
    rollout.write_text(cut, encoding="utf-8")
    found = json.loads(run_cli("check", "--json", str(rollout)).stdout)
    invalid = [f for f in found if f["code"] == "invalid-json"]
    assert [(f["range"]["start"]["line"], f["message"]) for f in invalid] == [
        (
            20,
            "this line is cut off: it ends inside a string that starts at column 121 (a rollout still being "
            "written, or truncated)",
        )
    ]


def test_blame_numbers_a_turn_as_files_and_the_outline_do(tmp_path: Path):
    """Before, blame printed the turn's line as its number (``turn 199``) where ``files`` and the Outline
    say ``turn 3 (line 199)``."""
    from analysis.reports.blame import file_history
    from analysis.reports.index import RolloutIndex

    with RolloutIndex.open(tmp_path / "index.sqlite3") as index:
        index.update([str(WILD / AGENTS)])
        [target] = index.db.execute("SELECT DISTINCT absolute FROM changes WHERE path LIKE '%Controller%'").fetchall()
        history = file_history(index, target[0])
    assert [(c.turn_text, c.line + 1, c.applied) for c in history] == [
        ("turn 3 (line 199)", 228, "yes"),
        ("turn 3 (line 199)", 222, "no"),
        ("turn 3 (line 199)", 213, "no"),
    ]
    [turn] = [t for t in analysis_of(AGENTS).turns if t.line == 198]
    assert analysis_of(AGENTS).turns.index(turn) + 1 == 3


def test_outline_json_says_a_call_ran_as_the_editor_does():
    """``executed`` in ``outline --json`` is the hover's and the Outline's word (analysis/session/executed.py):
    a call in a script with an exit code of its own ran."""
    analysis = analysis_of(AGENTS)
    [located] = analysis.calls_on(93)
    assert executed(analysis, located).text == "yes (it exited with code 1)"
    out = json.loads(run_cli("outline", "--json", str(WILD / AGENTS)).stdout)
    assert [(c["outcome"], c["executed"]) for c in out["calls"] if c["line"] == 93] == [("exit 1", "yes")]
    # every call of these sessions: the same word (but for a call the script failed before, an outcome only
    # the whole script's events give, which the streamed outline does not have: docs/output-format.md)
    for name in (AGENTS, WEB, BUFF, REPAIR):
        analysis = analysis_of(name)
        calls = json.loads(run_cli("outline", "--json", str(WILD / name)).stdout)["calls"]
        editor = [executed(analysis, c).value for c in analysis.calls if call_outcome(analysis, c) is not NOT_RUN]
        assert [
            c["executed"]
            for c, located in zip(calls, analysis.calls, strict=True)
            if call_outcome(analysis, located) is not NOT_RUN
        ] == editor, name
