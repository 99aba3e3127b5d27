"""What Codex 0.158 and later say beside a ``response_item``'s payload, in the line's ``metadata``, and the
``world_state`` summary a line's analysis keeps.

``metadata`` keys read (reference §9): ``inherited_user_message`` (the parent's prompt copied into a subagent:
not this thread's request), ``delivered_assistant_message`` (``codex:code-mode-delivery:v1:complete``, or
``…:v1:incomplete:<text>``: a message code mode delivered, whose body may be a placeholder),
``compaction_output`` (a compaction's summary), ``client_authored`` (the user's client wrote the message: it
is the user's request and titles a turn as any), ``mcp_attribution`` (which MCP server a call went to) and
``user_input_order``.  Inherited, delivered and compaction messages never title a turn.
"""

from __future__ import annotations

from typing import Any

from .records import Record
from .world_state import summarise_world_state, without_state

_DELIVERY = "codex:code-mode-delivery:v1:"
INHERITED, DELIVERED, COMPACTION, CLIENT = "inherited", "delivered", "compaction output", "client authored"


def message_delivery(metadata: Any) -> str | None:
    """``inherited``, ``delivered``, ``incomplete: <text>``, ``compaction output``, ``client authored``, or None."""
    if not isinstance(metadata, dict):
        return None
    if metadata.get("inherited_user_message"):
        return INHERITED
    delivered = metadata.get("delivered_assistant_message")
    if isinstance(delivered, str) and delivered:
        rest = delivered[len(_DELIVERY) :] if delivered.startswith(_DELIVERY) else delivered
        if rest.startswith("incomplete"):
            detail = rest[len("incomplete") :].lstrip(":").strip()
            return f"incomplete: {detail}" if detail else "incomplete"
        return DELIVERED
    if delivered is True:
        return DELIVERED
    if metadata.get("compaction_output"):
        return COMPACTION
    if metadata.get("client_authored"):
        return CLIENT
    return None


def not_a_request(delivery: str | None) -> bool:
    """Whether a message so marked is not the user's request (it never titles a turn)."""
    return delivery is not None and delivery != CLIENT


def delivery_words(delivery: str | None) -> str | None:
    """The hover's words for a message's mark."""
    if delivery is None:
        return None
    if delivery == INHERITED:
        return "inherited from the parent thread (the parent's request, not this thread's)"
    if delivery == DELIVERED:
        return "delivered by code mode (complete)"
    if delivery.startswith("incomplete"):
        detail = delivery[len("incomplete") :].lstrip(":").strip()
        return "delivered by code mode, incomplete" + (f": {detail}" if detail else "")
    if delivery == COMPACTION:
        return "a compaction's output (a summary, not a request)"
    return "written by the user's client (the user's request)"


def world_state_fields(record: Record, line: str) -> dict[str, Any]:
    """A ``world_state`` line's analysis: its summary, and a record without the state."""
    item = record.item
    if not isinstance(item, dict):
        return {}
    summary = summarise_world_state(item, len(line), without_state(line)[1])
    if summary is None:
        return {}
    return {"world_state": summary, "record": Record(record.envelope, {"full": item.get("full")}, record.bare)}


__all__ = ["message_delivery", "not_a_request", "delivery_words", "world_state_fields"]
