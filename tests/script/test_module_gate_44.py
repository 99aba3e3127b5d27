"""Stop 44's gated strict pre-check (analysis.script.module_syntax.might_be_refused) against the pre-check before it
and against esprima itself.

The gates: a ``suspect_always`` node first; one RE2 set pass (module_text.text_suspects) telling which text readers
(the text triggers, the called ``let``/``await`` and tagged chains, the labelled function, ``"use strict"``) can find
anything; only non-empty groups read, each by a function of its own; ``assigned_names`` only with an ``assign`` or
``loop`` node; the labelled look only with a function node.  A gate may say "no" where the old pre-check said
"maybe" only for a script esprima accepts, so ``module_problem`` never changes: (a) differential, the old pre-check
is kept here (not in analysis/), on every script of the existing early-error tests; (b) mutations, each trigger put
into small scripts of several contexts, against esprima's own verdict.  The corpus half is
tests/corpus/test_module_gate_44_corpus.py.
"""

from __future__ import annotations

import itertools
import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.script.module_names import (
    _CALLED_AWAIT,
    _CALLED_LET,
    _assigns_badly,
    _await_refused,
    _redeclares,
    _strict_directive_refused,
    _tags_a_chain,
)
from analysis.script.module_syntax import (
    _DECLARATIONS,
    _TARGETS,
    _bad_separator,
    _function_of,
    _jump_refused,
    _labelled_in_braces,
    _mixes_short_circuits,
    _unwrapped,
    _valid_regexp,
    might_be_refused,
    module_problem,
)
from analysis.script.module_text import (
    _NAME_BYTE,
    CALLED,
    DECIDED,
    LABELLED,
    STRICT,
    TEXT_TRIGGER,
    _text_hit,
    _text_hits,
    text_suspects,
)
from analysis.script.script import ExecScript
from analysis.script.syntax_problem import SyntaxProblem, first_module_error
from tests.script.test_script_speed import BENIGN, EARLY_ERRORS
from tests.script.test_script_speed41 import CALLED_WORDS

# -- the pre-check as it was at 4842823 (stop 43), kept for the differential tests ---------------------------------

_OLD_CHECKS = (
    ("operator", "binary"),
    ("operator", "assign"),
    ("method", "scope_function"),
    ("body", "if"),
    ("body", "while"),
    ("body", "for"),
    ("body", "loop"),
    ("body", "suspect_body"),
    ("delete", "suspect_delete"),
    ("return", "suspect_return"),
    ("jump", "suspect_jump"),
    ("await", "suspect_await"),
    ("new", "suspect_new"),
    ("declarator", "suspect_declarator"),
    ("regex", "suspect_regex"),
    ("number", "suspect_number"),
)
_OLD_CHECKED_TYPES = {
    "binary": frozenset({"binary_expression"}),
    "assign": frozenset({"augmented_assignment_expression"}),
    "scope_function": frozenset({"method_definition"}),
}
_OLD_MISNAMES = ("let", "await", "eval", "arguments")


def old_might_be_refused(script: ExecScript) -> bool:
    if _strict_directive_refused(script) or _text_hit(script):
        return True
    structure = script.structure
    if structure["suspect_always"]:
        return True
    in_functions = bool(structure["scope_function"])
    for check, group in _OLD_CHECKS:
        if check == "await" and not in_functions:
            continue
        types = _OLD_CHECKED_TYPES.get(group)
        for captures in structure[group]:
            node = captures[group][0]
            if (types is None or node.type in types) and _old_refused(script, check, node):
                return True
    return _old_misnames(script) or _assigns_badly(script) or _redeclares(script) or _labelled_in_braces(script)


def _old_misnames(script: ExecScript) -> bool:
    bindings = script.bindings
    if any(name in bindings for name in _OLD_MISNAMES):
        return True
    if any(script.name_of(target) in _OLD_MISNAMES for target in script.assigned_names()):
        return True
    data = script.data
    tags = b"?." in data and b"`" in data
    if not tags and _CALLED_AWAIT.search(data) is None and (b"let" not in data or _CALLED_LET.search(data) is None):
        return False
    for captures in script.structure["call"]:
        callee = captures["callee"][0]
        if callee.type == "identifier":
            name = script.text(callee)
            if name == "let" or name == "await" and _await_refused(script, captures["call"][0]):
                return True
        elif tags and _tags_a_chain(script, captures["call"][0], callee):
            return True
    return False


def _old_refused(script: ExecScript, group: str, node) -> bool:
    text = script.text
    if group == "operator":
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "??":
            return _mixes_short_circuits(node)
        if operator is None or operator.type != "**":
            return False
        left = node.child_by_field_name("left")
        return left is not None and left.type in ("unary_expression", "await_expression")
    if group == "method":
        parent = node.parent
        return parent is not None and parent.type == "object"
    if group == "body":
        kind = node.type
        body = (
            node.named_children[0]
            if kind == "else_clause" and node.named_children
            else node.child_by_field_name("consequence" if kind == "if_statement" else "body")
        )
        return (
            body is not None
            and body.type in _DECLARATIONS
            or kind == "for_in_statement"
            and node.child_by_field_name("kind") is None
            and _unwrapped(node.child_by_field_name("left")) not in _TARGETS | {"object_pattern", "array_pattern"}
        )
    if group == "delete":
        return _unwrapped(node.child_by_field_name("argument")) == "identifier"
    if group == "return":
        return _function_of(script, node) in (None, "class_static_block")
    if group == "jump":
        return _jump_refused(node)
    if group == "await":
        return _await_refused(script, node)
    if group == "new":
        constructor = node.child_by_field_name("constructor")
        return constructor is not None and "?." in text(constructor)
    if group == "number":
        data = script.data
        digits = data[node.start_byte : node.end_byte]
        return (
            digits[:1] == b"0"
            and digits[1:2].isdigit()
            or b"_" in digits
            and _bad_separator(digits)
            or bool(_NAME_BYTE.match(data, node.end_byte))
        )
    if group == "declarator":
        declaration = node.parent
        name = node.child_by_field_name("name")
        return (
            name is not None
            and name.type != "identifier"
            or declaration is not None
            and declaration.type == "lexical_declaration"
            and declaration.children[0].type == "const"
        )
    if group == "regex":
        pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
        return not _valid_regexp(text(pattern) if pattern is not None else "", text(flags) if flags is not None else "")
    return False


def old_module_problem(script: ExecScript) -> SyntaxProblem | None:
    if script.too_deep or not old_might_be_refused(script):
        return None
    return first_module_error(script.source)


def assert_gate_exact(source: str) -> None:
    """The new verdict is the old one; where the gate says "no" and the old pre-check "maybe", esprima accepts;
    and the gate never passes a script esprima refuses that tree-sitter reads without error."""
    new, old = ExecScript(source), ExecScript(source)
    if new.too_deep or new.tree_problem is not None:
        assert module_problem(new) == old_module_problem(old), source
        return
    asked, asked_before = might_be_refused(new), old_might_be_refused(old)
    if asked != asked_before or not asked:
        assert first_module_error(source) is None, source  # a miss would be a wrong verdict
    assert module_problem(new) == old_module_problem(old), source


# -- (a) differential: the scripts of the existing early-error tests -------------------------------------------------

# the trigger cases of test_script_module (each trigger and its valid neighbour), stop 40's labelled cases, and a few
# of this stop's gates' edges: a labelled function in an arrow's braces, a tagged chain with its backquote first,
# ``let``/``await`` called across a comment or a non-ASCII space, "use strict" in a string only
EXISTING = (
    *EARLY_ERRORS,
    *BENIGN,
    *CALLED_WORDS,
    "-a ** b",
    "a ** -b",
    "(-a) ** b",
    "a **= 2",
    'x = "\\u{110000}"',
    'x = "\\u{10FFFF}"',
    'x = "\\08"',
    'x = "\\8"',
    "x = `\\1`",
    'x = "\\\\1"',
    "l\\u0065t = 1",
    "var v\\u0061r = 1",
    "x = a.\\u0069f",
    "x = {g\\u0065t: 1}",
    "const \\u0061 = 1",
    "eval = 1",
    "arguments++",
    "[eval] = [1]",
    'eval("x"); f(arguments)',
    'function f(a = 1) { "use strict" }',
    'function f(a) { "use strict" }',
    '"use strict"; x = 1',
    'x = "use strict"; (a = 1) => 1',
    "x = 1_000",
    "x = 0_1",
    "x = 0xA_b",
    "x = 1.5_0",
    "x = 3in y",
    "x = 1; 3",
    "let x; { var x; }",
    "function f(x) { let x; }",
    "try {} catch (e) { let e; }",
    "function f() { await (x) }",
    "async function f() { await (x) }",
    "await (x)",
    "function f() { await /* c */ (x) }",
    "function f() { await\u00a0(x) }",
    "f(let /* c */ (1))",
    "var f; function f() {}",
    'import x from "y"; var x;',
    "let a = 1; let a = 2",
    "function f(a, a) {}",
    "a-->b",
    "a<!--b",
    "-->b",
    "{ L: class C {} }",
    "() => { L: class C {} }",
    "{ L: function f() {} }",
    "() => { L: async function f() {} }",
    "() => { L: function* f() {} }",
    "x = { L: function f() {} }",
    'x = { a: ": function" }',
    "`t`; a?.b",
    "a?.b`t`",
    "a?.b; `t`",
    "({ get a() {}, set a(v) {} })",
    "for (f() in o) {}",
    "for (a in o) {}",
    "if (a) ; else function f() {}",
    "do function f() {} while (a)",
    "new (a?.b)()",
    "x = /a/gg",
    "x = /(?<a>.)\\k<a>/u",
    "class A { static { return; } }",
    "L: for (;;) { continue L; }",
    "for (;;) { break; }",
    "function f() { return; }",
    "delete (x)",
    "delete x.y",
    "const [a] = b",
    "var a",
    "x ?? (y || z)",
    "(x ?? y) || z",
    "x ?? y && z",
)


@pytest.mark.parametrize("source", EXISTING)
def test_the_gated_pre_check_gives_the_old_verdict(source: str) -> None:
    assert_gate_exact(source)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("const r = await tools.exec_command({cmd: 'ls'});\ntext(r);", []),
        ("let x = 1;", [TEXT_TRIGGER]),  # ``let`` is a text trigger's word; called only before ``(``
        ("let (1)", [TEXT_TRIGGER, CALLED]),
        ("await (f)();", [CALLED]),
        ("await\u00a0`t`", [CALLED]),
        ("a?.b; `t`", [CALLED]),
        ("`t`; a?.b", [CALLED]),
        ("x = {a: function () {}}", [LABELLED]),
        ("x = {a:\n async\tclass {}}", [LABELLED]),
        ('function f(a = 1) { "use strict" }', [STRICT]),
        ("x = '\\1'", [TEXT_TRIGGER]),
    ],
)
def test_the_one_set_pass_names_each_reader_its_text_may_interest(source: str, expected: list[int]) -> None:
    assert sorted(set(text_suspects(source.encode())) - {DECIDED}) == expected


@given(
    st.lists(
        st.sampled_from(
            [
                "await",
                "let",
                " ",
                "\u00a0",
                "\n",
                "(",
                "/",
                "`",
                "?",
                ".",
                ":",
                "async",
                "function",
                "class",
                "use strict",
                "\\",
                "1",
                "x",
                "yield",
                "=>",
                "*/",
            ]
        ),
        max_size=12,
    )
)
def test_the_one_set_pass_is_a_superset_of_each_readers_text_test(pieces: list[str]) -> None:
    """Each reader's own text test (before stop 44) finds something only where the set's pass reports its pattern."""
    from analysis.script.module_text import _ANY_TEXT_HIT

    labelled = re.compile(rb":\s*(?:async\s+)?(?:function|class)\b")  # module_syntax's pattern before miss 3

    data = "".join(pieces).encode()
    found = text_suspects(data) or ()
    if _text_hits(data) or _ANY_TEXT_HIT is not None and _ANY_TEXT_HIT.search(data) is not None:
        assert TEXT_TRIGGER in found
    if _CALLED_AWAIT.search(data) or _CALLED_LET.search(data) or b"?." in data and b"`" in data:
        assert CALLED in found
    if labelled.search(data):
        assert LABELLED in found
    if b"use strict" in data:
        assert STRICT in found


# -- (b) mutations: each trigger in small scripts of several contexts, against esprima ------------------------------

TRIGGERS = (
    "'\\1'",
    "'\\08'",
    "'\\8'",
    "`\\1`",
    "'\\u{110000}'",
    "l\\u0065t",
    "\\u0061wait",
    "v\\u0061r",
    "({g\\u0065t: 1})",
    "x.\\u0069f",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "enum",
    "yield",
    "o.__proto__",
    "({__proto__: 1, __proto__: 2})",
    "a ?? b || c",
    "a || b ?? c",
    "a ?? b && c",
    "-a ** b",
    "await a ** b",
    "typeof a ** b",
    "delete x",
    "delete (x)",
    "L: x",
    "L: function g() {}",
    "{ L: function g() {} }",
    "let(1)",
    "let /* c */ (1)",
    "await (x)",
    "await\u00a0(x)",
    "await`t`",
    "eval = 1",
    "arguments = 1",
    "eval++",
    "[eval] = [1]",
    "({arguments} = o)",
    "for (eval of o) ;",
    "var eval",
    "let arguments",
    "function eval() {}",
    "/a/gg",
    "/(/",
    "/a/v",
    "/[a&&b]/v",
    "x = 08",
    "x = 010",
    "x = 1__0",
    "x = 1_",
    "x = 0x_1",
    "x = 3in y",
    "x = 0_1",
    "a?.b`t`",
    "new a?.b()",
    "a?.b = 1",
    "a?.b++",
    "f() = 1",
    "(a, b) = 1",
    "with (o) {}",
    "if (a) function g() {}",
    "if (a) class C {}",
    "while (a) let [x] = y",
    "for (f() in o) ;",
    "break",
    "continue",
    "return",
    "const c",
    "let [z]",
    "var w; let w",
    "let w; var w",
    "function h(a, a) {}",
    "(a, a) => 1",
    'function h(a = 1) { "use strict" }',
    'h = ({a}) => { "use strict" }',
    "async\nfunction h() {}",
    "f\n=> 1",
    "x = a <!-- b",
    "--> c",
    "x = 1;\n--> c",
    "class C { m() { super(); } }",
    "export const e = 1",
    "import.meta",
    "new.target",
    "x = { get a() {} }",
    "function* g() { yield 1 }",
)
HOSTS = (
    "{}",
    "text(1);\n{}\ntext(2);",
    "function f() {\n{}\n}",
    "async function f() {\n{}\n}",
    "const g = () => {\n{}\n};",
    "if (ok) {\n{}\n}",
    "for (const i of xs) {\n{}\n}",
    "const r = await tools.exec_command({cmd: 'ls'});\n{}",
)


def _gate_holds(source: str) -> None:
    script = ExecScript(source)
    if script.too_deep or script.tree_problem is not None:
        return  # tree-sitter's own error answers first: the pre-check is not asked
    if first_module_error(source) is not None:
        assert might_be_refused(script), source  # never a script esprima refuses that the gate passes
    assert module_problem(ExecScript(source)) == old_module_problem(ExecScript(source)), source


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_each_trigger_in_each_context_is_asked_wherever_esprima_refuses_it(trigger: str) -> None:
    for host in HOSTS:
        _gate_holds(host.replace("{}", trigger, 1))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TRIGGERS + BENIGN), min_size=1, max_size=3), st.sampled_from(HOSTS))
def test_triggers_together_in_a_context_are_asked_wherever_esprima_refuses_them(pieces: list[str], host: str) -> None:
    _gate_holds(host.replace("{}", ";\n".join(pieces), 1))


def test_every_pair_of_contexts_nests() -> None:
    # a trigger two contexts deep (an arrow in a function, a block in a loop…), each of a few triggers
    for outer, inner in itertools.product(HOSTS[2:7], HOSTS[2:7]):
        for trigger in ("await (x)", "L: function g() {}", "return", "eval = 1", "let(1)", "-a ** b"):
            _gate_holds(outer.replace("{}", inner.replace("{}", trigger, 1), 1))


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@cache
def fixture_scripts() -> tuple[str, ...]:
    """Every exec script of the fixtures' rollouts (a line that is no JSON object is skipped)."""
    found = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            if '"exec"' not in line:
                continue
            try:
                payload = json.loads(line).get("payload")
            except (ValueError, AttributeError):
                continue
            if isinstance(payload, dict) and payload.get("name") == "exec" and isinstance(payload.get("input"), str):
                found.append(payload["input"])
    return tuple(found)


def test_the_gated_pre_check_gives_the_old_verdict_on_every_fixture_script() -> None:
    scripts = fixture_scripts()
    assert len(scripts) >= 30
    for source in scripts:
        assert_gate_exact(source)
