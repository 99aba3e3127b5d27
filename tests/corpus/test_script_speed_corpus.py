"""The per-script fast paths of stops 37 and 38 against the plain readings, on every exec script of
../shared/corpus (the generated-script tests are in tests/script/test_script_speed.py and test_script_speed38.py,
which `make test` runs without the corpus)."""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.script.module_syntax import might_be_refused
from analysis.script.script import ExecScript
from tests.helpers import SHARED
from tests.script.test_script_speed import BENIGN, EARLY_ERRORS, assert_fast_paths_exact
from tests.script.test_script_speed38 import _notes, _same_sites
from tests.script.test_script_speed39 import assert_same_tools


@cache
def corpus_scripts() -> tuple[str, ...]:
    """Every exec script of ../shared/corpus (wild, recorded, peer)."""
    found = []
    for path in sorted((SHARED / "corpus").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            if '"exec"' not in line:
                continue
            try:
                payload = json.loads(line).get("payload")
            except ValueError:
                continue
            if (
                isinstance(payload, dict)
                and payload.get("type") == "custom_tool_call"
                and payload.get("name") == "exec"
                and isinstance(payload.get("input"), str)
            ):
                found.append(payload["input"])
    return tuple(found)


def test_the_fast_paths_on_every_corpus_script() -> None:
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        assert_fast_paths_exact(source)


@cache
def small_corpus_scripts() -> tuple[str, ...]:
    return tuple(s for s in corpus_scripts() if len(s) < 20_000)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_pre_check_says_maybe_wherever_the_strict_parser_refuses(data) -> None:
    """A corpus script with an early error (or a harmless statement) put between two of its lines: whenever the
    strict parser refuses a script tree-sitter reads without error, :func:`might_be_refused` asked it."""
    from analysis.script.syntax_problem import first_module_error

    lines = data.draw(st.sampled_from(small_corpus_scripts())).split("\n")
    at = data.draw(st.integers(0, len(lines)))
    snippet = data.draw(st.sampled_from(EARLY_ERRORS + BENIGN))
    source = "\n".join(lines[:at] + [snippet] + lines[at:])
    script = ExecScript(source)
    if script.tree_problem is None and first_module_error(source) is not None:
        assert might_be_refused(script), (snippet, at)


def test_the_pre_check_on_every_corpus_script() -> None:
    from analysis.script.syntax_problem import first_module_error

    scripts = small_corpus_scripts()
    assert len(scripts) >= 500
    for source in scripts:
        script = ExecScript(source)
        if script.tree_problem is None and not might_be_refused(script):
            assert first_module_error(source) is None


def test_call_sites_on_every_corpus_script(monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = corpus_scripts()
    assert len(scripts) > 500
    for source in scripts:
        _same_sites(source, monkeypatch)


def test_dynamic_notes_on_every_corpus_script() -> None:
    # a trailing comment holding ``\u`` makes the reading look at every name through the query (no shortcut);
    # it adds no note and moves none
    scripts = corpus_scripts()
    assert len(scripts) > 500
    for source in scripts:
        assert _notes(source) == _notes(source + "\n// \\u"), source


def test_every_corpus_callee_names_the_tool_the_full_reading_names() -> None:
    """Stop 39's ``tools.name`` shortcut in which callees are tools, on every call site of the corpus."""
    scripts = corpus_scripts()
    assert len(scripts) >= 700
    for source in scripts:
        assert_same_tools(source)
