"""Helpers the features share: which call is at a column, how calls and outputs read in a few words."""

from __future__ import annotations

from analysis.calls import COMMAND, PATCH
from analysis.outputs import ToolOutput
from analysis.rollout import LocatedCall, RolloutAnalysis


def readable_output(output: ToolOutput) -> str:
    """An output's texts, with exec_command result blocks shown as their exit code and decoded output."""
    by_index = {r.index: r for r in output.results}
    parts = []
    for index, text in enumerate(output.texts):
        result = by_index.get(index)
        if result is None:
            parts.append(text)
            continue
        head = f"[exit {result.exit_code}]" if result.exit_code is not None else \
            f"[running, session {result.session_id}]" if result.session_id is not None else "[result]"
        parts.append(f"{head}\n{output.result_output(result).rstrip()}")
    if output.error:
        parts.append("Script error: " + output.error)
    return "\n".join(parts)


def call_at(analysis: RolloutAnalysis, line: int, column: int) -> LocatedCall | None:
    """The narrowest call whose span holds the column."""
    inside = [c for c in analysis.calls_on(line) if c.call.start <= column < c.call.end]
    return min(inside, key=lambda c: c.call.end - c.call.start) if inside else None


def summarize(calls: list[LocatedCall]) -> str:
    """``2 commands · 1 patch · 1 tool``, or ``no tool call``."""
    counts = {COMMAND: 0, PATCH: 0, "tool": 0}
    for located in calls:
        counts[located.call.kind] = counts.get(located.call.kind, 0) + 1
    words = [(counts[COMMAND], "command"), (counts[PATCH], "patch"), (counts["tool"], "tool")]
    parts = [f"{n} {w}{'es' if w == 'patch' and n != 1 else 's' if n != 1 else ''}" for n, w in words if n]
    return " · ".join(parts) if parts else "no tool call"
