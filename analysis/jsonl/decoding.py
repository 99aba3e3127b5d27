"""``json.loads`` of a line, without its wrapper's cost on the lines that need none of it.

``json.loads(text)`` goes through three Python functions (``loads``, ``JSONDecoder.decode``, ``raw_decode``) and
two regular-expression matches for the whitespace around the value before and after the C scanner does the work:
about a microsecond a line, on every line of every rollout.  A rollout line is one object with no whitespace
around it, which the scanner alone reads exactly (``raw_decode`` is the scanner plus its error's wording);
anything else (whitespace, an error of any kind, a value that ends before the text does) is handed to
``json.loads`` itself, so the value, the exception and its message and position are ``json.loads``'s.
"""

from __future__ import annotations

import json
from typing import Any

# json.loads' own decoder is made with the default arguments: this scanner is the same C scanner, configured alike
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, untyped


def loads(text: str) -> Any:
    """``json.loads(text)`` for a ``str``: the same value, or the same exception."""
    try:
        value, end = _scan_once(text, 0)
    except Exception:  # StopIteration, JSONDecodeError, RecursionError, ValueError: json.loads words it
        return json.loads(text)
    if end != len(text):  # whitespace after the value, or extra data
        return json.loads(text)
    return value


__all__ = ["loads"]
