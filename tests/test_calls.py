"""Tool calls of single exec scripts: forms, non-calls, arguments, computed commands, expansions."""

import pytest

from analysis.calls import find_calls
from analysis.script import ExecScript


def read(source: str):
    result = find_calls(ExecScript(source))
    return result.calls, result.notes


def commands(source: str) -> list[tuple]:
    calls, _ = read(source)
    return [(c.tool, c.command) for c in calls]


@pytest.mark.parametrize("source", [
    'tools.exec_command({cmd: "ls"})',
    'tools?.exec_command({cmd: "ls"})',
    'tools.exec_command?.({cmd: "ls"})',
    'tools["exec_command"]({cmd: "ls"})',
    "tools['exec_command']({cmd: 'ls'})",
    'tools[`exec_command`]({cmd: "ls"})',
    'tools . exec_command ( {cmd: "ls"} )',
    '(tools.exec_command)({cmd: "ls"})',
    '(0, tools.exec_command)({cmd: "ls"})',
    'globalThis.tools.exec_command({cmd: "ls"})',
    'const t = tools; t.exec_command({cmd: "ls"})',
    'const t = tools, u = t; u.exec_command({cmd: "ls"})',
    'const {exec_command} = tools; exec_command({cmd: "ls"})',
    'const {exec_command: run} = tools; await run({cmd: "ls"})',
    'const run = tools.exec_command; run({cmd: "ls"})',
    'import { exec_command } from "tools.js"; exec_command({cmd: "ls"})',
    'import { exec_command as x } from "@openai/code_mode"; x({cmd: "ls"})',
    'import * as t from "tools.js"; t.exec_command({cmd: "ls"})',
    'import { tools as t } from "tools.js"; t.exec_command({cmd: "ls"})',
    'exec_command({cmd: "ls"})',
    'await tools.exec_command({cmd: "ls"})',
])
def test_every_call_form_is_found(source):
    assert commands(source) == [("exec_command", "ls")]


@pytest.mark.parametrize("source", [
    '// tools.exec_command({cmd: "ls"})',
    '/* tools.exec_command({cmd: "ls"}) */',
    'const s = "tools.exec_command({cmd: \\"ls\\"})";',
    "const s = 'tools.exec_command({cmd: \"ls\"})';",
    'const s = `tools.exec_command({cmd: "ls"})`;',
    'const r = /tools.exec_command\\(/;',
    'if (x) /tools.exec_command({cmd: "ls"})/.test(y);',
    'const r = await /tools.exec_command(/.source;',
    'const d = {}.x / tools.exec_command / 2;',
    'text(ALL_TOOLS.filter(x => /goal_set/.test(x.name + " " + x.description)));',
    'obj.tools.exec_command({cmd: "ls"})',
    'const tools = {exec_command() {}}; tools.exec_command({cmd: "ls"})',
    'function f(tools) { tools.exec_command({cmd: "ls"}) }',
    'import { output_text } from "@openai/code_mode"; output_text("x")',
    'function exec_command() {} exec_command({cmd: "ls"})',
    'tools.exec_command',
])
def test_text_that_only_quotes_a_call_is_not_a_call(source):
    assert commands(source) == []


def test_calls_inside_templates_and_arguments_in_source_order():
    source = ('text(`a ${await tools.exec_command({cmd: "one"})} b`);\n'
              'f(g(await tools.exec_command({cmd: "two"})), tools.update_plan({plan: []}));\n')
    calls, _ = read(source)
    assert [(c.tool, c.command) for c in calls] == [
        ("exec_command", "one"), ("exec_command", "two"), ("update_plan", None)]
    assert [source[c.start:c.end] for c in calls] == [
        'tools.exec_command({cmd: "one"})', 'tools.exec_command({cmd: "two"})', 'tools.update_plan({plan: []})']


def test_nested_tool_call_in_another_tools_arguments():
    calls, _ = read('tools.exec_command({cmd: (await tools.exec_command({cmd: "inner"})).output})')
    assert [(c.tool, c.command, c.computed) for c in calls] == [
        ("exec_command", None, True), ("exec_command", "inner", False)]


def test_exec_command_arguments_decoded_from_js_literals():
    calls, notes = read(r"""tools.exec_command({
      'cmd': "printf '\x41\u00e9\u{1F600}\\n' \
done",
      "workdir": `/repo`,
      yield_time_ms: 1_0 ? 5000 : 1,
      max_output_tokens: 2000,
      sandbox_permissions: "require_escalated",
      justification: 'needs\tnetwork',
      tty: true, login: false, shell: "/bin/zsh",
      prefix_rule: ["git", "push"],
    })""")
    call = calls[0]
    assert call.command == "printf 'Aé😀\\n' done"
    assert call.workdir == "/repo"
    assert call.arguments == {"yield_time_ms": None, "max_output_tokens": 2000,
                              "sandbox_permissions": "require_escalated", "justification": "needs\tnetwork",
                              "tty": True, "login": False, "shell": "/bin/zsh", "prefix_rule": ["git", "push"]}
    assert call.computed is False and notes == []
    assert call.json_arguments is False


def test_json_style_arguments_are_told_apart():
    calls, _ = read('tools.exec_command({"cmd": "ls", "workdir": "/w"})')
    assert calls[0].json_arguments is True and calls[0].command == "ls"


def test_write_stdin_arguments():
    calls, _ = read('tools.write_stdin({session_id: 12, chars: "y\\n"})')
    assert (calls[0].tool, calls[0].kind, calls[0].arguments) == ("write_stdin", "tool",
                                                                  {"session_id": 12, "chars": "y\n"})


def test_other_tools_are_kind_tool_with_their_name():
    calls, _ = read('await tools.mcp__github__search_issues({q: "bug"}); await tools.web__run({}); '
                    'tools.view_image({path: "a.png"})')
    assert [(c.tool, c.kind) for c in calls] == [
        ("mcp__github__search_issues", "tool"), ("web__run", "tool"), ("view_image", "tool")]
    assert calls[0].arguments == {"q": "bug"}


@pytest.mark.parametrize("source, expression", [
    ('async function run(cmd) { return tools.exec_command({cmd}); }', "cmd"),
    ('let v = "ls"; tools.exec_command({cmd: v})', "v"),
    ('var v = "ls"; tools.exec_command({cmd: v})', "v"),
    ('tools.exec_command({cmd: "git " + "status"})', '"git " + "status"'),
    ('tools.exec_command({cmd: pick()})', "pick()"),
    ('tools.exec_command({cmd: `ls ${dir}`})', "`ls ${dir}`"),
    ('let d = "x"; tools.exec_command({cmd: `ls ${d}`})', "`ls ${d}`"),
    ('const d = f(); tools.exec_command({cmd: `ls ${d}`})', "`ls ${d}`"),
    ('const args = {cmd: "ls"}; tools.exec_command(args)', "args"),
    ('tools.exec_command({...base})', "{...base}"),
    ('tools.exec_command({cmd: "ls", ...base})', '{cmd: "ls", ...base}'),
    ('tools.exec_command({[k]: "ls"})', '{[k]: "ls"}'),
])
def test_computed_commands(source, expression):
    calls, notes = read(source)
    assert (calls[0].command, calls[0].computed, calls[0].computed_expression) == (None, True, expression)
    assert [(n.code, n.start, n.end) for n in notes] == [("computed-command", calls[0].start, calls[0].end)]


def test_const_bindings_resolve_and_shadowing_is_respected():
    source = ('const dir = "src"; const file = `a.py`;\n'
              'tools.exec_command({cmd: `wc -l ${dir}/${file}`});\n'
              'const c = "pwd"; tools.exec_command({cmd: c});\n'
              '{ const dir = "lib"; tools.exec_command({cmd: `ls ${dir}`}); }\n'
              'tools.exec_command({cmd: "ls", ...{}, cmd: "echo last"});\n')
    assert commands(source) == [("exec_command", "wc -l src/a.py"), ("exec_command", "pwd"),
                                ("exec_command", "ls lib"), ("exec_command", "echo last")]


def test_expansion_of_a_const_array_mapped_into_cmd():
    source = ('const cmds = ["git status", "git log -1"];\n'
              'await Promise.all(cmds.map(x => tools.exec_command({cmd: x, workdir: "/r"})));')
    calls, notes = read(source)
    assert (calls[0].command, calls[0].computed, calls[0].expansion, calls[0].workdir) == (
        None, True, ("git status", "git log -1"), "/r")
    assert [n.code for n in notes] == ["computed-command"]


@pytest.mark.parametrize("source, expansion", [
    ('const a = ["x", "y"]; a.forEach(function (c) { tools.exec_command({cmd: c}); })', ("x", "y")),
    ('const a = ["x", "y"]; for (const c of a) tools.exec_command({cmd: c});', ("x", "y")),
    ('const a = ["x"]; for (const c of a) tools.exec_command({cmd: `cat ${c}`});', ("cat x",)),
    ('for (const c of ["p", "q"]) tools.exec_command({cmd: c});', ("p", "q")),
    ('const a = ["x"]; a.push("y"); a.map(c => tools.exec_command({cmd: c}))', None),
    ('const a = ["x"]; a[0] = "y"; a.map(c => tools.exec_command({cmd: c}))', None),
    ('const a = ["x"]; mutate(a); a.map(c => tools.exec_command({cmd: c}))', None),
    ('let a = ["x"]; a.map(c => tools.exec_command({cmd: c}))', None),
    ('const a = ["x", y]; a.map(c => tools.exec_command({cmd: c}))', None),
    ('const a = ["x"]; a.map((i, c) => tools.exec_command({cmd: c}))', None),
])
def test_expansions_only_when_exactly_known(source, expansion):
    calls, _ = read(source)
    assert calls[0].expansion == expansion
    assert calls[0].command is None


def test_dynamic_tool_name_is_computed():
    calls, notes = read('await tools[name]({cmd: "ls"})')
    assert (calls[0].tool, calls[0].kind, calls[0].computed) == (None, "tool", True)
    assert notes[0].message == "the tool is chosen at run time: tools[name]"


def test_legacy_module_names():
    calls, _ = read('import { chart } from "tools/mcp/ologs.js"; import { q } from "tools/codex_app.js";'
                    'chart({}); q({});')
    assert [c.tool for c in calls] == ["mcp__ologs__chart", "codex_app__q"]
