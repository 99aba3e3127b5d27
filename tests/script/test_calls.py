"""Tool calls of single exec scripts: forms, non-calls, arguments, computed commands, expansions."""

import pytest

from analysis.script.calls import find_calls
from analysis.script.script import ExecScript


def read(source: str):
    result = find_calls(ExecScript(source))
    return result.calls, result.notes


def commands(source: str) -> list[tuple]:
    calls, _ = read(source)
    return [(c.tool, c.command) for c in calls]


@pytest.mark.parametrize(
    "source",
    [
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
    ],
)
def test_every_call_form_is_found(source):
    assert commands(source) == [("exec_command", "ls")]


@pytest.mark.parametrize(
    "source",
    [
        '// tools.exec_command({cmd: "ls"})',
        '/* tools.exec_command({cmd: "ls"}) */',
        'const s = "tools.exec_command({cmd: \\"ls\\"})";',
        "const s = 'tools.exec_command({cmd: \"ls\"})';",
        'const s = `tools.exec_command({cmd: "ls"})`;',
        "const r = /tools.exec_command\\(/;",
        'if (x) /tools.exec_command({cmd: "ls"})/.test(y);',
        "const r = await /tools.exec_command(/.source;",
        "const d = {}.x / tools.exec_command / 2;",
        'text(ALL_TOOLS.filter(x => /goal_set/.test(x.name + " " + x.description)));',
        'obj.tools.exec_command({cmd: "ls"})',
        'const tools = {exec_command() {}}; tools.exec_command({cmd: "ls"})',
        'function f(tools) { tools.exec_command({cmd: "ls"}) }',
        'import { output_text } from "@openai/code_mode"; output_text("x")',
        'function exec_command() {} exec_command({cmd: "ls"})',
        "tools.exec_command",
    ],
)
def test_text_that_only_quotes_a_call_is_not_a_call(source):
    assert commands(source) == []


def test_calls_inside_templates_and_arguments_in_source_order():
    source = (
        'text(`a ${await tools.exec_command({cmd: "one"})} b`);\n'
        'f(g(await tools.exec_command({cmd: "two"})), tools.update_plan({plan: []}));\n'
    )
    calls, _ = read(source)
    assert [(c.tool, c.command) for c in calls] == [
        ("exec_command", "one"),
        ("exec_command", "two"),
        ("update_plan", None),
    ]
    assert [source[c.start : c.end] for c in calls] == [
        'tools.exec_command({cmd: "one"})',
        'tools.exec_command({cmd: "two"})',
        "tools.update_plan({plan: []})",
    ]


def test_nested_tool_call_in_another_tools_arguments():
    calls, _ = read('tools.exec_command({cmd: (await tools.exec_command({cmd: "inner"})).output})')
    assert [(c.tool, c.command, c.computed) for c in calls] == [
        ("exec_command", None, True),
        ("exec_command", "inner", False),
    ]


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
    assert call.arguments == {
        "max_output_tokens": 2000,
        "sandbox_permissions": "require_escalated",
        "justification": "needs\tnetwork",
        "tty": True,
        "login": False,
        "shell": "/bin/zsh",
        "prefix_rule": ["git", "push"],
    }
    assert call.computed_arguments == {"yield_time_ms": "1_0 ? 5000 : 1"}  # not known: never shown as null
    assert call.computed is False and notes == []
    assert call.json_arguments is False


def test_json_style_arguments_are_told_apart():
    calls, _ = read('tools.exec_command({"cmd": "ls", "workdir": "/w"})')
    assert calls[0].json_arguments is True and calls[0].command == "ls"


def test_write_stdin_arguments():
    calls, _ = read('tools.write_stdin({session_id: 12, chars: "y\\n"})')
    assert (calls[0].tool, calls[0].kind, calls[0].arguments) == (
        "write_stdin",
        "tool",
        {"session_id": 12, "chars": "y\n"},
    )


def test_other_tools_are_kind_tool_with_their_name():
    calls, _ = read(
        'await tools.mcp__github__search_issues({q: "bug"}); await tools.web__run({}); '
        'tools.view_image({path: "a.png"})'
    )
    assert [(c.tool, c.kind) for c in calls] == [
        ("mcp__github__search_issues", "tool"),
        ("web__run", "tool"),
        ("view_image", "tool"),
    ]
    assert calls[0].arguments == {"q": "bug"}


@pytest.mark.parametrize(
    "source, expression",
    [
        ("async function run(cmd) { return tools.exec_command({cmd}); }", "cmd"),
        ('let v = "ls"; tools.exec_command({cmd: v})', "v"),
        ('var v = "ls"; tools.exec_command({cmd: v})', "v"),
        ('let b = "main"; tools.exec_command({cmd: "git log " + b})', '"git log " + b'),
        ('tools.exec_command({cmd: "git " + ["status"]})', '"git " + ["status"]'),
        ("tools.exec_command({cmd: pick()})", "pick()"),
        ("tools.exec_command({cmd: `ls ${dir}`})", "`ls ${dir}`"),
        ('let d = "x"; tools.exec_command({cmd: `ls ${d}`})', "`ls ${d}`"),
        ("const d = f(); tools.exec_command({cmd: `ls ${d}`})", "`ls ${d}`"),
        ('const args = {cmd: "ls"}; tools.exec_command(args)', "args"),
        ("tools.exec_command({...base})", "{...base}"),
        ('tools.exec_command({cmd: "ls", ...base})', '{cmd: "ls", ...base}'),
        ('tools.exec_command({[k]: "ls"})', '{[k]: "ls"}'),
    ],
)
def test_computed_commands(source, expression):
    calls, notes = read(source)
    assert (calls[0].command, calls[0].computed, calls[0].computed_expression) == (None, True, expression)
    assert [(n.code, n.start, n.end) for n in notes] == [("computed-command", calls[0].start, calls[0].end)]


def test_const_bindings_resolve_and_shadowing_is_respected():
    source = (
        'const dir = "src"; const file = `a.py`;\n'
        "tools.exec_command({cmd: `wc -l ${dir}/${file}`});\n"
        'const c = "pwd"; tools.exec_command({cmd: c});\n'
        '{ const dir = "lib"; tools.exec_command({cmd: `ls ${dir}`}); }\n'
        'tools.exec_command({cmd: "ls", ...{}, cmd: "echo last"});\n'
    )
    assert commands(source) == [
        ("exec_command", "wc -l src/a.py"),
        ("exec_command", "pwd"),
        ("exec_command", "ls lib"),
        ("exec_command", "echo last"),
    ]


def test_expansion_of_a_const_array_mapped_into_cmd():
    source = (
        'const cmds = ["git status", "git log -1"];\n'
        'await Promise.all(cmds.map(x => tools.exec_command({cmd: x, workdir: "/r"})));'
    )
    calls, notes = read(source)
    assert (calls[0].command, calls[0].computed, calls[0].expansion, calls[0].workdir) == (
        None,
        True,
        ("git status", "git log -1"),
        "/r",
    )
    assert [n.code for n in notes] == ["expanded-command"]


@pytest.mark.parametrize(
    "source, expansion",
    [
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
    ],
)
def test_expansions_only_when_exactly_known(source, expansion):
    calls, _ = read(source)
    assert calls[0].expansion == expansion
    assert calls[0].command is None


def test_dynamic_tool_name_is_computed():
    calls, notes = read('await tools[name]({cmd: "ls"})')
    assert (calls[0].tool, calls[0].kind, calls[0].computed) == (None, "tool", True)
    assert notes[0].message == "the tool is chosen at run time: tools[name]"


def test_legacy_module_names():
    calls, _ = read(
        'import { chart } from "tools/mcp/ologs.js"; import { q } from "tools/codex_app.js";chart({}); q({});'
    )
    assert [c.tool for c in calls] == ["mcp__ologs__chart", "codex_app__q"]


# -- every tool that runs a command is a command ---------------------------------------------------------
@pytest.mark.parametrize(
    "source, tool, command, workdir",
    [
        (
            'tools.shell_command({command: "Get-ChildItem -Force", workdir: "C:\\\\r", timeout_ms: 10000, login: false})',
            "shell_command",
            "Get-ChildItem -Force",
            "C:\\r",
        ),
        (
            'tools.shell({command: ["bash", "-lc", "echo hi > out"], workdir: "/r"})',
            "shell",
            "bash -lc 'echo hi > out'",
            "/r",
        ),
        ('tools["container.exec"]({command: ["ls", "-la", "my dir"]})', "container.exec", "ls -la 'my dir'", None),
        ('tools.container_exec({command: ["git", "status"]})', "container_exec", "git status", None),
        ("const {shell_command: sh} = tools; await sh({command: `echo ${1 + 1}`})", "shell_command", "echo 2", None),
    ],
)
def test_every_command_tool_is_a_command(source, tool, command, workdir):
    calls, notes = read(source)
    assert [(c.tool, c.kind, c.command, c.workdir, c.computed) for c in calls] == [
        (tool, "command", command, workdir, False)
    ]
    assert notes == []


def test_later_arguments_never_make_a_literal_command_computed():
    calls, notes = read(
        'tools.shell_command({command: "npm test", workdir: "/w", timeout_ms: 60000, login: true, '
        'sandbox_permissions: "require_escalated", justification: "needs the network", '
        'prefix_rule: ["npm", "test"], with_escalated_permissions: true})'
    )
    assert (calls[0].command, calls[0].computed, notes) == ("npm test", False, [])
    assert calls[0].arguments == {
        "timeout_ms": 60000,
        "login": True,
        "sandbox_permissions": "require_escalated",
        "justification": "needs the network",
        "prefix_rule": ["npm", "test"],
        "with_escalated_permissions": True,
    }


@pytest.mark.parametrize(
    "source, expression",
    [
        ('tools.shell({command: ["ls", n]})', '["ls", n]'),
        ('tools.shell({command: ["sleep", 1]})', '["sleep", 1]'),  # not an argv of strings: the tool refuses it
        ('tools.shell({command: "ls -la"})', '"ls -la"'),  # shell takes an argv array
        ('tools.exec_command({cmd: ["ls"]})', '["ls"]'),  # exec_command takes a string
        ('let c = "ls"; tools.shell_command({command: c})', "c"),
    ],
)
def test_command_tools_computed(source, expression):
    calls, notes = read(source)
    assert (calls[0].kind, calls[0].command, calls[0].computed, calls[0].computed_expression) == (
        "command",
        None,
        True,
        expression,
    )
    assert [n.code for n in notes] == ["computed-command"]


def test_a_command_tool_without_its_command_key_has_no_command():
    calls, notes = read('tools.shell_command({cmd: "ls"})')  # shell_command takes `command`: the tool refuses it
    assert (calls[0].kind, calls[0].command, calls[0].computed, calls[0].arguments, notes) == (
        "command",
        None,
        False,
        {"cmd": "ls"},
        [],
    )


# -- exact constant values -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "source, command",
    [
        ('tools.exec_command({cmd: "git " + "status"})', "git status"),
        ('const t = "a b"; const cmd = "echo \'" + t + "\'"; tools.exec_command({cmd})', "echo 'a b'"),
        ('const n = 3; tools.exec_command({cmd: "head -n " + n})', "head -n 3"),
        ("tools.exec_command({cmd: `sleep ${0.5} ${1e21} ${1e-7} ${-0} ${2 ** 3}`})", None),
        (
            "tools.exec_command({cmd: `x ${0.5} ${1e21} ${1e-7} ${-0} ${123456789012345680000}`})",
            "x 0.5 1e+21 1e-7 0 123456789012345680000",
        ),
        (
            "tools.exec_command({cmd: `flag=${true} none=${null} u=${undefined} nan=${NaN}`})",
            "flag=true none=null u=undefined nan=NaN",
        ),
        ('tools.exec_command({cmd: "n" + 1 + 2})', "n12"),
        ('tools.exec_command({cmd: 1 + 2 + "n"})', "3n"),
        ('tools.exec_command({cmd: "x" + null + true})', "xnulltrue"),
        ('const k = "cmd"; tools.exec_command({[k]: "ls"})', "ls"),
        ('tools.exec_command({cmd: "tlapm First.tla", ["cmd"]: "echo last"})', "echo last"),
        ('tools.exec_command({cmd: "a" + {}})', None),
        ('tools.exec_command({cmd: "a" + f()})', None),
        ('const a = ["x"]; tools.exec_command({cmd: "a" + a})', None),  # a const array can change
        ('const o = {v: "x"}; tools.exec_command({cmd: `a ${o.v}`})', None),  # so can an object
    ],
)
def test_exact_constant_values(source, command):
    calls, _ = read(source)
    assert (calls[0].command, calls[0].computed) == (command, command is None)


def test_numeric_array_mapped_into_a_template():
    source = (
        "const rs = await Promise.all([0, 1, 2].map(page => tools.exec_command({cmd: `render --page ${page}`, "
        'workdir: "/t", yield_time_ms: 30000, sandbox_permissions: "require_escalated", prefix_rule: ["npx"]})));'
    )
    calls, notes = read(source)
    assert (
        calls[0].command,
        calls[0].computed,
        calls[0].computed_expression,
        calls[0].expansion,
        calls[0].workdir,
    ) == (None, True, "`render --page ${page}`", ("render --page 0", "render --page 1", "render --page 2"), "/t")
    assert [(n.code, n.message) for n in notes] == [
        (
            "expanded-command",
            "the command is computed from a constant list: its 3 commands are known exactly (render --page 0 …)",
        )
    ]


@pytest.mark.parametrize(
    "source, expansion",
    [
        (
            '[true, null, 1.5].forEach(v => tools.exec_command({cmd: "echo " + v}))',
            ("echo true", "echo null", "echo 1.5"),
        ),
        ('const fs = ["a", "b"]; fs.map((f, i) => tools.exec_command({cmd: `cp ${f} ${i}`}))', ("cp a 0", "cp b 1")),
        (
            'const ps = [["a", 1], ["b", 2]]; for (const [f, n] of ps) tools.exec_command({cmd: `head -${n} ${f}`})',
            ("head -1 a", "head -2 b"),
        ),
        (
            'const ps = [{f: "a"}, {f: "b", n: 2}]; ps.map(({f, n}) => tools.exec_command({cmd: `${f}:${n}`}))',
            ("a:undefined", "b:2"),
        ),
        ('const ps = [["a"], ["b"]]; ps.map(([, x]) => tools.exec_command({cmd: `${x}`}))', ("undefined", "undefined")),
        (
            'const cs = [{u: "a"}, {u: "b"}]; for (const c of cs) { text(JSON.stringify({u: c.u})); '
            "await tools.exec_command({cmd: `curl ${c.u}`}); }",
            ("curl a", "curl b"),
        ),
        # not exactly known: a default, a changed element, a tuple array used elsewhere, a let loop variable
        ('const ps = [["a"]]; ps.map(([f, n = 1]) => tools.exec_command({cmd: `${f}${n}`}))', None),
        ('const cs = [{u: "a"}]; for (const c of cs) { c.u = "b"; tools.exec_command({cmd: c.u}); }', None),
        ('const cs = [{u: "a"}]; f(cs); for (const c of cs) tools.exec_command({cmd: c.u});', None),
        ('const cs = [{u: "a"}]; cs[0].u = "z"; for (const c of cs) tools.exec_command({cmd: c.u});', None),
        ('const cs = [{u: "a"}]; for (const c of cs) { mutate(c); tools.exec_command({cmd: c.u}); }', None),
        ('const a = ["x"]; for (let c of a) { c = "rm"; tools.exec_command({cmd: c}); }', None),
        ('const a = ["x"]; a.map(c => { c = "rm"; return tools.exec_command({cmd: c}); })', None),
        ('const a = ["x", , "y"]; a.map(c => tools.exec_command({cmd: c}))', None),  # a hole is skipped by map
        ('const a = ["x"], b = ["y"]; a.map(x => b.map(y => tools.exec_command({cmd: x + y})))', None),
    ],
)
def test_expansions_of_every_value_type_and_shape(source, expansion):
    calls, notes = read(source)
    assert calls[0].expansion == expansion
    assert calls[0].command is None
    assert [n.code for n in notes if n.start == calls[0].start] == [
        "expanded-command" if expansion else "computed-command"
    ]


def test_tool_chosen_per_element_of_a_const_list_of_tuples():
    source = (
        "const calls = [\n"
        '  ["shell_command", {command: "Get-Content a.lua", workdir: "C:\\\\p", timeout_ms: 20000}],\n'
        '  ["shell_command", {command: "rg -n x .", workdir: "C:\\\\p", timeout_ms: 30000}],\n'
        "];\n"
        "const results = await Promise.all(calls.map(async ([name, args]) => {\n"
        "  try { return {name, result: await tools[name](args)}; }\n"
        "  catch (e) { return {name, error: String(e)}; }\n"
        "}));\n"
    )
    calls, notes = read(source)
    call = calls[0]
    assert (call.tool, call.kind, call.command, call.computed, call.computed_expression, call.workdir) == (
        "shell_command",
        "command",
        None,
        True,
        "tools[name]",
        "C:\\p",
    )
    assert (call.expansion, call.expansion_tools) == (
        ("Get-Content a.lua", "rg -n x ."),
        ("shell_command", "shell_command"),
    )
    assert [(n.code, n.message) for n in notes] == [
        (
            "expanded-command",
            "the tool and command are computed from a constant list: its 2 calls are known exactly "
            "(shell_command: Get-Content a.lua …)",
        )
    ]


def test_mixed_tools_per_element_and_for_of_destructuring():
    source = (
        'const calls = [["exec_command", {cmd: "ls"}], ["shell", {command: ["git", "log"]}]];\n'
        "for (const [name, args] of calls) await tools[name](args);"
    )
    call = read(source)[0][0]
    assert (call.tool, call.kind, call.expansion, call.expansion_tools, call.workdir) == (
        None,
        "command",
        ("ls", "git log"),
        ("exec_command", "shell"),
        None,
    )


@pytest.mark.parametrize(
    "source",
    [
        'const calls = [["view_image", {path: "a.png"}]]; for (const [n, a] of calls) await tools[n](a);',
        'const calls = [["exec_command", {cmd: x}]]; for (const [n, a] of calls) await tools[n](a);',
        'const calls = [["exec_command", {cmd: "ls"}]]; calls.push(["x", {}]); for (const [n, a] of calls) tools[n](a);',
        'const calls = [["exec_command", {cmd: "ls"}]]; for (const [n, a] of calls) { a.cmd = "rm"; tools[n](a); }',
        'let calls = [["exec_command", {cmd: "ls"}]]; for (const [n, a] of calls) await tools[n](a);',
    ],
)
def test_tool_chosen_at_run_time_stays_computed_unless_exactly_known(source):
    calls, notes = read(source)
    assert (calls[0].tool, calls[0].kind, calls[0].computed, calls[0].expansion) == (None, "tool", True, None)
    assert [n.code for n in notes] == ["computed-command"]
    assert notes[0].message.startswith("the tool is chosen at run time: tools[n]")


def test_computed_patch_says_what_it_is_computed_from():
    source = (
        "const body = f();\n"
        "tools.apply_patch(`*** Begin Patch\\n*** Add File: a.txt\\n+${body}\\n*** End Patch`);\n"
        'let p = "x"; tools.apply_patch(p);\n'
    )
    calls, notes = read(source)
    assert [(c.computed, c.computed_expression, [f.path for f in c.files]) for c in calls] == [
        (True, "${body}", ["a.txt"]),
        (True, "p", []),
    ]
    assert calls[0].patch == "*** Begin Patch\n*** Add File: a.txt\n+${body}\n*** End Patch"


def test_names_spelled_with_unicode_escapes_are_compared_decoded():
    source = (
        'tools.shell\\u005fcommand({\\u0063ommand: "ls"}); const a = ["x"]; '
        'a.m\\u0061p(c => tools.exec_command({cmd: c})); \\u0065xit(); tools.exec_command({cmd: "y"});'
    )
    calls, notes = read(source)
    assert [(c.tool, c.command, c.expansion, c.unconditional) for c in calls] == [
        ("shell_command", "ls", None, True),
        ("exec_command", None, ("x",), False),
        ("exec_command", "y", None, False),
    ]
    assert [n.message for n in notes] == [
        "the command is computed from a constant list: its one command is known exactly (x)"
    ]


@pytest.mark.parametrize(
    "source, spans",
    [
        ('const a = ["x", "yy"]; a.map(c => tools.exec_command({cmd: c}))', ['"x"', '"yy"']),
        ('for (const c of [/* first */ "p", `q`]) tools.exec_command({cmd: c});', ['"p"', "`q`"]),
        ('const a = ["é😀", "z"]; for (const c of a) tools.exec_command({cmd: c});', ['"é😀"', '"z"']),
        (
            'const a = [\n  "say \\"hi\\"",\n  "z",\n]; a.map(c => tools.exec_command({cmd: c}))',
            ['"say \\"hi\\""', '"z"'],
        ),
    ],
)
def test_each_element_of_an_expansion_is_located(source, spans):
    calls, _ = read(source)
    assert calls[0].expansion is not None
    assert [source[start:end] for start, end in calls[0].expansion_spans] == spans
