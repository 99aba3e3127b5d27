"""Namespaced tool names, and the argument that identifies a call of a tool.

Codex 0.147 and later offer nested tools in namespaces: a script calls
``tools.multi_agent_v1__spawn_agent(…)`` (code mode joins a namespace and a name with
``__``, an MCP namespace ``mcp__server__`` with nothing), and a top-level ``function_call``
carries ``namespace: "multi_agent_v1"`` with ``name: "spawn_agent"``.  Codex shows such a
tool as ``multi_agent_v1 · spawn_agent``.

The key argument of a call is the one a reader tells calls of one tool apart by: the task
name (else the message) of a spawn, the targets of a wait, the query of a web run, the
prompt of an image generation.  It is named here; its value is the call's own.
"""

from __future__ import annotations

from typing import Any

SEPARATOR = "__"
SHOWN_SEPARATOR = " · "  # as Codex's own views join a namespace and a tool name

# the tool (its name inside its namespace) → the arguments that identify one call, the first present wins
KEY_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "spawn_agent": ("task_name", "message", "items"),
    "wait_agent": ("targets", "target", "ids"),
    "send_input": ("target", "id"),
    "send_message": ("target", "targets"),
    "followup_task": ("target", "task_name", "message"),
    "resume_agent": ("target", "id"),
    "close_agent": ("target", "id"),
    "interrupt_agent": ("target", "id"),
    "run": ("search_query", "open", "find", "image_query", "weather", "time", "finance", "sports", "calculator"),
    "imagegen": ("prompt",),
    "tool_search_tool": ("query", "q"),
}


def split_tool(tool: str | None, namespace: str | None = None) -> tuple[str | None, str | None]:
    """(namespace, name inside it) of a tool: ``multi_agent_v1__spawn_agent`` → (``multi_agent_v1``,
    ``spawn_agent``), ``mcp__github__search_issues`` → (``mcp__github``, ``search_issues``); a name without a
    namespace has None.  ``namespace``, when the record gives one (a top-level ``function_call``), wins, and is
    taken off the name when the name repeats it."""
    if tool is None:
        return (namespace.rstrip("_") or None if namespace else None), None
    if namespace:
        stripped = namespace.rstrip("_")
        for prefix in (stripped + SEPARATOR, namespace):
            if tool.startswith(prefix) and len(tool) > len(prefix):
                return stripped, tool[len(prefix) :]
        return stripped or None, tool
    if SEPARATOR not in tool:
        return None, tool
    # an MCP tool's namespace is ``mcp__<server>``; other namespaces hold single underscores only
    at = tool.find(SEPARATOR, len("mcp__")) if tool.startswith("mcp__") else tool.find(SEPARATOR)
    if at <= 0 or at + len(SEPARATOR) >= len(tool):
        return None, tool
    return tool[:at], tool[at + len(SEPARATOR) :]


def shown_tool(tool: str | None, namespace: str | None = None) -> str | None:
    """``multi_agent_v1 · spawn_agent``: a namespaced tool as Codex shows it; other tools as they are."""
    space, name = split_tool(tool, namespace)
    if space is None or name is None:
        return tool
    return f"{space}{SHOWN_SEPARATOR}{name}"


def key_argument(name: str | None, present: Any) -> str | None:
    """The argument that identifies a call of the tool ``name`` (its name inside its namespace): the first of
    :data:`KEY_ARGUMENTS` that ``present`` (the argument names the call gives) holds."""
    for key in KEY_ARGUMENTS.get(name or "", ()):
        if key in present:
            return key
    return None


def key_text(value: Any) -> str | None:
    """A key argument's value in one line of plain words: a string as it is, the strings of a list joined
    with ``, ``, the query (``q``), reference (``ref_id``) or pattern of each item of a web run's lists; None
    for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for field in ("q", "query", "ref_id", "pattern", "location", "text"):
            text = value.get(field)
            if isinstance(text, str):
                return text
        return None
    if isinstance(value, list) and value:
        parts = [key_text(v) for v in value]
        texts = [p for p in parts if p is not None]
        if len(texts) == len(parts):
            return ", ".join(texts)
    return None


__all__ = ["KEY_ARGUMENTS", "SEPARATOR", "SHOWN_SEPARATOR", "key_argument", "key_text", "shown_tool", "split_tool"]
