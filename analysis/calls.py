"""Tool calls of an exec script: which tool, with what exactly, and whether it can run.

Calls are found in the tree-sitter syntax tree, never by scanning text, so a call
quoted in a string, comment, template text or regex is not a call.  Recognised
callees: ``tools.x``, ``tools?.x``, ``tools["x"]``, aliases of ``tools``
(``const t = tools``), names destructured from it, names imported from the
March 2026 modules (``tools.js``, ``tools/…js``, ``@openai/code_mode``), and that
dialect's bare global wrappers (``exec_command(…)``).

Arguments are read only when exactly known: literals, templates whose
substitutions are ``const`` string bindings, and ``const`` literal bindings.
Anything else is *computed*: the command is None and the whole script stands for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from tree_sitter import Node, Query, QueryCursor

from .literals import UNKNOWN, Unknown, cook_raw, number_value, string_value, template_quasis
from .patch import PatchFile, parse_patch
from .reachability import is_dead
from .script import JAVASCRIPT, Binding, ExecScript

COMMAND, PATCH, TOOL = "command", "patch", "tool"
LEGACY_GLOBALS = frozenset({"exec_command", "write_stdin", "apply_patch", "update_plan", "view_image"})
HELPERS = frozenset({
    "output_text", "output_image", "set_max_output_tokens_per_exec_call", "store", "load", "text", "image",
    "notify", "yield_control", "exit", "add_content", "ALL_TOOLS", "forward_output",
})
_MUTATORS = frozenset({"push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"})
_ITERATORS = frozenset({"map", "forEach", "flatMap"})
_IDENTIFIERS = Query(JAVASCRIPT, "[(identifier) (shorthand_property_identifier)] @id")
_HOLE = "\ue000"  # marks an unresolved template substitution inside a patch text
_DYNAMIC = object()  # a tool chosen at run time: tools[name](…)


@dataclass(frozen=True, slots=True)
class Note:
    """A finding about a script, at code-point offsets of the script."""

    code: str
    message: str
    start: int
    end: int
    related: tuple[tuple[int, int, str], ...] = ()


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
    expansion: tuple[str, ...] | None = None
    executed: str = "unknown"  # "yes", "no" (dead code) or "unknown"
    # runs whenever its script runs to completion: at the top level, unconditional, after nothing that
    # can skip it; with a completed output this makes ``executed`` "yes"
    unconditional: bool = False
    source: str = ""
    json_arguments: bool | None = None

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


def find_calls(script: ExecScript) -> ScriptCalls:
    """Every tool call of ``script`` in source order, with the findings about them."""
    from .dynamic import dynamic_notes  # it reads Note from here

    result = _CallReader(script).read()
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
    reader = _CallReader(script)
    sites = []
    for call, callee in script.call_sites():
        tool = reader.callee_tool(callee, 0)
        if tool is None:
            continue
        literal = None
        if tool == "apply_patch":
            arguments = call.child_by_field_name("arguments")
            args = [a for a in arguments.named_children if a.type != "comment"] \
                if arguments is not None and arguments.type == "arguments" else []
            node = _unwrap(args[0]) if args else None
            if node is not None and node.type == "object":
                node = _unwrap(reader.properties(node)[0].get("input"))
            literal = reader.patch_literal(node)[0] if node is not None else None
        sites.append(ToolSite(callee, None if tool is _DYNAMIC else tool, literal))
    return sites


class _CallReader:
    def __init__(self, script: ExecScript) -> None:
        self.script = script
        self.calls: list[ToolCall] = []
        self.notes: list[Note] = []
        self._references: dict[str, list[Node]] | None = None

    def read(self) -> ScriptCalls:
        source = self.script.source
        if "tools" not in source and "code_mode" not in source and "\\u" not in source and \
                not any(n in source for n in LEGACY_GLOBALS):
            return ScriptCalls([], [])  # no callee can name a tool
        for call, callee in self.script.call_sites():
            tool = self.callee_tool(callee, 0)
            if tool is None:
                continue
            self.read_call(call, None if tool is _DYNAMIC else tool)
        self.calls.sort(key=lambda c: (c.start, -c.end))
        self.notes.sort(key=lambda n: (n.start, n.code))
        return ScriptCalls(self.calls, self.notes)

    # -- which callees are tools ----------------------------------------------------------------
    def callee_tool(self, node: Node, depth: int) -> Any:
        """The tool name a callee names, ``_DYNAMIC``, or None when it is no tool."""
        node = _unwrap(node)
        if node is None or depth > 8:
            return None
        kind = node.type
        script = self.script
        if kind == "identifier":
            binding = script.resolve(node)
            if binding is None:
                name = script.name_of(node)
                return name if name in LEGACY_GLOBALS else None
            return self.bound_tool(binding, depth + 1)
        if kind == "member_expression":
            prop = node.child_by_field_name("property")
            if prop is not None and prop.type == "property_identifier" and \
                    self.is_tools(node.child_by_field_name("object"), depth + 1):
                return script.name_of(prop)
            return None
        if kind == "subscript_expression":
            if not self.is_tools(node.child_by_field_name("object"), depth + 1):
                return None
            index = self.value(node.child_by_field_name("index"))
            return index if isinstance(index, str) else _DYNAMIC
        return None

    def is_tools(self, node: Node | None, depth: int) -> bool:
        """Whether ``node`` evaluates to the ``tools`` object."""
        node = _unwrap(node)
        if node is None or depth > 8:
            return False
        script = self.script
        if node.type == "identifier":
            binding = script.resolve(node)
            if binding is None:
                return script.name_of(node) == "tools"
            if binding.kind == "import":
                return _is_tool_module(binding.module) and binding.imported in ("*", "default", "tools")
            if binding.init is not None and binding.kind in ("const", "let", "var"):
                return self.is_tools(binding.init, depth + 1)
            return False
        if node.type == "member_expression":  # globalThis.tools
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            return obj is not None and prop is not None and script.name_of(prop) == "tools" and \
                script.name_of(obj) in ("globalThis", "self") and script.resolve(obj) is None
        return False

    def bound_tool(self, binding: Binding, depth: int) -> Any:
        """The tool a declared name holds: an import, a destructured name, or ``const f = tools.x``."""
        if binding.kind == "import":
            if not _is_tool_module(binding.module) or binding.imported in ("*", "default") or \
                    binding.imported in HELPERS:
                return None
            return _module_tool_name(binding.module or "", binding.imported or binding.name)
        if binding.kind not in ("const", "let", "var"):
            return None
        if binding.key is not None:
            return binding.key if self.is_tools(binding.pattern_init, depth) else None
        if binding.init is not None and binding.init.type in ("member_expression", "subscript_expression",
                                                               "parenthesized_expression"):
            return self.callee_tool(binding.init, depth)
        return None

    # -- one call -----------------------------------------------------------------------------------
    def read_call(self, call: Node, tool: str | None) -> None:
        script = self.script
        start, end = script.span(call)
        arguments = call.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] \
            if arguments is not None and arguments.type == "arguments" else None
        # the call's fields, filled in by the readers below, then frozen into one ToolCall
        fields: dict[str, Any] = {"tool": tool, "kind": _kind_of(tool), "start": start, "end": end,
                                  "source": script.text(call)}
        if tool is None:
            fields.update(computed=True, computed_expression=script.text(call.child_by_field_name("function")))
            self.note("computed-command", f"the tool is chosen at run time: {_short(fields['computed_expression'])}",
                      start, end)
        elif args is None:
            self.computed(fields, None, "a tagged template")
        elif fields["kind"] == COMMAND:
            self.command_call(fields, args)
        elif fields["kind"] == PATCH:
            self.patch_call(fields, args)
        else:
            self.tool_call(fields, args)
        if is_dead(script, call):
            fields["executed"] = "no"
            self.note("dead-branch", f"{tool or 'this call'} never runs: it is in dead code", start, end)
        self.calls.append(ToolCall(**fields))

    def computed(self, fields: dict, node: Node | None, what: str | None = None) -> None:
        expression = self.script.text(node) if node is not None else (what or "")
        kind = fields["kind"]
        subject = "command" if kind == COMMAND else "patch" if kind == PATCH else "argument"
        self.note("computed-command", f"the {subject} is computed at run time: {_short(expression)}",
                  fields["start"], fields["end"])
        fields.update(computed=True, computed_expression=expression)

    def command_call(self, fields: dict, args: list[Node]) -> None:
        first = _unwrap(args[0]) if args else None
        if first is None or first.type != "object":
            if first is not None:
                self.computed(fields, first)
            return
        props, open_after = self.properties(first)
        fields["json_arguments"] = _is_json(self.script.text(first))
        other = {k: self.value(v) for k, v in props.items() if k not in ("cmd", "workdir")}
        fields["arguments"] = {k: (None if v is UNKNOWN else v) for k, v in other.items()}
        workdir = self.value(props["workdir"]) if "workdir" in props else None
        if isinstance(workdir, str):
            fields["workdir"] = workdir
        cmd = props.get("cmd")
        if cmd is None or "cmd" in open_after:
            if open_after:
                self.computed(fields, first)
            return
        value = self.value(cmd)
        if isinstance(value, str):
            fields["command"] = value
            return
        self.computed(fields, cmd)
        fields["expansion"] = self.expansion(cmd)

    def tool_call(self, fields: dict, args: list[Node]) -> None:
        first = _unwrap(args[0]) if args else None
        if first is None or first.type != "object":
            return
        props, _ = self.properties(first)
        values = {k: self.value(v) for k, v in props.items()}
        fields["json_arguments"] = _is_json(self.script.text(first))
        fields["arguments"] = {k: (None if v is UNKNOWN else v) for k, v in values.items()}

    def patch_call(self, fields: dict, args: list[Node]) -> None:
        node = _unwrap(args[0]) if args else None
        if node is not None and node.type == "object":
            props, _ = self.properties(node)
            node = _unwrap(props.get("input"))
        if node is None:
            self.computed(fields, None, "no patch argument")
            return
        literal, via = self.patch_literal(node)
        text, holes = self.patch_text(literal) if literal is not None else (None, [])
        if literal is None or text is None:
            self.computed(fields, node)
            return
        patch = parse_patch(text)
        related = ()
        if via is not None:
            vs, ve = self.script.span(via.node)
            related = ((vs, ve, f"the patch text is the const {via.name}"),)
        files = self.patch_files(patch.files, holes, text, related)
        shown = text
        for index, hole in enumerate(holes):
            shown = shown.replace(f"{_HOLE}{index}{_HOLE}", "${" + self.script.text(hole)[2:-1] + "}")
        a_start, a_end = self.script.span(literal)
        exact = literal.type in ("string", "template_string") and "\\" not in self.script.text(literal) \
            and not holes
        for error in patch.errors:
            where = (a_start + 1 + error.offset, a_start + 1 + error.offset + error.length) if exact \
                else (a_start, a_end)
            self.note("patch-syntax", f"patch line {error.line + 1}: {error.message}", *where, related)
        fields.update(patch=shown, files=files, computed=bool(holes))

    def patch_files(self, files, holes: list[Node], text: str, related) -> tuple[PatchFile, ...]:
        kept: list[PatchFile] = []
        for f in files:
            bad = [h for i, h in enumerate(holes) if f"{_HOLE}{i}{_HOLE}" in f.path]
            bad_move = [h for i, h in enumerate(holes) if f.move_to and f"{_HOLE}{i}{_HOLE}" in f.move_to]
            for hole in bad + bad_move:
                hs, he = self.script.span(hole)
                expr = self.script.text(hole)
                self.note("unresolved-patch-path",
                          f"patch path {expr} does not resolve to a const string; the file is not listed",
                          hs, he, related)
            if bad:
                continue
            kept.append(replace(f, move_to=None) if bad_move else f)
        return tuple(kept)

    def patch_literal(self, node: Node) -> tuple[Node | None, Binding | None]:
        """The string or template that holds a patch, directly or through one ``const``."""
        if node.type in ("string", "template_string"):
            return node, None
        if node.type in ("identifier", "shorthand_property_identifier"):
            binding = self.script.resolve(node)
            if binding is not None and binding.kind == "const" and self.script.declared_once(binding):
                init = _unwrap(binding.init)
                if init is not None and init.type in ("string", "template_string"):
                    return init, binding
        return None, None

    def patch_text(self, literal: Node) -> tuple[str | None, list[Node]]:
        """A patch text; template substitutions that do not resolve become numbered holes."""
        if literal.type == "string":
            value = string_value(self.script.text(literal))
            return (None if value is UNKNOWN else value), []
        pieces = self.quasis(literal)
        if pieces is UNKNOWN:
            return None, []
        substitutions = [c for c in literal.named_children if c.type == "template_substitution"]
        out = [pieces[0]]
        holes: list[Node] = []
        for sub, piece in zip(substitutions, pieces[1:]):
            value = self.substitution(sub)
            if value is None:
                out.append(f"{_HOLE}{len(holes)}{_HOLE}")
                holes.append(sub)
            else:
                out.append(value)
            out.append(piece)
        return "".join(out), holes

    # -- values -------------------------------------------------------------------------------------
    def properties(self, obj: Node) -> tuple[dict[str, Node], set[str]]:
        """Static keys of an object literal (the last wins), and the keys a later spread may override."""
        props: dict[str, Node] = {}
        open_after: set[str] = set()
        for child in obj.named_children:
            if child.type == "pair":
                key = self.key(child.child_by_field_name("key"))
                value = child.child_by_field_name("value")
                if key is None:
                    open_after |= set(props) | {"cmd"}
                elif value is not None:
                    props[key] = value
                    open_after.discard(key)
            elif child.type == "shorthand_property_identifier":
                props[self.script.text(child)] = child
                open_after.discard(self.script.text(child))
            elif child.type == "spread_element":
                open_after |= set(props) | {"cmd"}
        return props, open_after

    def key(self, node: Node | None) -> str | None:
        if node is None:
            return None
        if node.type == "property_identifier":
            return self.script.text(node)
        if node.type == "string":
            value = string_value(self.script.text(node))
            return None if value is UNKNOWN else value
        if node.type == "number":
            return self.script.text(node)
        return None

    def value(self, node: Node | None, env: dict[int, Any] | None = None, depth: int = 0) -> Any:
        """The exact value of ``node``, or UNKNOWN.  ``env`` binds loop variables for expansions."""
        node = _unwrap(node)
        if node is None or depth > 20:
            return UNKNOWN
        kind = node.type
        text = self.script.text
        if kind == "string":
            return string_value(text(node))
        if kind == "template_string":
            return self.template(node, env)
        if kind == "number":
            return number_value(text(node))
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "null":
            return None
        if kind == "unary_expression" and node.child_by_field_name("operator") is not None and \
                text(node.child_by_field_name("operator")) == "-":
            inner = self.value(node.child_by_field_name("argument"), env, depth + 1)
            return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else UNKNOWN
        if kind in ("identifier", "shorthand_property_identifier"):
            binding = self.script.resolve(node)
            if binding is None:
                return UNKNOWN
            if env is not None and binding.node.start_byte in env:
                return env[binding.node.start_byte]
            if binding.kind == "const" and binding.key is None and self.script.declared_once(binding):
                init = _unwrap(binding.init)
                if init is not None and init.type in ("string", "template_string", "number", "true", "false",
                                                      "null", "unary_expression"):
                    return self.value(init, env, depth + 1)
            return UNKNOWN
        if kind == "array":
            items = [self.value(c, env, depth + 1) for c in node.named_children if c.type != "comment"]
            return UNKNOWN if any(isinstance(i, Unknown) for i in items) else items
        if kind == "object":
            props, open_after = self.properties(node)
            if open_after:
                return UNKNOWN
            values = {k: self.value(v, env, depth + 1) for k, v in props.items()}
            return UNKNOWN if any(isinstance(v, Unknown) for v in values.values()) else values
        return UNKNOWN

    def template(self, node: Node, env: dict[int, Any] | None) -> Any:
        pieces = self.quasis(node)
        if pieces is UNKNOWN:
            return UNKNOWN
        out = [pieces[0]]
        substitutions = [c for c in node.named_children if c.type == "template_substitution"]
        for sub, piece in zip(substitutions, pieces[1:]):
            value = self.substitution(sub, env)
            if value is None:
                return UNKNOWN
            out.extend((value, piece))
        return "".join(out)

    def quasis(self, template: Node) -> list[str] | Unknown:
        """The cooked text pieces around a template's substitutions."""
        text = self.script.text(template)
        if "\\" in text:
            return template_quasis(text)  # escapes: esprima cooks them
        pieces = [""]
        for child in template.named_children:
            if child.type == "template_substitution":
                pieces.append("")
            elif child.type == "string_fragment":
                pieces[-1] += self.script.text(child)
        return [cook_raw(p) for p in pieces]

    def substitution(self, sub: Node, env: dict[int, Any] | None = None) -> str | None:
        """A ``${NAME}`` whose NAME is a ``const`` string (or a loop variable in ``env``)."""
        inner = [c for c in sub.named_children if c.type != "comment"]
        if len(inner) != 1 or inner[0].type != "identifier":
            return None
        binding = self.script.resolve(inner[0])
        if binding is None:
            return None
        if env is not None and binding.node.start_byte in env:
            return env[binding.node.start_byte]
        if binding.kind != "const" or binding.key is not None or not self.script.declared_once(binding):
            return None
        init = _unwrap(binding.init)
        if init is None or init.type not in ("string", "template_string"):
            return None
        value = self.value(init)
        return value if isinstance(value, str) else None

    # -- expansions ---------------------------------------------------------------------------------
    def expansion(self, cmd: Node) -> tuple[str, ...] | None:
        """The commands of ``cmd`` over a never-mutated ``const`` array it is mapped or looped from."""
        variable = self.loop_variable(cmd)
        if variable is None:
            return None
        binding, array = variable
        values = self.value(array)
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            return None
        out = []
        for item in values:
            value = self.value(cmd, {binding.node.start_byte: item})
            if not isinstance(value, str):
                return None
            out.append(value)
        return tuple(out)

    def loop_variable(self, cmd: Node) -> tuple[Binding, Node] | None:
        """The parameter or loop variable ``cmd`` uses, with the array literal it ranges over."""
        names = [cmd] if cmd.type in ("identifier", "shorthand_property_identifier") else \
            [c.named_children[0] for c in cmd.named_children
             if c.type == "template_substitution" and c.named_children] if cmd.type == "template_string" else []
        for name in names:
            binding = self.script.resolve(name)
            if binding is None:
                continue
            source = self.iterated(binding)
            if source is not None:
                array = self.const_array(source)
                if array is not None:
                    return binding, array
        return None

    def iterated(self, binding: Binding) -> Node | None:
        """The expression a callback parameter or ``for…of`` variable ranges over."""
        if binding.kind == "param":
            function = binding.scope
            if function.type not in ("arrow_function", "function_expression"):
                return None
            params = function.child_by_field_name("parameters")
            first = params.named_children[0] if params is not None and params.named_children else \
                function.child_by_field_name("parameter")
            if first is None or first.start_byte != binding.node.start_byte:
                return None
            arguments = function.parent
            call = arguments.parent if arguments is not None else None
            if arguments is None or arguments.type != "arguments" or call is None or \
                    call.type != "call_expression" or arguments.named_children[0].start_byte != function.start_byte:
                return None
            member = call.child_by_field_name("function")
            if member is None or member.type != "member_expression":
                return None
            prop = member.child_by_field_name("property")
            if prop is None or self.script.text(prop) not in _ITERATORS:
                return None
            return member.child_by_field_name("object")
        loop = binding.node.parent
        if loop is not None and loop.type == "for_in_statement":
            operator = loop.child_by_field_name("operator")
            if operator is not None and self.script.text(operator) == "of":
                return loop.child_by_field_name("right")
        return None

    def const_array(self, node: Node | None) -> Node | None:
        node = _unwrap(node)
        if node is None:
            return None
        if node.type == "array":
            return node
        if node.type != "identifier":
            return None
        binding = self.script.resolve(node)
        if binding is None or binding.kind != "const" or binding.key is not None or \
                not self.script.declared_once(binding):
            return None
        init = _unwrap(binding.init)
        if init is None or init.type != "array" or not self.never_mutated(binding):
            return None
        return init

    def never_mutated(self, binding: Binding) -> bool:
        for ref in self.references(binding.name):
            if ref.start_byte == binding.node.start_byte or self.script.resolve(ref) != binding:
                continue
            parent = ref.parent
            if parent is None:
                return False
            kind = parent.type
            if kind in ("member_expression", "subscript_expression") and \
                    parent.child_by_field_name("object") == ref:
                prop = parent.child_by_field_name("property")
                if prop is not None and self.script.text(prop) in _MUTATORS:
                    return False
                grand = parent.parent
                if grand is not None and grand.type in ("assignment_expression", "augmented_assignment_expression",
                                                        "update_expression") and \
                        grand.child_by_field_name("left") in (parent, None) and \
                        grand.named_children[0] == parent:
                    return False
            elif kind == "for_in_statement" and parent.child_by_field_name("right") == ref:
                pass
            elif kind == "spread_element":
                pass
            else:
                return False
        return True

    def references(self, name: str) -> list[Node]:
        if self._references is None:
            refs: dict[str, list[Node]] = {}
            for node in QueryCursor(_IDENTIFIERS).captures(self.script.root).get("id", []):
                refs.setdefault(self.script.text(node), []).append(node)
            self._references = refs
        return self._references.get(name, [])

    def note(self, code: str, message: str, start: int, end: int, related=()) -> None:
        self.notes.append(Note(code, message, start, end, tuple(related)))


def _unwrap(node: Node | None) -> Node | None:
    """The expression inside parentheses, ``await``-free, or the last of ``(0, f)``."""
    while node is not None:
        if node.type == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            node = inner[-1] if inner else None
        elif node.type == "sequence_expression":
            node = node.named_children[-1] if node.named_children else None
        else:
            return node
    return None


def _kind_of(tool: str | None) -> str:
    return COMMAND if tool == "exec_command" else PATCH if tool == "apply_patch" else TOOL


def _is_tool_module(module: str | None) -> bool:
    if not module:
        return False
    return module in ("tools.js", "tools", "@openai/code_mode", "openai/code_mode") or \
        (module.startswith("tools/") and module.endswith(".js"))


def _module_tool_name(module: str, name: str) -> str:
    """``tools/mcp/ologs.js`` + ``chart`` → ``mcp__ologs__chart``."""
    if module.startswith("tools/"):
        namespace = module[len("tools/"):-len(".js")].replace("/", "__")
        return f"{namespace}__{name}" if namespace else name
    return name


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _short(text: str | None, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
