"""Which call is at a column, and how calls read in a few words (for hovers, lenses, the outline and commands)."""

from __future__ import annotations

from analysis.script.calls import COMMAND, PATCH
from analysis.session.rollout import LocatedCall, RolloutAnalysis


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
