"""The analysis of one rollout line, on its own: record, calls, findings, output.

Nothing here looks at other lines, so a result can be cached by the line's text
and reused when an edit elsewhere leaves the line as it was.  Spans are on line 0;
the document moves them to their line.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, replace
from typing import Any

from .calls import COMMAND, PATCH, Note, ToolCall, find_calls
from .findings import INVALID_JSON, PATCH_SYNTAX, RECORD_SHAPE, SCRIPT_SYNTAX, SECRET, Finding, Related
from .jsonspans import locate, string_content
from .outputs import ToolOutput, read_call_output, read_exec_output
from .patch import parse_patch
from .positions import EscapeMap, Span
from .records import (CustomToolCall, CustomToolCallOutput, FunctionCall, FunctionCallOutput, LocalShellCall,
                      Message, Record, RecordShapeError, SessionMeta, parse_record)
from .script import ExecScript
from .secrets import find_secrets

EXEC_NAMESPACES = (None, "functions")
COMMAND_FUNCTIONS = frozenset({"exec_command", "shell", "container.exec", "shell_command"})
# user messages Codex injects as context, not prompts a person typed
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "<permissions", "<INSTRUCTIONS>",
                    "# AGENTS.md instructions", "<turn_aborted>", "<developer_instructions>", "<user_shell_command>")
_STATUS_HEADER = re.compile(r"Script (?:completed|failed|terminated|running with cell ID)")


@dataclass(frozen=True, slots=True)
class LineAnalysis:
    """What one line is and says.  ``kind`` is the payload type, ``blank`` or ``invalid``."""

    kind: str
    record: Record | None = None
    call_id: str | None = None
    name: str | None = None  # the tool a call record names (exec, exec_command, apply_patch, …)
    calls: tuple[ToolCall, ...] = ()
    findings: tuple[Finding, ...] = ()
    script: str | None = None  # the decoded JavaScript of an exec record
    script_map: EscapeMap | None = None
    output: ToolOutput | None = None
    text: str | None = None  # a message's text, a call's decoded input
    is_exec: bool = False

    @property
    def is_call(self) -> bool:
        return self.kind in ("function_call", "custom_tool_call", "local_shell_call")

    @property
    def is_output(self) -> bool:
        return self.kind in ("function_call_output", "custom_tool_call_output")

    @property
    def turn_title(self) -> str | None:
        """The prompt of a user message that starts a turn (not injected context)."""
        item = self.record.item if self.record else None
        if isinstance(item, Message) and item.role == "user":
            text = item.text().strip()
            if text and not text.startswith(CONTEXT_PREFIXES):
                return text
        return None

    @property
    def session(self) -> SessionMeta | None:
        item = self.record.item if self.record else None
        return item if isinstance(item, SessionMeta) else None


def analyze_line(line: str, extra_secrets: tuple[re.Pattern[str], ...] = ()) -> LineAnalysis:
    """The analysis of one line of a rollout (its spans on line 0)."""
    if not line.strip():
        return LineAnalysis("blank")
    secrets = tuple(Finding(SECRET, f"{s.kind} in the transcript: redact it before sharing",
                            Span(0, s.start, s.end)) for s in find_secrets(line, extra_secrets))
    # a BOM is whitespace to a reader of the file; JSON allows a space in its place
    text = " " + line[1:] if line.startswith("\ufeff") else line
    problem = None
    try:
        value = json.loads(text)
        record = parse_record(value)
    except json.JSONDecodeError as error:
        at = min(error.pos, len(line))
        problem = Finding(INVALID_JSON, f"not JSON: {error.msg}", Span(0, at, at + 1 if at < len(line) else at))
    except RecordShapeError as error:
        problem = Finding(RECORD_SHAPE, str(error), _path_span(text, error.loc))
    except RecursionError:
        problem = Finding(INVALID_JSON, "JSON nested too deeply to read", Span(0, 0, len(line)))
    if problem is not None:
        return LineAnalysis("invalid", findings=tuple(sorted((problem, *secrets), key=_order)))
    fields: dict[str, Any] = {"kind": record.kind, "record": record, "findings": []}
    _read_record(text, record, fields)
    fields["findings"] = tuple(sorted(fields["findings"] + list(secrets), key=_order))
    return LineAnalysis(**fields)


def _order(finding: Finding) -> tuple:
    return finding.span.start, finding.span.end, finding.code


def _path_span(line: str, path: tuple) -> Span:
    if path:
        found = locate(line, [path])
        if path in found:
            start, end = found[path]
            return Span(0, start, end)
    return Span(0, 0, len(line))


def _read_record(line: str, record: Record, fields: dict[str, Any]) -> None:
    """Fills ``fields`` (of a :class:`LineAnalysis`) from one record."""
    item = record.item
    if isinstance(item, Message):
        fields["text"] = item.text()
    elif isinstance(item, (FunctionCallOutput, CustomToolCallOutput)):
        # the output's texts live on in ``output``; the record need not hold them a second time
        fields.update(call_id=item.call_id, output=read_output(item.output), record=record.without_item())
    elif isinstance(item, CustomToolCall):
        fields.update(call_id=item.call_id, name=item.name, text=item.input)
        if item.name == "exec" and item.namespace in EXEC_NAMESPACES:
            _read_exec(line, fields, item.input)
        elif item.name == "apply_patch":
            _read_top_patch(line, fields, item.input, ("payload", "input"))
    elif isinstance(item, FunctionCall):
        fields.update(call_id=item.call_id, name=item.name, text=item.arguments)
        _read_function_call(line, fields, item)
    elif isinstance(item, LocalShellCall):
        command = item.action.command
        text = command if isinstance(command, str) else shlex.join(command)
        call = ToolCall("local_shell", COMMAND, 0, len(line), command=text,
                        workdir=item.action.working_directory, executed="yes", source=text)
        fields.update(call_id=item.call_id, name="local_shell", calls=(call,), text=text)


def read_output(body: Any) -> ToolOutput:
    """An output body, read as an exec output when it starts with a status header."""
    first = body if isinstance(body, str) else next(
        (getattr(i, "text", None) for i in body if getattr(i, "text", None) is not None), None) \
        if isinstance(body, list) else None
    if first is not None and _STATUS_HEADER.match(first):
        return read_exec_output(body)
    return read_call_output(body)


def call_id_span(line: str) -> Span | None:
    """Where a record's ``call_id`` value is (asked only for the few calls that need it)."""
    found = locate(line, [("payload", "call_id")])
    span = found.get(("payload", "call_id"))
    return Span(0, span[0], span[1]) if span else None


def _read_exec(line: str, fields: dict[str, Any], source: str) -> None:
    found = locate(line, [("payload", "input")])
    if ("payload", "input") not in found:
        return
    raw_start, raw = string_content(line, found[("payload", "input")])
    escapes = EscapeMap(raw, raw_start)
    script = ExecScript(source)
    result = find_calls(script)

    def span(start: int, end: int) -> Span:
        return escapes.span(0, start, end)

    fields["calls"] = tuple(replace(c, start=escapes.start(c.start), end=escapes.end(c.end)) for c in result.calls)
    fields["findings"].extend(_from_note(n, span) for n in result.notes)
    problem = script.syntax_problem
    if problem is not None:
        fields["findings"].append(Finding(SCRIPT_SYNTAX, problem.message, span(problem.start, problem.end)))
        if problem.refused:  # V8 refuses the module before any of it runs: no call of it ran
            fields["calls"] = tuple(replace(c, executed="no") for c in fields["calls"])
    fields.update(script=source, script_map=escapes, is_exec=True)


def _from_note(note: Note, span) -> Finding:
    related = tuple(Related(span(s, e), message) for s, e, message in note.related)
    return Finding(note.code, note.message, span(note.start, note.end), related)


def _read_top_patch(line: str, fields: dict[str, Any], text: str, path: tuple) -> None:
    patch = parse_patch(text)
    found = locate(line, [path])
    whole = Span(0, 0, len(line))
    escapes = None
    if path in found:
        raw_start, raw = string_content(line, found[path])
        escapes = EscapeMap(raw, raw_start)
    for error in patch.errors:
        where = escapes.span(0, error.offset, error.offset + error.length) if escapes else whole
        fields["findings"].append(Finding(PATCH_SYNTAX, f"patch line {error.line + 1}: {error.message}", where))
    fields["calls"] = (ToolCall(fields.get("name"), PATCH, 0, len(line), files=patch.files, patch=text,
                                executed="yes", source=text),)


def _read_function_call(line: str, fields: dict[str, Any], item: FunctionCall) -> None:
    whole = (0, len(line))
    try:
        args = json.loads(item.arguments) if item.arguments.strip() else {}
    except (ValueError, RecursionError):
        args = None
    if not isinstance(args, dict):
        fields["findings"].append(Finding(RECORD_SHAPE, "payload.arguments: must be a JSON object in a string",
                                          _path_span(line, ("payload", "arguments"))))
        if item.name in COMMAND_FUNCTIONS:  # a command call whose command cannot be read
            fields["calls"] = (ToolCall(item.name, COMMAND, *whole, executed="yes", source=item.arguments),)
        return
    if item.name in COMMAND_FUNCTIONS:
        raw = args.get("cmd", args.get("command"))
        command = raw if isinstance(raw, str) else shlex.join(raw) \
            if isinstance(raw, list) and all(isinstance(a, str) for a in raw) else None
        workdir = args.get("workdir", args.get("cwd"))
        other = {k: v for k, v in args.items() if k not in ("cmd", "command", "workdir", "cwd")}
        fields["calls"] = (ToolCall(item.name, COMMAND, *whole, command=command,
                                    workdir=workdir if isinstance(workdir, str) else None, arguments=other,
                                    executed="yes", source=item.arguments, json_arguments=True),)
    elif item.name == "apply_patch" and isinstance(args.get("input"), str):
        # the patch sits JSON-encoded inside the JSON string ``arguments``: point at the arguments
        patch = parse_patch(args["input"])
        where = _path_span(line, ("payload", "arguments"))
        fields["findings"].extend(Finding(PATCH_SYNTAX, f"patch line {e.line + 1}: {e.message}", where)
                                  for e in patch.errors)
        fields["calls"] = (ToolCall(item.name, PATCH, *whole, files=patch.files, patch=args["input"],
                                    executed="yes", source=args["input"]),)
    # any other top-level function call (wait, update_plan, an MCP tool) stays a call record, paired with its
    # output, without a tool call of its own: the top-level calls are those that run commands or patches


__all__ = ["LineAnalysis", "analyze_line", "call_id_span", "read_output"]
