"""Durations as every view writes them: the editor's Outline, hovers and lenses, and the command line's
``outline``, ``export``, ``files`` and the events' summaries (``0.2 s`` beside ``0.2 s``, never ``0.1962 s``)."""

from __future__ import annotations


def seconds(value: float) -> str:
    """A duration, in the one format every view uses: to a tenth of a second, ``0.2 s``, ``31.5 s``, ``20 s``."""
    return f"{round(value, 1):g} s"


__all__ = ["seconds"]
