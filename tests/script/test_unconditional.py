"""Calls that run whenever their script runs to completion (ToolCall.unconditional): the script-side proof of
execution.  Only the flag is computed here; pairing it with a completed output is the rollout's business."""

import pytest

from analysis.script.calls import find_calls
from analysis.script.script import ExecScript


def flags(source: str) -> list[tuple[str, bool]]:
    return [(c.command, c.unconditional) for c in find_calls(ExecScript(source)).calls]


def run(name: str) -> str:
    return f'tools.exec_command({{cmd: "{name}"}})'


@pytest.mark.parametrize(
    "source, expected",
    [
        (f"await {run('a')};", [("a", True)]),
        (f"const r = await {run('a')}; text(r.output);", [("a", True)]),
        (f"{{ await {run('a')}; }}", [("a", True)]),
        (f"const [x, y] = await Promise.all([{run('a')}, {run('b')}]);", [("a", True), ("b", True)]),
        (
            f"text(`${{(await {run('a')}).output}}`); new Foo(await {run('b')}); void {run('c')};",
            [("a", True), ("b", True), ("c", True)],
        ),
        (f"y += await {run('a')}; o.p = await {run('b')}; x ??= {run('c')};", [("a", True), ("b", True), ("c", False)]),
        (
            f"(await {run('a')}) || {run('b')}; (await {run('c')}) ? {run('d')} : {run('e')};",
            [("a", True), ("b", False), ("c", True), ("d", False), ("e", False)],
        ),
        (f"if (await {run('a')}) {run('b')}; else {run('c')};", [("a", True), ("b", False), ("c", False)]),
        (f"switch (await {run('a')}) {{ case 1: {run('b')}; }}", [("a", True), ("b", False)]),
        (f"for (const x of await {run('a')}) {run('b')};", [("a", True), ("b", False)]),
        (f"while (await {run('a')}) {run('b')};", [("a", True), ("b", False)]),
        (f"do {{ {run('a')}; }} while (false);", [("a", False)]),
        (
            f"try {{ await {run('a')}; }} catch (e) {{ {run('b')}; }} finally {{ {run('c')}; }}",
            [("a", False), ("b", False), ("c", False)],
        ),
        (f"async function f() {{ await {run('a')}; }} await f();", [("a", False)]),
        (f"[1].map(() => {run('a')});", [("a", False)]),
        (f"class A {{ static {{ {run('a')}; }} }} {run('b')};", [("a", False), ("b", True)]),
        (f"l: {{ {run('a')}; }}", [("a", False)]),
        (f"x && {run('a')};", [("a", False)]),
        (f"const {{v = {run('a')}}} = o;", [("a", False)]),
        # optional chains: `?.` skips the rest of its chain, except after the global tools object
        (
            f"tools.exec_command?.({{cmd: 'a'}}); tools?.exec_command({{cmd: 'b'}}); x?.y({run('c')});"
            f" (await {run('d')})?.output;",
            [("a", False), ("b", True), ("c", False), ("d", True)],
        ),
        # exit(): nothing after it, nothing at all when a function or class holds it
        (f"await {run('a')}; if (bad) exit(); await {run('b')};", [("a", True), ("b", False)]),
        (f"exit(); await {run('a')};", [("a", False)]),
        (f"await {run('a')}; function stop() {{ exit(); }}", [("a", False)]),
        (f"const quit = exit; await {run('a')};", [("a", False)]),
        (f"await {run('a')}; globalThis.exit();", [("a", True)]),
        (f"eval('exit()'); await {run('a')};", [("a", False)]),
        (f"const exit = () => 0; exit(); await {run('a')};", [("a", True)]),
        # dead code never runs; a script that does not parse never ran
        (f"if (false) {run('a')};", [("a", False)]),
        (f"await {run('a')}; const x = ;", [("a", False)]),
    ],
)
def test_unconditional(source, expected):
    assert flags(source) == expected


def test_calls_in_arguments_run_before_their_call():
    assert flags(f"await tools.exec_command({{cmd: (await {run('inner')}).output}});") == [
        (None, True),
        ("inner", True),
    ]
