"""``replacer``'s copies through a twin (stop 43: fields stored by name by a twin dataclass's ``__init__``, the
object then given the class) are ``dataclasses.replace``'s, for every class the analysis copies; a class whose slots are not exactly its
fields is copied through the descriptors as before."""

import dataclasses
import pickle

import pytest

from analysis.jsonl.findings import Finding
from analysis.jsonl.positions import Span
from analysis.script.calls import COMMAND, ToolCall
from analysis.session.copies import replacer
from analysis.session.outputs import ExecResult, ToolOutput
from analysis.session.record_analysis import LineAnalysis
from analysis.session.rollout import CallOutput, LocatedCall


def _slots(obj):
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]


CALL = ToolCall("exec_command", COMMAND, 3, 40, command="ls", arguments={"cmd": "ls"}, source="s")
OUTPUT = ToolOutput("completed", 0.5, ("a", "b"), (ExecResult(0, 1),), cell_id="7", images=1)
CALL_OUTPUT = CallOutput(9, "completed", 0, 0.5, OUTPUT, None, (), "")
SAMPLES = [
    (CALL, {"executed": "yes"}),
    (CALL, {"tool": "multi_agent_v1__spawn_agent", "source": ""}),  # __post_init__ derives the namespace
    (OUTPUT, {"kept_texts": (), "line": None, "error": "error"}),
    (OUTPUT, {}),
    (CALL_OUTPUT, {"status": "failed", "exit_code": 2}),
    (LocatedCall(4, 0, CALL, LineAnalysis("exec"), CALL_OUTPUT, None), {"line": 40, "event": None}),
    (Finding("secret", "m", Span(1, 2, 3)), {"span": Span(5, 2, 3)}),
    (LineAnalysis("exec", call_id="c", calls=(CALL,), is_exec=True), {"calls": (), "script": None}),
]


@pytest.mark.parametrize(("obj", "changes"), SAMPLES, ids=lambda v: type(v).__name__)
def test_a_copy_is_replace_s(obj, changes):
    copy = replacer(type(obj))(obj, **changes)
    expected = dataclasses.replace(obj, **changes)
    assert type(copy) is type(obj) and copy is not obj
    assert _slots(copy) == _slots(expected) and copy == expected
    assert pickle.loads(pickle.dumps(copy)) == expected
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.__setattr__(dataclasses.fields(copy)[0].name, None)
    assert _slots(obj) == _slots(dataclasses.replace(obj))  # the original untouched


def test_the_twin_copy_is_used_for_the_analysis_classes():
    for cls in (ToolCall, ToolOutput, CallOutput, LocatedCall, Finding, LineAnalysis):
        assert "made" in replacer(cls).__code__.co_freevars, cls


def test_an_unknown_field_is_refused_and_nothing_half_made_escapes():
    with pytest.raises(TypeError, match="ToolCall has no field 'nope'"):
        replacer(ToolCall)(CALL, executed="yes", nope=1)


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    a: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Derived(_Base):
    b: str = "x"

    def __post_init__(self):
        object.__setattr__(self, "b", self.b.upper())


def test_a_subclass_is_copied_through_its_descriptors():
    replace = replacer(_Derived)
    assert "made" not in replace.__code__.co_freevars
    copy = replace(_Derived(1, "y"), a=2)
    assert copy == dataclasses.replace(_Derived(1, "y"), a=2) == _Derived(2, "Y")
    with pytest.raises(TypeError, match="no field"):
        replace(copy, c=3)
