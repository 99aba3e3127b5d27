"""Stop 41's shortcuts in the strict-module verdict and the lean calls, each against the reading it stands for:

- ``_misnames`` reads a script's calls one by one (the callee's type) only where its text can hold a callee
  ``let`` or ``await`` (the word, blanks or comments, then ``(``, a backquote or ``?.``) or a tagged chain;
- a plain command object's JSON verdict (``json_arguments``) is told from its pairs, not by decoding its text.

Each is compared with the reading without it on written scripts, on hostile ones and on Hypothesis-generated
objects; tests/corpus/test_script_speed41_corpus.py does the same on every exec script of ../shared/corpus."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import analysis.script.module_names as names_module
from analysis.script.arguments import is_json, plain_arguments, plain_object
from analysis.script.module_names import _misnames
from analysis.script.module_syntax import might_be_refused
from analysis.script.script import ExecScript
from tests.script.test_script_speed40 import first_object

_ALWAYS = re.compile(rb"")  # finds a match in every script: the calls are read one by one, as before stop 41


def misnames_without_shortcut(script: ExecScript) -> bool:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(names_module, "_CALLED_AWAIT", _ALWAYS)
        return _misnames(script)


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


def json_verdicts(source: str) -> tuple[bool, bool] | None:
    """(the plain reading's JSON verdict, is_json of the object's text), None when the object is not plain."""
    script = ExecScript(f"text({source});")
    node = first_object(script.root)
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


@pytest.mark.parametrize(
    "source",
    [
        "await" + " " * 50_000 + "x;",  # one long run of blanks after the word: the pattern scans it once
        ("let " + "\u00a0" * 1_000 + "= 1;\n") * 20,  # runs of non-ASCII bytes, as Unicode spaces are
        "function f() {" + " await\t" * 10_000 + "x; }",  # many words, each with its own short run
        "f(" + "`let`, " * 5_000 + "0);",  # the words inside templates: a false alarm reads the calls, exactly
    ],
    ids=["long-blank-run", "non-ascii-runs", "many-awaits", "words-in-templates"],
)
def test_hostile_scripts_get_the_same_verdict(source: str) -> None:
    assert _misnames(ExecScript(source)) is misnames_without_shortcut(ExecScript(source))
