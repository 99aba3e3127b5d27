"""Stop 41's shortcuts (tests/script/test_script_speed41.py) on every exec script of ../shared/corpus: ``_misnames``
with and without its text pre-check, and each plain command object's JSON verdict from its pairs against
``is_json`` of its text."""

from __future__ import annotations

from analysis.script.arguments import is_json, plain_arguments
from analysis.script.module_names import _misnames
from analysis.script.script import ExecScript
from tests.corpus.test_script_speed_corpus import corpus_scripts
from tests.script.test_script_speed41 import misnames_without_shortcut


def test_every_corpus_script_gets_the_same_strict_verdicts() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        if ExecScript(source).tree_problem is not None:
            continue  # never asked: the tree's problem is the verdict
        assert _misnames(ExecScript(source)) is misnames_without_shortcut(ExecScript(source)), source


def test_every_corpus_plain_object_gets_is_jsons_verdict() -> None:
    scripts = corpus_scripts()
    plain = 0
    for source in scripts:
        script = ExecScript(source)
        for captures in script.structure["call"]:
            arguments = captures["call"][0].child_by_field_name("arguments")
            first = arguments.named_child(0) if arguments is not None and arguments.named_child_count else None
            if first is None or first.type != "object":
                continue
            found = plain_arguments(script, first)
            if found is not None:
                plain += 1
                assert found[1] is is_json(script.text(first)), script.text(first)
    assert plain >= 600
