"""Whether a JSON Lines text is a Codex rollout, from its first records alone.

An editor may hand the server every ``.jsonl`` it opens (VS Code's extension does, so a rollout under any name
is found): a file that is not a rollout must cost a look at a few lines, not an analysis of all of them.  The
rule is :func:`analysis.session.records.is_rollout_record`'s (which the analysis and the stream use), read here
on the decoded line without building its record: a record with a rollout record's ``type`` and, for the
envelope-less files of Codex before 0.58, their header (``id``, ``timestamp`` and ``instructions`` or ``git``,
no ``type``) or a ``{"record_type": …}`` state line.  A bare ``{"type": "message"}`` alone is not enough: other
tools' chat logs look like that.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .records import KNOWN_TYPES

SAMPLE = 50  # records looked at, as RolloutAnalysis.is_rollout does


def is_rollout_value(value: Any) -> bool:
    """Whether one decoded line makes its file a rollout (:func:`~analysis.session.records.is_rollout_record`)."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind is not None:
        return kind in KNOWN_TYPES
    if "payload" in value:
        return False
    if "record_type" in value:
        return True
    return (
        isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and ("instructions" in value or "git" in value)
    )


def looks_like_rollout(lines: Iterable[str], sample: int = SAMPLE) -> bool:
    """Whether one of the first ``sample`` records (non-blank lines) makes the file a rollout."""
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
        if is_rollout_value(value):
            return True
    return False
