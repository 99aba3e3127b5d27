"""Whether a JSON Lines text is a Codex rollout, from its first records alone.

An editor may hand the server every ``.jsonl`` it opens (VS Code's extension does, so a rollout under any name
is found): a file that is not a rollout must cost a look at a few lines, not an analysis of all of them.  The
rule is :attr:`analysis.session.rollout.RolloutAnalysis.is_rollout`'s, read without analysing a line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .records import KNOWN_TYPES

SAMPLE = 50  # records looked at, as RolloutAnalysis.is_rollout does


def looks_like_rollout(lines: Iterable[str], sample: int = SAMPLE) -> bool:
    """Whether one of the first ``sample`` records (non-blank lines) has a rollout record's ``type``."""
    seen = 0
    for line in lines:
        if not line.strip():
            continue
        seen += 1
        if seen > sample:
            return False
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value.get("type") in KNOWN_TYPES:
            return True
    return False
