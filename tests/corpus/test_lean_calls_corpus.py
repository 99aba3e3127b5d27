"""The lean reading of a script's calls against the full one thinned (tests/script/test_lean_calls.py), on every
exec script of ../shared/corpus."""

from __future__ import annotations

from tests.corpus.test_script_speed_corpus import corpus_scripts
from tests.script.test_lean_calls import assert_lean_is_thin


def test_every_corpus_script_reads_lean_as_its_full_reading_thinned() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        assert_lean_is_thin(source)
