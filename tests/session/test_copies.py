"""``replacer``: the same copies as ``dataclasses.replace``, field for field, ``__post_init__`` included."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar, dataclass, field

import pytest

from analysis.script.calls import COMMAND, TOOL, ToolCall
from analysis.session.copies import replacer
from analysis.session.outputs import ExecResult, ToolOutput
from analysis.session.record_analysis import LineAnalysis, analyze_line


def _all_slots(obj: object) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def test_line_analysis_copy_is_replace() -> None:
    line = (
        '{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"c1",'
        '"input":"await tools.exec_command({cmd: \\"ls\\"});"}}'
    )
    la = analyze_line(line)
    assert la.is_exec and la.calls and la.script
    changes = dict(record=None, script=None, script_map=None, text=None, prompt=None, calls=())
    copy = replacer(LineAnalysis)(la, **changes)
    expected = dataclasses.replace(la, **changes)
    assert type(copy) is LineAnalysis
    assert copy == expected and _all_slots(copy) == _all_slots(expected)
    assert copy.call_id == "c1" and copy.name == "exec" and copy.script is None and copy.calls == ()
    assert copy is not la and la.script == 'await tools.exec_command({cmd: "ls"});'  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.kind = "other"  # type: ignore[misc]


def test_no_change_is_an_equal_new_object() -> None:
    output = ToolOutput("completed", 0.5, ("a",), (ExecResult(0, 0),), cell_id="3")
    copy = replacer(ToolOutput)(output)
    assert copy == output and copy is not output and _all_slots(copy) == _all_slots(output)


def test_post_init_runs_as_replace_runs_it() -> None:
    call = ToolCall("exec_command", COMMAND, 1, 9, command="ls", source="x")
    assert call.namespace is None
    renamed = replacer(ToolCall)(call, tool="multi_agent_v1__spawn_agent", kind=TOOL)
    assert renamed.namespace == "multi_agent_v1"  # derived by __post_init__ from the new tool
    assert renamed == dataclasses.replace(call, tool="multi_agent_v1__spawn_agent", kind=TOOL)
    ran = replacer(ToolCall)(call, executed="yes", source="")
    assert ran == dataclasses.replace(call, executed="yes", source="")
    assert (ran.executed, ran.source, ran.command, ran.start, ran.end) == ("yes", "", "ls", 1, 9)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError):
        replacer(ToolOutput)(ToolOutput(None, None, ()), colour="red")


def test_classes_it_cannot_copy_exactly_are_refused() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class NotInit:
        a: int
        b: int = field(init=False, default=0)

    @dataclass(slots=True)
    class WithInitVar:
        a: int
        scale: InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.a *= scale

    for cls in (NoSlots, NotInit, WithInitVar):
        with pytest.raises(TypeError):
            replacer(cls)
