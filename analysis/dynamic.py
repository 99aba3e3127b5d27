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

from tree_sitter import Node, Query, QueryCursor

from .calls import Note
from .findings import DYNAMIC_CODE
from .script import JAVASCRIPT, MAX_DEPTH, ExecScript

_WORDS = ("tools", "eval", "Function", "import", "Reflect", "\\u")
_PLACES = Query(JAVASCRIPT, """
(call_expression function: (_) @callee) @call
(new_expression constructor: (_) @callee) @new
[(identifier) (shorthand_property_identifier)] @name
""")
_CODE_FROM_TEXT = {"eval": "eval runs code built at run time", "Function": "Function builds code at run time"}
_INDIRECT = frozenset({"call", "apply", "bind"})
_PASS_THROUGH = frozenset({"parenthesized_expression", "await_expression"})


def dynamic_notes(script: ExecScript) -> list[Note]:
    """A ``dynamic-code`` note at every place where tools may be reached beyond what the call list shows."""
    source = script.source
    if not any(word in source for word in _WORDS):
        return []
    notes: dict[tuple[int, int], Note] = {}

    def note(node: Node, message: str) -> None:
        start, end = script.span(node)
        notes.setdefault((start, end), Note(DYNAMIC_CODE, message + ": calls made through it are not listed",
                                            start, end))

    names = _names_of_tools(script)
    cursor = QueryCursor(_PLACES)
    cursor.set_max_start_depth(MAX_DEPTH)
    for _, captures in cursor.matches(script.root):
        if "call" in captures or "new" in captures:
            _code_at_run_time(script, (captures.get("call") or captures["new"])[0], captures["callee"][0], note)
        elif "name" in captures:
            name = captures["name"][0]
            if script.name_of(name) in names and _is_tools(script, name, 0):
                _escape(script, name, note)
    return sorted(notes.values(), key=lambda n: (n.start, n.end))


def _names_of_tools(script: ExecScript) -> set[str]:
    """``tools`` and the names that may be bound to it: only these are resolved (resolving every name of a
    script with thousands of shadowing declarations would be quadratic)."""
    names = {"tools"}
    for name, bindings in script.bindings.items():
        for binding in bindings:
            if binding.kind == "import" or binding.init is not None and "tools" in script.text(binding.init):
                names.add(name)
                break
    return names


def _code_at_run_time(script: ExecScript, call: Node, callee: Node, note) -> None:
    if callee.type == "import":
        note(call, "a dynamic import() loads code at run time")
    elif callee.type == "identifier":
        name = script.name_of(callee)
        if name in _CODE_FROM_TEXT and script.resolve(callee) is None:
            note(call, _CODE_FROM_TEXT[name])
    elif callee.type == "member_expression":  # Reflect.apply(tools.x, …), Reflect.get(tools, …)
        obj = callee.child_by_field_name("object")
        if obj is not None and obj.type == "identifier" and script.name_of(obj) == "Reflect" and \
                script.resolve(obj) is None:
            arguments = call.child_by_field_name("arguments")
            if arguments is not None and any(_is_tool_value(script, a) for a in arguments.named_children):
                note(call, "Reflect reaches a tool")


def _escape(script: ExecScript, name: Node, note) -> None:
    """What is done with a reference to ``tools``: called members are the call reader's; the rest is here."""
    value = name
    parent = name.parent
    if name.type == "shorthand_property_identifier":  # {tools}
        note(name, "tools is stored in an object")
        return
    if parent is not None and parent.type in ("member_expression", "subscript_expression") and \
            parent.child_by_field_name("object") == name:
        value, parent = parent, parent.parent  # a member of tools: tools.x
        if parent is not None and parent.type == "member_expression" and \
                parent.child_by_field_name("object") == value:
            prop = parent.child_by_field_name("property")
            if prop is not None and script.name_of(prop) in _INDIRECT:
                note(parent, f"a tool is called through .{script.name_of(prop)}")
            return
    while parent is not None and parent.type in _PASS_THROUGH:
        value, parent = parent, parent.parent
    if parent is None:
        return
    kind = parent.type
    what = "tools" if value == name else "a tool"
    if kind == "arguments":
        call = parent.parent
        if call is not None and not _is_tool_value(script, call.child_by_field_name("function")):
            note(value, f"{what} is passed to a function")
    elif kind == "array":
        note(value, f"{what} is stored in an array")
    elif kind == "pair" and parent.child_by_field_name("value") == value:
        note(value, f"{what} is stored in an object")
    elif kind == "spread_element":
        note(value, f"{what} is spread")
    elif kind in ("return_statement", "yield_expression") or \
            kind == "arrow_function" and parent.child_by_field_name("body") == value:
        note(value, f"{what} is returned")
    elif kind == "ternary_expression" and parent.child_by_field_name("condition") != value or \
            kind == "binary_expression" and script.text(parent.child_by_field_name("operator")) in ("&&", "||", "??"):
        note(value, f"{what} is chosen at run time")
    elif kind == "assignment_expression" and parent.child_by_field_name("right") == value:
        left = parent.child_by_field_name("left")
        if left is not None and left.type != "identifier" or left is not None and \
                _reassigned_alias(script, left):
            note(value, f"{what} is assigned where the reading cannot follow it")
    elif kind == "variable_declarator" and parent.child_by_field_name("value") == value:
        target = parent.child_by_field_name("name")
        if target is None:
            return
        if target.type == "identifier":
            binding = script.resolve(target)
            if binding is not None and binding.init is None:  # a let/var assigned again
                note(value, f"{what} is held by a name assigned more than once")
        elif value == name and any(b.node.start_byte >= target.start_byte and b.node.end_byte <= target.end_byte
                                   and b.key is None for bs in script.bindings.values() for b in bs):
            note(value, "tools is destructured by a key the reading cannot name")


def _reassigned_alias(script: ExecScript, left: Node) -> bool:
    binding = script.resolve(left)
    return binding is None or binding.init is None


def _is_tool_value(script: ExecScript, node: Node | None) -> bool:
    """``tools`` or one of its members (not called)."""
    while node is not None and node.type in _PASS_THROUGH:
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[-1] if inner else None
    if node is None:
        return False
    if node.type in ("member_expression", "subscript_expression"):
        return _is_tools(script, node.child_by_field_name("object"), 0)
    return _is_tools(script, node, 0)


def _is_tools(script: ExecScript, node: Node | None, depth: int) -> bool:
    """Whether ``node`` is the ``tools`` object: the global, ``globalThis.tools``, or a name bound to it."""
    if node is None or depth > 8:
        return False
    if node.type in ("identifier", "shorthand_property_identifier"):
        binding = script.resolve(node)
        if binding is None:
            return script.name_of(node) == "tools"
        if binding.kind == "import":
            return binding.imported in ("*", "default", "tools") and bool(binding.module) and \
                ("tools" in binding.module or "code_mode" in binding.module)
        init = binding.init
        while init is not None and init.type == "parenthesized_expression" and init.named_children:
            init = init.named_children[-1]
        return init is not None and binding.kind in ("const", "let", "var") and \
            init.type in ("identifier", "member_expression") and _is_tools(script, init, depth + 1)
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        return obj is not None and prop is not None and script.name_of(prop) == "tools" and \
            obj.type == "identifier" and script.name_of(obj) in ("globalThis", "self") and script.resolve(obj) is None
    return False
