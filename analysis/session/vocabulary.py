"""The record types this project knows, and the ones it does not.

"Known" means documented in the rollout format this project was written against (the record
types of ``RolloutItem``, the ``ResponseItem`` kinds and the ``EventMsg`` kinds of Codex's
protocol), whether the analysis reads the record or skips it on purpose.  Any other record type,
``response_item`` payload type or ``event_msg`` payload type is *unknown*: it stays in the
analysis as what it is, the outline lists it, and the first record of each unknown type in a file
gets one ``unknown-record`` finding, so a new Codex version shows up as a visible change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..jsonl.findings import Finding
from ..jsonl.jsonspans import locate
from ..jsonl.memo import once_per_object
from ..jsonl.positions import Span
from .legacy_records import LEGACY_STATE
from .record_analysis import LineAnalysis
from .records import KNOWN_TYPES, Record


class ReadRollout(Protocol):
    """What the unknown-record listing reads of a rollout's analysis
    (:class:`analysis.session.rollout.RolloutAnalysis`, which calls this module); ``__dict__`` keeps the listing."""

    lines: list[str]
    records: list[LineAnalysis]
    __dict__: dict[str, Any]


RESPONSE_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "compaction",
        "compaction_summary",
        "context_compaction",
        "agent_message",
        "additional_tools",
        "ghost_snapshot",
        "other",
    }
)
EVENT_TYPES = frozenset(
    {
        "error",
        "warning",
        "context_compacted",
        "thread_rolled_back",
        "task_started",
        "turn_started",
        "task_complete",
        "turn_complete",
        "token_count",
        "auto_context_check",
        "agent_message",
        "user_message",
        "agent_message_delta",
        "agent_reasoning",
        "agent_reasoning_delta",
        "agent_reasoning_raw_content",
        "agent_reasoning_raw_content_delta",
        "agent_reasoning_section_break",
        "session_configured",
        "thread_name_updated",
        "mcp_startup_update",
        "mcp_startup_complete",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "image_generation_begin",
        "image_generation_end",
        "exec_command_begin",
        "exec_command_output_delta",
        "terminal_interaction",
        "exec_command_end",
        "view_image_tool_call",
        "exec_approval_request",
        "request_user_input",
        "dynamic_tool_call_request",
        "elicitation_request",
        "apply_patch_approval_request",
        "deprecation_notice",
        "background_event",
        "undo_started",
        "undo_completed",
        "stream_error",
        "patch_apply_begin",
        "patch_apply_end",
        "turn_diff",
        "get_history_entry_response",
        "mcp_list_tools_response",
        "list_custom_prompts_response",
        "list_skills_response",
        "list_remote_skills_response",
        "remote_skill_downloaded",
        "skills_update_available",
        "plan_update",
        "turn_aborted",
        "shutdown_complete",
        "entered_review_mode",
        "exited_review_mode",
        "raw_response_item",
        "item_started",
        "item_completed",
        "agent_message_content_delta",
        "plan_delta",
        "reasoning_content_delta",
        "reasoning_raw_content_delta",
        "collab_agent_spawn_begin",
        "collab_agent_spawn_end",
        "collab_agent_interaction_begin",
        "collab_agent_interaction_end",
        "collab_waiting_begin",
        "collab_waiting_end",
        "collab_close_begin",
        "collab_close_end",
        "collab_resume_begin",
        "collab_resume_end",
        "model_reroute",
        "sub_agent_activity",  # not in the protocol this was written against; read by analysis.session.lineage
        # Codex 0.144 to 0.157 (docs/sessions.md): settings (analysis.session.settings), the Desktop app's guardian
        # reviews, thread goals and names
        "thread_settings_applied",
        "guardian_assessment",
        "thread_goal_updated",
    }
)


def unknown_type(analysis: ReadRollout, line: int) -> str | None:
    """``event_msg/thread_settings_applied``, ``frobnicate`` (a record type), or None when known."""
    return unknown_type_of(analysis.records[line])


def unknown_type_of(line_analysis: LineAnalysis) -> str | None:
    """:func:`unknown_type` of one line's analysis."""
    return unknown_type_of_record(line_analysis.record)


def unknown_type_of_record(record: Record | None) -> str | None:
    """:func:`unknown_type` of one line's record (None: a blank or invalid line)."""
    if record is None:
        return None
    kind = record.envelope.type
    if kind == "event_msg":  # a third of a rollout's lines: their payload is the raw dict, its type a string
        item = record.item
        if type(item) is dict:
            value = item.get("type")
            if type(value) is str:
                return None if value in EVENT_TYPES else f"event_msg/{value}"
    if record.bare and kind == LEGACY_STATE:  # an envelope-less file's state line (before 0.58)
        return None
    if kind not in KNOWN_TYPES:
        return kind
    if kind not in ("response_item", "event_msg"):
        return None
    payload_type = _payload_type(record)
    if payload_type is None:
        return None
    known = RESPONSE_ITEM_TYPES if kind == "response_item" else EVENT_TYPES
    return None if payload_type in known else f"{kind}/{payload_type}"


@once_per_object
def unknown_records(
    analysis: ReadRollout, type_of: Callable[[LineAnalysis], str | None] = unknown_type_of
) -> dict[str, list[int]]:
    """Each unknown type of a rollout and the lines of its records, in order of first appearance.
    ``type_of`` is :func:`unknown_type_of`, or a memo of it (:meth:`~analysis.session.rollout.LineCache.unknown_type`)."""
    found: dict[str, list[int]] = {}
    for number, record in enumerate(analysis.records):
        if record.record is None:  # blank and invalid lines have none
            continue
        name = type_of(record)
        if name is not None:
            found.setdefault(name, []).append(number)
    return found


def unknown_record_findings(
    analysis: ReadRollout, type_of: Callable[[LineAnalysis], str | None] = unknown_type_of
) -> list[Finding]:
    """One ``unknown-record`` finding per unknown type, on its first record's type value."""
    out = []
    for name, lines in unknown_records(analysis, type_of).items():
        first = lines[0]
        text = analysis.lines[first]
        path = ("type",) if "/" not in name else ("payload", "type")
        found = locate(text, [path]).get(path)
        span = Span(first, *found) if found else Span(first, 0, len(text))
        out.append(unknown_record_finding(name, len(lines), span))
    return out


def unknown_record_finding(name: str, count: int, span: Span) -> Finding:
    """The ``unknown-record`` finding of a type with ``count`` records, on the first one's type value."""
    records = f"{count} record{'s' if count != 1 else ''}"
    return Finding(
        "unknown-record",
        f"record type {name} is unknown to this version of rollout-lsp ({records} in this file): listed, not read",
        span,
    )


def _payload_type(record) -> str | None:
    item: Any = record.item
    value = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
    if value is None and isinstance(record.envelope.payload, dict):
        value = record.envelope.payload.get("type")
    return value if isinstance(value, str) else None


__all__ = [
    "RESPONSE_ITEM_TYPES",
    "EVENT_TYPES",
    "unknown_type",
    "unknown_type_of",
    "unknown_type_of_record",
    "unknown_records",
    "unknown_record_finding",
    "unknown_record_findings",
]
