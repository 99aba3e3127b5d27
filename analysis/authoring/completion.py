"""Completions while writing a rollout by hand: record and payload types, tools, argument keys, call ids.

The line being typed is usually not valid JSON yet, so :func:`analysis.authoring.json_context.json_context` reads
it with a tolerant scanner: which string the cursor is in, at which path, and the
record's ``type``, ``payload.type`` and ``payload.name`` wherever they are on the
line.  Inside an exec script the string's raw text is decoded (``EscapeMap``
maps back), the script is parsed by tree-sitter, and what is offered depends on
the syntax at the cursor: tool names after ``tools.``, argument keys inside the
object passed to a tool.  Every completion carries the exact columns it
replaces, in code points of the line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from tree_sitter import Node

from ..jsonl.lazy_pattern import lazy
from ..jsonl.positions import EscapeMap
from ..script.calls import tool_sites
from ..script.script import ExecScript
from ..session import vocabulary
from ..session.records import KNOWN_TYPES, SessionMeta
from ..session.rollout import RolloutAnalysis
from .json_context import JsonContext, json_context

# what an author writes most, offered first; every other type the analysis knows (analysis.session.vocabulary)
# follows in name order, so a type added there is offered here with no change to this module
COMMON_RESPONSE_ITEM_TYPES = (
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
    "compaction",
    "context_compaction",
)
COMMON_EVENT_TYPES = (
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "token_count",
    "task_started",
    "task_complete",
    "turn_aborted",
    "context_compacted",
    "thread_rolled_back",
    "entered_review_mode",
    "exited_review_mode",
    "item_completed",
    "exec_command_end",
    "patch_apply_end",
    "mcp_tool_call_end",
    "web_search_end",
)
RESPONSE_ITEM_TYPES = COMMON_RESPONSE_ITEM_TYPES + tuple(
    sorted(vocabulary.RESPONSE_ITEM_TYPES - set(COMMON_RESPONSE_ITEM_TYPES))
)
EVENT_TYPES = COMMON_EVENT_TYPES + tuple(sorted(vocabulary.EVENT_TYPES - set(COMMON_EVENT_TYPES)))
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
# the tools a code-mode script reaches through ``tools.`` (reference §7.4–7.6); exec and wait never nest
CODE_MODE_TOOLS = {
    "exec_command": "run a shell command: {cmd, workdir?, …}",
    "write_stdin": "write to a running command: {session_id, chars?, …}",
    "apply_patch": "apply a patch: a '*** Begin Patch' … '*** End Patch' string",
    "update_plan": "update the plan: {plan: [{step, status}]}",
    "view_image": "attach an image: {path, detail?}",
    "shell_command": "run a shell command line: {command, workdir?, …}",
}
ARGUMENT_KEYS: dict[str, dict[str, str]] = {
    "exec_command": {
        "cmd": "string: the shell command line",
        "workdir": "string: the working directory",
        "shell": "string: the shell binary",
        "login": "boolean: login shell semantics",
        "tty": "boolean: run in a pseudo-terminal",
        "yield_time_ms": "number: wait before returning",
        "max_output_tokens": "number: the output budget",
        "sandbox_permissions": '"use_default" | "require_escalated" | "with_additional_permissions"',
        "justification": "string: why escalation is needed",
        "prefix_rule": "string[]: the approval prefix to suggest",
    },
    "shell_command": {
        "command": "string: the shell command line",
        "workdir": "string: the working directory",
        "timeout_ms": "number: the time limit",
        "login": "boolean: login shell semantics",
        "sandbox_permissions": '"use_default" | "require_escalated"',
        "justification": "string: why escalation is needed",
        "prefix_rule": "string[]: the approval prefix to suggest",
    },
    "apply_patch": {"input": "string: the patch (the older JSON form of apply_patch)"},
    "write_stdin": {
        "session_id": "number: the session of a running command",
        "chars": "string: what to write",
        "yield_time_ms": "number: wait before returning",
        "max_output_tokens": "number: the output budget",
    },
}
_IDENTIFIER_TAIL = lazy(r"[A-Za-z0-9_$]*\Z")
_TOOLS_DOT = lazy(r"(?<![A-Za-z0-9_$.])tools\s*\??\.\s*\Z")
_OPAQUE = frozenset(
    {"string", "string_fragment", "template_string", "comment", "regex", "regex_pattern", "escape_sequence"}
)


@dataclass(frozen=True, slots=True)
class Completion:
    """One proposal: ``text`` replaces columns ``start`` to ``end`` of the line (code points)."""

    label: str
    kind: str  # value, tool, key, call_id, snippet
    start: int
    end: int
    text: str
    detail: str | None = None
    snippet: str | None = None  # the same insertion with LSP snippet placeholders
    sort: str | None = None


def complete(analysis: RolloutAnalysis, line_number: int, line: str, column: int) -> list[Completion]:
    """What to offer at ``column`` of ``line`` (the current text of line ``line_number``)."""
    if line.strip() in ("", "{", "{}"):
        return [exec_snippet(analysis, line_number, len(line))]
    context = json_context(line, column)
    if context.path is None or context.is_key:
        return []
    record_type = context.fields.get(("type",))
    payload_type = context.fields.get(("payload", "type"))
    start, end = context.content_start, context.content_end
    if context.path == ("type",):
        return [Completion(t, "value", start, end, t, "record type") for t in sorted(KNOWN_TYPES)]
    if context.path == ("payload", "type"):
        if record_type == "event_msg":
            return [Completion(t, "value", start, end, t, "event type") for t in EVENT_TYPES]
        if record_type in (None, "response_item"):
            return [Completion(t, "value", start, end, t, "response item type") for t in RESPONSE_ITEM_TYPES]
        return []
    if context.path == ("payload", "call_id") and payload_type in OUTPUT_TYPES:
        return _waiting_call_ids(analysis, line_number, start, end)
    if (
        context.path == ("payload", "input")
        and payload_type == "custom_tool_call"
        and context.fields.get(("payload", "name")) == "exec"
    ):
        return _script_completions(analysis, line, column, start, end)
    if (
        context.path == ("payload", "arguments")
        and payload_type == "function_call"
        and context.fields.get(("payload", "name")) in ARGUMENT_KEYS
    ):
        return _argument_keys(context.fields[("payload", "name")], line, column, start, end)
    return []


def _argument_keys(tool: str, line: str, column: int, start: int, end: int) -> list[Completion]:
    """The keys a top-level call's ``arguments`` (a JSON object inside the JSON string) does not have yet: in a
    key being typed (``{\\"cm``), or where a key goes, as a whole escaped key (``\\"cmd\\":``)."""
    raw = line[start:end]
    arguments = _decode_prefix(raw)
    if arguments is None:
        return []
    escapes = EscapeMap(raw, start)
    at = len(_decode_prefix(raw[: _escape_boundary(raw, column - start)]) or "")
    inner = json_context(arguments, at)
    keys = ARGUMENT_KEYS[tool]
    if inner.path == () and inner.is_key:
        first, last = escapes.start(inner.content_start), escapes.start(inner.content_end)
        return [
            Completion(key, "key", first, last, key, f"{tool}: {detail}")
            for key, detail in keys.items()
            if key not in inner.keys
        ]
    if inner.path is None and inner.key_position:
        return [
            Completion(key, "key", column, column, json.dumps(json.dumps(key) + ":")[1:-1], f"{tool}: {detail}")
            for key, detail in keys.items()
            if key not in inner.keys
        ]
    return []


def _waiting_call_ids(analysis: RolloutAnalysis, line_number: int, start: int, end: int) -> list[Completion]:
    """Calls with no output record elsewhere in the rollout, the nearest above the cursor first."""
    answered = {
        call_id for call_id, lines in analysis.outputs_by_call_id.items() if any(n != line_number for n in lines)
    }
    out = []
    for number, record in enumerate(analysis.records):
        if number == line_number or not record.is_call or not record.call_id or record.call_id in answered:
            continue
        distance = line_number - number if number < line_number else 10**6 + number
        out.append(
            Completion(
                record.call_id,
                "call_id",
                start,
                end,
                record.call_id,
                f"line {number + 1}: {record.name or record.kind}, waiting for its output",
                sort=f"{distance:08d}",
            )
        )
    return sorted(out, key=lambda c: c.sort or "")


def _script_completions(analysis: RolloutAnalysis, line: str, column: int, start: int, end: int) -> list[Completion]:
    raw = line[start:end]
    cut = _escape_boundary(raw, column - start)
    source = _decode_prefix(raw)
    if source is None:
        return []
    escapes = EscapeMap(raw, start)
    at = len(_decode_prefix(raw[:cut]) or "")
    return [
        replace(c, start=escapes.start(c.start), end=escapes.start(c.end))
        for c in script_completions(analysis, source, at)
    ]


def script_completions(analysis: RolloutAnalysis, source: str, at: int) -> list[Completion]:
    """What to offer at offset ``at`` (code points) of an exec script of this rollout (its record's, or one being
    edited on its own, as in an editor's JavaScript view); ``start`` and ``end`` are offsets in ``source``."""
    at = max(0, min(at, len(source)))
    word_start = at - len(_IDENTIFIER_TAIL.search(source[:at]).group())  # type: ignore[union-attr]  # "…*\Z" matches
    script = ExecScript(source)
    if _in_opaque(script, word_start):
        return []
    if _TOOLS_DOT.search(source[:word_start]):
        return [
            Completion(
                name, "tool", word_start, at, name, detail, sort=f"0{name}" if name in CODE_MODE_TOOLS else f"1{name}"
            )
            for name, detail in _tool_names(analysis).items()
        ]
    found = _argument_object(script, word_start) or _unclosed_argument_object(source[:at], word_start)
    if found is None:
        return []
    tool, present = found
    return [
        Completion(key, "key", word_start, at, key, f"{tool}: {detail}")
        for key, detail in ARGUMENT_KEYS[tool].items()
        if key not in present
    ]


def _escape_boundary(raw: str, cut: int) -> int:
    """``cut`` moved back to the start of an escape it falls inside."""
    cut = max(0, min(cut, len(raw)))
    i = 0
    while i < cut:
        if raw[i] == "\\":
            size = 6 if raw.startswith("u", i + 1) else 2
            if i + size > cut:
                return i
            i += size
        else:
            i += 1
    return cut


def _decode_prefix(raw: str) -> str | None:
    try:
        return json.loads(f'"{raw}"')
    except ValueError:
        trimmed = raw[: raw.rfind("\\")] if "\\" in raw[-6:] else raw
        try:
            return json.loads(f'"{trimmed}"')
        except ValueError:
            return None


def _in_opaque(script: ExecScript, offset: int) -> bool:
    """Whether ``offset`` lies inside a string, comment, template text or regex (a ``//`` comment runs on to
    the end of its line, so the cursor right after it is still inside)."""
    byte = len(script.source[:offset].encode("utf-8"))
    for probe in {byte, max(byte - 1, 0)}:
        node = script.root.descendant_for_byte_range(probe, probe)
        while node is not None:
            if node.type == "template_substitution" and node.start_byte < byte < node.end_byte:
                break
            if node.type in _OPAQUE and (
                node.start_byte < byte < node.end_byte
                or node.type == "comment"
                and node.start_byte < byte == node.end_byte
                and script.data[node.start_byte : node.start_byte + 2] == b"//"
            ):
                return True
            node = node.parent
    return False


def _argument_object(script: ExecScript, offset: int) -> tuple[str, set[str]] | None:
    """The tool whose object argument has a key position at ``offset``, and the keys it already has."""
    byte = len(script.source[:offset].encode("utf-8"))
    sites = {(s.callee.start_byte, s.callee.end_byte): s.tool for s in tool_sites(script)}
    node: Node | None = script.root.descendant_for_byte_range(byte, byte)
    while node is not None and node.type != "object":
        if node.type == "pair":
            value = node.child_by_field_name("value")
            if value is not None and value.start_byte <= byte:
                return None  # in a value, not a key
        node = node.parent
    if node is None:
        return None
    arguments = node.parent
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    if call is None or call.type != "call_expression":
        return None
    callee = call.child_by_field_name("function")
    tool = sites.get((callee.start_byte, callee.end_byte)) if callee is not None else None
    if tool not in ARGUMENT_KEYS:
        return None
    present = set()
    for child in node.named_children:
        key = child.child_by_field_name("key") if child.type == "pair" else child
        if (
            key is not None
            and key.type in ("property_identifier", "shorthand_property_identifier")
            and not key.start_byte <= byte <= key.end_byte
        ):
            present.add(script.text(key))
    return tool, present


# what may close the object being typed after ``tools.x({`` (editors close no bracket inside a JSON string):
# the text before the cursor is parsed again with each, the first that gives the object wins
_CLOSERS = ("})", "}))", "})])", "}]})", "}})")


def _unclosed_argument_object(prefix: str, offset: int) -> tuple[str, set[str]] | None:
    """:func:`_argument_object` for a script whose object argument is not closed yet at the cursor (the end of
    ``prefix``): tree-sitter reads the text before the cursor with the brackets closed."""
    for closer in _CLOSERS:
        script = ExecScript(prefix + closer)
        if script.tree_problem is None:
            return _argument_object(script, offset)
    return None


def _tool_names(analysis: RolloutAnalysis) -> dict[str, str]:
    """The code-mode tools, then the MCP and dynamic tools this rollout names."""
    names = dict(CODE_MODE_TOOLS)
    for record in analysis.records:
        meta = record.session
        if isinstance(meta, SessionMeta):
            for name in _dynamic_tools(getattr(meta, "dynamic_tools", None)):
                names.setdefault(name, "a dynamic tool of this session")
        if record.is_call and record.name and record.name.startswith("mcp__"):
            names.setdefault(record.name, "an MCP tool this rollout calls")
        for call in record.calls:
            if call.tool and call.tool.startswith("mcp__"):
                names.setdefault(call.tool, "an MCP tool this rollout calls")
    return names


def _dynamic_tools(value) -> list[str]:
    """Code-mode names of ``session_meta.dynamic_tools`` (reference §7.5: namespace joined, then sanitised)."""
    out: list[str] = []
    if not isinstance(value, list):
        return out
    for entry in value:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "namespace" and isinstance(entry.get("tools"), list):
            namespace = str(entry.get("name") or "")
            for tool in entry["tools"]:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    name = tool["name"]
                    joiner = "" if namespace.endswith("_") or name.startswith("_") else "__"
                    out.append(_identifier(namespace + joiner + name))
        elif isinstance(entry.get("name"), str):
            out.append(_identifier(entry["name"]))
    return out


def _identifier(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_$]", "_", name)
    return "_" + name[1:] if name[:1].isdigit() else name


# -- the exec call snippet ----------------------------------------------------------------------------
_SCRIPT_HOLE, _OUTPUT_HOLE = "\ue001", "\ue002"
DEFAULT_SCRIPT = 'const r = await tools.exec_command({cmd: "git status --short"});\ntext(r.output);\n'


def exec_snippet(analysis: RolloutAnalysis, line_number: int, line_length: int) -> Completion:
    """An exec call and its output, as two records with a fresh call id and the previous line's timestamp."""
    call_id = fresh_call_id(analysis)
    timestamp = previous_timestamp(analysis, line_number)
    call = {
        "timestamp": timestamp,
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": "exec",
            "input": _SCRIPT_HOLE,
        },
    }
    output = {
        "timestamp": timestamp,
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call_output",
            "call_id": call_id,
            "output": [
                {"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
                {"type": "input_text", "text": _OUTPUT_HOLE},
            ],
        },
    }
    text = _compact(call) + "\n" + _compact(output)
    script = json.dumps(DEFAULT_SCRIPT, ensure_ascii=False)[1:-1]
    plain = text.replace(_SCRIPT_HOLE, script).replace(_OUTPUT_HOLE, "")
    snippet = (
        _snippet_escape(text).replace(_SCRIPT_HOLE, "${1:" + _snippet_escape(script) + "}").replace(_OUTPUT_HOLE, "$2")
        + "$0"
    )
    return Completion(
        "exec call with its output", "snippet", 0, line_length, plain, f"{call_id} at {timestamp}", snippet=snippet
    )


def fresh_call_id(analysis: RolloutAnalysis) -> str:
    used = set(analysis.calls_by_call_id) | set(analysis.outputs_by_call_id)
    used.update(r.call_id for r in analysis.records if r.call_id)
    n = 1
    while f"call_new{n}" in used:
        n += 1
    return f"call_new{n}"


def previous_timestamp(analysis: RolloutAnalysis, line_number: int) -> str:
    """The timestamp of the nearest record above (else below; else now)."""
    order = list(range(min(line_number, len(analysis.records)) - 1, -1, -1)) + list(
        range(line_number + 1, len(analysis.records))
    )
    for number in order:
        record = analysis.records[number].record
        if record is not None and record.envelope.timestamp:
            return record.envelope.timestamp
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _compact(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _snippet_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


__all__ = ["ARGUMENT_KEYS", "CODE_MODE_TOOLS", "Completion", "JsonContext", "complete", "exec_snippet", "json_context"]
