"""Stop 44: a node's type read as ``TYPE_OF[node.kind_id]`` and a field as ``child_by_field_id(FIELD_X)``
(analysis/script/js_tree.py) give exactly what ``node.type`` and ``child_by_field_name("x")`` give, on written
scripts that hold every kind of node the readers ask about, broken ones (ERROR and MISSING nodes) included."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tree_sitter import Node

from analysis.script import js_tree
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
