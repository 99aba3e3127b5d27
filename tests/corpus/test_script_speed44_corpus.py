"""Stop 44's node reads (tests/script/test_script_speed44.py) on every node of every exec script of
../shared/corpus: ``TYPE_OF[node.kind_id]`` is ``node.type``, ``child_by_field_id(FIELD_X)`` is
``child_by_field_name("x")``; every object literal read in one pass as in two (``plain_arguments``)."""

from __future__ import annotations

from analysis.script import js_tree
from analysis.script.js_tree import TYPE_OF
from analysis.script.script import ExecScript
from tests.corpus.test_script_speed_corpus import corpus_scripts
from tests.script.test_script_speed44 import FIELDS, assert_one_pass_is_two_pass, nodes


def test_every_corpus_node_reads_the_same_type_and_fields() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    ids = {name: getattr(js_tree, "FIELD_" + name.upper()) for name in FIELDS}
    count = 0
    for source in scripts:
        for node in nodes(ExecScript(source).root):
            count += 1
            assert TYPE_OF[node.kind_id] == node.type, source
            for name, field in ids.items():
                assert node.child_by_field_id(field) == node.child_by_field_name(name), (name, source)
    assert count > 90_000


def test_every_corpus_object_reads_in_one_pass_as_in_two() -> None:
    count = sum(assert_one_pass_is_two_pass(source) for source in corpus_scripts())
    assert count >= 700
