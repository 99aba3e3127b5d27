"""How a call reads on one row, the same in the Outline, the command line, workspace symbols and the export:
its outcome (``exit 1``, ``interrupted (exit 130)``, ``dead``, …) and its label (the tool and the argument
that identifies the call: a command, a patch's actions per file, a path, a query, a task name).

A continued process is one call: the ``write_stdin`` and ``wait`` records that carry it on are its chunks
(:func:`continued_from`), and take no outcome of their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..jsonl.findings import SCRIPT_SYNTAX
from ..jsonl.memo import once_per_object
from ..script.calls import COMMAND, PATCH, ToolCall
from .continuations import CallOutput
from .durations import seconds  # re-exported: the one format of a duration
from .events import EXEC_END
from .outputs import WRITE_FAILED, readable_text, thrown_exit
from .rollout import LocatedCall, RolloutAnalysis
from .script_errors import script_error

# exit codes a shell gives a process ended by a signal, and the word a reader knows it by; 124 is the code
# of `timeout` and the one Codex gives a command it stopped at its timeout ("command timed out after …")
_SIGNALS = {124: "timed out", 130: "interrupted", 137: "killed", 143: "terminated"}
ENCRYPTED_PREFIX = "gAAAAA"  # a Fernet token: the message a parent sent a subagent, encrypted


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a call ended, in the words every view uses.  ``failed`` counts it among a turn's failed calls."""

    text: str  # "exit 1", "interrupted (exit 130)", "timed out (exit 124)", "failed", "running", "dead", …
    failed: bool = False
    exit_code: int | None = None

    @property
    def mark(self) -> str:
        """``[exit 1] `` before a row's label."""
        return f"[{self.text}] "


DEAD = Outcome("dead")
NEVER_RAN = Outcome("never ran")  # the script V8 refused: nothing of it ran
NOT_RUN = Outcome("not run: the script failed before it")
FAILED_AT = Outcome("the script failed at or before it")  # the first call after the last one reported
RUNNING = Outcome("running")
NO_OUTPUT = Outcome("no output")
WRITE_FAILED_OUTCOME = Outcome("write failed")  # a write_stdin that could not write: not a failed command
FAILED = Outcome("failed", failed=True)
OK = Outcome("ran")  # an expansion's command an event reports as exiting 0


def exit_outcome(code: int) -> Outcome:
    """``exit 1``, ``interrupted (exit 130)``, ``timed out (exit 124)``."""
    word = _SIGNALS.get(code)
    return Outcome(f"{word} (exit {code})" if word else f"exit {code}", True, code)


@once_per_object
def continued_from(analysis: RolloutAnalysis) -> dict[int, int]:
    """The line of each ``write_stdin`` / ``wait`` record that carries on another call → that call's line."""
    return {c: line for line, output in analysis.record_outputs.items() for c in output.continued_by}


def output_outcome(output: CallOutput | None, call_id: str | None) -> Outcome | None:
    """What a call record's output (followed through its continuations) says of how it ended."""
    if output is None:
        return NO_OUTPUT if call_id else None
    if output.exit_code not in (None, 0):
        return exit_outcome(output.exit_code)
    if output.status == "failed":
        return FAILED
    if output.status == "terminated":
        return Outcome("terminated", failed=True)
    if output.status == "running":
        # a failed write_stdin says only that writing failed: the process did not end
        return Outcome(f"running; {output.write_error}") if output.write_error else RUNNING
    if output.status == WRITE_FAILED:
        return WRITE_FAILED_OUTCOME
    return None


def located_outcome(located: LocatedCall) -> Outcome | None:
    """How one call ended as the call alone tells (its output, its event, dead code), without the rest of
    the session: what a streamed reading can say (``outline --json``)."""
    record, call = located.record, located.call
    if not record.is_exec:
        outcome = output_outcome(located.output, record.call_id)
        if outcome is None and located.event is not None and located.event[1].success is False:
            return FAILED  # an MCP tool that answered with an error
        return outcome
    if call.executed == "no":
        return NEVER_RAN if any(f.code == SCRIPT_SYNTAX for f in record.findings) else DEAD
    if located.event is not None:
        event = located.event[1]
        if event.exit_code not in (None, 0):
            return exit_outcome(event.exit_code)
        return FAILED if event.success is False else None
    output = located.output
    if output is not None and output.exit_code not in (None, 0):  # the script's only result block is its
        return exit_outcome(output.exit_code)
    # the script threw a command's result, and this call is the one command it can be (one call, one run)
    thrown = thrown_exit(output.output.error) if output is not None and output.status == "failed" else None
    if thrown not in (None, 0) and call.kind == COMMAND and not call.expansion and len(record.calls) == 1:
        return exit_outcome(thrown)
    # the script ended with its one call's own failure: the call says why (``rejected: blocked by policy``)
    reason = script_error(output.output.error) if output is not None and output.status == "failed" else None
    if reason is not None and call.kind in (COMMAND, PATCH) and not call.expansion and len(record.calls) == 1:
        return Outcome(reason, failed=True)
    return None


# the header of a unified exec output (its facts are the call's outcome, time and continuations): a chunk
# shows what the process printed
_CHUNK_HEADER = re.compile(
    r"\A(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process [^\n]*\n)?"
    r"(?:Original token count: [^\n]*\n)?Output:\n"
)


def output_chunks(analysis: RolloutAnalysis, output: CallOutput) -> list[tuple[int, str]]:
    """(output line, what it printed) of every chunk of a continued process (or cell), in order: the call's
    own output, then each ``write_stdin`` / ``wait`` continuation's; one chunk for a call not continued."""
    first = output.first_line if output.first_line is not None else output.line
    lines = [first] + [n for n in (analysis.output_of(c) for c in output.continued_by) if n is not None]
    out = []
    for line in lines:
        own = analysis.records[line].output
        text = readable_text(own) if own is not None else ""
        out.append((line, _CHUNK_HEADER.sub("", text, count=1) if output.continued_by else text))
    return out


def record_outcome(analysis: RolloutAnalysis, line: int) -> Outcome | None:
    """How a call record ended (an exec record: its script), or None when it ended well or is a chunk of
    a continued process (the call it continues carries the outcome).  A script that failed at one of its
    calls, which says how, is ``failed at its call`` (:func:`_failed_at`)."""
    record = analysis.records[line]
    if line in continued_from(analysis):
        return None
    if not record.is_exec:
        calls = analysis.calls_on(line)
        if calls:
            return located_outcome(calls[0])
    outcome = output_outcome(analysis.record_output(line), record.call_id)
    if outcome is FAILED and record.is_exec:
        return _failed_at(analysis, line) or outcome
    return outcome


def _failed_at(analysis: RolloutAnalysis, line: int) -> Outcome | None:
    """A failed script whose one failed call says why (its error, its exit code): ``failed at its call``
    (``failed at its call 2`` among several), so that the exec row says where the failure is and the call
    what it is: one failure, told once.  None when no call, or more than one, failed."""
    calls = analysis.calls_on(line)
    failed = [n for n, c in enumerate(calls, 1) if (o := call_outcome(analysis, c)) is not None and o.failed]
    if len(failed) != 1:
        return None
    return Outcome("failed at its call" + (f" {failed[0]}" if len(calls) > 1 else ""), failed=True)


def call_outcome(analysis: RolloutAnalysis, located: LocatedCall) -> Outcome | None:
    """How one call ended: a top-level call as its record; a call in a script as its event or its own
    result block says, that it never ran, or that the script failed before it.  None when it ended well
    or nothing tells."""
    if not located.record.is_exec:
        return record_outcome(analysis, located.line)
    outcome = located_outcome(located)
    output = located.output
    if (
        outcome is None
        and output is not None
        and output.status == "failed"
        and located.call.kind in (COMMAND, PATCH)
        and _reports_nested(analysis)
    ):
        unreported = _unreported_tail(analysis, located)
        if unreported and located.index in unreported:
            return FAILED_AT if located.index == unreported[0] else NOT_RUN
    return outcome


def expansion_outcomes(analysis: RolloutAnalysis, located: LocatedCall) -> list[Outcome | None]:
    """How each exact command of a known expansion ended, where an ``exec_command_end`` event written during
    its script's run (and paired with no other call) names that command; None where nothing tells."""
    expansion = located.call.expansion or ()
    if not expansion or not located.record.is_exec:
        return [None] * len(expansion)
    output = located.output
    last = output.line if output is not None else len(analysis.records) - 1
    free: dict[str, list] = {}
    for line, event in analysis.events:
        if (
            located.line < line <= last
            and event.type == EXEC_END
            and event.nested
            and event.command
            and line not in analysis.matched_events
        ):
            free.setdefault(event.command[-1], []).append(event)
    out: list[Outcome | None] = []
    for command in expansion:
        events = free.get(command)
        if not events:
            out.append(None)
            continue
        event = events.pop(0)
        out.append(exit_outcome(event.exit_code) if event.exit_code not in (None, 0) else OK)
    return out


@once_per_object
def _reports_nested(analysis: RolloutAnalysis) -> bool:
    """Whether this rollout writes an event for the calls made inside scripts (Codex versions differ)."""
    return any(e.nested for _, e in analysis.events)


def _unreported_tail(analysis: RolloutAnalysis, located: LocatedCall) -> list[int]:
    """The indexes of a script's commands and patches after the last call an event reports, in source order:
    the first may be where the script failed (or it failed before it), the others never ran."""
    calls = analysis.calls_on(located.line)
    last = max((c.index for c in calls if c.event is not None), default=-1)
    return [c.index for c in calls if c.index > last and c.call.kind in (COMMAND, PATCH) and c.call.executed != "no"]


def failed_count(analysis: RolloutAnalysis, first: int = 0, last: int | None = None) -> int:
    """How many calls failed between lines ``first`` and ``last``: call records and calls in scripts."""
    return len(failures(analysis, first, last))


def failures(analysis: RolloutAnalysis, first: int = 0, last: int | None = None) -> list[tuple[int, str]]:
    """(line, outcome text) of each failed call between lines ``first`` and ``last``, in order: an exec
    record's failed calls, or the record itself when none of its calls is known to have failed."""
    last = len(analysis.records) - 1 if last is None else last
    out = []
    for line in analysis.call_records:
        if not first <= line <= last:
            continue
        nested: list[tuple[int, str]] = []
        if analysis.records[line].is_exec:
            for located in analysis.calls_on(line):
                outcome = call_outcome(analysis, located)
                if outcome is not None and outcome.failed:
                    nested.append((line, outcome.text))
        outcome = record_outcome(analysis, line)
        if nested:  # a failed call counts once: its command, not the exec record it failed too
            out.extend(nested)
        elif outcome is not None and outcome.failed:
            out.append((line, outcome.text))
    return out


# -- labels ---------------------------------------------------------------------------------------------------
# the arguments that identify a call, most telling first (a path before a query before a name)
_KEY_ARGUMENTS = (
    "task_name",
    "path",
    "file_path",
    "paths",
    "uri",
    "url",
    "query",
    "queries",
    "q",
    "search_query",
    "pattern",
    "command",
    "cmd",
    "name",
    "libraryName",
    "context7CompatibleLibraryID",
    "target",
    "targets",
    "agent_id",
    "id",
    "ids",
    "ref_id",
    "open",
    "click",
    "find",
    "session_id",
    "sessionId",
    "cell_id",
    "pid",
    "questions",
    "message",
    "thought",
    "input",
)
LABEL_LIMIT = 120


def patch_actions(files) -> str:
    """``delete a.py, add a.py, update b.py → c.py``: what a patch does, per file, in its order."""
    return ", ".join(f"{f.action} {f.path}" + (f" → {f.move_to}" if f.move_to else "") for f in files)


def key_argument(call: ToolCall) -> str | None:
    """What identifies a call beyond its tool: its command, its patch's actions, a path or query argument,
    a subagent's task name or the start of its message (an encrypted one says so), an image's path."""
    if call.kind == COMMAND:
        if call.command is not None:
            return call.command
        if call.expansion:
            return f"{len(call.expansion)} commands: {call.expansion[0]} …"
        return f"computed: {call.computed_expression}" if call.computed_expression else "computed command"
    if call.kind == PATCH:
        if call.files:
            return patch_actions(call.files)
        return f"computed: {call.computed_expression}" if call.computed_expression else None
    arguments = call.arguments
    if call.namespace and not call.namespace.startswith("mcp__") and call.key_argument is not None:
        return _namespaced_key(call)
    if call.tool == "write_stdin":
        chars = arguments.get("chars")
        typed = f" {json.dumps(chars, ensure_ascii=False)}" if isinstance(chars, str) and chars else ""
        return f"session {arguments.get('session_id')}{typed}"
    if call.tool == "wait" and "cell_id" in arguments:
        return f"cell {arguments['cell_id']}"
    if call.tool == "web_search" or "action" in arguments and isinstance(arguments.get("action"), str):
        return _web_action(arguments)
    if call.tool == "spawn_agent":
        return _spawn(arguments)
    if call.tool == "update_plan" and isinstance(arguments.get("plan"), list):
        steps = arguments["plan"]
        return f"{len(steps)} step{'s' if len(steps) != 1 else ''}"
    if call.computed and not arguments:
        return f"computed: {call.computed_expression}" if call.computed_expression else None
    for key in _KEY_ARGUMENTS:
        if key in arguments:
            value = _value_text(arguments[key])
            if value:
                return value if key in ("path", "file_path", "command", "cmd", "input") else f"{key}: {value}"
    return None


def _namespaced_key(call: ToolCall) -> str | None:
    """The key argument of a namespaced tool (``multi_agent_v1 · spawn_agent``): a spawn's task name or message,
    a wait's targets, a web run's queries; ``targets: computed`` when the script computes it at run time."""
    key = call.key_argument
    if call.key_computed is not None:
        return f"{key}: computed"
    if call.bare_tool == "spawn_agent":
        return _spawn(call.arguments)
    text = _value_text(call.key_value)
    return f"{key}: {text}" if text else None


def _web_action(arguments: dict[str, Any]) -> str | None:
    """``search "codex hooks"``, ``open_page https://…``, ``find_in_page "pattern" in https://…``."""
    action = arguments.get("action") if isinstance(arguments.get("action"), str) else None
    query = arguments.get("query") or arguments.get("queries")
    url, pattern = arguments.get("url"), arguments.get("pattern")
    words = [action] if action and action != "other" else []
    if pattern:
        words.append(json.dumps(pattern, ensure_ascii=False))
    if query:
        words.append(_value_text(query) if not isinstance(query, str) else json.dumps(query, ensure_ascii=False))
    if url:
        words.append(("in " if pattern else "") + str(url))
    return " ".join(words) or None


def _spawn(arguments: dict[str, Any]) -> str | None:
    """A subagent's task name, else the start of the message it was given (an encrypted one says so)."""
    name = arguments.get("task_name") or arguments.get("agent_type")
    message = arguments.get("message")
    encrypted = isinstance(message, str) and message.startswith(ENCRYPTED_PREFIX)
    if isinstance(name, str) and name:
        return name + (" (message encrypted)" if encrypted else "")
    if encrypted:
        return "message encrypted"
    return _value_text(message) if message else None


def _value_text(value: Any) -> str:
    """An argument's value on one line: a string as it is, a list by its first element and a count, an
    object by its first string."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, list):
        if not value:
            return ""
        first = _value_text(value[0])
        return first + (f" (+{len(value) - 1})" if len(value) > 1 else "")
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, str) and item:
                return " ".join(item.split())
        return ""
    return json.dumps(value, ensure_ascii=False)


def call_label(call: ToolCall, mask: Callable[[str], str] = str, limit: int = LABEL_LIMIT) -> str:
    """``exec_command: pwd && rg …``, ``apply_patch: delete a.py, add a.py``, ``mcp__fs__write_file: /a.txt``;
    the tool alone when nothing identifies the call further.  A tool name is never repeated."""
    tool = (call.shown_tool if call.namespace and not call.namespace.startswith("mcp__") else call.tool) or (
        "computed tool" if call.kind != COMMAND else "computed command tool"
    )
    if call.tool is None and call.chosen_from:
        tool = f"a tool chosen from {call.chosen_from}"
    if call.tool is None and call.expansion_tools:
        tool = "/".join(dict.fromkeys(call.expansion_tools))
    key = key_argument(call)
    key = " ".join(mask(key).split()) if key else ""
    if not key or key == tool:
        text = tool
    elif key.startswith(tool + " "):
        text = key
    else:
        text = f"{tool}: {key}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def expansion_labels(call: ToolCall, mask: Callable[[str], str] = str, limit: int = LABEL_LIMIT) -> list[str]:
    """Each exact command of a known expansion as its own row: ``exec_command: ls a``."""
    if not call.expansion:
        return []
    tools = call.expansion_tools or (call.tool or "command",) * len(call.expansion)
    out = []
    for tool, command in zip(tools, call.expansion):
        text = f"{tool}: {' '.join(mask(command).split())}"
        out.append(text if len(text) <= limit else text[: limit - 1] + "…")
    return out


def turn_status(turn: Any) -> str | None:
    """A turn's status when it did not simply complete (``interrupted``, ``rolled back``, …), from the
    ``status`` a :class:`~analysis.session.turns.Turn` carries when its reading knows it; None otherwise."""
    status = getattr(turn, "status", None)
    if not isinstance(status, str) or status in ("", "completed"):
        return None
    return getattr(turn, "outcome", None) or status  # in words: "failed: unauthorized — …", "rolled back"


def turn_label(number: int, line: int) -> str:
    """``turn 2 (line 125)``: a turn's ordinal (from 1) and the line it starts on (from 1), everywhere."""
    return f"turn {number} (line {line + 1})"


__all__ = [
    "DEAD",
    "ENCRYPTED_PREFIX",
    "FAILED",
    "FAILED_AT",
    "OK",
    "NEVER_RAN",
    "NOT_RUN",
    "NO_OUTPUT",
    "Outcome",
    "RUNNING",
    "call_label",
    "call_outcome",
    "continued_from",
    "exit_outcome",
    "expansion_labels",
    "expansion_outcomes",
    "failed_count",
    "failures",
    "key_argument",
    "located_outcome",
    "output_chunks",
    "output_outcome",
    "patch_actions",
    "record_outcome",
    "seconds",
    "turn_label",
    "turn_status",
]
