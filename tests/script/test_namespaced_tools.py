"""Namespaced tools of Codex 0.147 and later inside exec scripts: their namespace, name and key argument, tools
chosen at run time from ALL_TOOLS, and arguments computed at run time (never shown as null)."""

import pytest

from analysis.script.calls import ToolCall, find_calls
from analysis.script.script import ExecScript
from analysis.script.tool_names import key_text, shown_tool, split_tool


def read(source: str):
    result = find_calls(ExecScript(source))
    return result.calls, result.notes


SCRIPT = """const spawned = await tools.multi_agent_v1__spawn_agent({task_name: "review", message: "Review the diff",
  agent_type: "explorer", fork_turns: 2});
const done = await tools.multi_agent_v1__wait_agent({targets: [spawned.agent_id], timeout_ms: 60000});
await tools.multi_agent_v2__spawn_agent({message: "Write the tests"});
await tools.collaboration__send_message({target: "agent-7", message: "stop"});
await tools.web__run({search_query: [{q: "codex rollout"}, {q: "acorn"}], response_length: "short"});
await tools.image_gen__imagegen({prompt: "a lighthouse at dusk"});
await tools.tool_search__tool_search_tool({query: "calendar"});
await tools.collaboration__list_agents({});
"""


def test_namespaced_tools_are_tool_calls_with_namespace_name_and_key_argument():
    calls, notes = read(SCRIPT)
    assert [(c.tool, c.kind, c.namespace, c.bare_tool, c.shown_tool) for c in calls] == [
        ("multi_agent_v1__spawn_agent", "tool", "multi_agent_v1", "spawn_agent", "multi_agent_v1 · spawn_agent"),
        ("multi_agent_v1__wait_agent", "tool", "multi_agent_v1", "wait_agent", "multi_agent_v1 · wait_agent"),
        ("multi_agent_v2__spawn_agent", "tool", "multi_agent_v2", "spawn_agent", "multi_agent_v2 · spawn_agent"),
        ("collaboration__send_message", "tool", "collaboration", "send_message", "collaboration · send_message"),
        ("web__run", "tool", "web", "run", "web · run"),
        ("image_gen__imagegen", "tool", "image_gen", "imagegen", "image_gen · imagegen"),
        ("tool_search__tool_search_tool", "tool", "tool_search", "tool_search_tool", "tool_search · tool_search_tool"),
        ("collaboration__list_agents", "tool", "collaboration", "list_agents", "collaboration · list_agents"),
    ]
    assert [(c.key_argument, c.key_value, c.key_computed, c.key_text) for c in calls] == [
        ("task_name", "review", None, "review"),
        ("targets", None, "[spawned.agent_id]", None),
        ("message", "Write the tests", None, "Write the tests"),
        ("target", "agent-7", None, "agent-7"),
        ("search_query", [{"q": "codex rollout"}, {"q": "acorn"}], None, "codex rollout, acorn"),
        ("prompt", "a lighthouse at dusk", None, "a lighthouse at dusk"),
        ("query", "calendar", None, "calendar"),
        (None, None, None, None),
    ]
    assert notes == []


def test_an_argument_computed_at_run_time_is_computed_never_null():
    calls, _ = read(SCRIPT)
    wait = calls[1]
    assert wait.arguments == {"timeout_ms": 60000}  # no "targets": None
    assert wait.computed_arguments == {"targets": "[spawned.agent_id]"}
    assert calls[0].arguments == {
        "task_name": "review",
        "message": "Review the diff",
        "agent_type": "explorer",
        "fork_turns": 2,
    }
    assert calls[0].computed_arguments == {}


def test_a_key_a_later_spread_may_replace_is_computed():
    calls, _ = read('await tools.multi_agent_v1__spawn_agent({task_name: "a", ...options});')
    assert calls[0].arguments == {}
    assert calls[0].computed_arguments == {"task_name": '"a" (a later spread may replace it)'}
    assert calls[0].key_argument == "task_name" and calls[0].key_value is None


@pytest.mark.parametrize(
    "tool, namespace, expected",
    [
        ("multi_agent_v1__spawn_agent", None, ("multi_agent_v1", "spawn_agent")),
        ("mcp__github__search_issues", None, ("mcp__github", "search_issues")),
        ("codex_app__automation_update", None, ("codex_app", "automation_update")),
        ("exec_command", None, (None, "exec_command")),
        ("__private", None, (None, "__private")),
        ("trailing__", None, (None, "trailing__")),
        ("spawn_agent", "multi_agent_v1", ("multi_agent_v1", "spawn_agent")),  # a top-level function_call
        ("search", "mcp__docs__", ("mcp__docs", "search")),
        ("mcp__docs__search", "mcp__docs__", ("mcp__docs", "search")),
        (None, None, (None, None)),
    ],
)
def test_split_tool(tool, namespace, expected):
    assert split_tool(tool, namespace) == expected


def test_shown_tool_and_key_text():
    assert shown_tool("spawn_agent", "multi_agent_v1") == "multi_agent_v1 · spawn_agent"
    assert shown_tool("exec_command") == "exec_command"
    assert key_text(["a", "b"]) == "a, b"
    assert key_text([{"ref_id": "turn0search1"}]) == "turn0search1"
    assert key_text([{"q": "x"}, 3]) is None
    assert key_text(None) is None


def test_a_top_level_call_with_a_namespace_reads_alike():
    call = ToolCall("spawn_agent", "tool", 0, 10, arguments={"message": "hi"}, namespace="multi_agent_v1")
    assert (call.namespace, call.bare_tool, call.shown_tool, call.key_argument, call.key_text) == (
        "multi_agent_v1",
        "spawn_agent",
        "multi_agent_v1 · spawn_agent",
        "message",
        "hi",
    )
    plain = ToolCall("exec_command", "command", 0, 10)
    assert (plain.namespace, plain.shown_tool, plain.key_argument) == (None, "exec_command", None)


@pytest.mark.parametrize(
    "source, expression",
    [
        (
            'for (const t of ALL_TOOLS) { if (t.name.includes("calendar")) await tools[t.name]({q: "x"}); }',
            "tools[t.name]",
        ),
        (
            'const t = ALL_TOOLS.find(x => /search/.test(x.name + x.description)); await tools[t.name]({q: "x"});',
            "tools[t.name]",
        ),
        (
            'await Promise.all(ALL_TOOLS.filter(t => t.name.startsWith("mcp__")).map(t => tools[t.name]({q: "x"})));',
            "tools[t.name]",
        ),
        ('const {name} = ALL_TOOLS[0]; await tools[name]({q: "x"});', "tools[name]"),
        ('for (const {name: n} of ALL_TOOLS) await tools[n]({q: "x"});', "tools[n]"),
        ('const names = ALL_TOOLS.map(t => t.name); for (const n of names) await tools[n]({q: "x"});', "tools[n]"),
        (
            'const hit = ALL_TOOLS.find(t => t.name === "web__run"); await tools[hit?.name]({q: "x"});',
            "tools[hit?.name]",
        ),
    ],
)
def test_a_tool_looked_up_in_all_tools_is_chosen_at_run_time_and_says_so(source, expression):
    calls, notes = read(source)
    assert [(c.tool, c.kind, c.computed, c.computed_expression, c.chosen_from, c.arguments) for c in calls] == [
        (None, "tool", True, expression, "ALL_TOOLS", {"q": "x"})
    ]
    assert [(n.code, n.message, source[n.start : n.end]) for n in notes] == [
        (
            "computed-command",
            f"the tool is chosen at run time from ALL_TOOLS: {expression}",
            source[calls[0].start : calls[0].end],
        )
    ]


@pytest.mark.parametrize(
    "source",
    [
        "async function call(name) { return tools[name]({}); }",
        "const all = ALL_TOOLS; let name = pick(); await tools[name]({});",
        "const ALL_TOOLS = [{name: 'x'}]; for (const t of ALL_TOOLS) await tools[t.name]({});",  # a local, not the runtime's
    ],
)
def test_a_tool_chosen_otherwise_is_not_said_to_come_from_all_tools(source):
    calls, notes = read(source)
    assert [(c.tool, c.chosen_from) for c in calls] == [(None, None)]
    assert [n.message.split(":")[0] for n in notes if n.code == "computed-command"] == [
        "the tool is chosen at run time"
    ]


# -- the fixture rollout ------------------------------------------------------------------------------------


def test_the_namespaced_fixture_rollout():
    from analysis import analyze_text
    from analysis.jsonl.positions import PositionEncoding
    from analysis.reports.report import outline_json, outline_text
    from tests.helpers import fixture, range_text

    name = "rollout-namespaced-tools.jsonl"
    text = fixture(name)
    analysis = analyze_text(text)
    rows = [
        (
            c.line,
            c.call.tool,
            c.call.kind,
            c.call.shown_tool,
            c.call.key_argument,
            c.call.key_text,
            c.call.key_computed,
            c.call.computed_arguments,
            c.call.chosen_from,
            c.call.command,
            c.call.executed,
        )
        for c in analysis.calls
    ]
    assert rows == [
        (
            3,
            "multi_agent_v1__spawn_agent",
            "tool",
            "multi_agent_v1 · spawn_agent",
            "task_name",
            "review_diff",
            None,
            {},
            None,
            None,
            "yes",
        ),
        (
            3,
            "multi_agent_v1__wait_agent",
            "tool",
            "multi_agent_v1 · wait_agent",
            "targets",
            None,
            "[spawned.agent_id]",
            {"targets": "[spawned.agent_id]"},
            None,
            None,
            "yes",
        ),
        (5, None, "tool", None, None, None, None, {}, "ALL_TOOLS", None, "unknown"),  # no tool: no key argument
        (5, "web__run", "tool", "web · run", "search_query", "codex release notes 0.157", None, {}, None, None, "yes"),
        (
            5,
            "image_gen__imagegen",
            "tool",
            "image_gen · imagegen",
            "prompt",
            "a release banner with a lighthouse",
            None,
            {},
            None,
            None,
            "yes",
        ),
        (7, "exec_command", "command", "exec_command", None, None, None, {}, None, "git diff --stat", "yes"),
        (7, "exec_command", "command", "exec_command", None, None, None, {}, None, "git status --short", "yes"),
    ]
    assert analysis.calls[1].call.arguments == {"timeout_ms": 600000}  # targets is computed, never null
    # the call after `await (` starts at its parenthesis, in the line (through the JSON escapes)
    last = analysis.calls[-1]
    assert (
        range_text(text, analysis.range_of(last.span).to_json())
        == '(tools).exec_command({cmd: \\"git status --short\\"})'
    )
    out = outline_json(name, analysis)
    assert [(d["range"]["start"]["line"], d["code"], d["message"]) for d in out["diagnostics"]] == [
        (5, "computed-command", "the tool is chosen at run time from ALL_TOOLS: tools[hit.name]")
    ]  # `{}`: valid
    assert [(c["tool"], c["kind"], c["computed"], c["executed"]) for c in out["calls"]] == [
        ("multi_agent_v1__spawn_agent", "tool", False, "yes"),
        ("multi_agent_v1__wait_agent", "tool", False, "yes"),
        (None, "tool", True, "unknown"),
        ("web__run", "tool", False, "yes"),
        ("image_gen__imagegen", "tool", False, "yes"),
        ("exec_command", "command", False, "yes"),
        ("exec_command", "command", False, "yes"),
    ]
    shown = outline_text(name, analysis, analysis.findings, PositionEncoding.UTF16)
    assert "null" not in shown
    assert shown.splitlines()[4:10] == [
        "      ├─ multi_agent_v1 · spawn_agent: review_diff (ran)",
        "      └─ multi_agent_v1 · wait_agent: targets: computed (ran)",  # computed at run time, never null
        "    line 6: exec call_ns2  [completed, 0.4 s]",
        "      ├─ a tool chosen from ALL_TOOLS: query: standup (computed)",
        "      ├─ web · run: search_query: codex release notes 0.157 (ran)",
        "      └─ image_gen · imagegen: prompt: a release banner with a lighthouse (ran)",
    ]
