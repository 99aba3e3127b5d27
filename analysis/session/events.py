"""Events as ground truth: the ``event_msg`` records in which Codex reports a call it ran.

``exec_command_end`` (exit code, duration, cwd), ``patch_apply_end`` (success and the changes per file),
``mcp_tool_call_end``, ``web_search_end`` and, in paginated history mode, ``item_completed`` with a turn
item of a call kind.  :func:`read_event` reads one event on its own (so a line's result can be cached);
:func:`analysis.session.event_pairing.match_events` pairs the events of a rollout with the calls they report:

- by ``call_id`` when it is a top-level call's;
- for a call made inside an exec script (``call_id`` ``exec-<uuid>``), by the events written between the
  exec call and its final output, matched to the script's calls of the same kind in order, preferring
  the first whose content agrees (the patched files, the command text).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from ..jsonl.pickling import pickled_by_fields
from ..script.calls import COMMAND, PATCH, TOOL, ToolCall
from .durations import seconds

EXEC_END, PATCH_END, MCP_END, WEB_END, ITEM = (
    "exec_command_end",
    "patch_apply_end",
    "mcp_tool_call_end",
    "web_search_end",
    "item_completed",
)
EVENT_TYPES = frozenset({EXEC_END, PATCH_END, MCP_END, WEB_END, ITEM})
# turn items of ``item_completed`` that report a call, and the kind of call each reports
_ITEM_KINDS = {
    "CommandExecution": COMMAND,
    "FileChange": PATCH,
    "McpToolCall": TOOL,
    "DynamicToolCall": TOOL,
    "WebSearch": TOOL,
    "commandExecution": COMMAND,
    "fileChange": PATCH,
    "mcpToolCall": TOOL,
    "dynamicToolCall": TOOL,
    "webSearch": TOOL,
}
_CHANGE_ACTIONS: dict[str | None, str] = {"add": "add", "delete": "delete", "update": "update"}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ChangedFile:
    path: str
    action: str  # add, update, delete
    move_to: str | None = None

    def to_json(self) -> dict:
        return {"path": self.path, "action": self.action, "move_to": self.move_to}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ToolEvent:
    """What one event says about the call it reports."""

    type: str  # the event's type (exec_command_end, …; item_completed for turn items)
    kind: str  # the kind of call it reports: command, patch or tool
    call_id: str | None
    success: bool | None = None
    exit_code: int | None = None
    duration: float | None = None  # seconds
    cwd: str | None = None
    command: tuple[str, ...] = ()  # the argv Codex ran (a shell command is its last element)
    files: tuple[ChangedFile, ...] = ()
    tool: str | None = None  # an MCP event's server tool, as ``mcp__server__tool``
    query: str | None = None  # a web search's query or page
    source: str | None = None  # exec_command_end: agent, user_shell, unified_exec_startup, …

    @property
    def nested(self) -> bool:
        """Whether it reports a call made inside an exec script (``exec-<uuid>``)."""
        return bool(self.call_id and self.call_id.startswith("exec-"))

    @property
    def failed(self) -> bool:
        return self.success is False or (self.exit_code is not None and self.exit_code != 0)

    def summary(self, files: bool = False) -> str:
        """A short phrase: ``exit 0 · 0.9 s``, ``applied`` (with ``files``: ``applied · update a.py``)."""
        facts = []
        if self.kind == PATCH and self.success is not None:
            facts.append("applied" if self.success else "not applied")
        if self.exit_code is not None:
            facts.append(f"exit {self.exit_code}")
        if self.duration is not None:
            facts.append(seconds(self.duration))
        if files and self.files:
            facts.append(", ".join(f"{f.action} {f.path}" for f in self.files))
        return " · ".join(facts)

    def to_json(self, line: int) -> dict:
        return {
            "line": line,
            "type": self.type,
            "call_id": self.call_id,
            "success": self.success,
            "exit_code": self.exit_code,
            "duration": self.duration,
            "cwd": self.cwd,
            "files": [f.to_json() for f in self.files],
        }


def read_event(payload: Any) -> ToolEvent | None:
    """The call report an ``event_msg`` payload makes, or None when it reports no call."""
    if not isinstance(payload, dict):
        return None
    kind = payload.get("type")
    if kind == EXEC_END:
        command = payload.get("command")
        argv = (
            tuple(a for a in command if isinstance(a, str))
            if isinstance(command, list)
            else (command,)
            if isinstance(command, str)
            else ()
        )
        exit_code = _int(payload.get("exit_code"))
        return ToolEvent(
            EXEC_END,
            COMMAND,
            _str(payload.get("call_id")),
            success=None if exit_code is None else exit_code == 0,
            exit_code=exit_code,
            duration=_duration(payload.get("duration")),
            cwd=_str(payload.get("cwd")),
            command=argv,
            source=_str(payload.get("source")),
        )
    if kind == PATCH_END:
        success = payload.get("success")
        return ToolEvent(
            PATCH_END,
            PATCH,
            _str(payload.get("call_id")),
            success=success if isinstance(success, bool) else None,
            files=_changes(payload.get("changes")),
        )
    if kind == MCP_END:
        invocation = payload.get("invocation")
        if not isinstance(invocation, dict):
            invocation = {}
        server, tool = _str(invocation.get("server")), _str(invocation.get("tool"))
        result = payload.get("result")
        success = None
        if isinstance(result, dict):
            if "Err" in result:
                success = False
            elif isinstance(result.get("Ok"), dict):
                success = result["Ok"].get("isError") is not True
        return ToolEvent(
            MCP_END,
            TOOL,
            _str(payload.get("call_id")),
            success=success,
            duration=_duration(payload.get("duration")),
            tool=f"mcp__{server}__{tool}" if server and tool else tool,
        )
    if kind == WEB_END:
        action = payload.get("action")
        if not isinstance(action, dict):
            action = {}
        query = _str(payload.get("query")) or _str(action.get("query")) or _str(action.get("url"))
        return ToolEvent(WEB_END, TOOL, _str(payload.get("call_id")), tool="web_search", query=query)
    if kind == ITEM:
        return _item(payload.get("item"))
    return None


def _item(item: Any) -> ToolEvent | None:
    """A paginated-history turn item that reports a call (plans, messages and the like report none)."""
    item_type = _str(item.get("type")) if isinstance(item, dict) else None
    if item_type not in _ITEM_KINDS:
        return None
    kind = _ITEM_KINDS[item_type]
    status = _str(item.get("status"))
    exit_code = _int(item.get("exit_code", item.get("exitCode")))
    duration_ms = item.get("duration_ms", item.get("durationMs"))
    command = item.get("command")
    success = None if status is None else status == "completed" and (exit_code in (None, 0))
    return ToolEvent(
        ITEM,
        kind,
        _str(item.get("id")),
        success=success,
        exit_code=exit_code,
        duration=duration_ms / 1000 if isinstance(duration_ms, (int, float)) else None,
        cwd=_str(item.get("cwd")),
        command=(command,) if isinstance(command, str) else tuple(command) if isinstance(command, list) else (),
        files=_changes(
            {
                c.get("path"): c
                for c in item.get("changes") or []
                if isinstance(c, dict) and isinstance(c.get("path"), str)
            }
            if isinstance(item.get("changes"), list)
            else item.get("changes")
        ),
        tool=_str(item.get("tool")),
    )


def _changes(changes: Any) -> tuple[ChangedFile, ...]:
    if not isinstance(changes, dict):
        return ()
    out = []
    for path, change in changes.items():
        if not isinstance(path, str):
            continue
        action = change.get("type") if isinstance(change, dict) else None
        if isinstance(action, dict):  # {"kind": {"type": "update", …}} in item form
            action = action.get("type")
        move = change.get("move_path") if isinstance(change, dict) else None
        action = action if isinstance(action, str) else None  # any other JSON value reads as an update
        out.append(ChangedFile(path, _CHANGE_ACTIONS.get(action, "update"), move if isinstance(move, str) else None))
    return tuple(out)


def _duration(value: Any) -> float | None:
    """Seconds from a Rust ``Duration`` (``{"secs", "nanos"}``), a number of seconds or a ``"1.2s"`` text."""
    if isinstance(value, dict):
        secs, nanos = value.get("secs"), value.get("nanos", 0)
        if isinstance(secs, (int, float)) and isinstance(nanos, (int, float)):
            return round(secs + nanos / 1e9, 3)
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# -- matching events with calls ----------------------------------------------------------------------------


def same_path(event_path: str, patch_path: str) -> bool:
    """Whether an event's (often absolute) path names the patch's (often relative) path."""
    a = event_path.replace("\\", "/").rstrip("/")
    b = patch_path.replace("\\", "/").rstrip("/")
    while b.startswith("./"):
        b = b[2:]
    if not b:
        return False
    if len(a) >= 2 and a[1] == ":" or len(b) >= 2 and b[1] == ":":  # a Windows path: case-insensitive
        a, b = a.lower(), b.lower()
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def agrees(event: ToolEvent, call: ToolCall) -> bool | None:
    """Whether the event's content matches the call's: True, False, or None when either is not known."""
    if event.kind == PATCH:
        if not event.files or not call.files:
            return None
        return all(
            any(same_path(e.path, f.path) or (f.move_to and same_path(e.path, f.move_to)) for f in call.files)
            for e in event.files
        )
    if event.kind == COMMAND:
        if not event.command or call.command is None:
            return None
        joined = shlex.join(event.command)
        return call.command in (event.command[-1], joined, " ".join(event.command))
    if event.type == MCP_END:
        if not event.tool or not call.tool:
            return None
        return call.tool == event.tool or _normal(call.tool) == _normal(event.tool)
    if event.type == WEB_END:
        return None if call.tool is None else call.tool.startswith("web")
    return None


def _normal(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_$" else "_" for c in name)


def reports(event: ToolEvent, call: ToolCall) -> bool:
    """Whether a call is of the kind the event reports (a patch event reports an apply_patch call, …)."""
    if event.kind == PATCH:
        return call.kind == PATCH
    if event.kind == COMMAND:
        return call.kind == COMMAND
    if event.type == WEB_END:
        return call.tool is not None and (call.tool.startswith("web") or call.tool == "web_search")
    if event.type == MCP_END:
        return call.tool is None or call.tool.startswith("mcp__")
    return call.kind == TOOL


def pick_call(event: ToolEvent, calls: list[ToolCall], taken: set[int]) -> int | None:
    """The index of the call an event inside a script reports: the first free call of its kind whose
    content agrees, else the first free one whose content is not known (computed), else None."""
    unknown = None
    for index, call in enumerate(calls):
        if index in taken or not reports(event, call):
            continue
        verdict = agrees(event, call)
        if verdict is True:
            return index
        if verdict is None and unknown is None:
            unknown = index
    return unknown


__all__ = ["ChangedFile", "EVENT_TYPES", "ToolEvent", "agrees", "pick_call", "read_event", "reports", "same_path"]
