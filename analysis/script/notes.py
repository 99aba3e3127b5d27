"""A note: a finding about one exec script, at code-point offsets of the script (the rollout places it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Note:
    """A finding about a script, at code-point offsets of the script."""

    code: str
    message: str
    start: int
    end: int
    related: tuple[tuple[int, int, str], ...] = ()
