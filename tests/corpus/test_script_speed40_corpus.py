"""Stop 40's shortcuts (tests/script/test_script_speed40.py) on every exec script of ../shared/corpus: the lean
calls and notes with a plain command object read from its bytes equal those the tree's reading gives, and every
callee names the tool the full reading of callees names."""

from __future__ import annotations

import pytest

import analysis.script.calls as calls_module
from tests.corpus.test_script_speed_corpus import corpus_scripts
from tests.script.test_script_speed40 import _lean, assert_same_callee_tools


def test_every_corpus_command_reads_lean_as_the_tree_reads_it() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    fast = [_lean(source) for source in scripts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calls_module, "plain_object", lambda script, node: None)
        slow = [_lean(source) for source in scripts]
    for source, one, other in zip(scripts, fast, slow, strict=True):
        assert one == other, source


def test_every_corpus_callee_names_the_tool_the_full_reading_names() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        assert_same_callee_tools(source)
