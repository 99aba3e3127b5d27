"""Real rollouts from ../shared/corpus/wild/ (SHAPES.md says where each shape is): every file reads, and one
real record, at least, pins each point of the record side (line numbers below are 1-based, as SHAPES.md gives them)."""

import pytest

from analysis import analyze_text
from analysis.jsonl.secrets import find_secrets
from analysis.jsonl.source import load, rollout_files
from analysis.reports.report import outline_json, record_json
from tests.helpers import SHARED

WILD = SHARED / "corpus" / "wild"
LAF_0329 = "LAF-US__IDAHO-VAULT__rollout-2026-03-29T20-15-51-019d3c86-a9b5-7911-b12a-438429ed8068.jsonl"
LAF_0331 = "LAF-US__IDAHO-VAULT__rollout-2026-03-31T20-44-07-019d46ed-4410-7883-8e83-afd2f6be9fe2.jsonl"
LAF_0419 = "LAF-US__IDAHO-VAULT__rollout-2026-04-19T21-55-01-019da907-0117-7d33-bc07-031000ff1176.jsonl"
DOU_0611 = "doudouqie66__CommonTools__rollout-2026-06-11T11-07-05-019eb4a5-ce35-7110-979d-d1ef09ca4131.jsonl"
DOU_0612 = "doudouqie66__CommonTools__rollout-2026-06-12T16-44-44-019ebb01-4a7a-7c12-9bb4-d3a37238731b.jsonl"
DOU_0711 = "doudouqie66__CommonTools__rollout-2026-07-11T10-22-29-019f4efb-ae76-7e30-b44e-3fa464c16193.jsonl"
HAWK = "hawkli-1994__dazi-skill__rollout-2026-04-28T18-05-46-019dd38d-4dfb-77b0-af6a-af358709d507.jsonl"
GOKAO_1126 = "tvvshow__gokao__rollout-2025-11-26T07-31-50-019abd5b-f1ce-7fe1-8330-b830d8e4871c.jsonl"
GOKAO_1225 = "tvvshow__gokao__rollout-2025-12-25T06-56-06-019b5293-a6da-70d1-95f9-95bdb1810b75.jsonl"
ACIDIC = "AcidicSoil__codex-session-view__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
_CACHE: dict = {}


def analysis_of(name: str):
    if name not in _CACHE:
        _CACHE[name] = analyze_text(load(str(WILD / name)).text)
    return _CACHE[name]


def record(name: str, line: int) -> dict:
    return record_json(analysis_of(name), line - 1)


def calls(name: str, line: int):
    return [c.call for c in analysis_of(name).calls_on(line - 1)]


@pytest.mark.parametrize("path", rollout_files([str(WILD)]), ids=lambda p: p.rsplit("/", 1)[-1][:60])
def test_every_wild_file_reads(path):
    analysis = analyze_text(load(path).text)
    out = outline_json(path, analysis)
    # every call record that has an output in the file is paired with it
    answered = set(analysis.outputs_by_call_id)
    assert [r["line"] for r in out["records"] if r["call_id"] in answered and r["output"] is None] == []


def test_top_level_command_calls_are_decoded_exactly():
    [pwd] = calls(LAF_0331, 32)
    assert (pwd.tool, pwd.kind, pwd.command, pwd.workdir, pwd.computed) == (
        "shell_command",
        "command",
        "pwd",
        None,
        False,
    )
    [rg] = calls(LAF_0329, 12)
    assert (rg.command, rg.workdir) == ("Get-ChildItem -Force", "C:\\Users\\loganf\\Documents\\IDAHO-VAULT")
    [exec_command] = calls(HAWK, 9)
    assert exec_command.command == "pwd && printf '\\nHOME=%s\\n' \"$HOME\""
    assert exec_command.arguments == {"max_output_tokens": 2000, "yield_time_ms": 1000}
    [shell] = calls(ACIDIC, 18)  # an argv, shown shell-quoted
    assert (shell.tool, shell.command, shell.workdir) == (
        "shell",
        "bash -lc 'cat '\"'\"'LM Studio configuration.md'\"'\"''",
        "/home/user/projects/temp/chatbot-ui",
    )


def test_every_call_record_is_in_the_outline_with_its_output():
    assert record(DOU_0612, 10) == {
        "line": 9,
        "call_id": "call_PqCup2ppwdywggNFnB5QWtwB",
        "name": "exec",
        "record": "custom_tool_call",  # an exec script with no tool call
        "output": {"status": "completed", "exit_code": None, "wall_time": 0.0, "line": 10},
    }
    assert record(LAF_0331, 61)["output"] == {"status": "completed", "exit_code": None, "wall_time": None, "line": 62}
    [ask] = calls(LAF_0331, 61)
    assert (ask.tool, ask.kind, ask.arguments["questions"][0]["id"]) == ("request_user_input", "tool", "dirty_state")
    [mcp] = calls(LAF_0331, 495)
    assert (mcp.tool, mcp.kind, mcp.arguments) == (
        "mcp__openaiDeveloperDocs__search_openai_docs",
        "tool",
        {"query": "Codex app archive thread sidebar desktop clear threads", "limit": 5},
    )
    assert record(LAF_0331, 495)["output"]["line"] == 498
    [web] = calls(LAF_0331, 763)
    assert (web.tool, web.arguments) == (
        "web_search",
        {"action": "open_page", "url": "https://developers.openai.com/codex/app-server/"},
    )
    assert record(LAF_0331, 763)["output"] == {"status": "completed", "exit_code": None, "wall_time": None, "line": 762}
    [resources] = calls(GOKAO_1126, 11)
    assert (resources.tool, record(GOKAO_1126, 11)["output"]["line"]) == ("list_mcp_resources", 11)
    [spawn] = calls(DOU_0711, 18)
    # a function_call in namespace "collaboration": named as code mode names it (docs/output-format.md)
    assert (spawn.tool, spawn.namespace, spawn.shown_tool, spawn.arguments["task_name"]) == (
        "collaboration__spawn_agent",
        "collaboration",
        "collaboration · spawn_agent",
        "timer_audit",
    )


def test_status_as_the_output_says_it():
    # apply_patch verification failed
    assert record(DOU_0611, 71)["output"]["status"] == "failed"
    # a cell that yielded (cell 8), carried on by two waits, failed; 10 s + 20 s + 0.4 s
    assert record(DOU_0612, 58)["output"] == {
        "status": "failed",
        "exit_code": None,
        "wall_time": 30.4,
        "line": 65,
        "first_line": 58,
        "continued_by": [61, 64],
        "via": "wait",
    }
    # each wait shows its own output
    assert record(DOU_0612, 62)["output"] == {"status": "running", "exit_code": None, "wall_time": 20.0, "line": 62}
    # a process left running (session 66506), ended by a write_stdin
    assert record(HAWK, 234)["output"] == {
        "status": "completed",
        "exit_code": 0,
        "wall_time": 5.543,
        "line": 239,
        "first_line": 235,
        "continued_by": [237],
        "via": "write_stdin",
    }
    assert record(HAWK, 238)["output"] == {"status": "completed", "exit_code": 0, "wall_time": 4.5404, "line": 239}
    # a non-zero exit of a command is its exit code, from the output's header
    assert record(LAF_0329, 13)["output"]["exit_code"] == 1


def test_events_are_matched_with_the_calls_they_report():
    analysis = analysis_of(LAF_0329)
    [top] = analysis.calls_on(13)  # rg --files ., reported by exec_command_end on line 16
    assert (top.event[0] + 1, top.event[1].type, top.event[1].exit_code, top.event[1].duration, top.event[1].cwd) == (
        16,
        "exec_command_end",
        0,
        0.919,
        "C:\\Users\\loganf\\Documents\\IDAHO-VAULT",
    )
    [patch] = analysis_of(DOU_0611).calls_on(106)  # apply_patch inside a script, reported with call_id exec-…
    assert (patch.call.executed, patch.event[0] + 1, patch.event[1].call_id, patch.event[1].success) == (
        "yes",
        108,
        "exec-62ae099a-d2aa-4308-83b4-39cff922c24b",
        True,
    )
    assert [f.path for f in patch.event[1].files] == ["C:\\Users\\admin\\.codex\\AGENTS.md"]
    unmatched = [
        (f.span.line + 1, f.code, f.message) for f in analysis_of(LAF_0419).findings if f.code == "unmatched-event"
    ]
    assert unmatched == [
        (
            11,
            "unmatched-event",
            "the user ran `nmp install -g @openai/codex` in a shell (exit 1); no call record lists it",
        ),
        (
            15,
            "unmatched-event",
            "the user ran `npm install -g @openai/codex` in a shell (exit 0); no call record lists it",
        ),
    ]


def test_turns_are_titled_with_the_users_words():
    turns = analysis_of(DOU_0612).turns
    assert [(t.line + 1, t.title, t.turn_id is not None) for t in turns[:2]] == [
        (2, "在绿洲里面，怎么实现保存数据，下一次登录进来还能获取到呢。保存到 服务器那种", True),
        (46, "加载子关卡的代码是什么", True),
    ]
    titles = [t.title for t in analysis_of(LAF_0331).turns]
    assert (
        titles[1] == "Welcome to the Codex App on my Windows laptop's desktop, installed via the Microsoft "
        "Store. I hope you enjoy the new accomodations!"
    )
    assert not any(
        t.startswith(("# Files mentioned", "<recommended_plugins>", "# Context from", "<image")) for t in titles
    )
    # a screenshot sent with no words is titled by its placeholder, as the user saw it in the prompt box
    assert [(t.line + 1, t.title) for t in analysis_of(LAF_0331).turns if t.title.startswith("[Image")] == [
        (131, "[Image #1]"),
        (241, "[Image #1]"),
        (261, "[Image #1]"),
    ]


def test_no_secret_inside_encrypted_content():
    analysis = analysis_of(GOKAO_1225)
    line = analysis.lines[835]  # a reasoning record whose encrypted_content holds "-sk-RMXU…" by chance
    assert [m.kind for m in find_secrets(line)] == ["OpenAI API key"]
    assert analysis.records[835].kind == "reasoning"
    assert [f for f in analysis.findings if f.code == "secret"] == []
