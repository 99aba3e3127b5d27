"""Four constructs stop 44's review found that tree-sitter accepts, esprima (V8) refuses as module code, and the
strict pre-check (analysis.script.module_syntax.might_be_refused) let through, so the script was read as having
run: ``await?.(1)`` (and ``await?.x``), an optional chain as a ``for (… in/of …)`` or destructuring target, a
comment between a label's ``:`` and ``function``, and ``await (x)\\n(-a) ** b`` (any blank before the paren,
Unicode spaces included).  Each is asked about in several hosts, and its valid neighbours stay unasked or valid.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.script.module_syntax import module_problem
from analysis.script.script import ExecScript
from analysis.script.syntax_problem import first_module_error

HOSTS = (
    "{}",
    "async function h() {{ {} }}",
    "const h = async () => {{ {} }};",
    "{{ {} }}",
    "async function h() {{ if (z) {{ {} }} }}",
)
# (miss) Unicode white space between ``await`` and its parenthesised operand, as tree-sitter and V8 read it
SPACES = (" ", "\t", "\u00a0", "\ufeff", "\u1680", *map(chr, range(0x2000, 0x200B)), "\u202f", "\u205f", "\u3000")

MISSES = (
    # 1: ``await`` as an optional call's callee, or an optional chain's object
    "await?.(1);",
    "await ?.(1);",
    "await /*c*/ ?.(1);",
    "await?.x;",
    "await?.[x];",
    "await/**/?.x;",
    "await // c\n?.x;",
    "await /*c*/ ? 1 : 2;",
    "await ? 1 : 2;",
    # 2: an optional chain as an assignment target
    "for (a?.b of c);",
    "for (a?.b in c);",
    "for ((a?.b) of c);",
    "for ([a?.b] of c);",
    "for ({x: a?.b} of c);",
    "[a?.b] = c;",
    "({x: a?.b} = c);",
    "[x, ...a?.b] = c;",
    # 3: a comment (or a Unicode space) between a label's ``:`` and ``function``
    "{ L: /*c*/ function f(){} }",
    "{ L: // c\nfunction f(){} }",
    "{ L: /*c*/ async function f(){} }",
    "{ L: async /* c */ function f(){} }",
    "{ L: /** c **/ function* f(){} }",
    "{ L:\u00a0function f(){} }",
    "{ L:\u2028function f(){} }",
    "() => { L: // c\n function f(){} };",
    "() => { L: /* a */ /* b */ function f(){} };",
    # 4: ``await (x)`` then a call read by V8 as await's operand, an unparenthesised unary operand of ``**``
    *(f"await{space}(x)\n(-a) ** b;" for space in SPACES),
    "await (x).y ** b;",
    "await (x)[0] ** b;",
)

NEIGHBOURS = (
    "await (x);",
    "await\u00a0(x);",
    "await f?.();",
    "await f?.x;",
    "x.await?.(1);",
    "({ await: 1 }).await?.x;",
    "'await?.(1)';",
    "// await?.x\n",
    "for (a.b of c);",
    "for (a.b in c);",
    "for ([a.b] of c);",
    "[a.b] = c;",
    "({x: a.b} = c);",
    "{ L: 1 }",
    "x = { L: function(){} };",
    "x = { L: /*c*/ function(){} };",
    "x = () => ({ L: /*c*/ function(){} });",
    "await x;",
    "await /x/g;",
    "await /*c*/ (x);",
    "x ? await /*?*/ y : z;",
    "await (x) + b;",
    "(await (x)) ** b;",
    "const awaitX = (y) => y; awaitX(2) ** 2;",
)


def _hosted(construct: str) -> list[str]:
    return [host.format(construct) for host in HOSTS]


@pytest.mark.parametrize("construct", MISSES)
def test_each_miss_is_refused_in_every_host(construct: str) -> None:
    for source in _hosted(construct):
        script = ExecScript(source)
        if script.tree_problem is not None:
            continue  # tree-sitter refuses it itself there
        expected = first_module_error(source)
        assert expected is not None, source
        found = module_problem(script)
        assert found is not None, source
        assert found.message == expected.message, source


@pytest.mark.parametrize("construct", NEIGHBOURS)
def test_valid_neighbours_stay_valid(construct: str) -> None:
    for source in _hosted(construct):
        script = ExecScript(source)
        assert script.tree_problem is None, source
        assert first_module_error(source) is None, source
        assert module_problem(script) is None, source


def test_each_miss_is_asked_about_in_every_host() -> None:
    hosted = [source for construct in MISSES for source in _hosted(construct)]
    assert sum(ExecScript(source).tree_problem is None for source in hosted) >= len(hosted) * 3 // 4


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(MISSES + NEIGHBOURS),
    st.sampled_from(HOSTS),
    st.sampled_from(("", "/* a: function */ ", "// c\n", "x = { k: 'function' };\n", "let y = 1;\n")),
)
def test_module_problem_agrees_with_esprima(construct: str, host: str, before: str) -> None:
    source = before + host.format(construct)
    script = ExecScript(source)
    if script.tree_problem is not None or script.too_deep:
        return
    expected = first_module_error(source)
    found = module_problem(script)
    assert (found is None) == (expected is None), source
    if expected is not None and found is not None:
        assert found.message == expected.message, source
