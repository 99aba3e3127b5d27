"""The short path for straight-line scripts (issue 25): which scripts take it, and that it reads every script
exactly as the full path does (calls, arguments, ranges, notes), on the fixtures, on the benchmark's generated
rollout and on scripts Hypothesis composes.  The same comparison over ../shared/corpus is in
tests/corpus/test_straight_line_corpus.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis import analyze_text
from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.script.calls import find_calls
from analysis.script.module_syntax import syntax_problem
from analysis.script.script import JAVASCRIPT, STRUCTURE, ExecScript, _CodePoints
from analysis.script.straight_line import STRAIGHT_TYPES
from bench.corpus import generate
from tests.helpers import FIXTURES


def exec_scripts(text: str) -> list[str]:
    return [r.script for r in analyze_text(text).records if r.is_exec and r.script is not None]


def assert_same_paths(source: str) -> bool:
    """Both paths read ``source`` alike; whether it took the short one."""
    short, full = ExecScript(source), ExecScript(source)
    place = lambda start, end: (start + 7, end + 11)  # noqa: E731 - calls are placed as a line places them
    assert find_calls(short, place) == find_calls(full, place, short_path=False), source
    assert find_calls(ExecScript(source)) == find_calls(ExecScript(source), short_path=False), source
    assert syntax_problem(short) == syntax_problem(full)
    return short.straight_line


@pytest.mark.parametrize(
    "source, straight",
    [
        ("const r = await tools.exec_command({cmd: 'ls'});\ntext(r);\n", True),
        ("{ const t = tools; await t.exec_command({cmd: 'ls'}); }", True),
        ("const {a, b} = await tools.x({});", False),  # a pattern (its defaults and computed keys may hold calls)
        ("const [a] = [tools.x({})];", False),
        ("if (x) tools.x({});", False),
        ("x ? tools.x({}) : 0;", False),
        ("a && tools.x({});", False),
        ("a || tools.x({});", False),
        ("a ?? tools.x({});", False),
        ("a ||= tools.x({});", False),
        ("a += tools.x({}); a = a + 1 - 2 * 3 === 4;", True),
        ("(a) = tools.x({});", False),  # a target that is not a plain name or member
        ("a.b = tools.x({}); a[0] = 1; a++;", True),
        ("tools?.x({});", False),
        ("for (const c of cs) tools.x({});", False),
        ("while (0) tools.x({});", False),
        ("do tools.x({}); while (0);", False),
        ("switch (a) { case 1: tools.x({}); }", False),
        ("try { tools.x({}); } finally {}", False),
        ("throw tools.x({});", False),
        ("l: tools.x({});", False),
        ("const f = () => tools.x({});", False),
        ("function f() {} tools.x({});", False),
        ("class A {} tools.x({});", False),
        ("tools.x({}); exit();", True),  # exit ends the script early, but is read by the short path as well
        ("tools.x({}", False),  # an error in the tree
        ("import {x} from 'tools.js'; export const y = await x({});", True),
        ("import x from 'a' with {type: 'json'};", False),  # import attributes
        ("`${tools.x({})}`; new A(tools.y({})); [...a]; ({a: 1, [b]: 2, c});", True),
    ],
)
def test_which_scripts_are_straight_line(source: str, straight: bool) -> None:
    assert ExecScript(source).straight_line is straight
    assert assert_same_paths(source) is straight


def test_straight_types_are_the_grammars() -> None:
    kinds = {
        JAVASCRIPT.node_kind_for_id(i)
        for i in range(JAVASCRIPT.node_kind_count)
        if JAVASCRIPT.node_kind_is_named(i) and JAVASCRIPT.node_kind_is_visible(i)
    }
    assert STRAIGHT_TYPES <= kinds
    captured = {STRUCTURE.capture_name(i) for i in range(STRUCTURE.capture_count)}
    assert "not_straight" in captured


def test_short_path_results() -> None:
    """What the short path gives, exactly: unconditional calls up to the first exit, none after it."""
    source = "const r = await tools.exec_command({cmd: 'ls'});\nexit();\nawait tools.exec_command({cmd: 'pwd'});\n"
    script = ExecScript(source)
    assert script.straight_line
    calls = find_calls(script).calls
    assert [(c.command, c.unconditional, c.executed, c.start, c.end) for c in calls] == [
        ("ls", True, "unknown", 16, 47),
        ("pwd", False, "unknown", 63, 95),
    ]
    assert source[16:47] == "tools.exec_command({cmd: 'ls'})" and source[63:95] == "tools.exec_command({cmd: 'pwd'})"


def test_short_path_on_the_fixtures() -> None:
    sources = [s for path in sorted(FIXTURES.rglob("*.jsonl")) for s in exec_scripts(path.read_text("utf-8"))]
    taken = [assert_same_paths(s) for s in sources]
    assert len(sources) >= 30 and 0 < sum(taken) < len(taken)


def test_short_path_on_a_generated_rollout() -> None:
    sources = exec_scripts(generate(300_000, seed=7))
    taken = [assert_same_paths(s) for s in sources]
    assert len(sources) > 50 and 0 < sum(taken) < len(taken)


# Statements that straight-line scripts are made of, and some that are not straight-line, each around a tool
# call: Hypothesis strings them together, so both paths meet exits, aliases, patterns, targets and branches
# in any order.
_STATEMENTS = [
    "const r{n} = await tools.exec_command({{cmd: 'ls {n}'}});",
    "await tools.exec_command({{cmd: `git log -{n}`, workdir: '/w'}});",
    "const t{n} = tools; await t{n}.shell({{command: ['echo', '{n}']}});",
    "const c{n} = 'make test{n}'; tools.exec_command({{cmd: c{n}}});",
    "let l{n} = 'a'; l{n} = 'b'; tools.exec_command({{cmd: l{n}}});",
    "tools.exec_command({{cmd: 'x' + {n}, ...o}});",
    "tools[name{n}]({{cmd: 'dynamic'}});",
    "tools['exec_command']({{cmd: 'sub {n}'}});",
    "text(await tools.apply_patch('*** Begin Patch\\n*** Add File: f{n}\\n+x\\n*** End Patch'));",
    "exit();",
    "globalThis.x = {n};",
    "f(tools);",
    "a.b = tools.exec_command({{cmd: 'member {n}'}});",
    "(a) = tools.exec_command({{cmd: 'paren {n}'}});",
    "const {{d{n} = tools.exec_command({{cmd: 'default {n}'}})}} = o;",
    "[e{n} = tools.exec_command({{cmd: 'array {n}'}})] = o;",
    "{{ const t = tools; t.exec_command({{cmd: 'block {n}'}}); }}",
    "if (false) tools.exec_command({{cmd: 'dead {n}'}});",
    "x && tools.exec_command({{cmd: 'and {n}'}});",
    "for (const c of ['a', 'b']) tools.exec_command({{cmd: c}});",
    "['p', 'q'].map(c => tools.exec_command({{cmd: c}}));",
    "return;",
    "tools?.exec_command({{cmd: 'optional {n}'}});",
    "o?.f(tools.exec_command({{cmd: 'guarded {n}'}}));",
    "eval('x');",
    "with (o) tools.exec_command({{cmd: 'with {n}'}});",
    "tools.exec_command({{cmd: 'é {n} 😀'}});",
    "const g{n} = tools.exec_command; g{n}({{cmd: 'alias {n}'}});",
]


@given(st.lists(st.sampled_from(_STATEMENTS), min_size=1, max_size=8), st.sampled_from(["\n", " ", ";\n"]))
def test_short_path_on_composed_scripts(statements: list[str], separator: str) -> None:
    assert_same_paths(separator.join(s.format(n=n) for n, s in enumerate(statements)))


@given(st.text(alphabet=st.sampled_from(["a", "\n", "é", "中", "😀", "\u07ff", "\u0800", "\U00010000"]), max_size=20))
def test_code_points_of_bytes(text: str) -> None:
    """A script's byte offsets become code-point offsets as the line's own column conversion makes them."""
    columns, points = LineColumns(text), _CodePoints(text)
    for byte in range(-1, len(text.encode("utf-8")) + 2):
        assert points.at(byte) == columns.from_units(byte, PositionEncoding.UTF8)
