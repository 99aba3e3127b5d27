"""Stop 41's shortcuts in the strict-module verdict and the lean calls, each against the reading it stands for:

- ``_misnames`` reads a script's calls one by one (the callee's type) only where its text can hold a callee
  ``let`` or ``await`` (the word, blanks or comments, then ``(``, a backquote or ``?.``) or a tagged chain;
- the ``await`` check asks which function an ``await`` is in only for those inside a function's range (the
  ranges merged, each ``await`` found by bisection);
- a plain command object's JSON verdict (``json_arguments``) is told from its pairs, not by decoding its text.

Each is compared with the reading without it on written scripts, on hostile ones and on Hypothesis-generated
objects; tests/corpus/test_script_speed41_corpus.py does the same on every exec script of ../shared/corpus."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node

import analysis.script.module_names as names_module
import analysis.script.module_syntax as syntax_module
from analysis.script.arguments import is_json, plain_arguments, plain_object
from analysis.script.module_names import _await_refused, _misnames
from analysis.script.module_syntax import _await_refused_in_function, might_be_refused, module_problem
from analysis.script.script import ExecScript

_ALWAYS = re.compile(rb"")  # finds a match in every script: the calls are read one by one, as before stop 41


def misnames_without_shortcut(script: ExecScript) -> bool:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(names_module, "_CALLED_AWAIT", _ALWAYS)
        return _misnames(script)


def awaits_refused_one_by_one(script: ExecScript) -> bool:
    """The await check as it was: each ``await`` of a script with functions asked where it is."""
    structure = script.structure
    if not structure["scope_function"]:
        return False
    return any(_await_refused(script, c["suspect_await"][0]) for c in structure["suspect_await"])


def awaits_refused(script: ExecScript) -> bool:
    structure = script.structure
    functions = structure["scope_function"]
    return bool(functions) and _await_refused_in_function(script, functions, structure["suspect_await"])


CALLED_WORDS = {
    # (script, whether _misnames finds a refused name; ``await (x)`` in a function that is not async tree-sitter
    # reads as an await expression, which the await check refuses: see the test below)
    "const r = await tools.exec_command({cmd: 'ls'}); text(r);": False,
    "let(1);": True,
    "let (1);": True,
    "let/* c */(1);": True,
    "let`x`;": True,
    "let?.(1);": True,
    "function f() { await (x); }": False,
    "function f() { await(x); }": False,
    "function f() { await\n(x); }": False,
    "function f() { await /* c */ (x); }": False,
    "function f() { await // c\n(x); }": False,
    "function f() { await`x`; }": False,
    "function f() { await?.(x); }": True,
    "function f() { await\u00a0(x); }": False,
    "function f() { await\u2028(x); }": False,
    "async function f() { await (x); }": False,
    "await (x);": False,
    "await`x`;": False,
    "a?.b`x`;": True,
    "a?.b(`x`);": False,
    "const letter = 1; outlet(letter);": False,
    "toilet (1); awaited (2);": False,
    "x.let(1); x.await(2);": False,
    "text('let(1)'); text(`await (x)`);": False,
}


@pytest.mark.parametrize("source", list(CALLED_WORDS))
def test_misnames_with_the_text_shortcut_is_exact(source: str) -> None:
    script = ExecScript(source)
    assert _misnames(script) is CALLED_WORDS[source]
    assert misnames_without_shortcut(ExecScript(source)) is CALLED_WORDS[source]
    if source.startswith("function f() { await"):  # refused all the same, by the await check
        assert might_be_refused(ExecScript(source)) is True


def test_the_shortcut_reads_no_call_of_a_script_without_the_words() -> None:
    """Without ``let``/``await`` called or a tagged chain, no callee's type is asked: the calls' group is not read."""
    script = ExecScript("const r = await tools.exec_command({cmd: 'ls'});\ntext(r); JSON.stringify(r);")
    script.bindings, script.assigned_names()  # what _misnames reads before the calls

    class Untouchable(dict):
        def __getitem__(self, key: str):
            if key == "call":
                raise AssertionError("the calls were read")
            return super().__getitem__(key)

    script.__dict__["structure"] = Untouchable(script.structure)
    assert _misnames(script) is False
    called = ExecScript("function f() { await (x); }")
    called.__dict__["structure"] = Untouchable(called.structure)
    with pytest.raises(AssertionError, match="the calls were read"):
        _misnames(called)


AWAITS = {
    # (script, whether an await in it is refused)
    "await tools.exec_command({cmd: 'ls'}); [1].map(x => x);": False,
    "const a = await f(); function g() { return 1; } await h();": False,
    "[1].map(x => await x);": True,
    "[1].map(async x => await x);": False,
    "async function f(a = await b) {}": True,
    "async function f() { function g() { await x; } }": True,
    "async function f() { const g = async () => { await x; }; await y; }": False,
    "function f() {} await x; function g() { await y; }": True,
    "function f() {} await x; async function g() { await y; }": False,
    "class A { static { await x; } }": True,
    "class A { async m() { await x; } }": False,
    "class A { m() { await x; } }": True,
    "const o = { async m() { await x; }, n() { return 1; } }; await o.m();": False,
    "(function () {})(await x);": False,
    "await (async () => { await x; })();": False,
    "const f = async () => 1, g = () => 2; await f(); await g();": False,
}


@pytest.mark.parametrize("source", list(AWAITS))
def test_awaits_found_by_the_merged_ranges_are_those_asked_one_by_one(source: str) -> None:
    script = ExecScript(source)
    assert script.tree_problem is None
    assert awaits_refused(script) is AWAITS[source]
    assert awaits_refused_one_by_one(ExecScript(source)) is AWAITS[source]


def test_many_functions_and_awaits_stay_linear_and_exact() -> None:
    """A hostile script: thousands of nested and side-by-side functions around top-level awaits."""
    nested = "".join(f"async function f{i}() {{ " for i in range(200)) + "await x;" + " }" * 200
    flat = "\n".join(f"function g{i}() {{ return {i}; }}\nawait h{i}();" for i in range(2000))
    for source, refused in ((nested, False), (flat, False), (flat + "\nfunction z() { await q; }", True)):
        script = ExecScript(source)
        assert awaits_refused(script) is refused
        assert awaits_refused_one_by_one(ExecScript(source)) is refused


def _first_object(node: Node) -> Node | None:
    if node.type == "object":
        return node
    for child in node.children:
        found = _first_object(child)
        if found is not None:
            return found
    return None


def json_verdicts(source: str) -> tuple[bool, bool] | None:
    """(the plain reading's JSON verdict, is_json of the object's text), None when the object is not plain."""
    script = ExecScript(f"text({source});")
    node = _first_object(script.root)
    assert node is not None
    found = plain_arguments(script, node)
    if found is None:
        assert plain_object(script, node) is None
        return None
    assert plain_object(script, node) == found[0]
    return found[1], is_json(script.text(node))


OBJECTS = {
    '{"cmd": "ls", "workdir": "/w"}': True,
    '{ "cmd" : "ls" , "n" : 2000 }': True,
    '{"cmd": "ls", "n": 0}': True,
    '{"cmd": "ls", "n": 007}': False,
    '{"cmd": "ls", "n": 00}': False,
    '{"cmd": "ls", "ok": true, "no": false, "none": null}': True,
    '{"cmd": "a\\"b\\\\c\\/d\\n\\u00e9"}': True,
    '{"cmd": "é — ü"}': True,
    '{"cmd": "ls",}': False,
    '{"cmd": "ls" , }': False,
    "{\"cmd\": 'ls'}": False,
    '{cmd: "ls"}': False,
    '{"cmd": "ls", workdir: "/w"}': False,
    "{}": True,
    "{ }": True,
    "{\n}": True,
    '{\n  "cmd": "ls",\n  "workdir": "/w"\n}': True,
    '{\n  "cmd": "ls",\n}': False,
    '{"$x": 1, "_y": 2}': True,
}


@pytest.mark.parametrize("source", list(OBJECTS))
def test_the_json_verdict_from_the_pairs_is_is_json(source: str) -> None:
    verdicts = json_verdicts(source)
    assert verdicts == (OBJECTS[source], OBJECTS[source])


@pytest.mark.parametrize("source", ['{"cmd": `ls`}', '{"cmd": "ls" /* c */}', '{"cmd": -1}', '{"a": 1, "a": 2}'])
def test_objects_that_are_not_plain_have_no_verdict_from_their_pairs(source: str) -> None:
    assert json_verdicts(source) is None


_KEYS = st.sampled_from(["cmd", "workdir", "n", "$k", "_k", "k9"])
_VALUES = st.one_of(
    st.sampled_from(["0", "1", "007", "10", "true", "false", "null", "'x'", "''", '""']),
    st.lists(
        st.sampled_from(["a", " ", "/", "é", "\u2028", "\\n", "\\u0041", "\\/", '\\"', "\\x41", "\t"]), max_size=6
    ).map(lambda parts: '"' + "".join(parts) + '"'),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_KEYS, st.booleans(), _VALUES), max_size=4, unique_by=lambda p: p[0]),
    st.sampled_from(["", " ", "\n  "]),
    st.booleans(),
)
def test_generated_objects_get_is_jsons_verdict(pairs: list[tuple[str, bool, str]], blank: str, comma: bool) -> None:
    body = ("," + blank).join(
        f"{blank}{chr(34) + k + chr(34) if quoted else k}{blank}:{blank}{v}" for k, quoted, v in pairs
    )
    source = "{" + body + ("," if comma and pairs else "") + blank + "}"
    verdicts = json_verdicts(source)
    if verdicts is not None:
        assert verdicts[0] is verdicts[1]


def test_a_script_with_functions_and_top_level_awaits_is_not_suspect() -> None:
    """The dense rollout's shape: top-level awaits beside a callback, no construct V8 may refuse."""
    source = (
        'const cmds = ["ls", "pwd"];\n'
        "const r = await Promise.allSettled(cmds.map(cmd => tools.exec_command({cmd})));\n"
        "const s = await tools.exec_command({cmd: 'ls'});\n"
        "r.forEach((x, i) => text(JSON.stringify({i, result: x})));\n"
    )
    script = ExecScript(source)
    assert might_be_refused(script) is False
    assert module_problem(script) is None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(syntax_module, "_await_refused_in_function", lambda *a: pytest.fail("asked"))
        assert might_be_refused(ExecScript("await x; await y;")) is False  # no function: the check is not made
