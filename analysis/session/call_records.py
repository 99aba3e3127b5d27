"""The call records of one line, read (for :mod:`analysis.session.record_analysis`): a function call's
command, patch or tool arguments, an exec script's calls and early errors, a freeform patch, a hosted tool's
``*_call`` and ``*_output`` items.  Spans are on line 0.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from json.encoder import encode_basestring  # the C encoder json.dumps uses
from typing import Any

from ..jsonl.findings import PATCH_SYNTAX, RECORD_SHAPE, SCRIPT_SYNTAX, Finding, Related
from ..jsonl.jsonspans import locate, string_content
from ..jsonl.lazy_pattern import lazy
from ..jsonl.positions import EscapeMap, Span
from ..script.calls import COMMAND, PATCH, TOOL, Note, ToolCall, find_calls
from ..script.module_syntax import syntax_problem
from ..script.patch import parse_patch
from ..script.script import ExecScript
from ..script.tool_names import split_tool
from .outputs import ToolOutput
from .records import FunctionCall, OtherItem

# the top-level functions that run a command, and the one argument that holds it
COMMAND_ARGUMENT = {"exec_command": "cmd", "shell_command": "command", "shell": "command", "container.exec": "command"}
COMMAND_FUNCTIONS = frozenset(COMMAND_ARGUMENT)


def _path_span(line: str, path: tuple) -> Span:
    if path:
        found = locate(line, [path])
        if path in found:
            start, end = found[path]
            return Span(0, start, end)
    return Span(0, 0, len(line))


def read_other_item(line: str, item: OtherItem, fields: dict[str, Any]) -> None:
    """Any other ``*_call`` record is a call (``web_search_call``, ``tool_search_call``, …); any
    ``*_output`` with a ``call_id`` an output."""
    kind = item.type
    extra = item.model_extra or {}
    call_id = extra.get("call_id") if isinstance(extra.get("call_id"), str) else None
    if kind.endswith("_call"):
        tool = kind[: -len("_call")]
        arguments = _call_arguments(extra)
        status = extra.get("status") if isinstance(extra.get("status"), str) else None
        call = ToolCall(
            tool,
            TOOL,
            0,
            len(line),
            arguments=arguments,
            executed="yes",
            source=json.dumps(arguments, ensure_ascii=False),
        )
        fields.update(
            call_id=call_id, name=tool, calls=(call,), is_call=True, text=json.dumps(arguments, ensure_ascii=False)
        )
        if call_id is None and status is not None:  # no output record follows: the record says how it ended
            fields["output"] = ToolOutput(status, None, ())
    elif kind.endswith("_output") and call_id is not None:
        status = extra.get("status") if isinstance(extra.get("status"), str) else "completed"
        body = {k: v for k, v in extra.items() if k not in ("id", "call_id", "status", "execution")}
        fields.update(
            call_id=call_id,
            is_output=True,
            output=ToolOutput(status, None, (json.dumps(body, ensure_ascii=False)[:4000],)),
        )


def _call_arguments(extra: dict[str, Any]) -> dict[str, Any]:
    """What a hosted call was asked: a web search's query or page, a tool search's arguments."""
    arguments = extra.get("arguments")
    if isinstance(arguments, dict):
        return arguments
    action = extra.get("action")
    if isinstance(action, dict):
        out = {k: v for k, v in action.items() if k != "type"}
        if isinstance(action.get("type"), str):
            out = {"action": action["type"], **out}
        return out
    return {k: v for k, v in extra.items() if k not in ("id", "call_id", "status", "execution")}


def tool_name(name: str, namespace: str | None) -> str:
    """A tool's name as code mode names it (reference §7.5): ``functions`` (the namespace of every plain tool) is
    left out; any other namespace is joined to the name, with nothing after a namespace ending in ``_`` (MCP's
    ``mcp__server__``) or before a name starting with one, else with ``__``: ``multi_agent_v1__spawn_agent``
    (0.147 and later), the name a script calls it by.  Shown as Codex shows it, ``multi_agent_v1 ·
    spawn_agent``, by :func:`analysis.script.tool_names.shown_tool`."""
    if not namespace or namespace == "functions" or name.startswith(namespace):
        return name
    return namespace + name if namespace.endswith("_") or name.startswith("_") else f"{namespace}__{name}"


def bare_tool_name(name: str | None) -> str | None:
    """``spawn_agent`` of ``multi_agent_v1__spawn_agent``: the tool without its namespace."""
    return split_tool(name)[1] if name else name


def call_id_span(line: str) -> Span | None:
    """Where a record's ``call_id`` value is (asked only for the few calls that need it)."""
    found = locate(line, [("payload", "call_id"), ("call_id",)])  # ("call_id",): an envelope-less line
    span = found.get(("payload", "call_id")) or found.get(("call_id",))
    return Span(0, span[0], span[1]) if span else None


_INPUT = ("payload", "input")
# a freeform call's line as Codex writes it, up to its input: the envelope's timestamp and type, then the
# payload's members that are plain strings (no escape, none named input), in one match
_INPUT_HEAD = lazy(
    r'\{"timestamp":"[^"\\]*","type":"response_item","payload":\{(?:"(?!input")[^"\\]*":"[^"\\]*",)*"input":'
)


def input_span(line: str, text: str) -> tuple[int, int] | None:
    """Where the payload's ``input`` string is in ``line`` (a line the JSON decoder read; ``text``: that string
    decoded), exactly as ``locate(line, [("payload", "input")])`` finds it, or None.  A line written as Codex
    writes it is not walked (the walk decoded every member again, about 100,000 instructions an exec line): its
    head is matched up to the input, the input is written back as json writes a string and compared in place,
    and what follows it holds no escape and no ``"input"`` or ``"payload"`` (so no later member of either name,
    which would be the one the decoder kept and the walk finds); any other line is walked."""
    head = _INPUT_HEAD.match(line)
    if head is not None:
        start = head.end()
        raw = encode_basestring(text)
        end = start + len(raw)
        if line.startswith(raw, start):
            tail = line[end:]
            if "\\" not in tail and '"input"' not in tail and '"payload"' not in tail:
                return start, end
    return locate(line, [_INPUT]).get(_INPUT)


def read_exec(line: str, fields: dict[str, Any], source: str, lean: bool = False) -> None:
    """An exec script's calls and findings; ``lean``: its calls as the stream keeps them
    (:func:`analysis.script.calls.find_calls`), without the script and its escape map (the stream drops both)."""
    found = input_span(line, source)
    if found is None:
        return
    raw_start, raw = string_content(line, found)
    escapes = EscapeMap(raw, raw_start)
    script = ExecScript(source)
    # the calls are made at their columns in the line (the escape map keeps their order)
    result = find_calls(script, lambda start, end: (escapes.start(start), escapes.end(end)), lean=lean)

    def span(start: int, end: int) -> Span:
        return escapes.span(0, start, end)

    fields["calls"] = tuple(result.calls)
    fields["findings"].extend(_from_note(n, span) for n in result.notes)
    problem = syntax_problem(script)
    if problem is not None:
        fields["findings"].append(Finding(SCRIPT_SYNTAX, problem.message, span(problem.start, problem.end)))
        if problem.refused:  # V8 refuses the module before any of it runs: no call of it ran
            fields["calls"] = tuple(replace(c, executed="no") for c in fields["calls"])
    if lean:
        fields["is_exec"] = True
    else:
        fields.update(script=source, script_map=escapes, is_exec=True)


def _from_note(note: Note, span) -> Finding:
    related = tuple(Related(span(s, e), message) for s, e, message in note.related)
    return Finding(note.code, note.message, span(note.start, note.end), related)


def read_top_patch(line: str, fields: dict[str, Any], text: str, path: tuple, lean: bool = False) -> None:
    """A freeform ``apply_patch`` call; ``lean``: its call as the stream keeps it, without the patch's text."""
    patch = parse_patch(text)
    span = input_span(line, text) if path == _INPUT else locate(line, [path]).get(path)
    whole = Span(0, 0, len(line))
    escapes = None
    if span is not None:
        raw_start, raw = string_content(line, span)
        escapes = EscapeMap(raw, raw_start)
    for error in patch.errors:
        where = escapes.span(0, error.offset, error.offset + error.length) if escapes else whole
        fields["findings"].append(Finding(PATCH_SYNTAX, f"patch line {error.line + 1}: {error.message}", where))
    if lean:  # what analysis.reports.stream.thinning keeps of it: no copy made there
        fields["calls"] = (ToolCall(fields.get("name"), PATCH, 0, len(line), files=patch.files, executed="yes"),)
        return
    fields["calls"] = (
        ToolCall(fields.get("name"), PATCH, 0, len(line), files=patch.files, patch=text, executed="yes", source=text),
    )


def read_function_call(line: str, fields: dict[str, Any], item: FunctionCall, prefix: tuple = ("payload",)) -> None:
    whole = (0, len(line))
    name = fields["name"]
    try:
        args = json.loads(item.arguments) if item.arguments.strip() else {}
    except (ValueError, RecursionError):
        args = None
    if not isinstance(args, dict):
        fields["findings"].append(
            Finding(
                RECORD_SHAPE,
                "payload.arguments: must be a JSON object in a string",
                _path_span(line, (*prefix, "arguments")),
            )
        )
        kind = COMMAND if name in COMMAND_FUNCTIONS else PATCH if name == "apply_patch" else TOOL
        fields["calls"] = (ToolCall(name, kind, *whole, executed="yes", source=item.arguments),)
        return
    if name in COMMAND_FUNCTIONS:
        key = COMMAND_ARGUMENT[name]
        raw = args.get(key)
        # exec_command and shell_command take a shell command line; shell and container.exec an argv
        command = (
            raw
            if isinstance(raw, str)
            else shlex.join(raw)
            if isinstance(raw, list) and raw and all(isinstance(a, str) for a in raw)
            else None
        )
        workdir = args.get("workdir")
        other = {k: v for k, v in args.items() if k not in (key, "workdir")}
        fields["calls"] = (
            ToolCall(
                name,
                COMMAND,
                *whole,
                command=command,
                workdir=workdir if isinstance(workdir, str) else None,
                arguments=other,
                executed="yes",
                source=item.arguments,
                json_arguments=True,
            ),
        )
    elif name == "apply_patch" and isinstance(args.get("input"), str):
        # the patch sits JSON-encoded inside the JSON string ``arguments``: point at the arguments
        patch = parse_patch(args["input"])
        where = _path_span(line, (*prefix, "arguments"))
        fields["findings"].extend(
            Finding(PATCH_SYNTAX, f"patch line {e.line + 1}: {e.message}", where) for e in patch.errors
        )
        fields["calls"] = (
            ToolCall(name, PATCH, *whole, files=patch.files, patch=args["input"], executed="yes", source=args["input"]),
        )
    else:  # wait, write_stdin, update_plan, an MCP tool, …: a tool call with its decoded arguments
        fields["calls"] = (
            ToolCall(name, TOOL, *whole, arguments=args, executed="yes", source=item.arguments, json_arguments=True),
        )
