"""The shortcuts of stop 38's per-script reading give exactly what the full readings give: the calls of a script
without ``await`` before a ``(`` are not asked one by one whether tree-sitter misread them, and a name of the tools
object right before a member call is passed over by its bytes in the dynamic-code reading.  Checked on generated scripts
here, and on every exec script of ../shared/corpus by tests/corpus/test_script_speed_corpus.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import analysis.script.script as script_module
from analysis.script.dynamic import dynamic_notes
from analysis.script.script import ExecScript

_ALWAYS = re.compile(rb"")  # matches every script: each call is asked, as before the shortcut


def _same_sites(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = ExecScript(source)
    sites, starts = script._call_sites
    full = ExecScript(source)  # node ids differ between two parses: calls are compared by where they are
    with monkeypatch.context() as patch:
        patch.setattr(script_module, "_AWAIT_CALLED", _ALWAYS)
        full_sites, full_starts = full._call_sites
    assert [(c.byte_range, f.byte_range) for c, f in sites] == [(c.byte_range, f.byte_range) for c, f in full_sites]
    where = {c.id: c.byte_range for c, _ in sites}
    full_where = {c.id: c.byte_range for c, _ in full_sites}
    assert {where[k]: v for k, v in starts.items()} == {full_where[k]: v for k, v in full_starts.items()}


_SPACES = st.sampled_from([" ", "", "\t", "\n", "\u00a0", "\u2028", "\ufeff", "\u3000", "/* c */", "// c\n", " /**/ "])


@given(_SPACES, st.sampled_from(["(tools.x)", "(0, tools.y)", "(f)", "(tools).z", "(a?.b)"]), _SPACES)
def test_call_sites_of_a_misread_await(space: str, inner: str, after: str) -> None:
    source = f"const r = await{space}{inner}{after}({{cmd: 'ls'}});\nawait tools.w({{}})"
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same_sites(source, monkeypatch)


def test_a_misread_await_is_still_undone() -> None:
    script = ExecScript("await\u00a0(tools.exec_command)({cmd: 'ls'}); await /* c */ (0, tools.x)(1)")
    assert [script.call_text(c) for c, _ in script.call_sites()] == [
        "(tools.exec_command)({cmd: 'ls'})",
        "(0, tools.x)(1)",
    ]


def _notes(source: str) -> list[tuple]:
    return [(n.code, n.message, n.start, n.end) for n in dynamic_notes(ExecScript(source))]


@given(
    st.lists(
        st.sampled_from(
            [
                "tools.x({});",
                "tools . y ();",
                'tools["z"]();',
                "tools?.w();",
                "f(tools);",
                "const t = tools; t.a(); g(t);",
                "const {a} = tools; a();",
                "tools.x;",
                "eval('tools.x()');",
                "new Function('a');",
                "import('x');",
                "tools\n.x();",
                "h(tools.q);",
                "x = tools;",
                "[tools][0].x();",
            ]
        ),
        max_size=5,
    )
)
def test_dynamic_notes_on_generated_scripts(statements: list[str]) -> None:
    source = "\n".join(statements)
    assert _notes(source) == _notes(source + "\n// \\u")
