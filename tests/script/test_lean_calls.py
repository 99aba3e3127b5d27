"""The lean reading of a script's calls (``find_calls(…, lean=True)``, what the stream reads) against the full one
thinned as the stream thins an exec line's calls: the same calls field by field and the same notes, on every exec
script of ``fixtures/`` and on scripts written for each kind of call (tests/corpus/test_lean_calls_corpus.py does
the same on every exec script of ../shared/corpus)."""

from __future__ import annotations

from functools import cache

import pytest

from analysis.reports.stream.thinning import _thin_call
from analysis.script.calls import find_calls
from analysis.script.script import ExecScript
from tests.helpers import FIXTURES, exec_inputs
from tests.reports.lean_support import thin_exec_call


def assert_lean_is_thin(source: str) -> None:
    """The lean calls are the full calls thinned (and need no further thinning), with the same notes."""
    full = find_calls(ExecScript(source))
    lean = find_calls(ExecScript(source), lean=True)
    assert lean.notes == full.notes
    assert lean.calls == [thin_exec_call(c) for c in full.calls]
    assert all(_thin_call(c, False) is c for c in lean.calls)


@cache
def fixture_scripts() -> tuple[str, ...]:
    paths = sorted(FIXTURES.rglob("*.jsonl"))
    return tuple(s for path in paths for s in exec_inputs(path.read_text(encoding="utf-8").splitlines()))


def test_every_fixture_script_reads_lean_as_its_full_reading_thinned() -> None:
    scripts = fixture_scripts()
    assert len(scripts) >= 30
    for source in scripts:
        assert_lean_is_thin(source)


WRITTEN = [
    # a command with other keys (not evaluated lean), JSON-written and not
    'await tools.exec_command({cmd: "ls", workdir: "/w", max_output_tokens: 2000, yield_time_ms: 10 * 100});',
    'await tools.exec_command({"cmd": "ls", "workdir": "/w", "extra": [1, {"a": null}]});',
    # a command computed, a later spread, an argv command, a command without its key
    "const d = process.env.D; await tools.exec_command({cmd: `ls ${d}`, workdir: d, extra: d});",
    'const o = {}; await tools.exec_command({cmd: "ls", ...o, workdir: "/w"});',
    'await tools.shell({command: ["git", "status"], workdir: "/w", timeout_ms: 5});',
    "await tools.exec_command({workdir: '/w'}); await tools.exec_command();",
    # other tools: arguments known, computed, JSON-written, not an object
    'await tools.write_stdin({session_id: 3, chars: "q\\n"}); await tools.update_plan({"plan": []});',
    "const id = Math.random(); await tools.write_stdin({session_id: id, chars: `${id}`});",
    "await tools.view_image('a.png'); await tools.web__run({search_query: [{q: 'x'}]});",
    # patches: exact, through a const, with a hole, computed
    "await tools.apply_patch('*** Begin Patch\\n*** Add File: a.txt\\n+x\\n*** End Patch\\n');",
    "const p = `*** Begin Patch\\n*** Delete File: b.txt\\n*** End Patch\\n`; await tools.apply_patch(p);",
    "const f = g(); await tools.apply_patch(`*** Begin Patch\\n*** Add File: ${f}\\n+x\\n*** End Patch\\n`);",
    "await tools.apply_patch(make()); await tools.apply_patch({input: 'bad patch'});",
    # expansions and tools chosen at run time
    'for (const c of ["ls", "pwd"]) await tools.exec_command({cmd: c, workdir: "/w", n: 1});',
    '["a", "b"].map(x => tools.exec_command({cmd: `cat ${x}`}));',
    'for (const [t, a] of [["exec_command", {cmd: "ls"}], ["shell", {command: ["pwd"]}]]) await tools[t](a);',
    "for (const t of ALL_TOOLS) await tools[t.name]({q: 1});",
    "const n = pick(); await tools[n]({cmd: 'ls'});",
    # dead code, a tagged template, a script V8 refuses, a pragma Codex refuses
    'if (false) { await tools.exec_command({cmd: "rm -rf /"}); } await tools.exec_command`ls`;',
    'with (x) {} await tools.exec_command({cmd: "ls", workdir: "/w"});',
    '// @exec: {"nope": 1}\nawait tools.exec_command({cmd: "ls"});',
    # aliases, imports and the legacy globals
    'const t = tools; const { exec_command: run } = t; await run({cmd: "ls", extra: 1});',
    "import { exec_command } from 'tools.js'; await exec_command({cmd: 'ls'}); write_stdin({session_id: 1});",
]


@pytest.mark.parametrize("source", WRITTEN)
def test_a_written_script_reads_lean_as_its_full_reading_thinned(source: str) -> None:
    assert_lean_is_thin(source)


def test_the_lean_reading_leaves_out_what_the_stream_thins_away() -> None:
    source = 'const x = y(); await tools.exec_command({cmd: `ls ${x}`, workdir: "/w", extra: 1, other: x});'
    full = find_calls(ExecScript(source)).calls[0]
    lean = find_calls(ExecScript(source), lean=True).calls[0]
    assert (full.arguments, full.computed_arguments, full.computed_expression) == (
        {"extra": 1},
        {"other": "x"},
        "`ls ${x}`",
    )
    assert full.source == source[6 + len("const x = y(); ") : -1]
    assert (lean.source, lean.arguments, lean.computed_arguments, lean.computed_expression, lean.patch) == (
        "",
        {},
        {},
        None,
        None,
    )
    assert (lean.command, lean.workdir, lean.computed, lean.json_arguments) == (None, "/w", True, False)
