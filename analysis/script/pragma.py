"""The ``// @exec: {…}`` pragma on the first line of an exec script, read as Codex reads it."""

from __future__ import annotations

import json
from typing import Any

from ..jsonl.lazy_pattern import lazy

_PRAGMA = lazy(r"[ \t\f\v]*// @exec:([^\n]*)")  # the first line, up to its \n (a \r is trimmed)
PRAGMA_KEYS = frozenset({"yield_time_ms", "max_output_tokens"})
_MAX_SAFE_INTEGER = 2**53 - 1


def read_pragma(source: str) -> tuple[dict[str, Any], str | None, int] | None:
    """Codex's own reading of the first line (``parse_exec_source`` in code-mode's description.rs): the
    first line, whitespace trimmed at its start, begins with ``// @exec:``; the rest of it is a JSON object
    with only ``yield_time_ms`` and ``max_output_tokens``, each null or a non-negative safe integer; and
    JavaScript follows on later lines.  (value, problem, end of the pragma)."""
    m = _PRAGMA.match(source)
    if not m:
        return None
    end = m.start(1) + len(m.group(1).rstrip("\r"))
    directive = m.group(1).strip()
    if not directive:
        return {}, "the '// @exec:' pragma must be a JSON object", end
    try:
        value = json.loads(directive)
    except (ValueError, RecursionError):
        return {}, "the '// @exec:' pragma must be valid JSON", end
    if not isinstance(value, dict):
        return {}, "the '// @exec:' pragma must be a JSON object", end
    unknown = sorted(set(value) - PRAGMA_KEYS)
    if unknown:
        return {}, f"the '// @exec:' pragma does not support {unknown[0]!r}", end
    for key, number in value.items():
        if number is not None and (type(number) is not int or not 0 <= number <= _MAX_SAFE_INTEGER):
            return {}, f"the '// @exec:' pragma's {key} must be a non-negative safe integer", end
    _, _, rest = source.partition("\n")
    if not rest.strip():
        return {}, "the '// @exec:' pragma must be followed by JavaScript on later lines", end
    return value, None, end


__all__ = ["PRAGMA_KEYS", "read_pragma"]
