"""Stop 44's gated strict pre-check on every exec script of ../shared/corpus (wild, recorded, peer): the
new ``module_problem`` gives the old verdict (the old pre-check is kept in tests/script/test_module_gate_44.py),
and where the gate says "no" esprima accepts the script (fixtures/: in that file)."""

from __future__ import annotations

from tests.corpus.test_script_speed_corpus import corpus_scripts
from tests.script.test_module_gate_44 import assert_gate_exact


def test_the_gated_pre_check_gives_the_old_verdict_on_every_corpus_script() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        assert_gate_exact(source)
