"""Exec scripts read as the ES modules they are: escaped names, ``await (f)()``, module scopes, strict-mode and
early errors (``script-syntax``), and ``dynamic-code`` where tools escape a static reading."""

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis import analyze_text
from analysis.script.calls import find_calls
from analysis.script.module_syntax import _ANY_TEXT_HIT, _text_hits, might_be_refused, syntax_problem
from analysis.script.script import ExecScript
from tests.helpers import json_escaped


def calls_of(source):
    result = find_calls(ExecScript(source))
    return [(c.tool, c.command, source[c.start : c.end]) for c in result.calls]


def notes_of(source, code):
    result = find_calls(ExecScript(source))
    return [(source[n.start : n.end], n.message) for n in result.notes if n.code == code]


def problem_of(source):
    problem = syntax_problem(ExecScript(source))
    return None if problem is None else (source[problem.start : problem.end], problem.message.split(": ", 1)[1])


# -- names -------------------------------------------------------------------------------------------------


def test_unicode_escapes_in_names_are_decoded():
    source = 'await tools.\\u0065xec_command({cmd: "claude -p hi"})'
    assert calls_of(source) == [("exec_command", "claude -p hi", source[6:])]
    source = '\\u0074ools.\\u{65}xec_command({cmd: "ls"}); const {\\u0061pply_patch: p} = tools; p("x")'
    assert [c[:2] for c in calls_of(source)] == [("exec_command", "ls"), ("apply_patch", None)]
    script = ExecScript("const t\\u006fols = 1; t\\u006fols.x()")
    assert list(script.bindings) == ["tools"]
    assert calls_of("const t\\u006fols = 1; t\\u006fols.x()") == []  # a declared name, not the global


def test_computed_string_keys_name_the_member():
    source = 'const {["write_stdin"]: g, "exec_command": e, [k]: h} = tools; g({}); e({cmd: "ls"}); h()'
    assert calls_of(source) == [("write_stdin", None, "g({})"), ("exec_command", "ls", 'e({cmd: "ls"})')]
    assert notes_of(source, "dynamic-code") == [
        ("tools", "tools is destructured by a key the reading cannot name: calls made through it are not listed")
    ]


def test_array_and_nested_destructuring_are_not_members():
    source = "const [a] = tools; a(); const {x: {y}, z = 1, ...rest} = tools; y(); z(); rest()"
    assert calls_of(source) == [("z", None, "z()")]


# -- calls tree-sitter misreads ------------------------------------------------------------------------------


def test_await_of_a_parenthesised_callee_is_a_call_of_it():
    source = 'await (tools.exec_command)({cmd: "ls"}); await (0, tools.x)(1); await (f)(); await (tools.y)'
    # the call starts at its parenthesis, as V8's call expression does: `await` is the operator around it
    assert calls_of(source) == [
        ("exec_command", "ls", '(tools.exec_command)({cmd: "ls"})'),
        ("x", None, "(0, tools.x)(1)"),
    ]
    assert syntax_problem(ExecScript(source)) is None


@pytest.mark.parametrize(
    "source, expected",
    [
        ('await (tools).exec_command({cmd: "ls"})', '(tools).exec_command({cmd: "ls"})'),
        ('await ((tools)).exec_command({cmd: "ls"})', '((tools)).exec_command({cmd: "ls"})'),
        ('await (0, tools.exec_command)({cmd: "ls"})', '(0, tools.exec_command)({cmd: "ls"})'),
        ('await (tools?.exec_command)?.({cmd: "ls"})', '(tools?.exec_command)?.({cmd: "ls"})'),
        ('await (tools)["exec_command"]({cmd: "ls"})', '(tools)["exec_command"]({cmd: "ls"})'),
        ('x(); await (tools).exec_command({cmd: "ls"}).then(f)', '(tools).exec_command({cmd: "ls"})'),
        ('const t = await (tools); await t.exec_command({cmd: "ls"})', 't.exec_command({cmd: "ls"})'),
        ('const t = await tools; await t.exec_command({cmd: "ls"})', 't.exec_command({cmd: "ls"})'),
    ],
)
def test_every_parenthesised_form_after_await_is_a_call_starting_at_the_call(source, expected):
    script = ExecScript(source)
    result = find_calls(script)
    assert [(c.tool, c.command, source[c.start : c.end], c.source) for c in result.calls] == [
        ("exec_command", "ls", expected, expected)
    ]
    assert result.notes == []  # `(tools)` after await is not "tools passed to a function"
    assert syntax_problem(script) is None


# -- scopes --------------------------------------------------------------------------------------------------


def test_var_in_a_static_block_stays_in_it():
    assert calls_of("class A { static { var tools = 1; tools.a() } }; await tools.x()") == [("x", None, "tools.x()")]


def test_parameter_defaults_do_not_see_the_body_var():
    source = "function f(a = tools.y()) { var tools = other; tools.z() }"
    assert calls_of(source) == [("y", None, "tools.y()")]


def test_named_function_and_class_expressions_are_seen_only_inside():
    source = (
        "const f = function tools() { tools.a() }; tools.b(); const C = class tools { m() { tools.c() } }; tools.d()"
    )
    assert calls_of(source) == [("b", None, "tools.b()"), ("d", None, "tools.d()")]


def test_a_reassigned_let_alias_is_not_followed():
    source = "let t = tools; t = other; t.x(); let u = tools; u.y(); var v = tools; var v = 1; v.z()"
    assert calls_of(source) == [("y", None, "u.y()")]
    assert (
        notes_of(source, "dynamic-code")
        == [("tools", "tools is held by a name assigned more than once: calls made through it are not listed")] * 2
    )


# -- strict module validity -----------------------------------------------------------------------------------

REFUSED = [
    ('await tools.exec_command({cmd: "\\143laude -p hi"})', '"\\143laude -p hi"', None),
    ('await tools.exec_command({cmd: "ls\\08"})', None, "Octal literals are not allowed in strict mode."),
    ("x = 010", "010", "Octal literals are not allowed in strict mode."),
    ("with (a) {}", "(", "Strict mode code may not include a with statement"),
    ("delete x", "x", "Delete of an unqualified identifier in strict mode."),
    ("let a = 1; let a = 2", "a", "Identifier 'a' has already been declared"),
    ("for (;;) {} break", "k", "Illegal break statement"),
    ("return 1", "1", "Illegal return statement"),
    ("await x ** 2", "*", "Unexpected token **"),
    ("(a)\n=> 1", "=", "Unexpected token =>"),
    ("new a?.b()", "?", "Unexpected token ?."),
    ("x = /a(/", None, "Invalid regular expression"),
    ("x = <div/>", "<", "Unexpected token <"),
    ("function f(a, a) {}", None, "Strict mode function may not have duplicate parameter names"),
    ("var static = 1", "static", "Use of future reserved word in strict mode"),
    ("a ?? b || c", None, "Nullish coalescing requires parentheses when mixed with logical operators"),
]


@pytest.mark.parametrize("source, at, message", REFUSED)
def test_what_a_module_may_not_hold_is_script_syntax(source, at, message):
    script = ExecScript(source)
    assert not script.root.has_error  # tree-sitter accepts every one of them
    problem = syntax_problem(script)
    assert problem is not None and problem.message.startswith(
        "not valid module code (exec scripts run as strict ES modules; the script never ran): "
    )
    if message is not None:
        assert problem.message.endswith(": " + message)
    if at is not None:
        assert source[problem.start : problem.end] == at


def test_an_octal_escape_is_never_decoded():
    source = 'await tools.exec_command({cmd: "\\143laude -p hi"})'
    result = find_calls(ExecScript(source))
    assert [(c.tool, c.command, c.computed) for c in result.calls] == [("exec_command", None, True)]
    assert problem_of(source) == ('"\\143laude -p hi"', "Octal literals are not allowed in strict mode.")


@pytest.mark.parametrize(
    "source",
    [
        'const d = "2026-07-01"; const s = "\\\\2 \\\\08"; await tools.exec_command({cmd: `sed "s/\\\\(a\\\\)/\\\\1/"`})',
        "const r = await tools.exec_command({cmd: 'ls'}); text(r.output.split(/\\n(?=a)/u).length / 2)",
        "for (const x of [1, 2]) { if (x) break; } const f = async () => { return await tools.a({}) }",
        "// 010 and with (a) in a comment\nconst n = 0.5 + 1_000 + 0x1F; label_free: 1",
        "const {a, b: [c]} = await tools.x({}); let d; d = a ?? (b || c)",
    ],
)
def test_valid_modules_are_not_refused(source):
    assert syntax_problem(ExecScript(source)) is None


def test_common_scripts_skip_the_strict_parser():
    # the cheap look decides alone for ordinary scripts: dates, escaped backslashes, regexes, loops, awaits
    assert not might_be_refused(
        ExecScript(
            'const d = "2026-07-01"; const s = "C:\\\\users\\\\2"; for (const x of [1]) { if (x) break }\n'
            'const r = await tools.exec_command({cmd: "ls"}); text(r.output.split(/\\s+/).join("\\n"))'
        )
    )
    assert might_be_refused(ExecScript("x = 08"))


def test_script_syntax_reaches_the_document_at_the_exact_characters():
    script = 'await tools.exec_command({cmd: "ls\\08"})'
    line = (
        '{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c1","name":"exec",'
        f'"input":"{json_escaped(script)}"}}}}'
    )
    analysis = analyze_text(line + "\n")
    [finding] = [f for f in analysis.records[0].findings if f.code == "script-syntax"]
    assert line[finding.span.start : finding.span.end] == '\\"ls\\\\08\\"'  # "ls\08", JSON-escaped


# -- dynamic code --------------------------------------------------------------------------------------------

DYNAMIC = [
    ('eval("tools.x()")', 'eval("tools.x()")', "eval runs code built at run time"),
    ('new Function("return tools")()', 'new Function("return tools")', "Function builds code at run time"),
    ('await import("./x.js")', 'import("./x.js")', "a dynamic import() loads code at run time"),
    ("run(tools)", "tools", "tools is passed to a function"),
    ("run(tools.exec_command)", "tools.exec_command", "a tool is passed to a function"),
    ("const all = [tools]", "tools", "tools is stored in an array"),
    ("const o = {t: tools.x}", "tools.x", "a tool is stored in an object"),
    ("const o = {tools}", "tools", "tools is stored in an object"),
    ("const o = {...tools}", "tools", "tools is spread"),
    ('tools.exec_command.call(null, {cmd: "ls"})', "tools.exec_command.call", "a tool is called through .call"),
    ("const f = tools.x.bind(null)", "tools.x.bind", "a tool is called through .bind"),
    ("Reflect.get(tools, name)", "Reflect.get(tools, name)", "Reflect reaches a tool"),
    ("(a ? tools.x : tools.y)({})", "tools.x", "a tool is chosen at run time"),
    ("globalThis.t = tools", "tools", "tools is assigned where the reading cannot follow it"),
    ("const f = () => tools", "tools", "tools is returned"),
]


@pytest.mark.parametrize("source, at, message", DYNAMIC)
def test_dynamic_code_is_a_warning_at_its_place(source, at, message):
    notes = notes_of(source, "dynamic-code")
    assert notes[0] == (at, message + ": calls made through it are not listed")


@pytest.mark.parametrize(
    "source",
    [
        'const t = tools; await t.exec_command({cmd: "ls"}); const {apply_patch} = tools; if (tools) text("x")',
        'const r = await tools.exec_command({cmd: "ls"}); text(typeof tools); const e = (x) => x; e(r)',
        "const Reflect = {get() {}}; Reflect.get(o); const Function = class {}; new Function(); "
        "const eval = (x) => x; eval(1)",
    ],
)
def test_what_a_static_reading_follows_is_no_dynamic_code(source):
    assert notes_of(source, "dynamic-code") == []


def test_a_local_reflect_is_a_function_like_any_other():
    assert notes_of("const Reflect = {get() {}}; Reflect.get(tools)", "dynamic-code") == [
        ("tools", "tools is passed to a function: calls made through it are not listed")
    ]


def exec_line(script):
    return (
        '{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c1","name":"exec",'
        f'"input":"{json_escaped(script)}"}}}}\n'
    )


@pytest.mark.parametrize(
    "script, executed",
    [
        ('await tools.exec_command({cmd: "ls"}); const s = "\\143";', "no"),  # V8 refuses the module
        ('await tools.exec_command({cmd: "ls"}); with (o) {}', "no"),
        ('await tools.exec_command({cmd: "ls"}); )', "no"),  # a syntax error the strict parser confirms
        ('await tools.exec_command({cmd: "ls"}); const s = "\\\\143";', "unknown"),  # valid: it may have run
    ],
)
def test_no_call_of_a_script_that_never_ran_is_read_as_run(script, executed):
    [call] = analyze_text(exec_line(script)).records[0].calls
    assert (call.tool, call.command, call.executed) == ("exec_command", "ls", executed)


def test_the_outline_says_a_refused_script_never_ran():
    from analysis.jsonl.positions import PositionEncoding
    from analysis.reports.report import outline_text

    analysis = analyze_text(exec_line('await tools.exec_command({cmd: "ls\\08"}); if (false) tools.x({})'))
    findings = [f for record in analysis.records for f in record.findings]
    text = outline_text("r.jsonl", analysis, findings, PositionEncoding.UTF16)
    assert '├─ [never ran] exec_command: computed: "ls\\08" (computed)' in text
    assert "└─ [never ran] x" in text
    analysis = analyze_text(exec_line('await tools.exec_command({cmd: "ls"}); if (false) tools.x({})'))
    assert "└─ [dead] x" in outline_text("r.jsonl", analysis, [], PositionEncoding.UTF16)


@pytest.mark.parametrize(
    "source, asked, valid",
    [
        ("const a = x ?? y;", False, True),
        ("const a = x ?? y ?? z;", False, True),
        ("const a = (x || y) ?? z;", False, True),
        ("const a = x ?? (y && z);", False, True),
        ("const a = x ?? y || z;", True, False),
        ("const a = x || y ?? z;", True, False),
        ("const a = x && y ?? z;", True, False),
    ],
)
def test_nullish_coalescing_sends_a_script_to_esprima_only_beside_an_unparenthesised_short_circuit(
    source, asked, valid
):
    script = ExecScript(source)
    assert (might_be_refused(script), syntax_problem(script) is None) == (asked, valid)


# Each trigger of the strict-module check, exact (issue 25): a script goes to esprima only when it holds a construct
# that can be an early error of module code that tree-sitter accepts; the valid neighbours of each stay out.
# ``{g\u0065t: 1}`` is the one valid script sent: an escaped ``get`` is looked at wherever it is a property name.
@pytest.mark.parametrize(
    "source, asked, valid",
    [
        ("-a ** b", True, False),
        ("a ** -b", False, True),
        ("(-a) ** b", False, True),
        ("a **= 2", False, True),
        ('x = "\\u{110000}"', True, False),
        ('x = "\\u{10FFFF}"', False, True),
        ('x = "\\x41\\u0041\\u{41}"', False, True),
        ('x = "\\0"', False, True),
        ('x = "\\08"', True, False),
        ('x = "\\8"', True, False),
        ("x = `\\1`", True, False),
        ('x = "\\\\1"', False, True),
        ("l\\u0065t = 1", True, False),
        ("var v\\u0061r = 1", True, False),
        ("x = a.\\u0069f", False, True),
        ("x = {g\\u0065t: 1}", True, True),
        ("const \\u0061 = 1", False, True),
        ("tools.\\u0065xec_command({})", False, True),
        ("eval = 1", True, False),
        ("arguments++", True, False),
        ("[eval] = [1]", True, False),
        ('eval("x"); f(arguments)', False, True),
        ('function f(a = 1) { "use strict" }', True, False),
        ('function f(a) { "use strict" }', False, True),
        ('"use strict"; x = 1', False, True),
        ("x = 1_000", False, True),
        ("x = 0_1", True, False),
        ("x = 0xA_b", False, True),
        ("x = 1.5_0", False, True),
        ("let x; { var x; }", True, False),
        ("{ let x; } var x;", False, True),
        ("function f(x) { let x; }", True, False),
        ("function f(x) { var x; }", False, True),
        ("function f(x) { { let x; } }", False, True),
        ("try {} catch (e) { let e; }", True, False),
        ("try {} catch (e) { { let e; } }", False, True),
        ("function f() { await (x) }", True, False),
        ("async function f() { await (x) }", False, True),
        ("await (x)", False, True),
        ("var f; function f() {}", True, False),
        ("function g() { var f; function f() {} }", False, True),
        ('import x from "y"; var x;', True, False),
        ("const n = 1; { const n = 2; }", False, True),
        ("let a = 1; let a = 2", True, False),
        ("function f(a, a) {}", True, False),
        ("x = (function y() { let y; })", False, True),
        ("a-->b", False, True),
        ("a<!--b", False, True),
        ("f(a)", False, True),
        ("-->b", True, False),
    ],
)
def test_each_trigger_of_the_strict_parser_is_exact(source, asked, valid):
    script = ExecScript(source)
    assert not script.root.has_error
    assert (might_be_refused(script), syntax_problem(script) is None) == (asked, valid)


@pytest.mark.parametrize(
    "text",
    [
        "a\\1",
        "'\\08'",
        "\\u0065",
        "\\x41",
        "yield",
        "x export(y)",
        "o.__proto__",
        "static",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "enum",
        "<!--",
        "a-->b",
        "<!-->",
        "f\n=>",
        "f\r\t=>",
        "f\u2028 =>",
        "f\u2029\v=>",
        "/**/\v=>",
        "/* */\n =>",
        "async\n",
        "async \f/",
        "async\u2028",
        "async\r",
    ],
)
def test_the_one_pass_text_screen_finds_every_trigger(text):
    data = text.encode()
    assert _text_hits(data)
    assert _ANY_TEXT_HIT.search(data) is not None


@given(
    st.lists(
        st.sampled_from(
            [
                "\\",
                "0",
                "1",
                "8",
                "x",
                "u",
                "yield",
                "enum",
                "e",
                "<!",
                "--",
                ">",
                "\n",
                "\r",
                "\u2028",
                "\u2029",
                "\v",
                "\f",
                " ",
                "\t",
                "*/",
                "=>",
                "=",
                "async",
                "/",
                "a",
                "(",
                "_",
            ]
        )
    )
)
def test_the_one_pass_text_screen_misses_no_trigger(pieces):
    data = "".join(pieces).encode()
    if _text_hits(data):
        assert _ANY_TEXT_HIT.search(data) is not None


def test_the_one_pass_text_screen_passes_a_plain_script():
    assert _ANY_TEXT_HIT.search(b'const r = await tools.exec_command({cmd: "ls -la"});\nconsole.log(r => r);') is None


# -- alias chains and the pragma (issue 21) ------------------------------------------------------------------


def test_alias_chains_of_any_length_are_followed():
    chain = "const f0 = tools.exec_command;\n" + "".join(f"const f{i + 1} = f{i};\n" for i in range(40))
    source = chain + 'await f40({cmd: "ls"});'
    assert calls_of(source) == [("exec_command", "ls", 'f40({cmd: "ls"})')]
    holders = "const t0 = tools;\n" + "".join(f"const t{i + 1} = (t{i});\n" for i in range(40))
    source = holders + 'await t40.exec_command({cmd: "pwd"}); f(t40);'
    assert calls_of(source) == [("exec_command", "pwd", 't40.exec_command({cmd: "pwd"})')]
    assert notes_of(source, "dynamic-code") == [
        ("t40", "tools is passed to a function: calls made through it are not listed")
    ]


@pytest.mark.parametrize(
    "source",
    [
        "const a = b; const b = a; a(); b.x()",  # a cycle (a TDZ error at run time): never a tool, never a hang
        "let g = tools.exec_command; const h = g; g = null; h()",  # a link assigned again breaks the chain
        "const f = tools.exec_command; { const f = other; const g = f; g() }",  # the inner f shadows
    ],
)
def test_alias_chains_stop_where_a_binding_does_not_hold_a_tool(source):
    assert calls_of(source) == []


@pytest.mark.parametrize(
    "first_line, value",
    [
        ("// @exec: {}", {}),
        (
            '// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}',
            {"yield_time_ms": 10000, "max_output_tokens": 1000},
        ),
        ('  // @exec: {"max_output_tokens": null}\r', {"max_output_tokens": None}),
    ],
)
def test_a_pragma_codex_accepts(first_line, value):
    script = ExecScript(first_line + '\nawait tools.exec_command({cmd: "ls"});')
    assert script.pragma == value
    assert syntax_problem(script) is None


@pytest.mark.parametrize(
    "source, message",
    [
        ("// @exec:\nx()", "the '// @exec:' pragma must be a JSON object"),
        ("// @exec: [1]\nx()", "the '// @exec:' pragma must be a JSON object"),
        ("// @exec: {yield_time_ms: 1}\nx()", "the '// @exec:' pragma must be valid JSON"),
        ('// @exec: {"timeout": 5}\nx()', "the '// @exec:' pragma does not support 'timeout'"),
        (
            '// @exec: {"yield_time_ms": -1}\nx()',
            "the '// @exec:' pragma's yield_time_ms must be a non-negative safe integer",
        ),
        (
            '// @exec: {"yield_time_ms": 1.5}\nx()',
            "the '// @exec:' pragma's yield_time_ms must be a non-negative safe integer",
        ),
        (
            '// @exec: {"max_output_tokens": 9007199254740992}\nx()',
            "the '// @exec:' pragma's max_output_tokens must be a non-negative safe integer",
        ),
        (
            '// @exec: {"yield_time_ms": true}\nx()',
            "the '// @exec:' pragma's yield_time_ms must be a non-negative safe integer",
        ),
        ("// @exec: {}\n  \n", "the '// @exec:' pragma must be followed by JavaScript on later lines"),
    ],
)
def test_a_pragma_codex_refuses_means_the_script_never_ran(source, message):
    problem = syntax_problem(ExecScript(source))
    assert problem is not None and problem.refused
    assert problem.start == 0 and problem.end == len(source.split("\n")[0])
    assert problem.message == (
        f"{message} (Codex takes a JSON object with only yield_time_ms and max_output_tokens): the script never ran"
    )


# -- scripts nested deeper than esprima's recursion (issue 21) -------------------------------------------------


@pytest.mark.parametrize("depth", [150, 2000])
def test_a_deeply_nested_literal_is_valid_module_code(depth):
    # V8 and acorn read a 150-deep array literal; esprima-fork gives up at about 80 levels under Python's default
    # recursion limit ("nesting exceeds the parser resource limit"), which is no syntax error
    source = "const a = " + "[" * depth + "]" * depth + ';\nclass B {}\nawait tools.exec_command({cmd: "ls"});'
    script = ExecScript(source)
    assert might_be_refused(script)  # a class makes the strict parser decide
    assert syntax_problem(script) is None
    assert [(c.command, c.unconditional) for c in find_calls(script).calls] == [("ls", True)]


def test_an_early_error_in_a_deeply_nested_script_is_found_where_python_bounds_c_recursion_apart():
    source = (
        "const a = " + "{a: " * 300 + "1" + "}" * 300 + ';\nlet x = 1; let x = 2;\ntools.exec_command({cmd: "ls"});'
    )
    analysis = analyze_text(json_escaped_exec(source))
    if sys.version_info >= (3, 12):  # parsed again in a thread with a large stack
        assert problem_of(source) == ("x", "Identifier 'x' has already been declared")
        assert [c.call.executed for c in analysis.calls] == ["no"]  # V8 refuses it: the call never ran
    else:  # no raised recursion limit before 3.12: tree-sitter's verdict stands, never "the script never ran"
        assert problem_of(source) is None
        assert [c.call.executed for c in analysis.calls] == ["unknown"]


def json_escaped_exec(source: str) -> str:
    line = {
        "timestamp": "2026-09-01T00:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "c1",
            "name": "exec",
            "input": source,
        },
    }
    return json.dumps(line) + "\n"


def test_a_deep_script_without_room_for_a_large_stack_keeps_tree_sitters_verdict(monkeypatch):
    import threading

    from analysis.script import syntax_problem as module

    def refuse(size=None):
        if size:
            raise ValueError("size not valid")
        return 0

    monkeypatch.setattr(threading, "stack_size", refuse)
    source = "const a = " + "[" * 120 + "]" * 120 + ";\nlet q = 1; let q = 2;"  # distinct from other tests' scripts
    assert module._parse_deep(source) is None
    assert module.first_module_error(source) is None  # no verdict, never "the script never ran"
