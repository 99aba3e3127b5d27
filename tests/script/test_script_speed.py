"""The fast paths of the per-script reading (stop 37) give exactly what the plain ones give: a name declared many
times resolves through an index of its scopes (``_NameIndex``) as the scan over its bindings does, its
redeclarations are found by scope (``_clashes``) as the pairwise comparison finds them, and a binding's uses are
looked for only inside its scope.  Checked on generated scripts here, and on every exec script of ../shared/corpus by
tests/corpus/test_script_speed_corpus.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.script.callees import Callees
from analysis.script.calls import find_calls
from analysis.script.expansions import Expansions
from analysis.script.js_tree import MAX_DEPTH, OPAQUE
from analysis.script.module_names import _FEW, _clashes, _conflict, _redeclares
from analysis.script.module_syntax import might_be_refused, syntax_problem
from analysis.script.scopes import _INDEXED, _innermost, _NameIndex
from analysis.script.script import ExecScript
from analysis.script.values import constants_of


def identifiers(script: ExecScript) -> list:
    out, stack = [], [script.root]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"):
            out.append(node)
        stack.extend(node.children)
    return out


def pairwise(script: ExecScript, bindings: list) -> bool:
    return any(
        _conflict(script, first, second) or _conflict(script, second, first)
        for i, first in enumerate(bindings)
        for second in bindings[i + 1 :]
    )


def plain_uses(expansions: Expansions, script: ExecScript, binding) -> list:
    return [
        ref
        for ref in expansions.references(binding.name)
        if ref.start_byte != binding.node.start_byte and script.resolve(ref) == binding
    ]


def assert_fast_paths_exact(source: str) -> None:
    script = ExecScript(source)
    if script.too_deep:
        return
    positions = sorted({n.start_byte for n in identifiers(script)} | {0, len(script.data), len(script.data) + 5})
    for name, bindings in script.bindings.items():
        index = _NameIndex(bindings)
        for at in positions:
            assert index.innermost(at) is _innermost(bindings, at), (name, at)
        if len(bindings) >= 2:
            assert _clashes(script, bindings) == pairwise(script, bindings), name
    expansions = Expansions(script, constants_of(script), Callees(script, constants_of(script)))
    for bindings in script.bindings.values():
        for binding in bindings:
            assert expansions.uses(binding) == plain_uses(expansions, script, binding)


# -- generated scripts: a few names declared in nested blocks, functions, loops, catches and parameters ----------

NAMES = ("x", "y", "cmd", "xé", "$x", "\\u0078")  # names inside names, and an escaped ``x``
DECLARATIONS = (
    "let {n} = 1;",
    "const {n} = 'a';",
    "var {n} = 2;",
    "function {n}() {{}}",
    "class {n} {{}}",
    "{n} = 3;",
    "await tools.exec_command({{cmd: {n}}});",
    "for (const {n} of ['a', 'b']) await tools.exec_command({{cmd: {n}}});",
    "for (var {n} of ['a']) {{}}",
    "const f_{n} = function {n}() {{ return {n}; }};",
)
WRAPPERS = (
    "{{\n{body}\n}}",
    "function g({n}) {{\n{body}\n}}",
    "async ({n}) => {{\n{body}\n}};",
    "try {{}} catch ({n}) {{\n{body}\n}}",
    "if (ok) {{\n{body}\n}}",
    "for (let {n} = 0; {n} < 2; {n}++) {{\n{body}\n}}",
)


@st.composite
def nested_scripts(draw) -> str:
    def block(depth: int) -> str:
        parts = []
        for _ in range(draw(st.integers(0, 4))):
            name = draw(st.sampled_from(NAMES))
            if depth < 3 and draw(st.booleans()):
                wrapper = draw(st.sampled_from(WRAPPERS))
                parts.append(wrapper.format(n=name, body=block(depth + 1)))
            else:
                parts.append(draw(st.sampled_from(DECLARATIONS)).format(n=name))
        return "\n".join(parts)

    return block(0)


@settings(max_examples=300, deadline=None)
@given(nested_scripts())
def test_the_fast_paths_on_generated_scripts(source: str) -> None:
    assert_fast_paths_exact(source)


def test_a_name_declared_in_many_blocks_resolves_to_its_own_block() -> None:
    source = "".join(f'{{\nconst x = "c{i}";\nawait tools.exec_command({{cmd: x}});\n}}\n' for i in range(3 * _INDEXED))
    calls = find_calls(ExecScript(source)).calls
    assert [c.command for c in calls] == [f"c{i}" for i in range(3 * _INDEXED)]
    assert all(c.executed == "unknown" and c.unconditional for c in calls)


@pytest.mark.parametrize("clash", ["const x = 1;", "let x = 1;", "var x = 1;", "function x() {}"])
def test_many_blocks_without_a_clash_are_not_sent_to_the_strict_parser(clash: str) -> None:
    """``const x`` in each of many blocks (65: past 64 the strict parser was asked before) shadows nothing: no early error to look for; one
    more declaration of ``x`` in one of the blocks is a clash the strict parser then reports."""
    blocks = "".join("{\nconst x = 1;\nawait tools.exec_command({cmd: 'ls'});\n}\n" for _ in range(65))
    script = ExecScript(blocks)
    assert len(script.bindings["x"]) == 65 > _FEW
    assert not _redeclares(script) and not might_be_refused(script) and syntax_problem(script) is None
    clashing = blocks + "{\nconst x = 1;\n" + clash + "\n}\n"
    script = ExecScript(clashing)
    assert _redeclares(script) and might_be_refused(script)
    problem = syntax_problem(script)
    assert problem is not None and problem.refused
    assert problem.message == (
        "not valid module code (exec scripts run as strict ES modules; the script never ran): "
        "Identifier 'x' has already been declared"
    )
    second = len(clashing) - len(clash) - 3 + clash.index("x")  # the clash's own ``x``
    assert (problem.start, problem.end) == (second, second + 1)


# -- the strict-module check's pre-check: it says "maybe" wherever the strict parser finds an early error -------

EARLY_ERRORS = (
    "with (o) {}",
    "x = 08;",
    "'\\143';",
    "let let = 1;",
    "break;",
    "return;",
    "-a ** b;",
    "new a?.b();",
    "delete x;",
    "let z = 1; let z = 2;",
    "function f(a, a) {}",
    "eval = 1;",
    "if (a) function q() {}",
    "a ?? b || c;",
    "/(/;",
    "1__0;",
    "function h() { await x; }",
    "var w; let w;",
    "{ L: function lf() {} }",
    "const c;",
    "tools.x?.y`t`;",
    "class K { m() { super(); } }",
    "const k = 1; { var k; }",
)
BENIGN = ("const q = 1;", "x = 1;", "{ const x = 2; }", "await tools.exec_command({cmd: 'ls'});")


# -- too_deep: subtrees too small to reach MAX_DEPTH are not walked -------------------------------------------


def walked_too_deep(script: ExecScript) -> bool:
    """The walk of every node outside strings and comments, without skipping small subtrees."""
    stack = [(script.root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if node.type not in OPAQUE:
            stack.extend((child, depth + 1) for child in node.children)
    return False


FLAT = "".join(
    f"{{ const x{i} = [1, 2, 3]; await tools.exec_command({{cmd: `ls ${{x{i}}}`}}); }}\n" for i in range(600)
)


@pytest.mark.parametrize("prefix", ["", FLAT])
@pytest.mark.parametrize("levels", [MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 50])
@pytest.mark.parametrize("shape", ["[{}]", "-{}", "({})", "a + {}"])
def test_too_deep_is_what_the_whole_walk_finds(prefix: str, levels: int, shape: str) -> None:
    open_, close = shape.split("{}")
    nested = open_ * levels + "x" + close * levels
    script = ExecScript(prefix + nested + ";\n" + prefix)
    assert script.tree_problem is None or script.too_deep
    assert script.too_deep == walked_too_deep(script)


def test_too_deep_flags_a_deep_part_after_flat_code() -> None:
    script = ExecScript(FLAT + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + ";\n")
    assert script.too_deep and walked_too_deep(script)
    assert not ExecScript(FLAT).too_deep
