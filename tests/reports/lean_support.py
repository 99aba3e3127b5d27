"""Comparing a line's lean reading (``lean_fields`` then ``thin_fields``) with its whole analysis thinned."""

from __future__ import annotations

import dataclasses
from typing import Any

from analysis.reports.stream.thinning import DROPPED, RecordStub, thin, thin_fields
from analysis.script.calls import ToolCall
from analysis.session.record_analysis import LineAnalysis, analyze_line, lean_fields


def comparable(value: Any) -> Any:
    """``value`` with the stream's record stubs (compared by identity) as tuples of what they hold."""
    if isinstance(value, RecordStub):
        envelope = value.envelope
        item = value.item
        role = getattr(item, "role", None) if type(item).__name__ == "_Role" else None
        return ("stub", envelope.type, envelope.timestamp, envelope.payload, role if role is not None else item)
    if isinstance(value, LineAnalysis):
        return tuple((field.name, comparable(getattr(value, field.name))) for field in dataclasses.fields(value))
    return value


def thin_exec_call(call: ToolCall) -> ToolCall:
    """An exec script's call as the stream keeps it (``thinning._thin_call`` of an exec line's call), written out."""
    return dataclasses.replace(
        call, source="", patch=None, computed_expression=None, arguments={}, computed_arguments={}
    )


def differences(line: str) -> list[str]:
    """How the lean reading of ``line`` differs from its whole analysis: its fields outside ``DROPPED``, and its
    thin analysis with and without ``sessions``; an empty list when it does not."""
    whole = analyze_line(line)
    lean = lean_fields(line)
    out = []
    if isinstance(lean, LineAnalysis):
        if lean != whole:
            out.append("blank or invalid line read differently")
        return out
    dropped = set(DROPPED)
    for field in dataclasses.fields(LineAnalysis):
        name = field.name
        if name in dropped or name == "record" and whole.kind in ("compacted", "world_state"):
            continue  # a compacted or world_state record is cut short whole: its stub (None) is the same
        expected = getattr(whole, name)
        if name == "calls" and whole.is_exec:  # an exec line's calls are read as the stream keeps them
            expected = tuple(thin_exec_call(c) for c in expected)
        elif name == "calls" and whole.kind == "custom_tool_call" and whole.name == "apply_patch":  # so is a patch's
            expected = tuple(dataclasses.replace(c, source="", patch=None) for c in expected)
        if lean.get(name, getattr(LineAnalysis("plain"), name)) != expected:
            out.append(f"field {name}")
    for sessions in (False, True):
        if comparable(thin_fields(lean, sessions)) != comparable(thin(whole, sessions)):
            out.append(f"thin analysis (sessions={sessions})")
    return out
