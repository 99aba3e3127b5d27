"""Where a script's tools escape a static reading: ``dynamic-code`` findings.

The call reader lists the calls it can see: ``tools.x(…)``, aliases, destructured
names.  A script can also reach a tool in ways no static reading follows: code
built at run time (``eval``, ``new Function``, dynamic ``import()``), the
``tools`` object or one of its members handed on (passed to a function, stored
in an object or an array, spread, returned, chosen by ``?:``/``&&``/``||``,
assigned to a property or to a name assigned more than once), a tool called
through ``.call``/``.apply``/``.bind`` or ``Reflect``, or a destructuring of
``tools`` whose key is not a literal.  Each such place gets a warning, so the
list of calls is never taken for all a script may do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node, Query, QueryCursor

from ..jsonl.findings import DYNAMIC_CODE
from ..jsonl.lazy_pattern import lazy
from .js_tree import (
    FIELD_ARGUMENTS,
    FIELD_BODY,
    FIELD_CONDITION,
    FIELD_CONSTRUCTOR,
    FIELD_FUNCTION,
    FIELD_LEFT,
    FIELD_NAME,
    FIELD_OBJECT,
    FIELD_OPERATOR,
    FIELD_PROPERTY,
    FIELD_RIGHT,
    FIELD_VALUE,
    TYPE_OF,
)
from .notes import Note
from .script import JAVASCRIPT, MAX_DEPTH, ExecScript, is_misread_await, misread_await_inner
from .values import unwrap

_Note = Callable[[Node, str], None]  # notes a finding's message at a node
_RUN_TIME_WORDS = ("eval", "Function", "import", "Reflect")
_NAMES = Query(JAVASCRIPT, "[(identifier) (shorthand_property_identifier) (import)] @name")
_CODE_FROM_TEXT = {"eval": "eval runs code built at run time", "Function": "Function builds code at run time"}
_INDIRECT = frozenset({"call", "apply", "bind"})
_PASS_THROUGH = frozenset({"parenthesized_expression", "await_expression"})
_NAME_BYTE = lazy(rb"[\w$]")
# ``tools.x(`` and ``tools["x"](``: a member called on the spot, the call reader's (checked on the bytes after the
# name, as tree-sitter's ``parent`` costs a walk from the root)
_CALLED = lazy(rb"""[ \t]*(?:\??\.[ \t]*[\w$]+|\[[ \t]*(?:"[^"\\\n]*"|'[^'\\\n]*')[ \t]*\])[ \t]*\(""")


def dynamic_notes(script: ExecScript) -> list[Note]:
    """A ``dynamic-code`` note at every place where tools may be reached beyond what the call list shows."""
    source = script.source
    tools = "tools" in source or "\\u" in source
    words = [w for w in _RUN_TIME_WORDS if w in source]
    if not tools and not words:
        return []
    notes: dict[tuple[int, int], Note] = {}

    def note(node: Node, message: str) -> None:
        start, end = script.span(node)
        notes.setdefault(
            (start, end), Note(DYNAMIC_CODE, message + ": calls made through it are not listed", start, end)
        )

    names = _names_of_tools(script) if tools else set()
    for node in _name_nodes(script, names | set(words)):
        name = script.name_of(node)
        if (
            name in names
            and TYPE_OF[node.kind_id] != "import"
            and not _CALLED.match(script.data, node.end_byte)
            and _is_tools(script, node)
        ):
            _escape(script, node, note)
        elif name in _RUN_TIME_WORDS or TYPE_OF[node.kind_id] == "import":
            _code_at_run_time(script, node, note)
    return sorted(notes.values(), key=lambda n: (n.start, n.end))


def _name_nodes(script: ExecScript, names: set[str]) -> Iterator[Node]:
    """The identifiers (and ``import`` keywords) spelling one of ``names``: found by their text, which costs
    a lookup per occurrence, or, in a script with escaped names, by a query over every name."""
    if "\\u" in script.source:
        cursor = QueryCursor(_NAMES)
        cursor.set_max_start_depth(MAX_DEPTH)
        for node in cursor.captures(script.root).get("name", []):
            if script.name_of(node) in names:
                yield node
        return
    data, root = script.data, script.root
    for name in names:
        word = name.encode("utf-8")
        # a name of the tools object right before a member call (``tools.x(``) is the call reader's: found by its
        # bytes, it is passed over before its node is looked for (stop 38); a run-time word is always looked at
        tools_only = name not in _RUN_TIME_WORDS
        at = data.find(word)
        while at != -1:
            end = at + len(word)
            if not (
                at
                and _NAME_BYTE.match(data, at - 1)
                or _NAME_BYTE.match(data, end)
                or tools_only
                and _CALLED.match(data, end)
            ):
                found = root.descendant_for_byte_range(at, end)
                if (
                    found is not None
                    and found.start_byte == at
                    and found.end_byte == end
                    and TYPE_OF[found.kind_id] in ("identifier", "shorthand_property_identifier", "import")
                ):
                    yield found
            at = data.find(word, end)


def _names_of_tools(script: ExecScript) -> set[str]:
    """``tools`` and the names that may be bound to it, directly or through one another: only these are
    looked at (resolving every name of a script with thousands of declarations would be quadratic)."""
    data = script.data
    names = {"tools"}
    held = [
        (name, b.init)
        for name, bindings in script.bindings.items()
        for b in bindings
        if b.kind == "import" or b.init is not None and _may_alias(b.kind, b.init)
    ]
    grown = True
    while grown:
        grown = False
        for name, init in held:
            if name not in names and (
                init is None or any(data.find(n.encode("utf-8"), init.start_byte, init.end_byte) != -1 for n in names)
            ):
                names.add(name)
                grown = True
    return names


def _may_alias(kind: str, init: Node) -> bool:
    """Whether a declaration can bind ``tools`` (as :func:`_is_tools` reads one): a ``const``/``let``/``var`` whose
    value is a name or a member.  ``const r = await tools.x(…)`` holds a result, never the tools object."""
    inner = unwrap(init)
    return (
        kind in ("const", "let", "var")
        and inner is not None
        and TYPE_OF[inner.kind_id] in ("identifier", "member_expression")
    )


def _code_at_run_time(script: ExecScript, node: Node, note: _Note) -> None:
    """A call of ``eval``, ``new Function``, a dynamic ``import``, ``Reflect.x`` given a tool; ``node`` is the name."""
    parent = node.parent
    if parent is None:
        return
    if TYPE_OF[node.kind_id] == "import":
        if TYPE_OF[parent.kind_id] == "import":  # the keyword inside the named node
            node, parent = parent, parent.parent
        if (
            parent is not None
            and TYPE_OF[parent.kind_id] == "call_expression"
            and parent.child_by_field_id(FIELD_FUNCTION) == node
        ):
            note(parent, "a dynamic import() loads code at run time")
        return
    name = script.name_of(node)
    if script.resolve(node) is not None:
        return  # a local function of that name
    if name in _CODE_FROM_TEXT:
        if (
            TYPE_OF[parent.kind_id] == "call_expression"
            and parent.child_by_field_id(FIELD_FUNCTION) == node
            or TYPE_OF[parent.kind_id] == "new_expression"
            and parent.child_by_field_id(FIELD_CONSTRUCTOR) == node
        ):
            note(parent, _CODE_FROM_TEXT[name])
    elif (
        name == "Reflect"
        and TYPE_OF[parent.kind_id] == "member_expression"
        and parent.child_by_field_id(FIELD_OBJECT) == node
    ):
        call = parent.parent
        if (
            call is not None
            and TYPE_OF[call.kind_id] == "call_expression"
            and call.child_by_field_id(FIELD_FUNCTION) == parent
        ):
            arguments = call.child_by_field_id(FIELD_ARGUMENTS)
            if arguments is not None and any(_is_tool_value(script, a) for a in arguments.named_children):
                note(call, "Reflect reaches a tool")


def _escape(script: ExecScript, name: Node, note: _Note) -> None:
    """What is done with a reference to ``tools``: called members are the call reader's; the rest is here."""
    if TYPE_OF[name.kind_id] == "shorthand_property_identifier":  # {tools}
        note(name, "tools is stored in an object")
        return
    value, parent = _climb(name, name.parent)
    member = (
        parent is not None
        and TYPE_OF[parent.kind_id] in ("member_expression", "subscript_expression")
        and parent.child_by_field_id(FIELD_OBJECT) == value
    )
    if member and parent is not None:
        value, parent = _climb(parent, parent.parent)  # a member of tools: tools.x
        if (
            parent is not None
            and TYPE_OF[parent.kind_id] == "member_expression"
            and parent.child_by_field_id(FIELD_OBJECT) == value
        ):
            prop = parent.child_by_field_id(FIELD_PROPERTY)
            if prop is not None and script.name_of(prop) in _INDIRECT:
                note(parent, f"a tool is called through .{script.name_of(prop)}")
            return
    if parent is None:
        return
    kind = TYPE_OF[parent.kind_id]
    what = "a tool" if member else "tools"
    if kind == "arguments":
        call = parent.parent
        if call is not None and not _is_tool_value(script, call.child_by_field_id(FIELD_FUNCTION)):
            note(value, f"{what} is passed to a function")
    elif kind == "array":
        note(value, f"{what} is stored in an array")
    elif kind == "pair" and parent.child_by_field_id(FIELD_VALUE) == value:
        note(value, f"{what} is stored in an object")
    elif kind == "spread_element":
        note(value, f"{what} is spread")
    elif (
        kind in ("return_statement", "yield_expression")
        or kind == "arrow_function"
        and parent.child_by_field_id(FIELD_BODY) == value
    ):
        note(value, f"{what} is returned")
    elif (
        kind == "ternary_expression"
        and parent.child_by_field_id(FIELD_CONDITION) != value
        or kind == "binary_expression"
        and _operator(script, parent) in ("&&", "||", "??")
    ):
        note(value, f"{what} is chosen at run time")
    elif kind == "assignment_expression" and parent.child_by_field_id(FIELD_RIGHT) == value:
        left = parent.child_by_field_id(FIELD_LEFT)
        if (
            left is not None
            and TYPE_OF[left.kind_id] != "identifier"
            or left is not None
            and _reassigned_alias(script, left)
        ):
            note(value, f"{what} is assigned where the reading cannot follow it")
    elif kind == "variable_declarator" and parent.child_by_field_id(FIELD_VALUE) == value:
        target = parent.child_by_field_id(FIELD_NAME)
        if target is None:
            return
        if TYPE_OF[target.kind_id] == "identifier":
            binding = script.resolve(target)
            if binding is not None and binding.init is None:  # a let/var assigned again
                note(value, f"{what} is held by a name assigned more than once")
        elif value == name and any(
            b.node.start_byte >= target.start_byte and b.node.end_byte <= target.end_byte and b.key is None
            for bs in script.bindings.values()
            for b in bs
        ):
            note(value, "tools is destructured by a key the reading cannot name")


def _climb(value: Node, parent: Node | None) -> tuple[Node, Node | None]:
    """Up through what passes a value on unchanged: parentheses, ``await`` (also tree-sitter's misread
    ``await (x)`` call)."""
    while parent is not None:
        if TYPE_OF[parent.kind_id] in _PASS_THROUGH:
            value, parent = parent, parent.parent
        elif (
            TYPE_OF[parent.kind_id] == "arguments"
            and parent.parent is not None
            and is_misread_await(parent.parent)
            and misread_await_inner(parent.parent) == value
        ):
            value = parent.parent
            parent = value.parent
        else:
            break
    return value, parent


def _operator(script: ExecScript, expression: Node) -> str | None:
    operator = expression.child_by_field_id(FIELD_OPERATOR)
    return None if operator is None else script.text(operator)


def _reassigned_alias(script: ExecScript, left: Node) -> bool:
    binding = script.resolve(left)
    return binding is None or binding.init is None


def _is_tool_value(script: ExecScript, node: Node | None) -> bool:
    """``tools`` or one of its members (not called)."""
    node = unwrap(node)
    if node is None:
        return False
    if TYPE_OF[node.kind_id] in ("member_expression", "subscript_expression"):
        return _is_tools(script, node.child_by_field_id(FIELD_OBJECT))
    return _is_tools(script, node)


def _is_tools(script: ExecScript, node: Node | None) -> bool:
    """Whether ``node`` is the ``tools`` object: the global, ``globalThis.tools``, or a name bound to it,
    through any number of names."""
    seen: set[int] = set()
    while node is not None:
        if TYPE_OF[node.kind_id] in ("identifier", "shorthand_property_identifier"):
            binding = script.resolve(node)
            if binding is None:
                return script.name_of(node) == "tools"
            if binding.kind == "import":
                module = binding.module or ""
                return (
                    binding.imported in ("*", "default", "tools")
                    and bool(module)
                    and ("tools" in module or "code_mode" in module)
                )
            init = unwrap(binding.init)
            if (
                init is None
                or binding.kind not in ("const", "let", "var")
                or TYPE_OF[init.kind_id] not in ("identifier", "member_expression")
                or binding.node.id in seen
            ):
                return False
            seen.add(binding.node.id)
            node = init
            continue
        if TYPE_OF[node.kind_id] == "member_expression":
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
    return False
