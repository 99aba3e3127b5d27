"""Stop 39's shortcut in which callees are tools: a callee written ``tools.name`` with ``tools`` the global is named
by its bytes, and gives exactly what the full reading (unwrap, the member's fields, ``is_tools``) gives.  Checked on
written and generated callees here, and on every call site of ../shared/corpus by
tests/corpus/test_script_speed_corpus.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import analysis.script.callees as callees_module
from analysis.script.callees import Callees
from analysis.script.script import ExecScript
from analysis.script.values import constants_of

_NEVER = re.compile(rb"(?!)")  # matches no callee: each takes the full reading, as before the shortcut


def tools_of(source: str) -> list[object]:
    """The tool each call site of ``source`` names (None, a name, DYNAMIC), as Callees.tool reads it."""
    script = ExecScript(source)
    callees = Callees(script, constants_of(script))
    return [callees.tool(callee) for _, callee in script.call_sites()]


def assert_same_tools(source: str) -> None:
    fast = tools_of(source)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(callees_module, "_PLAIN_TOOLS_MEMBER", _NEVER)
        full = tools_of(source)
    assert [repr(t) for t in fast] == [repr(t) for t in full]


WRITTEN = [
    'await tools.exec_command({cmd: "ls"}); text(r); JSON.stringify(x); tools.x.y(); console.log(1);',
    "await tools.$weird_1({}); await tools.if({}); await tools?.exec_command({}); await tools . x({});",
    "await (tools.x)({}); await (0, tools.y)({}); await tools/* c */.z({}); await tools['w']({});",
    "await tools.\\u0065xec_command({cmd: 'ls'}); await tools.caf\u00e9({});",
    "const tools = other; await tools.exec_command({cmd: 'ls'});",
    "function f(tools) { return tools.exec_command({}); } await tools.exec_command({});",
    "import tools from 'tools.js'; await tools.exec_command({cmd: 'ls'});",
    "await tools.exec_command({cmd: 'ls'}",  # unfinished: the tree holds an error
    "await tools.({}); await tools.1({}); tools.a`x`;",
]


@pytest.mark.parametrize("source", WRITTEN)
def test_a_written_callee_names_the_tool_the_full_reading_names(source: str) -> None:
    assert_same_tools(source)


def test_the_shortcut_names_a_plain_member_and_leaves_a_bound_tools_to_the_full_reading() -> None:
    assert tools_of("await tools.exec_command({}); await tools.x.y({}); f();") == ["exec_command", None, None]
    assert tools_of("const tools = {exec_command() {}}; await tools.exec_command({});") == [None]


_PIECES = st.sampled_from(
    ["tools", ".", "?.", "exec_command", "x", " ", "(", ")", "[", "]", "'a'", "0,", "await ", "\\u0074", "$", "/**/"]
)


@given(st.lists(_PIECES, min_size=1, max_size=8), st.booleans())
def test_a_generated_callee_names_the_tool_the_full_reading_names(pieces: list[str], bound: bool) -> None:
    callee = "".join(pieces)
    assert_same_tools(("let tools = t;\n" if bound else "") + f"await {callee}({{cmd: 'ls'}});\n{callee}();")
