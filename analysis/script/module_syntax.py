"""Whether an exec script is valid module code, as V8 reads it before any of it runs.

Codex runs an exec script as an ES module: strict mode, top-level ``await``, early
errors.  tree-sitter's grammar is far wider (it accepts ``with``, ``"\\143"``,
``08``, a duplicate ``let``, ``break`` outside a loop, a top-level ``return``,
``await x ** 2``, ``(a)\\n=> 1``, ``new a?.b()``, JSX, invalid regular
expressions…), and a script V8 refuses never ran, so it must never be read as
having run.  esprima-fork (the esprima parser carried to ES2026, strict-mode and
early errors, regular expressions validated) decides; it is pure Python and
costs about three times tree-sitter's whole analysis of a script, so it is asked
only about the scripts a cheap look at tree-sitter's tree and the text finds a
construct in that V8 might refuse (:func:`might_be_refused`).  The look is a
superset: a false alarm costs one esprima parse, never a wrong answer.  Each trigger is
narrowed to the form that can be an early error (issue 25): ``??`` beside an
unparenthesised ``||``/``&&``, ``**`` after a unary operand, an escape that is a legacy
octal or past U+10FFFF, an escaped name that spells a keyword, a numeric separator
out of place, ``eval``/``arguments`` bound or assigned, ``"use strict"`` in a function
with non-simple parameters, ``await`` outside an async body, and declarations of one
name that clash (a shadowing one in an inner block does not).
"""

from __future__ import annotations

import re
from functools import lru_cache

from tree_sitter import Node

from ..jsonl.memo import once_per_object
from .module_names import (
    _assigns_badly,
    _await_refused,
    _misnames,
    _redeclares,
    _strict_directive_refused,
)
from .module_text import _ANY_TEXT_HIT, _NAME_BYTE, _text_hit, _text_hits
from .script import ExecScript
from .syntax_problem import SyntaxProblem, first_module_error

# Nodes that may be, or hold, an early error, by the group of ``_refused`` that looks at them: the
# ``suspect_*`` groups of the script's one structure query, and groups the rest of the analysis reads too.
_CHECKS = (
    ("operator", "binary"),
    ("operator", "assign"),
    ("method", "scope_function"),
    ("body", "if"),
    ("body", "while"),
    ("body", "for"),
    ("body", "loop"),
    ("body", "suspect_body"),
    ("delete", "suspect_delete"),
    ("return", "suspect_return"),
    ("jump", "suspect_jump"),
    ("await", "suspect_await"),
    ("new", "suspect_new"),
    ("declarator", "suspect_declarator"),
    ("regex", "suspect_regex"),
    ("number", "suspect_number"),
)
# the node types each shared group is read for (a group may hold other nodes as well)
_CHECKED_TYPES = {
    "binary": frozenset({"binary_expression"}),
    "assign": frozenset({"augmented_assignment_expression"}),
    "scope_function": frozenset({"method_definition"}),
}
_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_DECLARATIONS = frozenset(
    {"function_declaration", "generator_function_declaration", "class_declaration", "lexical_declaration"}
)
_TARGETS = frozenset({"identifier", "member_expression", "subscript_expression"})
_PARENT_STEPS = 64  # how far up a ``break`` is followed to its loop before it is simply asked about


@once_per_object
def syntax_problem(script: ExecScript) -> SyntaxProblem | None:
    """The first reason the script never ran, as V8 reads it: tree-sitter's reading
    (:attr:`~analysis.script.script.ExecScript.tree_problem`), else an early error of module code.  Asked once a
    script (reachability asks for every call), so the verdict is kept on the script (a lookup in its ``__dict__``,
    not a weak reference made for each question)."""
    return script.tree_problem or module_problem(script)


def module_problem(script: ExecScript) -> SyntaxProblem | None:
    """The first reason V8 refuses ``script`` (one tree-sitter read without error) as a module, or None."""
    if script.too_deep or not might_be_refused(script):
        return None
    return first_module_error(script.source)


def might_be_refused(script: ExecScript) -> bool:
    """Whether the script holds any construct that tree-sitter accepts and a module may not."""
    if _strict_directive_refused(script) or _text_hit(script):
        return True
    structure = script.structure
    if structure["suspect_always"]:
        return True
    in_functions = bool(structure["scope_function"])
    for check, group in _CHECKS:
        if check == "await" and not in_functions:
            continue  # outside every function ``await`` is the operator (see _await_refused)
        types = _CHECKED_TYPES.get(group)
        for captures in structure[group]:
            node = captures[group][0]
            if (types is None or node.type in types) and _refused(script, check, node):
                return True
    return _misnames(script) or _assigns_badly(script) or _redeclares(script) or _labelled_in_braces(script)


def _short_circuit(node: Node | None) -> bool:
    operator = node.child_by_field_name("operator") if node is not None and node.type == "binary_expression" else None
    return operator is not None and operator.type in ("||", "&&")


def _mixes_short_circuits(node: Node) -> bool:
    """Whether a ``??`` stands beside ``||`` or ``&&`` without parentheses (``a ?? b || c``): the only way ``??``
    is an early error.  Parentheses are a node of their own in the tree, so a mixed operand is a direct child."""
    return _short_circuit(node.parent) or any(
        _short_circuit(node.child_by_field_name(side)) for side in ("left", "right")
    )


def _refused(script: ExecScript, group: str, node: Node) -> bool:
    text = script.text
    if group == "operator":
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "??":
            return _mixes_short_circuits(node)
        if operator is None or operator.type != "**":
            return False  # ``**=`` is refused only for a target _assigns_badly finds
        left = node.child_by_field_name("left")  # ``-a ** b``, ``await a ** b``: a unary operand unparenthesised
        return left is not None and left.type in ("unary_expression", "await_expression")
    if group == "method":  # getters and setters of object literals
        parent = node.parent
        return parent is not None and parent.type == "object"
    if group == "body":  # a declaration as the whole body of an if, else or loop
        kind = node.type
        body = (
            node.named_children[0]
            if kind == "else_clause" and node.named_children
            else node.child_by_field_name("consequence" if kind == "if_statement" else "body")
        )
        return (
            body is not None
            and body.type in _DECLARATIONS
            or kind == "for_in_statement"
            and node.child_by_field_name("kind") is None
            and _unwrapped(node.child_by_field_name("left")) not in _TARGETS | {"object_pattern", "array_pattern"}
        )
    if group == "delete":
        return _unwrapped(node.child_by_field_name("argument")) == "identifier"
    if group == "return":
        return _function_of(script, node) in (None, "class_static_block")
    if group == "jump":
        return _jump_refused(node)
    if group == "await":
        return _await_refused(script, node)
    if group == "new":
        constructor = node.child_by_field_name("constructor")
        return constructor is not None and "?." in text(constructor)
    if group == "number":  # 010, 08, 1__0, 1_, 0x_1, 3in x
        data = script.data
        digits = data[node.start_byte : node.end_byte]
        return (
            digits[:1] == b"0"
            and digits[1:2].isdigit()
            or b"_" in digits
            and _bad_separator(digits)
            or bool(_NAME_BYTE.match(data, node.end_byte))
        )
    if group == "declarator":  # one without a value: a const, or a pattern
        declaration = node.parent
        name = node.child_by_field_name("name")
        return (
            name is not None
            and name.type != "identifier"
            or declaration is not None
            and declaration.type == "lexical_declaration"
            and declaration.children[0].type == "const"
        )
    if group == "regex":
        pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
        return not _valid_regexp(text(pattern) if pattern is not None else "", text(flags) if flags is not None else "")
    return False


_DECIMAL_SEPARATOR = re.compile(rb"(?<![0-9])_|_(?![0-9])")
_HEX_SEPARATOR = re.compile(rb"(?<![0-9a-fA-F])_|_(?![0-9a-fA-F])")


def _bad_separator(digits: bytes) -> bool:
    """A numeric separator not between two digits of the literal (``1__0``, ``1_``, ``0x_1``, ``1e_5``, ``0_1``)."""
    if digits[:1] == b"0" and digits[1:2] in (b"_", b""):
        return digits[1:2] == b"_"
    hexadecimal = digits[:2] in (b"0x", b"0X")
    body = digits[2:] if hexadecimal else digits
    return bool((_HEX_SEPARATOR if hexadecimal else _DECIMAL_SEPARATOR).search(body))


def _unwrapped(node: Node | None) -> str | None:
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    return node.type if node is not None else None


def _function_of(script: ExecScript, node: Node, async_only: bool = False) -> str | None:
    """The kind of function around ``node``: None at the top level, ``async`` for an async one with
    ``async_only``, else its node type."""
    function = script.innermost_function(node)
    if function == script.root:
        return None
    if async_only and any(c.type == "async" for c in function.children):
        return "async"
    return function.type


def _jump_refused(node: Node) -> bool:
    """A ``break`` or ``continue`` outside any loop (or switch, for ``break``) of its function; a labelled
    one is always asked about."""
    if node.child_by_field_name("label") is not None:
        return True
    parent = node.parent
    for _ in range(_PARENT_STEPS):
        if parent is None:
            return True
        if parent.type in _LOOPS or node.type == "break_statement" and parent.type == "switch_statement":
            return False
        if parent.type in (
            "function_declaration",
            "function_expression",
            "arrow_function",
            "method_definition",
            "generator_function_declaration",
            "generator_function",
            "class_static_block",
            "program",
        ):
            return True
        parent = parent.parent
    return True


# a labelled function or class inside braces tree-sitter reads as an object literal: ``{ L: function f() {} }``
# as a statement, ``() => { L: function f() {} }`` as an arrow's body (a labelled function declaration is an
# early error in strict code; a braced expression statement or an unparenthesised object body is never what V8
# reads there)
_LABELLED = re.compile(rb":\s*(?:async\s+)?(?:function|class)\b")


def _labelled_in_braces(script: ExecScript) -> bool:
    """A function or class as a label's body inside a block tree-sitter misread as an object literal."""
    data = script.data
    if b":" not in data or b"function" not in data and b"class" not in data:  # what _LABELLED needs (stop 40)
        return False
    for m in _LABELLED.finditer(data):
        value = script.root.descendant_for_byte_range(m.end() - 1, m.end())
        for _ in range(3):  # the keyword, its function or class, the pair
            if value is None or value.type == "pair":
                break
            value = value.parent
        obj = value.parent if value is not None and value.type == "pair" else None
        holder = obj.parent if obj is not None and obj.type == "object" else None
        if holder is None:
            continue
        if holder.type == "expression_statement" and holder.named_children and holder.named_children[0] == obj:
            return True
        if holder.type == "arrow_function" and holder.child_by_field_name("body") == obj:
            return True
    return False


@lru_cache(maxsize=4096)
def _valid_regexp(pattern: str, flags: str) -> bool:
    from esprima.regexp_validator import RegExpSyntaxError, validate_regexp

    try:
        validate_regexp(pattern, flags)
    except RegExpSyntaxError:
        return False
    except Exception:
        return False
    return True


# the text triggers live in module_text, the name and declaration checks in module_names (split along that seam);
# what tests and benches import from here is named here
__all__ = ["syntax_problem", "module_problem", "might_be_refused", "_ANY_TEXT_HIT", "_text_hits"]
