"""Which callees are tools: ``tools.x``, its aliases and imports, and what kind of tool each is.

Recognised callees: ``tools.x``, ``tools?.x``, ``tools["x"]``, aliases of ``tools``
(``const t = tools``) and of its members (``const f = tools.x; const g = f``), through
chains of any length, names destructured from it, names imported from the
March 2026 modules (``tools.js``, ``tools/…js``, ``@openai/code_mode``), and that
dialect's bare global wrappers (``exec_command(…)``).  Names are compared as
:meth:`ExecScript.name_of` spells them, never as raw text.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from .js_tree import (
    FIELD_FUNCTION,
    FIELD_INDEX,
    FIELD_OBJECT,
    FIELD_OPERATOR,
    FIELD_PARAMETER,
    FIELD_PARAMETERS,
    FIELD_PROPERTY,
    FIELD_RIGHT,
    TYPE_OF,
)
from .script import Binding, ExecScript
from .values import Constants, Env, unwrap

COMMAND, PATCH, TOOL = "command", "patch", "tool"
# every tool that runs a command, with the argument that holds it: a string for exec_command and
# shell_command, an argv array for shell and container.exec (code mode spells that one container_exec:
# it turns every character outside [A-Za-z0-9_$] of a tool name into `_`)
COMMAND_TOOLS: dict[str, str] = {
    "exec_command": "cmd",
    "shell_command": "command",
    "shell": "command",
    "container.exec": "command",
    "container_exec": "command",
}
ARGV_TOOLS = frozenset({"shell", "container.exec", "container_exec"})  # their command is an argv array
PATCH_TOOLS = frozenset({"apply_patch"})
LEGACY_GLOBALS = frozenset({"exec_command", "write_stdin", "apply_patch", "update_plan", "view_image"})
HELPERS = frozenset(
    {
        "output_text",
        "output_image",
        "set_max_output_tokens_per_exec_call",
        "store",
        "load",
        "text",
        "image",
        "notify",
        "yield_control",
        "exit",
        "add_content",
        "ALL_TOOLS",
        "forward_output",
    }
)


class _Dynamic:
    def __repr__(self) -> str:
        return "DYNAMIC"


DYNAMIC: Any = _Dynamic()  # a tool chosen at run time: tools[name](…)
_ALIAS: Any = object()  # a name bound to another expression that may name a tool
ALL_TOOLS = "ALL_TOOLS"
_MAX_STEPS = 64  # links followed from a tool's name back to ALL_TOOLS
# a callee written ``tools.name`` (no space, comment, escape or ``?.``): most calls of a script (see Callees.tool)
_PLAIN_TOOLS_MEMBER = re.compile(rb"tools\.([A-Za-z_$][A-Za-z0-9_$]*)")
_PLAIN_GLOBAL_CALLEE = re.compile(rb"([A-Za-z_$][A-Za-z0-9_$]*)(\.[A-Za-z_$][A-Za-z0-9_$]*)?")


def kind_of(tool: str | None) -> str:
    return COMMAND if tool in COMMAND_TOOLS else PATCH if tool in PATCH_TOOLS else TOOL


def may_name_a_tool(source: str) -> bool:
    """A cheap test: whether any callee of ``source`` can name a tool (else no call needs reading)."""
    return "tools" in source or "code_mode" in source or "\\u" in source or any(n in source for n in LEGACY_GLOBALS)


class Callees:
    """Tells which callees of one script are tools."""

    def __init__(self, script: ExecScript, constants: Constants) -> None:
        self.script = script
        self.constants = constants

    def tool(self, node: Node | None, env: Env | None = None) -> Any:
        """The tool name a callee names, :data:`DYNAMIC`, or None when it is no tool.  Aliases are followed
        through any number of names bound once (``const f = tools.x; const g = f; g()``)."""
        script = self.script
        if node is not None:
            bindings = script.bindings
            start, end = node.start_byte, node.end_byte  # read once for both matches below
            if "tools" not in bindings:
                # ``tools.name`` with ``tools`` the global: the member's bytes tell its name, which is what the
                # reading below finds through unwrap, the member's fields and is_tools (stop 39)
                plain = _PLAIN_TOOLS_MEMBER.fullmatch(script.data, start, end)
                if plain is not None and TYPE_OF[node.kind_id] == "member_expression" and not node.has_error:
                    return plain.group(1).decode("ascii")
            # ``name`` or ``name.member`` with ``name`` declared nowhere in the script (``text``, ``JSON.stringify``:
            # most callees that are no tool): a global, so the reading below ends at its first step (stop 40)
            plain = _PLAIN_GLOBAL_CALLEE.fullmatch(script.data, start, end)
            if plain is not None and not node.has_error:
                name = plain.group(1).decode("ascii")
                if name not in bindings and name != "tools":
                    if plain.group(2) is None:
                        if TYPE_OF[node.kind_id] == "identifier":
                            return name if name in LEGACY_GLOBALS else None
                    elif TYPE_OF[node.kind_id] == "member_expression":
                        return None  # is_tools of a global other than ``tools`` is False
        seen: set[int] = set()
        while True:
            node = unwrap(node)
            if node is None:
                return None
            kind = TYPE_OF[node.kind_id]
            if kind == "identifier":
                name = script.name_of(node)  # read once: resolve would read it again
                binding = script.resolve(node, name)
                if binding is None:
                    return name if name in LEGACY_GLOBALS else None
                if binding.node.id in seen:  # `const a = b, b = a`: a cycle, never a tool
                    return None
                seen.add(binding.node.id)
                bound = self.bound_tool(binding)
                if bound is not _ALIAS:
                    return bound
                node, env = binding.init, None
                continue
            if kind == "member_expression":
                prop = node.child_by_field_id(FIELD_PROPERTY)
                if (
                    prop is not None
                    and TYPE_OF[prop.kind_id] == "property_identifier"
                    and self.is_tools(node.child_by_field_id(FIELD_OBJECT))
                ):
                    return script.name_of(prop)
                return None
            if kind == "subscript_expression":
                if not self.is_tools(node.child_by_field_id(FIELD_OBJECT)):
                    return None
                index = self.constants.value(node.child_by_field_id(FIELD_INDEX), env)
                return index if isinstance(index, str) else DYNAMIC
            return None

    def is_tools(self, node: Node | None) -> bool:
        """Whether ``node`` evaluates to the ``tools`` object, through any number of names bound once to it."""
        script = self.script
        seen: set[int] = set()
        while True:
            node = unwrap(node)
            if node is None:
                return False
            if TYPE_OF[node.kind_id] == "identifier":
                name = script.name_of(node)
                binding = script.resolve(node, name)
                if binding is None:
                    return name == "tools"
                if binding.kind == "import":
                    return is_tool_module(binding.module) and binding.imported in ("*", "default", "tools")
                if binding.init is None or binding.kind not in ("const", "let", "var") or binding.node.id in seen:
                    return False
                seen.add(binding.node.id)
                node = binding.init
                continue
            if TYPE_OF[node.kind_id] == "member_expression":  # globalThis.tools
                obj, prop = node.child_by_field_id(FIELD_OBJECT), node.child_by_field_id(FIELD_PROPERTY)
                return (
                    obj is not None
                    and prop is not None
                    and script.name_of(prop) == "tools"
                    and TYPE_OF[obj.kind_id] == "identifier"
                    and script.name_of(obj) in ("globalThis", "self")
                    and script.resolve(obj) is None
                )
            return False

    def bound_tool(self, binding: Binding) -> Any:
        """The tool a declared name holds: an import, a destructured name; :data:`_ALIAS` when the name is bound
        to an expression that may name one (``const f = tools.x``, ``const g = f``), to be followed."""
        if binding.kind == "import":
            if (
                not is_tool_module(binding.module)
                or binding.imported in ("*", "default")
                or binding.imported in HELPERS
            ):
                return None
            return module_tool_name(binding.module or "", binding.imported or binding.name)
        if binding.kind not in ("const", "let", "var"):
            return None
        if binding.key is not None:
            return binding.key if self.is_tools(binding.pattern_init) else None
        init = unwrap(binding.init)
        if init is not None and TYPE_OF[init.kind_id] in ("member_expression", "subscript_expression", "identifier"):
            return _ALIAS
        return None

    def from_all_tools(self, node: Node | None) -> bool:
        """Whether a value is taken from ``ALL_TOOLS`` (the runtime's list of ``{name, description}`` of every
        enabled nested tool): ``t.name`` with ``t`` an element of it (``for (const t of ALL_TOOLS)``, a callback
        of ``ALL_TOOLS.filter(…).map(…)``, ``ALL_TOOLS.find(…)``), through members, elements, method calls and names
        bound to such values."""
        script = self.script
        seen: set[int] = set()
        for _ in range(_MAX_STEPS):
            node = unwrap(node)
            if node is None:
                return False
            kind = TYPE_OF[node.kind_id]
            if kind in ("member_expression", "subscript_expression"):
                node = node.child_by_field_id(FIELD_OBJECT)
            elif kind == "call_expression":  # a method of such a value: find, filter, at, slice, map…
                function = unwrap(node.child_by_field_id(FIELD_FUNCTION))
                if function is None or TYPE_OF[function.kind_id] != "member_expression":
                    return False
                node = function.child_by_field_id(FIELD_OBJECT)
            elif kind == "identifier":
                binding = script.resolve(node)
                if binding is None:
                    return script.name_of(node) == ALL_TOOLS
                if binding.node.id in seen:
                    return False
                seen.add(binding.node.id)
                node = self.element_source(binding)
            else:
                return False
        return False

    def element_source(self, binding: Binding) -> Node | None:
        """The expression a name's value is taken from: its initialiser, the value it is destructured from,
        the list a ``for…of`` loop variable or an array method's callback parameter runs over."""
        if binding.kind in ("const", "let", "var"):
            if binding.pattern_init is not None:
                return binding.pattern_init
            if binding.init is not None:
                return binding.init
            node = binding.node.parent
            for _ in range(_MAX_STEPS):  # a loop variable: up through its pattern to the for…of
                if node is None:
                    return None
                if TYPE_OF[node.kind_id] == "for_in_statement":
                    operator = node.child_by_field_id(FIELD_OPERATOR)
                    return (
                        node.child_by_field_id(FIELD_RIGHT)
                        if operator is not None and self.script.text(operator) == "of"
                        else None
                    )
                node = node.parent
            return None
        if binding.kind == "param":  # the first parameter of a callback given to ``list.method(…)``
            function = binding.scope
            arguments = function.parent
            call = arguments.parent if arguments is not None else None
            if (
                arguments is None
                or TYPE_OF[arguments.kind_id] != "arguments"
                or call is None
                or TYPE_OF[call.kind_id] != "call_expression"
            ):
                return None
            first = next((c for c in arguments.named_children if TYPE_OF[c.kind_id] != "comment"), None)
            params = function.child_by_field_id(FIELD_PARAMETERS)
            listed = (
                [c for c in params.named_children if TYPE_OF[c.kind_id] != "comment"]
                if params is not None
                else [function.child_by_field_id(FIELD_PARAMETER)]
            )
            if (
                first != function
                or not listed
                or listed[0] is None
                or not listed[0].start_byte <= binding.node.start_byte < listed[0].end_byte
            ):
                return None
            member = unwrap(call.child_by_field_id(FIELD_FUNCTION))
            return (
                member.child_by_field_id(FIELD_OBJECT)
                if member is not None and TYPE_OF[member.kind_id] == "member_expression"
                else None
            )
        return None


def is_tool_module(module: str | None) -> bool:
    if not module:
        return False
    return module in ("tools.js", "tools", "@openai/code_mode", "openai/code_mode") or (
        module.startswith("tools/") and module.endswith(".js")
    )


def module_tool_name(module: str, name: str) -> str:
    """``tools/mcp/ologs.js`` + ``chart`` → ``mcp__ologs__chart``."""
    if module.startswith("tools/"):
        namespace = module[len("tools/") : -len(".js")].replace("/", "__")
        return f"{namespace}__{name}" if namespace else name
    return name


__all__ = [
    "ALL_TOOLS",
    "ARGV_TOOLS",
    "COMMAND",
    "COMMAND_TOOLS",
    "DYNAMIC",
    "HELPERS",
    "LEGACY_GLOBALS",
    "PATCH",
    "PATCH_TOOLS",
    "TOOL",
    "Callees",
    "is_tool_module",
    "kind_of",
    "may_name_a_tool",
    "module_tool_name",
]
