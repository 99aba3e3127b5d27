"""Statically dead code: branches whose condition is a constant, statements after a jump.

A static reading cannot know which calls ran; it can know which never could:
the body of ``if (false)``, the ``else`` of ``if (true)``, ``while (false)``,
``for (;false;)``, the right side of ``false && …``, ``true || …`` and
``"x" ?? …``, the arm of a constant ``?:`` not taken, and statements after an
unconditional ``return``, ``throw``, ``break`` or ``continue`` in the same block.
A ``const`` bound to a literal counts as that literal.
"""

from __future__ import annotations

from tree_sitter import Node

from .literals import UNKNOWN, number_value, string_value, template_quasis
from .script import ExecScript

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
    groups = script.structure
    for captures in groups["statement_list"]:
        ranges.extend(_after_jump(captures["statement_list"][0]))
    for captures in groups["if"]:
        statement = captures["if"][0]
        truth = constant_truth(script, statement.child_by_field_name("condition"))
        branch = "consequence" if truth is False else "alternative" if truth is True else None
        dead = statement.child_by_field_name(branch) if branch else None
        if dead is not None:
            ranges.append(_range(dead))
    for group in ("while", "for"):
        for captures in groups[group]:
            loop = captures[group][0]
            condition = loop.child_by_field_name("condition")
            if condition is not None and condition.type == "expression_statement":  # for (;cond;) wraps it
                condition = condition.named_children[0] if condition.named_children else None
            body = loop.child_by_field_name("body")
            if condition is not None and body is not None and constant_truth(script, condition) is False:
                ranges.append(_range(body))
    for captures in groups["binary"]:
        expression = captures["binary"][0]
        operator = expression.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        if op not in ("&&", "||", "??"):
            continue
        left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
        dead = constant_truth(script, left) is False if op == "&&" else \
            constant_truth(script, left) is True if op == "||" else left is not None and left.type in _NON_NULLISH
        if dead and right is not None:
            ranges.append(_range(right))
    for captures in groups["ternary"]:
        expression = captures["ternary"][0]
        truth = constant_truth(script, expression.child_by_field_name("condition"))
        arm = expression.child_by_field_name("consequence" if truth is False else "alternative") \
            if truth is not None else None
        if arm is not None:
            ranges.append(_range(arm))
    script.__dict__["_dead_ranges"] = ranges
    return ranges


_NON_NULLISH = frozenset({"string", "number", "true", "false", "template_string", "array", "object"})


def _after_jump(statements: Node) -> list[tuple[int, int]]:
    """The statements after an unconditional jump in one statement list (hoisted functions stay live).
    Lists are read from the top (their children), never by asking a jump for its parent: tree-sitter's
    ``parent`` costs O(depth)."""
    out = []
    jumped = False
    for child in statements.named_children:
        if jumped and child.type not in _HOISTED and child.type != "comment":
            out.append(_range(child))
        elif child.type in _JUMPS:
            jumped = True
    return out


def _range(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte
