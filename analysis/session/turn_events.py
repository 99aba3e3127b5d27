"""What one ``event_msg`` says about its turn: how it ended, its times, the settings it runs with, and the
turn items of paginated history (the user's and the agent's words).

Read one line at a time (so a line's result can be cached), and put together into turns by
:mod:`analysis.session.turns`:

- ``task_complete`` / ``turn_complete`` end a turn; since about 0.140 they carry ``duration_ms``,
  ``time_to_first_token_ms``, ``started_at`` and ``completed_at``, and since about 0.150 an ``error``
  (``{message, codex_error_info}``) when the turn failed;
- ``error`` (``{message, codex_error_info?}``) is an error that ended the turn it is in (Codex retries
  transient errors silently, as ``stream_error``, which is not read here);
- ``turn_aborted`` (``reason``: ``interrupted``, ``replaced``, …) ends an interrupted turn;
- ``thread_rolled_back`` (``num_turns``) takes back the last turns: they are still in the file but no
  longer in the thread.

``codex_error_info`` is a string (``"unauthorized"``, ``"other"``) or an object naming the error with its
details (``{"response_too_many_failed_attempts": {"http_status_code": 429}}``); :func:`error_info_text`
words both the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..jsonl.pickling import pickled_by_fields
from .prompts import user_words

COMPLETE, ERROR, ABORTED, ROLLED_BACK = "complete", "error", "aborted", "rolled_back"
_COMPLETE_EVENTS = frozenset({"task_complete", "turn_complete"})
# every event type read_turn_end reads (any other is no turn end), and the one read_turn_item reads
TURN_END_EVENTS = _COMPLETE_EVENTS | {"error", "turn_aborted", "thread_rolled_back"}
TURN_ITEM_EVENT = "item_completed"
USER_ITEMS = frozenset({"UserMessage", "userMessage"})
AGENT_ITEMS = frozenset({"AgentMessage", "agentMessage"})
CONTENT_ITEMS = frozenset({"Reasoning", "reasoning", "Plan", "plan"}) | AGENT_ITEMS


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class TurnEnd:
    """An event that ends, fails, interrupts or takes back a turn."""

    kind: str  # COMPLETE, ERROR, ABORTED or ROLLED_BACK
    turn_id: str | None = None
    error: str | None = None  # the error's message (a failed turn)
    error_info: str | None = None  # codex_error_info in words: ``unauthorized``, ``response_too_many… (HTTP 429)``
    failed: bool = False  # the event says the turn failed (an ``error`` event, or ``task_complete.error``)
    reason: str | None = None  # turn_aborted: interrupted, replaced, review_ended
    num_turns: int | None = None  # thread_rolled_back: how many turns it takes back
    duration_ms: int | None = None
    time_to_first_token_ms: int | None = None


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class TurnItem:
    """A turn item of paginated history (``item_completed``): the user's or the agent's words, reasoning, a plan."""

    type: str  # UserMessage, AgentMessage, Reasoning, Plan
    text: str
    phase: str | None = None  # an agent message's: final_answer or commentary


def read_turn_end(payload: dict) -> TurnEnd | None:
    """The :class:`TurnEnd` of an ``event_msg`` payload, or None when it is no such event."""
    kind = payload.get("type")
    if not isinstance(kind, str):
        return None
    turn_id = _text(payload.get("turn_id"))
    if kind in _COMPLETE_EVENTS:
        error = payload.get("error")
        message, info = _error_parts(error) if error is not None else (None, None)
        return TurnEnd(
            COMPLETE,
            turn_id,
            message,
            info,
            failed=error is not None and error is not False,
            duration_ms=_int(payload.get("duration_ms")),
            time_to_first_token_ms=_int(payload.get("time_to_first_token_ms")),
        )
    if kind == "error":
        message, info = _error_parts(payload)
        return TurnEnd(ERROR, turn_id, message, info, failed=True)
    if kind == "turn_aborted":
        return TurnEnd(
            ABORTED, turn_id, reason=_text(payload.get("reason")), duration_ms=_int(payload.get("duration_ms"))
        )
    if kind == "thread_rolled_back":
        count = _int(payload.get("num_turns"))
        return TurnEnd(ROLLED_BACK, turn_id, num_turns=count if count is not None else 1)
    return None


def read_turn_item(payload: dict) -> TurnItem | None:
    """The words of an ``item_completed`` turn item (UserMessage, AgentMessage, Reasoning, Plan), else None."""
    if payload.get("type") != TURN_ITEM_EVENT:
        return None
    item = payload.get("item")
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if not isinstance(kind, str) or kind not in USER_ITEMS and kind not in CONTENT_ITEMS:
        return None
    parts: list[str] = []
    content = item.get("content")
    if isinstance(content, list):
        parts += [c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
    elif isinstance(content, str):
        parts.append(content)
    for key in ("text", "summary_text", "summary"):
        value = item.get(key)
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):
            parts += [
                v if isinstance(v, str) else v.get("text", "")
                for v in value
                if isinstance(v, str) or isinstance(v, dict) and isinstance(v.get("text"), str)
            ]
    kind = kind[0].upper() + kind[1:]
    return TurnItem(kind, "\n".join(p for p in parts if p), _text(item.get("phase")))


def user_item_words(item: TurnItem) -> str | None:
    """What the user typed, in a UserMessage item."""
    return user_words(item.text) if item.type == "UserMessage" else None


def error_info_text(value: Any) -> str | None:
    """``unauthorized``; ``response_too_many_failed_attempts (HTTP 429)`` for the object form."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict) and value:
        name, details = next(iter(value.items()))
        if not isinstance(name, str):
            return None
        if isinstance(details, dict):
            status = details.get("http_status_code")
            if isinstance(status, int) and not isinstance(status, bool):
                return f"{name} (HTTP {status})"
            rest = {k: v for k, v in details.items() if v is not None}
            if rest:
                return f"{name} ({json.dumps(rest, ensure_ascii=False, separators=(', ', ': '))[1:-1]})"
        return name
    return None


def _error_parts(error: Any) -> tuple[str | None, str | None]:
    """(message, codex_error_info in words) of a turn's error; the message of a JSON error body is its own."""
    if isinstance(error, str):
        return _message(error), None
    if not isinstance(error, dict):
        return None, None
    return _message(error.get("message")), error_info_text(error.get("codex_error_info"))


def _message(value: Any) -> str | None:
    """An error message; a provider's JSON body (``{"error":{"message":…}}``) is read for its message."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.startswith("{"):
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            return text
        inner = body.get("error") if isinstance(body, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            return body["message"]
    return text


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) < 1e15:
        return int(value)
    return None


__all__ = [
    "COMPLETE",
    "ERROR",
    "ABORTED",
    "ROLLED_BACK",
    "TURN_END_EVENTS",
    "TURN_ITEM_EVENT",
    "TurnEnd",
    "TurnItem",
    "read_turn_end",
    "read_turn_item",
    "user_item_words",
    "error_info_text",
]
