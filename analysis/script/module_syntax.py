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
from itertools import compress

from tree_sitter import Node

from ..jsonl.memo import once_per_object
from .module_names import (
    _assigns_badly,
    _await_refused,
    _misnames,
    _redeclares,
    _strict_directive_refused,
)
from .module_text import (
    _ANY_TEXT_HIT,
    CALLED,
    LABELLED,
    STRICT,
    TEXT_TRIGGER,
    _text_hits,
    placed_text_hit,
    text_suspects,
)
from .script import ExecScript
from .syntax_problem import SyntaxProblem, first_module_error

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
    """Whether the script holds any construct that tree-sitter accepts and a module may not.

    Gated (stop 44), each gate exact for what it skips: a construct of ``suspect_always`` answers first; one RE2
    set pass over the text (:func:`~analysis.script.module_text.text_suspects`) says which text readers can find
    anything, and those it does not report are not asked (each pattern is a superset of what its reader needs);
    the groups are read only where the structure query found a node (an empty group has nothing for _refused);
    the labelled-function look needs a function node as well as its text (a ``class`` there is a
    ``suspect_always`` node)."""
    structure = script.structure
    if structure["suspect_always"]:
        return True
    suspects = text_suspects(script.data)
    if TEXT_TRIGGER in suspects and placed_text_hit(script):
        return True
    if STRICT in suspects and _strict_directive_refused(script):
        return True
    # only the groups holding a node (most are empty): picked in C, by the lists' truth
    for group, refused in compress(_GROUP_CHECKS, map(structure.__getitem__, _GROUP_NAMES)):
        for captures in structure[group]:
            if refused(script, captures[group][0]):
                return True
    in_functions = bool(structure["scope_function"])
    if in_functions:  # outside every function ``await`` is the operator (see _await_refused)
        for captures in structure["suspect_await"]:
            if _await_refused(script, captures["suspect_await"][0]):
                return True
    return (
        _misnames(script, CALLED in suspects)
        or bool(structure["assign"])
        and _assigns_badly(script)
        or _redeclares(script)
        or in_functions
        and LABELLED in suspects
        and _labelled_in_braces(script)
    )


def _short_circuit(node: Node | None) -> bool:
    operator = node.child_by_field_name("operator") if node is not None and node.type == "binary_expression" else None
    return operator is not None and operator.type in ("||", "&&")


def _mixes_short_circuits(node: Node) -> bool:
    """Whether a ``??`` stands beside ``||`` or ``&&`` without parentheses (``a ?? b || c``): the only way ``??``
    is an early error.  Parentheses are a node of their own in the tree, so a mixed operand is a direct child."""
    return _short_circuit(node.parent) or any(
        _short_circuit(node.child_by_field_name(side)) for side in ("left", "right")
    )


# What may be, or hold, an early error, by the group of the script's one structure query that finds it (the
# ``suspect_*`` groups, and groups the rest of the analysis reads too, which may hold other node types as well):
# one function a group, each false for a node that cannot be refused.  (Stop 44: a function a group, found by the
# loop in might_be_refused for the non-empty groups only, not one function comparing the check's name 9 times.)


def _operator_refused(script: ExecScript, node: Node) -> bool:
    if node.type != "binary_expression" and node.type != "augmented_assignment_expression":
        return False
    operator = node.child_by_field_name("operator")
    if operator is not None and operator.type == "??":
        return _mixes_short_circuits(node)
    if operator is None or operator.type != "**":
        return False  # ``**=`` is refused only for a target _assigns_badly finds
    left = node.child_by_field_name("left")  # ``-a ** b``, ``await a ** b``: a unary operand unparenthesised
    return left is not None and (left.type in ("unary_expression", "await_expression") or _awaits(script, left))


def _awaits(script: ExecScript, node: Node) -> bool:
    """Whether ``node`` begins with the token ``await``: tree-sitter reads ``await (x)\n(-a) ** b`` as calls of
    ``await``, V8 as ``await`` of ``(x)(-a)`` (never a name in module code), an unparenthesised unary operand of
    ``**`` (miss 4 of stop 44)."""
    data, start = script.data, node.start_byte
    return data[start : start + 5] == b"await" and (start + 5 >= len(data) or data[start + 5] not in _NAME_BYTES)


def _method_refused(script: ExecScript, node: Node) -> bool:
    if node.type != "method_definition":
        return False
    parent = node.parent  # getters and setters of object literals
    return parent is not None and parent.type == "object"


def _body_refused(script: ExecScript, node: Node) -> bool:
    """A declaration as the whole body of an if, else or loop; a ``for (… in/of …)`` whose left side cannot be
    assigned."""
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
        and _bad_loop_target(script, node.child_by_field_name("left"))
    )


def _bad_loop_target(script: ExecScript, left: Node | None) -> bool:
    """A ``for (… in/of …)`` left side that cannot be assigned: not a name, member or pattern, or one holding an
    optional chain (``for (a?.b of c)``, ``for ([a?.b] of c)``; a ``?.`` in a default or computed key is a false
    alarm, one esprima parse)."""
    return _unwrapped(left) not in _TARGETS | {"object_pattern", "array_pattern"} or (
        left is not None and script.data.find(b"?.", left.start_byte, left.end_byte) != -1
    )


def _delete_refused(script: ExecScript, node: Node) -> bool:
    return _unwrapped(node.child_by_field_name("argument")) == "identifier"


def _return_refused(script: ExecScript, node: Node) -> bool:
    return _function_of(script, node) in (None, "class_static_block")


def _jump_checked(script: ExecScript, node: Node) -> bool:
    return _jump_refused(node)


def _new_refused(script: ExecScript, node: Node) -> bool:
    constructor = node.child_by_field_name("constructor")
    return constructor is not None and "?." in script.text(constructor)


# what ``[\w$\\]`` matches in a bytes pattern (``\w`` is ASCII there): a number's next byte read as a set member,
# not a regular expression's match at a position (stop 44; the same bytes)
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$\\")


def _number_refused(script: ExecScript, node: Node) -> bool:
    """010, 08, 1__0, 1_, 0x_1, 3in x."""
    data = script.data
    end = node.end_byte
    digits = data[node.start_byte : end]
    return (
        digits[:1] == b"0"
        and digits[1:2].isdigit()
        or b"_" in digits
        and _bad_separator(digits)
        or end < len(data)
        and data[end] in _NAME_BYTES
    )


def _declarator_refused(script: ExecScript, node: Node) -> bool:
    """One without a value: a const, or a pattern."""
    declaration = node.parent
    name = node.child_by_field_name("name")
    return (
        name is not None
        and name.type != "identifier"
        or declaration is not None
        and declaration.type == "lexical_declaration"
        and declaration.children[0].type == "const"
    )


def _regex_refused(script: ExecScript, node: Node) -> bool:
    pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
    text = script.text
    return not _valid_regexp(text(pattern) if pattern is not None else "", text(flags) if flags is not None else "")


# (group, its check) in the order the checks were asked before stop 44; the ``suspect_await`` group is read apart,
# only in a script with functions (outside every function ``await`` is the operator: see _await_refused)
_GROUP_CHECKS = (
    ("binary", _operator_refused),
    ("assign", _operator_refused),
    ("scope_function", _method_refused),
    ("if", _body_refused),
    ("while", _body_refused),
    ("for", _body_refused),
    ("loop", _body_refused),
    ("suspect_body", _body_refused),
    ("suspect_delete", _delete_refused),
    ("suspect_return", _return_refused),
    ("suspect_jump", _jump_checked),
    ("suspect_new", _new_refused),
    ("suspect_declarator", _declarator_refused),
    ("suspect_regex", _regex_refused),
    ("suspect_number", _number_refused),
)
_GROUP_NAMES = tuple(group for group, _ in _GROUP_CHECKS)


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
# reads there).  Found from the keywords' tokens in the tree (a pair's value), not by a pattern over the text
# between ``:`` and the keyword, which may hold comments (stop 44's miss 3): linear, one ``find`` an occurrence.
_LABELLED_KEYWORDS = ((b"function", ("function_expression", "generator_function")), (b"class", ("class",)))


def _labelled_in_braces(script: ExecScript) -> bool:
    """A function or class as a label's body inside a block tree-sitter misread as an object literal."""
    data = script.data
    if b":" not in data:
        return False
    root = script.root
    for keyword, kinds in _LABELLED_KEYWORDS:
        at = data.find(keyword)
        while at != -1:
            token = root.descendant_for_byte_range(at, at + len(keyword))
            at = data.find(keyword, at + len(keyword))
            value = token.parent if token is not None and token.type == keyword.decode() else None
            pair = value.parent if value is not None and value.type in kinds else None
            if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != value:
                continue
            obj = pair.parent
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
