import pytest

from analysis.script.calls import find_calls
from analysis.script.script import ExecScript


def executed(source: str) -> list[tuple[str, str]]:
    result = find_calls(ExecScript(source))
    dead = {(n.start, n.end) for n in result.notes if n.code == "dead-branch"}
    assert dead == {(c.start, c.end) for c in result.calls if c.executed == "no"}
    return [(c.command, c.executed) for c in result.calls]


RUN = 'tools.exec_command({cmd: "x"})'


@pytest.mark.parametrize(
    "source",
    [
        f"if (false) {RUN};",
        f"if (0) {{ {RUN}; }}",
        f"if ('') {RUN};",
        f'if ("") {RUN};',
        f"if (``) {RUN};",
        f"if (null) {RUN};",
        f"if (undefined) {RUN};",
        f"if (!true) {RUN};",
        f"if (!1) {RUN};",
        f"if (void 0) {RUN};",
        f"if ((false)) {RUN};",
        f"if (0x0) {RUN};",
        f"const OFF = false; if (OFF) {RUN};",
        f"const Z = 0; if (Z) {RUN};",
        f"if (true) {{}} else {{ {RUN}; }}",
        f"if (1) ; else {RUN};",
        f'if ("yes") ; else {RUN};',
        f"while (false) {{ {RUN}; }}",
        f"for (;false;) {{ {RUN}; }}",
        f"for (let i = 0; 0; i++) {RUN};",
        f"false && {RUN};",
        f"true || {RUN};",
        f'"x" ?? {RUN};',
        f"false ? {RUN} : 1;",
        f"true ? 1 : {RUN};",
        f"function f() {{ return; {RUN}; }}",
        f"function f() {{ throw new Error(); {RUN}; }}",
        f"for (;;) {{ break; {RUN}; }}",
        f"for (const a of b) {{ continue; {RUN}; }}",
        f"switch (k) {{ case 1: break; {RUN}; }}",
        f"if (false) {{ if (x) {{ {RUN}; }} }}",
    ],
)
def test_dead(source):
    assert executed(source) == [("x", "no")]


@pytest.mark.parametrize(
    "source",
    [
        f"if (x) {RUN};",
        f"if (true) {RUN};",
        f"let off = false; if (off) {RUN};",
        f"var off = 0; if (off) {RUN};",
        f"const off = false; {{ const off = true; if (off) {RUN}; }}",
        f"if (false) ; else {RUN};",
        f"do {{ {RUN}; }} while (false);",
        f"true && {RUN};",
        f"false || {RUN};",
        f"null ?? {RUN};",
        f"function f() {{ return; }} {RUN};",
        f"function f() {{ if (x) return; {RUN}; }}",
        f"return; function g() {{ {RUN}; }}",
        f"if ([]) {RUN};",
        f"const t = tools; if (t) {RUN};",
        f"function f() {{ if (x) return; else {{ {RUN}; }} }}",
        f"for (;;) {{ if (x) break; {RUN}; }}",
        f"while (x) {{ if (y) continue; else {RUN}; }}",
    ],
)
def test_not_dead(source):
    assert executed(source) == [("x", "unknown")]


# one evaluator (analysis.script.values) reads both conditions and arguments: whatever value it knows, a condition knows
@pytest.mark.parametrize(
    "source",
    [
        f'if ("a" === "b") {RUN};',
        f'const MODE = "live"; if (MODE === "dry") {RUN};',
        f"if (1 !== 1) {RUN};",
        f'const ON = "y" + ""; if (!ON) {RUN};',
        f"if (`${{0}}` === `0` && false) {RUN};",
        f"if (NaN) {RUN};",
        f"if (-0) {RUN};",
        f"if (`` + ``) {RUN};",
        f"const D = 1 + 1; if (D === 3) {RUN};",
        f"null ?? 0 ?? {RUN};",
        f"`x` ?? {RUN};",
    ],
)
def test_dead_through_the_shared_evaluator(source):
    assert executed(source) == [("x", "no")]


@pytest.mark.parametrize(
    "source",
    [
        f'let MODE = "live"; if (MODE === "dry") {RUN};',
        f'if (1 == "1") {RUN};',
        f"if (NaN === NaN) ; else {RUN};",
        f"const a = []; if (a === a) {RUN};",
        f"if (0 === -0) {RUN};",
        f"undefined ?? {RUN};",
    ],
)
def test_not_dead_where_javascript_says_so_or_nothing_is_known(source):
    assert executed(source) == [("x", "unknown")]


@pytest.mark.parametrize("source", [f"if (await false) {RUN};", f"if (await (0)) {RUN};", f"await (null) && {RUN};"])
def test_await_of_a_known_condition_is_that_condition(source):
    assert executed(source) == [("x", "no")]
