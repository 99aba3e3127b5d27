"""Stop 44: a plain command object read in one pass (``plain_arguments``), against stop 41's two passes;
a node's type read as ``TYPE_OF[node.kind_id]`` and a field as ``child_by_field_id(FIELD_X)``
(analysis/script/js_tree.py) give exactly what ``node.type`` and ``child_by_field_name("x")`` give, on written
scripts that hold every kind of node the readers ask about, broken ones (ERROR and MISSING nodes) included."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from analysis.script import js_tree
from analysis.script.arguments import plain_arguments
from analysis.script.js_tree import JAVASCRIPT, TYPE_OF
from analysis.script.script import ExecScript

SCRIPTS = [
    'const r0 = await tools.exec_command({cmd: "ls", workdir: "/w"});\ntext(r0);\n',
    "const cmds = ['a', 'b'];\nconst r = await Promise.allSettled(cmds.map(cmd => tools.exec_command({cmd})));\n",
    "for (const [i, {cmd}] of [[1, {cmd: 'x'}]].entries()) { if (i && cmd || !i ?? 0) await tools.x({cmd}); }",
    "let a = 1; a += 2; a++; delete a.b; x = y ? z : w; label: while (false) { break label; continue; }",
    "import * as ns from 'm'; import d, {e as f, 'g' as h} from 'n'; export {d};",
    "function* g() { yield 1; } class C extends D { static { this.x = super.y; } #p = 1; m() { return new.target; } }",
    "try { throw new Error(`t ${1} \\u0041`); } catch ({message}) { /re/g.test(message); } finally {}",
    "switch (x) { case 1: default: do { } while (0); } with (o) {} debugger; ;",
    "tools?.x?.(); tools['y'](...args); (0, tools.z)``; await (tools).w(); <div a='1'>t</div>;",
    'const x = await tools.exec_command({cmd: "ls"}\nif (x { text(x) }\n',  # broken: ERROR nodes
    "if (a) {\n  text(1);\n",  # a MISSING ``}``
    "a\u00a0=\u20281; const é = 'ü'; `\\ud800`;",
]
FIELDS = [name[len("FIELD_") :].lower() for name in js_tree.__all__ if name.startswith("FIELD_")]


def nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def test_every_field_the_readers_use_is_listed_and_exists() -> None:
    assert len(FIELDS) == 20
    for name in FIELDS:
        assert getattr(js_tree, "FIELD_" + name.upper()) == JAVASCRIPT.field_id_for_name(name)
    with pytest.raises(LookupError):
        js_tree._field("no_such_field")


def test_the_table_holds_every_kind_once_as_the_grammar_names_it() -> None:
    assert TYPE_OF[65535] == "ERROR"
    assert TYPE_OF[65534] == "_ERROR"
    assert len(TYPE_OF) == JAVASCRIPT.node_kind_count + 2
    for kind_id, name in TYPE_OF.items():
        assert name == JAVASCRIPT.node_kind_for_id(kind_id)


@pytest.mark.parametrize("source", SCRIPTS)
def test_type_of_kind_id_is_the_type_and_field_ids_find_the_named_child(source: str) -> None:
    script = ExecScript(source)
    seen = 0
    for node in nodes(script.root):
        seen += 1
        assert TYPE_OF[node.kind_id] == node.type, (node, source)
        for name in FIELDS:
            by_id = node.child_by_field_id(getattr(js_tree, "FIELD_" + name.upper()))
            assert by_id == node.child_by_field_name(name), (node, name)
    assert seen > 5


def test_the_broken_scripts_hold_error_and_missing_nodes() -> None:
    broken = [n for s in SCRIPTS[-3:-1] for n in nodes(ExecScript(s).root)]
    assert any(n.is_error and TYPE_OF[n.kind_id] == "ERROR" for n in broken)
    assert any(n.is_missing and TYPE_OF[n.kind_id] == n.type for n in broken)


# -- a plain command object read in one pass (arguments.plain_arguments) -------------------------------------------
_BLANK = rb"[ \t\n\r]*"
_PAIR = (
    rb'([A-Za-z_$][A-Za-z0-9_$]*|"[A-Za-z_$][A-Za-z0-9_$]*")' + _BLANK + rb":" + _BLANK
    + rb'("[^"\\\x00-\x1f]*(?:(?:\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
    + rb"""|'[^'\\\x00-\x1f]*'|[0-9]+|true|false|null)"""
)  # fmt: skip
_OBJECT = re.compile(
    rb"\{(?:(?:" + _BLANK + _PAIR + _BLANK + rb",)*" + _BLANK + _PAIR + _BLANK + rb"(?:," + _BLANK + rb")?|"
    + _BLANK + rb")\}"
)  # fmt: skip
_PAIRS = re.compile(_PAIR)


def two_pass_plain_arguments(script: ExecScript, node: Node) -> tuple[dict[str, bytes], bool] | None:
    """Stop 41's reading, kept here as the reference: the whole object matched, then its pairs searched."""
    data, start, end = script.data, node.start_byte, node.end_byte
    if _OBJECT.fullmatch(data, start, end) is None or node.has_error:
        return None
    pairs: dict[str, bytes] = {}
    json_written = True
    last = start + 1
    for match in _PAIRS.finditer(data, start + 1, end - 1):
        written, value = match.group(1, 2)
        key = written.strip(b'"').decode("ascii")
        if key in pairs or key == "__proto__":
            return None
        pairs[key] = value
        if json_written and (written[:1] != b'"' or value[:1] == b"'" or value[:1] == b"0" and len(value) > 1):
            json_written = False
        last = match.end()
    return pairs, json_written and b"," not in data[last : end - 1]


def objects(root: Node) -> list[Node]:
    return sorted((n for n in nodes(root) if n.type == "object"), key=lambda n: n.start_byte)


def assert_one_pass_is_two_pass(source: str) -> int:
    script = ExecScript(source)
    count = 0
    for node in objects(script.root):
        count += 1
        assert plain_arguments(script, node) == two_pass_plain_arguments(script, node), script.text(node)
    return count


OBJECTS = [
    "{}",
    "{ }",
    "{\n}",
    "{,}",
    "{ , }",
    "{a: 1}",
    "{a: 1,}",
    "{a: 1 , }",
    "{a: 1,,}",
    "{a: 1 b: 2}",
    '{"cmd": "ls", "workdir": "/w"}',
    '{"cmd": "ls", "workdir": "/w",}',
    '{"cmd": "ls", workdir: "/w"}',
    "{\"cmd\": 'ls'}",
    '{"n": 007}',
    '{"n": 0}',
    '{"n": 10}',
    "{a: true, b: false, c: null}",
    "{a: 1, a: 2}",
    "{__proto__: 1}",
    '{"__proto__": 1}',
    '{a: "}"}',
    '{a: "x", b: {c: 1}}',
    '{a: "x\\u00e9\\n\\"", b: "caf\u00e9"}',
    '{a: "\\x41"}',
    "{a: 1 /* c */}",
    "{a: `t`}",
    "{a}",
    "{...o}",
    "{a: 1.5}",
    "{a:\u00a01}",
    "{\n  cmd: 'x',\n  workdir: \"/w\"\n}",
    '{a: "x"\tb: 1}',
    '{a: "x"}}',
    "{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}",
]


@pytest.mark.parametrize("obj", OBJECTS)
def test_a_written_object_reads_in_one_pass_as_in_two(obj: str) -> None:
    assert assert_one_pass_is_two_pass(f"f({obj});\nconst r = await tools.exec_command({obj});") >= 1


def test_the_one_pass_reading_gives_the_pairs_and_the_json_verdict() -> None:
    script = ExecScript('f({"cmd": "ls", "workdir": "/w", "n": 10}, {cmd: "ls",}, {}, {a: 1, a: 2}, {"a": 1,})')
    found = [plain_arguments(script, node) for node in objects(script.root)]
    assert found == [
        ({"cmd": b'"ls"', "workdir": b'"/w"', "n": b"10"}, True),
        ({"cmd": b'"ls"'}, False),
        ({}, True),
        None,
        ({"a": b"1"}, False),
    ]


_KEYS = st.sampled_from(["cmd", "workdir", '"cmd"', '"workdir"', "'cmd'", "__proto__", '"__proto__"', "n", "a$_1"])
_VALUES = st.sampled_from(
    ['"ls -la"', "'/w'", '"a:b, {c}"', '""', "2000", "0", "007", "1.5", "true", "null", '"x\\ny"', "`t`", "c",
     '"caf\u00e9"', '"\\x41"', '"\\u0041 \\ud800"', '"a\\"b\\/"', "'it\\'s'", '"tab\there"', "{a: 1}", "[1]"]
)  # fmt: skip
_BLANKS = st.sampled_from(["", " ", "\n", "\t", "  ", "\r\n", "/**/", "\u00a0", " " * 300])
_COMMAS = st.sampled_from([",", ", ", " ,", ",,", ""])


@st.composite
def _objects(draw) -> str:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES, _BLANKS, _BLANKS, _COMMAS), max_size=6))
    body = "".join(f"{b1}{k}{b2}:{b1}{v}{b2}{c}" for k, v, b1, b2, c in pairs)
    if pairs and draw(st.booleans()):
        body = body.rstrip(",")
    return "{" + draw(_BLANKS) + body + draw(st.sampled_from(["", ",", " , ", " "])) + "}"


@settings(max_examples=400, deadline=None)
@given(_objects())
def test_a_generated_object_reads_in_one_pass_as_in_two(obj: str) -> None:
    assert_one_pass_is_two_pass(f"const r = await tools.exec_command({obj});")  # a broken one may hold no object


def test_a_long_run_of_blanks_or_pairs_is_read_in_linear_time_and_as_in_two_passes() -> None:
    blanks = " " * 64_000
    many = "{" + ", ".join(f'k{i}: "v{i}"' for i in range(20_000)) + "}"
    for obj in (f'{{cmd: "x"{blanks}}}', f'{{cmd: "x",{blanks}}}', f"{{{blanks}}}", f'{{cmd: "x"{blanks}@}}', many):
        assert assert_one_pass_is_two_pass(f"f({obj});") >= 1
