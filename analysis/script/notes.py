"""A note: a finding about one exec script, at code-point offsets of the script (the rollout places it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

Related = tuple[tuple[int, int, str], ...]  # places a finding points to besides its own: (start, end, message)


@dataclass(frozen=True, slots=True)
class Note:
    """A finding about a script, at code-point offsets of the script."""

    code: str
    message: str
    start: int
    end: int
    related: Related = ()


class NoteSink(Protocol):
    """Where a reader puts a note it makes: ``(code, message, start, end, related=())``."""

    def __call__(
        self, code: str, message: str, start: int, end: int, related: Iterable[tuple[int, int, str]] = ()
    ) -> None: ...
