"""Tool calls of an exec script: which tool, with what exactly, and whether it can run.

Calls are found in the tree-sitter syntax tree, never by scanning text, so a call
quoted in a string, comment, template text or regex is not a call.  Each call is
read by the modules of one concept each: which callees are tools
(:mod:`analysis.script.callees`), the argument and patch values (:mod:`analysis.script.arguments`),
exact constant values (:mod:`analysis.script.values`), the runs a constant array drives
(:mod:`analysis.script.expansions`), and whether it can or must run
(:mod:`analysis.script.reachability`).

Arguments are read only when exactly known; anything else is *computed*: the
command is None and the whole script stands for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from ..jsonl.findings import COMPUTED_COMMAND, DEAD_BRANCH, EXPANDED_COMMAND
from ..jsonl.pickling import pickled_by_fields
from .arguments import PatchReader, command_node, command_of, is_json, plain_string, read_arguments
from .arguments import plain_arguments as plain_object  # under the name tests switch the shortcut off by
from .callees import (
    ALL_TOOLS,
    ARGV_TOOLS,
    COMMAND,
    COMMAND_TOOLS,
    DYNAMIC,
    HELPERS,
    PATCH,
    TOOL,
    Callees,
    kind_of,
    may_name_a_tool,
)
from .dynamic import dynamic_notes
from .expansions import Expansions, Run
from .js_tree import FIELD_ARGUMENTS, FIELD_INDEX, TYPE_OF
from .notes import Note
from .patch import PatchFile
from .reachability import is_dead, runs_unconditionally
from .script import ExecScript
from .tool_names import SEPARATOR, key_argument, key_text, shown_tool, split_tool
from .values import constants_of, unwrap

# what _commands reads of an expanded call's run: the command under any command tool's key, and the workdir
_RUN_KEYS = (*sorted(set(COMMAND_TOOLS.values())), "workdir")


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: what it names and how it is known.  ``start``/``end`` are offsets in its text."""

    tool: str | None
    kind: str
    start: int
    end: int
    command: str | None = None
    workdir: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    files: tuple[PatchFile, ...] = ()
    patch: str | None = None
    computed: bool = False
    computed_expression: str | None = None
    expansion: tuple[str, ...] | None = None  # the exact commands, one per element of a constant array
    expansion_tools: tuple[str, ...] | None = None  # each element's tool, when the tool is chosen per element
    # where each element of the expansion's array is written (offsets as start/end), when each is known
    expansion_spans: tuple[tuple[int, int], ...] | None = None
    executed: str = "unknown"  # "yes", "no" (dead code) or "unknown"
    # runs whenever its script runs to completion: at the top level, unconditional, after nothing that
    # can skip it; with a completed output this makes ``executed`` "yes"
    unconditional: bool = False
    source: str = ""
    json_arguments: bool | None = None
    # the tool's namespace (``multi_agent_v1`` for ``multi_agent_v1__spawn_agent``, ``mcp__github`` for an MCP
    # tool); filled in from the tool's name when not given
    namespace: str | None = None
    # arguments whose value is not exactly known (computed at run time): key → the expression written;
    # such a key is absent from ``arguments``, which holds exact values only
    computed_arguments: dict[str, str] = field(default_factory=dict)
    # where a tool chosen at run time comes from: "ALL_TOOLS" for ``tools[t.name]`` with ``t`` one of ALL_TOOLS
    chosen_from: str | None = None

    def __post_init__(self) -> None:
        if self.namespace is None and self.tool is not None and SEPARATOR in self.tool:
            object.__setattr__(self, "namespace", split_tool(self.tool)[0])

    @property
    def bare_tool(self) -> str | None:
        """The tool's name inside its namespace (``spawn_agent``); the tool itself when it has none."""
        return split_tool(self.tool, self.namespace)[1]

    @property
    def shown_tool(self) -> str | None:
        """The tool as Codex shows it: ``multi_agent_v1 · spawn_agent``; a tool without a namespace as it is."""
        return shown_tool(self.tool, self.namespace)

    @property
    def key_argument(self) -> str | None:
        """The argument that identifies this call among calls of its tool (``task_name`` or ``message`` of a
        spawn, ``targets`` of a wait, ``search_query`` of ``web__run``, ``prompt`` of ``image_gen__imagegen``);
        its value is in :attr:`arguments`, or its expression in :attr:`computed_arguments`."""
        present = self.arguments.keys() | self.computed_arguments.keys() if self.computed_arguments else self.arguments
        return key_argument(self.bare_tool, present)

    @property
    def key_value(self) -> Any:
        """The key argument's exact value; None when there is none or it is computed (see :attr:`key_computed`)."""
        key = self.key_argument
        return self.arguments.get(key) if key is not None else None

    @property
    def key_computed(self) -> str | None:
        """The expression of a key argument computed at run time (``[spawned.agent_id]``), else None."""
        key = self.key_argument
        return self.computed_arguments.get(key) if key is not None else None

    @property
    def key_text(self) -> str | None:
        """The key argument's exact value in one line of plain words (``a, b`` for a list of targets, the
        queries of a web run), None when it has none or is computed."""
        return key_text(self.key_value)

    @property
    def label(self) -> str:
        """A short human name: the command, the patched files, or the tool."""
        if self.kind == COMMAND:
            if self.command is not None:
                return self.command
            if self.expansion:
                return f"{len(self.expansion)} commands from a list: {self.expansion[0]} …"
            return "computed command"
        if self.kind == PATCH:
            if self.files:
                return "patch " + ", ".join(f.path for f in self.files)
            return "patch"
        if self.tool == "write_stdin" and "chars" in self.arguments:
            return f"write_stdin {self.arguments.get('session_id')} {json.dumps(self.arguments['chars'])}"
        return self.tool or "computed tool"


@dataclass(slots=True)
class ScriptCalls:
    calls: list[ToolCall]
    notes: list[Note]


def find_calls(
    script: ExecScript,
    place: Callable[[int, int], tuple[int, int]] | None = None,
    short_path: bool = True,
    lean: bool = False,
) -> ScriptCalls:
    """Every tool call of ``script`` in source order, with the findings about them.  ``place`` maps a call's
    offsets in the script to where the call is to be reported (its columns in a document line); it must keep
    their order.  Notes stay at offsets of the script.

    A straight-line script (:mod:`analysis.script.straight_line`) takes the short path: no dead-code, path or
    expansion reading, which would find nothing.  ``short_path=False`` makes every script take the full path
    (the differential tests compare the two).

    ``lean``: each call without what the stream thins away (``analysis.reports.stream.thinning``: its source,
    patch text, computed expression, arguments and computed arguments, at their defaults), so neither those
    values are read nor a copy without them made; every other field, and every note, is what the full reading
    gives (``tests/script/test_lean_calls.py``)."""
    result = _CallReader(script, place, short_path and script.straight_line, lean).read()
    result.notes = sorted(result.notes + dynamic_notes(script), key=lambda n: (n.start, n.code))
    return result


@dataclass(frozen=True, slots=True)
class ToolSite:
    """Where a tool call sits in the tree: its callee, its tool (None when chosen at run time) and, for a
    patch whose text is a literal (directly or through one ``const``), that literal."""

    callee: Node
    tool: str | None
    patch_literal: Node | None = None


def tool_sites(script: ExecScript) -> list[ToolSite]:
    """The callees of every tool call of ``script`` in source order (for colouring and completion)."""
    constants = constants_of(script)
    callees = Callees(script, constants)
    patches = PatchReader(script, constants, lambda *note: None)
    sites = []
    for call, callee in script.call_sites():
        tool = callees.tool(callee)
        if tool is None:
            continue
        literal = None
        if tool == "apply_patch":
            literal = patches.literal_of(_first_argument(call))
        sites.append(ToolSite(callee, None if tool is DYNAMIC else tool, literal))
    return sites


def _first_argument(call: Node, arguments: Node | None = None, args: bool | None = None) -> Node | None:
    """The call's first argument; ``arguments`` and ``args`` (whether they are a list, not a template), when
    the caller read them already, are not read again."""
    if args is None:
        arguments = call.child_by_field_id(FIELD_ARGUMENTS)
        args = arguments is not None and TYPE_OF[arguments.kind_id] == "arguments"
    if not args or arguments is None:
        return None
    if not arguments.named_child_count:
        return None
    first = arguments.named_child(0)  # the usual case: no comment before it, no list of every argument made
    if first is None or TYPE_OF[first.kind_id] != "comment":
        return first
    return next((a for a in arguments.named_children if TYPE_OF[a.kind_id] != "comment"), None)


class _CallReader:
    """Reads every tool call of one script into :class:`ToolCall` records and :class:`Note` findings."""

    def __init__(
        self,
        script: ExecScript,
        place: Callable[[int, int], tuple[int, int]] | None = None,
        straight_line: bool = False,
        lean: bool = False,
    ) -> None:
        self.script = script
        self.place = place
        self.lean = lean  # see find_calls
        self.straight_line = straight_line  # take the short path (see find_calls)
        self.constants = constants_of(script)
        self.callees = Callees(script, self.constants)
        self.expansions = Expansions(script, self.constants, self.callees)
        self.calls: list[ToolCall] = []
        self.notes: list[Note] = []
        notes = self.notes  # not ``self.note``: a bound method held by a member would make a cycle

        def note(code: str, message: str, start: int, end: int, related: Iterable[tuple[int, int, str]] = ()) -> None:
            notes.append(Note(code, message, start, end, tuple(related)))

        self.note = note
        self.patches = PatchReader(script, self.constants, note)

    def read(self) -> ScriptCalls:
        if not may_name_a_tool(self.script.source):
            return ScriptCalls([], [])
        for call, callee in self.script.call_sites():
            tool = self.callees.tool(callee)
            if tool is not None:
                self.read_call(call, callee, tool)
        self.calls.sort(key=lambda c: (c.start, -c.end))
        self.notes.sort(key=lambda n: (n.start, n.code))
        return ScriptCalls(self.calls, self.notes)

    def read_call(self, call: Node, callee: Node, tool: Any) -> None:
        script = self.script
        start, end = script.call_span(call)
        arguments = call.child_by_field_id(FIELD_ARGUMENTS)
        args = arguments is not None and TYPE_OF[arguments.kind_id] == "arguments"  # else a tagged template
        first = _first_argument(call, arguments, args)
        named = None if tool is DYNAMIC else tool
        # the call's fields, filled in by the readers below, then frozen into one ToolCall
        fields: dict[str, Any] = {
            "tool": named,
            "kind": kind_of(named),
            "start": start,
            "end": end,
        }
        if not self.lean:
            fields["source"] = script.source[start:end]  # script.call_text(call), its span read once
        if tool is DYNAMIC:
            self.dynamic_call(fields, callee, first)
        elif not args:
            self.computed(fields, None, "a tagged template")
        elif fields["kind"] == COMMAND:
            self.command_call(fields, callee, first)
        elif fields["kind"] == PATCH:
            self.patch_call(fields, first)
        else:
            self.tool_call(fields, first)
        if not self.straight_line and is_dead(script, call):  # straight-line code has no dead code
            fields["executed"] = "no"
            self.note(DEAD_BRANCH, f"{named or 'this call'} never runs: it is in dead code", start, end)
        elif runs_unconditionally(script, call, self.straight_line):
            fields["unconditional"] = True
        if self.place is not None:
            fields["start"], fields["end"] = self.place(start, end)
        if self.lean:  # read for the notes' messages only: the stream keeps neither
            fields.pop("patch", None)
            fields.pop("computed_expression", None)
        self.calls.append(ToolCall(**fields))

    def computed(self, fields: dict[str, Any], node: Node | None, what: str | None = None) -> None:
        expression = self.script.text(node) if node is not None else (what or "")
        kind = fields["kind"]
        subject = "command" if kind == COMMAND else "patch" if kind == PATCH else "argument"
        self.note(
            COMPUTED_COMMAND,
            f"the {subject} is computed at run time: {_short(expression)}",
            fields["start"],
            fields["end"],
        )
        fields.update(computed=True, computed_expression=expression)

    def command_call(self, fields: dict[str, Any], callee: Node, first: Node | None) -> None:
        tool = fields["tool"]
        node = unwrap(first)
        if node is None:
            return  # no argument: the tool gets {} (and refuses it)
        key = COMMAND_TOOLS[tool]
        if (
            self.lean
            and tool not in ARGV_TOOLS
            and TYPE_OF[node.kind_id] == "object"
            and self.plain_command(fields, node, key)
        ):
            return
        # lean: only the command and workdir are kept, the other keys' values are not evaluated
        arguments = read_arguments(self.constants, node, only=(key, "workdir") if self.lean else None)
        if arguments is None:  # never: ``node`` is an expression, unwrapped already
            return
        fields["json_arguments"] = arguments.json
        if not self.lean:
            fields["arguments"] = arguments.others(key, "workdir")
            fields["computed_arguments"] = arguments.computed(self.script.text, key, "workdir")
        workdir = arguments.get("workdir")
        if isinstance(workdir, str):
            fields["workdir"] = workdir
        command = command_of(tool, arguments)
        if isinstance(command, str):
            fields["command"] = command
            return
        if command is None:
            return  # no command key: the tool refuses the call
        written = command_node(tool, arguments) if key not in arguments.open else None
        runs = self.runs(callee, first)
        commands = _commands(runs, tool) if runs is not None else None
        if runs is None or commands is None:
            self.computed(fields, written if written is not None else node)
            return
        expression = self.script.text(written if written is not None else node)
        fields.update(
            computed=True,
            computed_expression=expression,
            expansion=tuple(c for _, c, _ in commands),
            expansion_spans=self.element_spans(runs),
        )
        self.note(
            EXPANDED_COMMAND,
            f"the command is computed from a constant list: {_known(len(commands), 'command')} "
            f"({_short(commands[0][1], 60)}{' …' if len(commands) > 1 else ''})",
            fields["start"],
            fields["end"],
        )

    def plain_command(self, fields: dict[str, Any], node: Node, key: str) -> bool:
        """A lean command whose object is plain (:func:`~analysis.script.arguments.plain_object`) and whose
        command and workdir are strings or absent: its fields from the object's bytes, as the tree's reading
        gives them (``tests/script/test_script_speed40.py``); False, nothing set, for any other."""
        found = plain_object(self.script, node)  # (pairs, whether written as JSON)
        if found is None:
            return False
        pairs, json_written = found
        command, workdir = plain_string(pairs.get(key)), plain_string(pairs.get("workdir"))
        if command is None and key in pairs or workdir is None and "workdir" in pairs:
            return False  # a number, boolean or null: the tool refuses it, which the full reading tells
        fields["json_arguments"] = json_written  # is_json of its text, told from its pairs (no text, no decoding)
        if workdir is not None:
            fields["workdir"] = workdir
        if command is not None:
            fields["command"] = command
        return True

    def dynamic_call(self, fields: dict[str, Any], callee: Node, first: Node | None) -> None:
        """``tools[name](…)``: a tool chosen at run time, known per element when a constant list drives it."""
        expression = self.script.text(callee)
        runs = self.runs(callee, first)
        commands = _commands(runs, None) if runs is not None else None
        if runs is None or commands is None:
            fields.update(computed=True, computed_expression=expression)
            subscript = unwrap(callee)  # tools[…]
            index = subscript.child_by_field_id(FIELD_INDEX) if subscript is not None else None
            source = " from ALL_TOOLS" if self.callees.from_all_tools(index) else ""
            if source:
                fields["chosen_from"] = ALL_TOOLS
            self.note(
                COMPUTED_COMMAND,
                f"the tool is chosen at run time{source}: {_short(expression)}",
                fields["start"],
                fields["end"],
            )
            self.tool_call(fields, first)
            return
        tools = tuple(t for t, _, _ in commands)
        workdirs = {w for _, _, w in commands}
        fields.update(
            tool=tools[0] if len(set(tools)) == 1 else None,
            kind=COMMAND,
            computed=True,
            computed_expression=expression,
            expansion=tuple(c for _, c, _ in commands),
            expansion_tools=tools,
            expansion_spans=self.element_spans(runs),
        )
        if len(workdirs) == 1 and None not in workdirs:
            fields["workdir"] = workdirs.pop()
        self.note(
            EXPANDED_COMMAND,
            f"the tool and command are computed from a constant list: "
            f"{_known(len(commands), 'call')} ({tools[0]}: {_short(commands[0][1], 60)}"
            f"{' …' if len(commands) > 1 else ''})",
            fields["start"],
            fields["end"],
        )

    def element_spans(self, runs: list[Run]) -> tuple[tuple[int, int], ...] | None:
        """Each run's element where it is written, placed as the call is; None unless every one is known."""
        spans = [r.span for r in runs if r.span is not None]
        if len(spans) < len(runs):
            return None
        place = self.place
        return tuple(place(*s) if place is not None else s for s in spans)

    def runs(self, callee: Node, first: Node | None) -> list[Run] | None:
        """The call's runs over a constant array; straight-line code iterates nothing (no loop, no callback).  Lean,
        only what ``_commands`` reads of a run is evaluated: its command (under any command tool's key) and
        workdir."""
        if self.straight_line:
            return None
        return self.expansions.runs(callee, first, _RUN_KEYS if self.lean else None)

    def tool_call(self, fields: dict[str, Any], first: Node | None) -> None:
        node = unwrap(first)
        if node is None or TYPE_OF[node.kind_id] != "object":
            return
        if self.lean:  # of a tool's arguments the stream keeps only how they are written
            fields["json_arguments"] = is_json(self.script.text(node))
            return
        arguments = read_arguments(self.constants, node)
        if arguments is None:  # never: ``node`` is an expression, unwrapped already
            return
        fields["json_arguments"] = arguments.json
        fields["arguments"] = arguments.others()
        fields["computed_arguments"] = arguments.computed(self.script.text)

    def patch_call(self, fields: dict[str, Any], first: Node | None) -> None:
        value = self.patches.read(first)
        if value.patch is None:
            self.computed(fields, unwrap(first), value.computed_from)
            return
        fields.update(
            patch=value.patch,
            files=value.files,
            computed=value.computed_from is not None,
            computed_expression=value.computed_from,
        )


def _commands(runs: list[Run], tool: str | None) -> list[tuple[str, str, str | None]] | None:
    """(tool, command, workdir) of every run, when each is a command tool with an exactly known command
    (and, for a fixed tool, the same tool); else None."""
    out = []
    for run in runs:
        if not isinstance(run.tool, str) or run.tool not in COMMAND_TOOLS or tool is not None and run.tool != tool:
            return None
        command = command_of(run.tool, run.arguments)
        if not isinstance(command, str):
            return None
        workdir = run.arguments.get("workdir") if run.arguments is not None else None
        out.append((run.tool, command, workdir if isinstance(workdir, str) else None))
    return out


def _known(count: int, noun: str) -> str:
    return f"its one {noun} is known exactly" if count == 1 else f"its {count} {noun}s are known exactly"


def _short(text: str | None, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "COMMAND",
    "HELPERS",
    "PATCH",
    "TOOL",
    "Note",
    "ScriptCalls",
    "ToolCall",
    "ToolSite",
    "find_calls",
    "tool_sites",
]
