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
_STATEMENT_LISTS = frozenset({"statement_block", "program", "switch_case", "switch_default"})
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
    child, parent = node, node.parent
    while parent is not None:
        if _dead_in(script, child, parent):
            return True
        child, parent = parent, parent.parent
    return False


def _dead_in(script: ExecScript, child: Node, parent: Node) -> bool:
    kind = parent.type
    if kind == "if_statement":
        truth = constant_truth(script, parent.child_by_field_name("condition"))
        if truth is None:
            return False
        if _same(child, parent.child_by_field_name("consequence")):
            return truth is False
        if _same(child, parent.child_by_field_name("alternative")):
            return truth is True
        return False
    if kind in ("while_statement", "for_statement"):
        if not _same(child, parent.child_by_field_name("body")):
            return False
        condition = parent.child_by_field_name("condition")
        if kind == "for_statement" and condition is not None and condition.type == "expression_statement":
            condition = condition.named_children[0] if condition.named_children else None
        return condition is not None and constant_truth(script, condition) is False
    if kind == "binary_expression":
        if not _same(child, parent.child_by_field_name("right")):
            return False
        operator = parent.child_by_field_name("operator")
        op = script.text(operator) if operator is not None else ""
        left = parent.child_by_field_name("left")
        if op == "&&":
            return constant_truth(script, left) is False
        if op == "||":
            return constant_truth(script, left) is True
        if op == "??":
            return left is not None and left.type in ("string", "number", "true", "false", "template_string",
                                                        "array", "object")
        return False
    if kind == "ternary_expression":
        truth = constant_truth(script, parent.child_by_field_name("condition"))
        if truth is None:
            return False
        if _same(child, parent.child_by_field_name("consequence")):
            return truth is False
        return _same(child, parent.child_by_field_name("alternative")) and truth is True
    if kind in _STATEMENT_LISTS and child.type not in _HOISTED:
        sibling = child.prev_named_sibling
        while sibling is not None:
            if sibling.type in _JUMPS:
                return True
            sibling = sibling.prev_named_sibling
    return False


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte \
        and a.type == b.type
