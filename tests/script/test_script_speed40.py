"""Stop 40's shortcuts in reading a script's calls, each against the full reading it stands for:

- a command tool's object written with plain keys and plain values (``{cmd: "ls", workdir: "/w", n: 1}``) read
  lean from its bytes (``plain_object``) gives the calls and notes the tree's reading gives, and the full reading
  thinned;
- a callee ``name`` or ``name.member`` with ``name`` declared nowhere (``text``, ``JSON.stringify``) told no tool
  (or its legacy global) at once gives what the full reading of callees gives.

Checked on written and Hypothesis-generated scripts here, and on every exec script of ../shared/corpus by
tests/corpus/test_script_speed40_corpus.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node

import analysis.script.callees as callees_module
import analysis.script.calls as calls_module
from analysis.script.arguments import plain_object, plain_string
from analysis.script.callees import Callees
from analysis.script.calls import find_calls
from analysis.script.module_syntax import module_problem
from analysis.script.script import ExecScript
from analysis.script.values import constants_of
from tests.script.test_lean_calls import assert_lean_is_thin

_NEVER = re.compile(rb"(?!)")  # matches no callee: each takes the full reading


def _lean(source: str) -> tuple[list, list]:
    result = find_calls(ExecScript(source), lean=True)
    return result.calls, result.notes


def assert_plain_commands_exact(source: str) -> None:
    """The lean calls with the plain-object shortcut equal those without it, and the full reading thinned."""
    fast = _lean(source)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calls_module, "plain_object", lambda script, node: None)
        slow = _lean(source)
    assert fast == slow
    assert_lean_is_thin(source)


def tools_of(source: str) -> list[str]:
    script = ExecScript(source)
    callees = Callees(script, constants_of(script))
    return [repr(callees.tool(callee)) for _, callee in script.call_sites()]


def assert_same_callee_tools(source: str) -> None:
    """Which tool each call site names, with the global-callee shortcut and without either byte shortcut."""
    fast = tools_of(source)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(callees_module, "_PLAIN_GLOBAL_CALLEE", _NEVER)
        without = tools_of(source)
        patch.setattr(callees_module, "_PLAIN_TOOLS_MEMBER", _NEVER)
        full = tools_of(source)
    assert fast == without == full


def first_object(node: Node) -> Node | None:
    """The first object literal under ``node``, depth first (test_script_speed41 reads it too)."""
    if node.type == "object":
        return node
    for child in node.children:
        found = first_object(child)
        if found is not None:
            return found
    return None


def _object_of(source: str) -> dict[str, bytes] | None:
    """``plain_object`` of the first object literal of ``source``."""
    script = ExecScript(source)
    node = first_object(script.root)
    assert node is not None
    return plain_object(script, node)


def test_a_plain_object_gives_its_keys_and_the_bytes_of_their_values() -> None:
    assert _object_of("f({cmd: \"ls -la\", workdir: '/w', max_output_tokens: 2000, a: true, b: null})") == {
        "cmd": b'"ls -la"',
        "workdir": b"'/w'",
        "max_output_tokens": b"2000",
        "a": b"true",
        "b": b"null",
    }
    assert _object_of('f({ "cmd" :\n"a:b, c}" , })') == {"cmd": b'"a:b, c}"'}
    assert _object_of("f({})") == {}
    assert _object_of('f({a: "x\\ny\\u00e9\\"", b: "caf\u00e9", c: \'"\'})') == {
        "a": b'"x\\ny\\u00e9\\""',
        "b": '"caf\u00e9"'.encode(),
        "c": b"'\"'",
    }
    assert plain_string(b'"a b"') == "a b"
    assert plain_string(b"'x'") == "x"
    assert plain_string(b'"a\\tb\\u00e9\\ud83d\\ude00"') == "a\tb\u00e9\U0001f600"
    assert plain_string("'caf\u00e9'".encode()) == "caf\u00e9"
    assert plain_string(b"12") is None
    assert plain_string(None) is None


@pytest.mark.parametrize(
    "source",
    [
        "f({a: 1, a: 2})",  # a key written twice
        'f({__proto__: "x"})',  # sets the prototype
        'f({"__proto__": "x"})',
        "f({a: 1 /* c */})",  # a comment
        'f({a: "\\x41"})',  # an escape JSON has not
        "f({a: 'x\\ny'})",  # an escape in single quotes
        'f({a: "x\\\ny"})',  # a line continuation
        'f({a: "x\ty"})',  # a control character
        "f({a: `x`})",  # a template
        "f({a: 1.5, b: 0x1, c: 1n, d: -1})",  # other numbers
        "f({'a': 1})",  # a single-quoted key
        "f({a})",  # shorthand
        "f({...o})",
        "f({a: b})",
        "f({a:\u00a01})",  # a space that is not ASCII
        'f({a: "x"\tb: 1})',  # no comma: the tree holds an error
    ],
)
def test_an_object_not_plain_is_left_to_the_full_reading(source: str) -> None:
    assert _object_of(source) is None


PLAIN_SCRIPTS = [
    'const r0 = await tools.exec_command({cmd: "wc -l a.py", workdir: "/home/dev/p"});\ntext(r0);',
    'await tools.exec_command({cmd: "ls", workdir: "/w", max_output_tokens: 2000, yield_time_ms: 10});',
    'await tools.exec_command({"cmd": "ls", "workdir": "/w"}); await tools.exec_command({\'cmd\': \'x\'});',
    "await tools.exec_command({workdir: '/w'}); await tools.exec_command({}); await tools.exec_command({cmd: 'a',});",
    'await tools.exec_command({cmd: 5, workdir: "/w"}); await tools.exec_command({cmd: "ls", workdir: null});',
    'await tools.exec_command({cmd: "ls", cmd: "rm -rf /"}); await tools.exec_command({__proto__: "x", cmd: "ls"});',
    'await tools.shell_command({command: "git status", workdir: "/w", timeout_ms: 5});',
    'await tools.shell({command: "not an argv", workdir: "/w"}); await tools.container_exec({command: "ls"});',
    'await exec_command({cmd: "ls"}); await tools.write_stdin({session_id: 1, chars: "q"});',
    'if (x) { await tools.exec_command({cmd: "ls"}); } else { exit(); } await tools.exec_command({cmd: "pwd"});',
    'with (o) {} await tools.exec_command({cmd: "ls"});',  # refused by V8
    'await tools.exec_command({cmd: "ls"}',  # unfinished
    'const c = "ls"; await tools.exec_command({cmd: c}); await tools.exec_command(({cmd: "pwd"}));',
    'await tools.exec_command({cmd: "echo ${HOME}", workdir: "/w"}); exit(); await tools.exec_command({cmd: "x"});',
    'await tools.exec_command({cmd: "caf\u00e9"}); await tools.exec_command({cmd: "ls"});',
    # expansions: lean, a run's other keys are not evaluated (stop 40)
    'for (const c of ["ls", "pwd"]) await tools.exec_command({cmd: c, workdir: "/w", n: c.length, m: [c, {c}]});',
    'for (const [t, a] of [["exec_command", {cmd: "ls", x: 1}], ["shell", {command: ["pwd"], workdir: "/w"}]]) '
    "await tools[t](a);",
    'for (const [t, c] of [["shell_command", "ls"], ["exec_command", "pwd"]]) await tools[t]({command: c, cmd: c});',
    '["a", "b"].forEach((x, i) => tools.exec_command({cmd: `cat ${x}`, workdir: x, yield_time_ms: i * 10}));',
]


@pytest.mark.parametrize("source", PLAIN_SCRIPTS)
def test_a_written_plain_command_reads_as_the_tree_reads_it(source: str) -> None:
    assert_plain_commands_exact(source)


def test_a_plain_command_is_read_and_a_refused_value_is_left_to_the_full_reading() -> None:
    calls, _ = _lean('await tools.exec_command({cmd: "ls -la", workdir: "/w", n: 1});')
    assert (calls[0].command, calls[0].workdir, calls[0].json_arguments, calls[0].computed) == (
        "ls -la",
        "/w",
        False,
        False,
    )
    calls, _ = _lean('await tools.exec_command({"cmd": "ls"});')
    assert (calls[0].command, calls[0].workdir, calls[0].json_arguments) == ("ls", None, True)
    calls, notes = _lean('await tools.exec_command({cmd: 5, workdir: "/w"});')
    assert (calls[0].command, calls[0].computed, [n.code for n in notes]) == (None, True, ["computed-command"])


CALLEE_SCRIPTS = [
    "text(r0); JSON.stringify(x); console.log(1); this.f(); super.g(); undefined(); exit();",
    "exec_command({cmd: 'ls'}); write_stdin({}); apply_patch('x'); view_image('a'); update_plan({});",
    "const text = tools.exec_command; text({cmd: 'ls'}); const j = tools; j.shell({});",
    "let exec_command = f; exec_command({cmd: 'ls'}); function g(write_stdin) { write_stdin({}); }",
    "globalThis.tools.exec_command({}); globalThis.exec_command({}); self.tools.x({}); tools({});",
    "import { exec_command as e } from 'tools.js'; e({cmd: 'ls'}); a.b.c(); a?.b(); a\\u0062();",
    "const { exec_command } = tools; exec_command({cmd: 'ls'}); tools.x({});",
    "await (text)(r); (0, JSON.parse)(x); text/* c */(x); caf\u00e9(); $(); _.x();",
]


@pytest.mark.parametrize("source", CALLEE_SCRIPTS)
def test_a_written_callee_names_the_tool_the_full_reading_names(source: str) -> None:
    assert_same_callee_tools(source)


def test_the_global_shortcut_leaves_a_declared_name_to_the_full_reading() -> None:
    assert tools_of("text(r); exec_command({}); JSON.parse(x);") == ["None", "'exec_command'", "None"]
    assert tools_of("const text = tools.shell; text({}); const JSON = tools; JSON.parse({});") == ["'shell'", "'parse'"]


_KEYS = st.sampled_from(["cmd", "workdir", "command", '"cmd"', '"workdir"', "'cmd'", "__proto__", "n", "a$_1"])
_VALUES = st.sampled_from(
    [
        '"ls -la"',
        "'/w'",
        '"a:b, {c}"',
        '""',
        "2000",
        "0",
        "1.5",
        "true",
        "null",
        '"x\\ny"',
        "`t`",
        "c",
        '"caf\u00e9"',
        "'caf\u00e9 \u2028'",
        '"C:\\\\Users\\\\a"',
        '"\\x41"',
        '"\\u0041 \\ud83d\\ude00 \\ud800"',
        '"a\\"b\\/"',
        "'it\\'s'",
        '"tab\there"',
    ]
)
_BLANKS = st.sampled_from(["", " ", "\n", "\t", "  ", "/**/", "\u00a0"])


@st.composite
def _objects(draw) -> str:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES, _BLANKS, _BLANKS), max_size=5))
    body = ",".join(f"{b1}{k}{b2}:{b1}{v}{b2}" for k, v, b1, b2 in pairs)
    return "{" + draw(_BLANKS) + body + draw(st.sampled_from(["", ",", " , "])) + "}"


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["exec_command", "shell_command", "shell", "write_stdin"]),
    _objects(),
    st.sampled_from(["", "const c = 'pwd';\n", "if (x) { exit(); }\n"]),
)
def test_a_generated_command_object_reads_as_the_tree_reads_it(tool: str, obj: str, before: str) -> None:
    assert_plain_commands_exact(f"{before}const r = await tools.{tool}({obj});\ntext(r);")


_NAMES = st.sampled_from(["text", "JSON", "tools", "exec_command", "write_stdin", "exit", "this", "a", "f", "$"])


@given(
    st.lists(st.tuples(_NAMES, st.sampled_from(["", ".stringify", ".exec_command", ".b.c", "?.x"])), min_size=1),
    st.lists(_NAMES, max_size=2),
)
def test_a_generated_callee_names_the_tool_the_full_reading_names(
    callees: list[tuple[str, str]], declared: list[str]
) -> None:
    declarations = "".join(f"const {name} = tools.shell;\n" for name in declared if name not in ("this", "tools"))
    assert_same_callee_tools(declarations + "".join(f"{name}{member}(x);\n" for name, member in callees))


_LONG_BLANKS = " " * 64_000


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f'f({{cmd: "x"{_LONG_BLANKS}}})', {"cmd": b'"x"'}),
        (f'f({{cmd: "x"{_LONG_BLANKS},{_LONG_BLANKS}}})', {"cmd": b'"x"'}),
        (f'f({{cmd: "x",{_LONG_BLANKS}n: 1{_LONG_BLANKS}}})', {"cmd": b'"x"', "n": b"1"}),
        (f"f({{{_LONG_BLANKS}}})", {}),
        (f'f({{cmd: "x"{_LONG_BLANKS}/*c*/}})', None),  # a comment: left to the full reading
        (f'f({{cmd: "x"{_LONG_BLANKS},,}})', None),
    ],
)
def test_a_long_run_of_blanks_in_a_command_object_is_read_or_refused_as_a_short_one(
    source: str, expected: dict[str, bytes] | None
) -> None:
    # stop 40's review: blanks side by side in the pattern made the refusal quadratic in the run (6 s here);
    # bench/hostile.py's ``blank-run`` shows the time stays linear, this pins what is read
    assert _object_of(source) == expected
    assert_plain_commands_exact(source.replace("f(", "await tools.exec_command(", 1) + ";")


@pytest.mark.parametrize("word", ["exit", "globalThis", "self", "eval", "Function"])
def test_each_exit_name_ends_the_unconditional_calls_after_it(word: str) -> None:
    # each word of reachability's pre-check (stop 40) must send the script on to the identifier search
    calls = find_calls(
        ExecScript(f'await tools.exec_command({{cmd: "a"}}); {word}(); await tools.exec_command({{cmd: "b"}});')
    ).calls
    assert [(c.command, c.unconditional) for c in calls] == [("a", True), ("b", False)]
    calls = find_calls(ExecScript(f'{word}x(); await tools.exec_command({{cmd: "b"}});')).calls  # a longer name
    assert [(c.command, c.unconditional) for c in calls] == [("b", True)]


@pytest.mark.parametrize(
    ("source", "start", "end", "reason"),
    [
        ("{ L: class C {} }", 5, 10, "Unexpected token class"),
        ("() => { L: class C {} }", 11, 16, "Unexpected token class"),
        (
            "{ L: function f() {} }",
            5,
            13,
            "In strict mode code, functions can only be declared at top level or inside a block",
        ),
    ],
)
def test_a_labelled_class_or_function_in_braces_is_refused(source: str, start: int, end: int, reason: str) -> None:
    # module_syntax's labelled look runs only where ``function`` or ``class`` stands (stop 40)
    problem = module_problem(ExecScript(source))
    assert problem is not None
    assert (problem.start, problem.end, problem.refused) == (start, end, True)
    assert problem.message.endswith(f"(exec scripts run as strict ES modules; the script never ran): {reason}")
