"""The strict pre-check's one RE2 set pass is only trusted when the set answered (the review of stop 44).

An ``re2.Set`` whose automaton runs out of memory answers "no match" rather than falling back to a slower engine as
a single search does; the set holds a sentinel (``DECIDED``, ``\\z``) that matches every text, so an answer without
it is no answer and every text reader is asked.  The bail-out cannot be provoked with these patterns on real inputs
(a budget of 13 KB still decides on 200 KB of random bytes), so the set's raw answer is replaced here.
"""

from __future__ import annotations

import pytest

from analysis.script import module_text
from analysis.script.module_syntax import module_problem
from analysis.script.module_text import CALLED, DECIDED, LABELLED, STRICT, TEXT_TRIGGER, text_suspects
from analysis.script.script import ExecScript
from analysis.script.syntax_problem import first_module_error

EVERY = (TEXT_TRIGGER, CALLED, LABELLED, STRICT)


def test_a_text_with_no_trigger_is_answered_by_the_sentinel_alone() -> None:
    assert list(text_suspects(b"const r = await tools.exec_command({cmd: 'ls'});")) == [DECIDED]


def test_each_text_is_answered_with_the_sentinel_among_its_patterns() -> None:
    assert sorted(text_suspects(b"let x = '\\1'; x = {a: function () {}}")) == [TEXT_TRIGGER, LABELLED, DECIDED]
    assert sorted(text_suspects(b"")) == [DECIDED]


@pytest.mark.parametrize("raw", [None, [], [TEXT_TRIGGER], [CALLED, STRICT]])
def test_an_answer_without_the_sentinel_asks_every_reader(
    monkeypatch: pytest.MonkeyPatch, raw: list[int] | None
) -> None:
    monkeypatch.setattr(module_text, "_match_suspects", lambda data: raw)
    assert tuple(text_suspects(b"x = '\\1'")) == EVERY


@pytest.mark.parametrize(
    "source",
    [
        "x = '\\1';",  # a legacy octal escape: a text trigger
        'function f(a = 1) { "use strict" }',  # the strict directive with non-simple parameters
        "function g() { let (1); }",  # ``let`` called: the calls' pass
        "{ L: function f() {} }",  # a labelled function in braces
    ],
)
def test_a_set_that_could_not_tell_still_sends_a_refused_script_to_esprima(
    monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    expected = first_module_error(source)
    assert expected is not None
    monkeypatch.setattr(module_text, "_match_suspects", lambda data: [])  # a bail-out: no sentinel, no pattern
    problem = module_problem(ExecScript(source))
    assert problem == expected
