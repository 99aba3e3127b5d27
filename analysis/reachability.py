"""Statically dead code: branches whose condition is a constant, statements after a jump.

A static reading cannot know which calls ran; it can know which never could:
the body of ``if (false)``, the ``else`` of ``if (true)``, ``while (false)``,
``for (;false;)``, the right side of ``false && …``, ``true || …`` and
``"x" ?? …``, the arm of a constant ``?:`` not taken, and statements after an
unconditional ``return``, ``throw``, ``break`` or ``continue`` in the same block.
A ``const`` bound to a literal counts as that literal.
"""

from __future__ import annotations

from tree_sitter import Node, Query, QueryCursor

from .literals import UNKNOWN, number_value, string_value, template_quasis
from .script import JAVASCRIPT, ExecScript

_JUMPS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
_HOISTED = frozenset({"function_declaration", "generator_function_declaration"})


def constant_truth(script: ExecScript, node: Node | None, depth: int = 0) -> bool | None:
    """Whether ``node`` is always truthy (True), always falsy (False), or not known (None)."""
    if node is None or depth > 20:
        return None
    kind = node.type
    if kind == "parenthesized_expression":
        inner = node.named_children[-1] if node.named_children else None
        return constant_truth(script, inner, depth + 1)
    if kind == "true":
        return True
    if kind in ("false", "null", "undefined"):
        return False
    if kind == "number":
        value = number_value(script.text(node))
        return None if value is UNKNOWN else value != 0
    if kind == "string":
        value = string_value(script.text(node))
        return None if value is UNKNOWN else value != ""
    if kind == "template_string":
        if any(c.type == "template_substitution" for c in node.named_children):
            return None
        pieces = template_quasis(script.text(node))
        return None if pieces is UNKNOWN else "".join(pieces) != ""
    if kind in ("array", "object", "arrow_function", "function_expression", "class", "regex"):
        return True
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        op = script.text(operator) if operator is not None else ""
        if op == "!":
            inner = constant_truth(script, argument, depth + 1)
            return None if inner is None else not inner
        if op == "void":
            return False
        return None
    if kind == "identifier":
        binding = script.resolve(node)
        if binding is None:
            return False if script.text(node) in ("undefined", "NaN") else None
        if binding.kind == "const" and binding.init is not None and script.declared_once(binding):
            return constant_truth(script, binding.init, depth + 1)
    return None


_CONSTRUCTS = Query(JAVASCRIPT, """
(if_statement condition: (_) @condition consequence: (_) @then) @if
(while_statement condition: (_) @condition body: (_) @body)
(for_statement condition: (_) @condition body: (_) @body)
(binary_expression left: (_) @left operator: ["&&" "||" "??"] @operator right: (_) @right)
(ternary_expression condition: (_) @condition consequence: (_) @then alternative: (_) @else)
[(return_statement) (throw_statement) (break_statement) (continue_statement)] @jump
""")


def is_dead(script: ExecScript, node: Node) -> bool:
    """True when ``node`` lies in code that can never run."""
    start, end = node.start_byte, node.end_byte
    return any(s <= start and end <= e for s, e in dead_ranges(script))


def dead_ranges(script: ExecScript) -> list[tuple[int, int]]:
    """Byte ranges of the script that can never run, computed once per script from one query."""
    cached = script.__dict__.get("_dead_ranges")
    if cached is not None:
        return cached
    ranges: list[tuple[int, int]] = []
    for _, captures in QueryCursor(_CONSTRUCTS).matches(script.root):
        if "jump" in captures:
            ranges.extend(_after_jump(captures["jump"][0]))
        elif "if" in captures:
            truth = constant_truth(script, captures["condition"][0])
            statement = captures["if"][0]
            if truth is False:
                ranges.append(_range(captures["then"][0]))
            elif truth is True:
                alternative = statement.child_by_field_name("alternative")
                if alternative is not None:
                    ranges.append(_range(alternative))
        elif "body" in captures:
            condition = captures["condition"][0]
            if condition.type == "expression_statement":  # for (;cond;) wraps it
                condition = condition.named_children[0] if condition.named_children else None
            if condition is not None and constant_truth(script, condition) is False:
                ranges.append(_range(captures["body"][0]))
        elif "operator" in captures:
            op = captures["operator"][0].type
            left = captures["left"][0]
            dead = constant_truth(script, left) is False if op == "&&" else \
                constant_truth(script, left) is True if op == "||" else left.type in _NON_NULLISH
            if dead:
                ranges.append(_range(captures["right"][0]))
        elif "else" in captures:
            truth = constant_truth(script, captures["condition"][0])
            if truth is not None:
                ranges.append(_range(captures["then" if truth is False else "else"][0]))
    script.__dict__["_dead_ranges"] = ranges
    return ranges


_STATEMENT_LISTS = frozenset({"statement_block", "program", "switch_case", "switch_default"})
_NON_NULLISH = frozenset({"string", "number", "true", "false", "template_string", "array", "object"})


def _after_jump(jump: Node) -> list[tuple[int, int]]:
    """The statements after an unconditional jump in its block (hoisted functions stay live)."""
    parent = jump.parent
    if parent is None or parent.type not in _STATEMENT_LISTS:  # `if (x) return; else …`: not a list
        return []
    out = []
    sibling = jump.next_named_sibling
    while sibling is not None:
        if sibling.type not in _HOISTED and sibling.type != "comment":
            out.append(_range(sibling))
        sibling = sibling.next_named_sibling
    return out


def _range(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte
