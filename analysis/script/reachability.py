"""Statically dead code: branches whose condition is a constant, statements after a jump.

A static reading cannot know which calls ran; it can know which never could:
the body of ``if (false)``, the ``else`` of ``if (true)``, ``while (false)``,
``for (;false;)``, the right side of ``false && …``, ``true || …`` and
``"x" ?? …`` (any operand whose value is known), the arm of a constant ``?:`` not taken, and statements after an
unconditional ``return``, ``throw``, ``break`` or ``continue`` in the same block.
A ``const`` counts as its value (one evaluator, :mod:`analysis.script.values`, reads both
these conditions and the calls' arguments).

It also knows the calls that run whenever the script runs to completion
(:func:`runs_unconditionally`): the proof, with a completed output, that they ran.
"""

from __future__ import annotations

import re

from tree_sitter import Node, Query, QueryCursor

from ..jsonl.memo import once_per_object
from .js_tree import FIELD_BODY, FIELD_CONDITION, FIELD_LEFT, FIELD_OBJECT, FIELD_OPERATOR, FIELD_RIGHT, TYPE_OF
from .literals import UNKNOWN
from .module_syntax import syntax_problem
from .script import FUNCTIONS, JAVASCRIPT, ExecScript
from .values import UNDEFINED, constants_of, unwrap

_JUMPS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
_HOISTED = frozenset({"function_declaration", "generator_function_declaration"})


def is_dead(script: ExecScript, node: Node) -> bool:
    """True when ``node`` lies in code that can never run."""
    start, end = node.start_byte, node.end_byte
    return any(s <= start and end <= e for s, e in dead_ranges(script))


@once_per_object
def dead_ranges(script: ExecScript) -> list[tuple[int, int]]:
    """Byte ranges of the script that can never run, computed once per script from one query."""
    ranges: list[tuple[int, int]] = []
    truth_of = constants_of(script).truth
    groups = script.structure
    for captures in groups["statement_list"]:
        ranges.extend(_after_jump(captures["statement_list"][0]))
    for captures in groups["if"]:
        statement = captures["if"][0]
        truth = truth_of(statement.child_by_field_id(FIELD_CONDITION))
        branch = "consequence" if truth is False else "alternative" if truth is True else None
        dead_branch = statement.child_by_field_name(branch) if branch else None
        if dead_branch is not None:
            ranges.append(_range(dead_branch))
    for group in ("while", "for"):
        for captures in groups[group]:
            loop = captures[group][0]
            condition = loop.child_by_field_id(FIELD_CONDITION)
            if condition is not None and TYPE_OF[condition.kind_id] == "expression_statement":  # for (;cond;) wraps it
                condition = condition.named_children[0] if condition.named_children else None
            body = loop.child_by_field_id(FIELD_BODY)
            if condition is not None and body is not None and truth_of(condition) is False:
                ranges.append(_range(body))
    for captures in groups["binary"]:
        expression = captures["binary"][0]
        operator = expression.child_by_field_id(FIELD_OPERATOR)
        op = TYPE_OF[operator.kind_id] if operator is not None else ""
        if op not in ("&&", "||", "??"):
            continue
        left, right = expression.child_by_field_id(FIELD_LEFT), expression.child_by_field_id(FIELD_RIGHT)
        dead = (
            truth_of(left) is False
            if op == "&&"
            else truth_of(left) is True
            if op == "||"
            else _never_nullish(script, left)
        )
        if dead and right is not None:
            ranges.append(_range(right))
    for captures in groups["ternary"]:
        expression = captures["ternary"][0]
        truth = truth_of(expression.child_by_field_id(FIELD_CONDITION))
        arm = (
            expression.child_by_field_name("consequence" if truth is False else "alternative")
            if truth is not None
            else None
        )
        if arm is not None:
            ranges.append(_range(arm))
    return ranges


_NON_NULLISH = frozenset({"array", "object", "arrow_function", "function_expression", "class", "regex"})


def _never_nullish(script: ExecScript, node: Node | None) -> bool:
    node = unwrap(node)
    if node is None:
        return False
    if TYPE_OF[node.kind_id] in _NON_NULLISH:
        return True
    value = constants_of(script).value(node)
    return value is not UNKNOWN and value is not None and value is not UNDEFINED


def _after_jump(statements: Node) -> list[tuple[int, int]]:
    """The statements after an unconditional jump in one statement list (hoisted functions stay live).
    Lists are read from the top (their children), never by asking a jump for its parent: tree-sitter's
    ``parent`` costs O(depth)."""
    out = []
    jumped = False
    for child in statements.named_children:
        if jumped and TYPE_OF[child.kind_id] not in _HOISTED and TYPE_OF[child.kind_id] != "comment":
            out.append(_range(child))
        elif TYPE_OF[child.kind_id] in _JUMPS:
            jumped = True
    return out


def _range(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


# -- calls that run whenever the script completes --------------------------------------------------------
# Statements and expressions whose every child runs when they run (a bare block, a declaration, an
# expression); the others let only some children run unconditionally (a condition, a loop's first test,
# the left of `&&`), and functions, classes, try, labels, loop bodies and branches none.
_ALL_CHILDREN = frozenset(
    {
        "program",
        "statement_block",
        "expression_statement",
        "parenthesized_expression",
        "sequence_expression",
        "await_expression",
        "spread_element",
        "array",
        "template_string",
        "template_substitution",
        "arguments",
        "lexical_declaration",
        "variable_declaration",
        "object",
        "computed_property_name",
        "new_expression",
    }
)
_SOME_CHILDREN = {
    "variable_declarator": ("value",),
    "pair": ("key", "value"),
    "unary_expression": ("argument",),
    "update_expression": ("argument",),
    "if_statement": ("condition",),
    "switch_statement": ("value",),
    "while_statement": ("condition",),
    "for_statement": ("initializer", "condition"),
    "for_in_statement": ("right",),
    "ternary_expression": ("condition",),
    "export_statement": ("declaration", "value"),
}
_CHAINS = frozenset({"call_expression", "member_expression", "subscript_expression"})
_SHORT_CIRCUITS = frozenset({"&&", "||", "??", "&&=", "||=", "??="})
# globals through which a script can end early (`exit()`) or run code a static reading does not follow
_EXIT_NAMES = frozenset({"exit", "globalThis", "self", "eval", "Function"})
_EXITS = re.compile(r"\b(?:%s)\b" % "|".join(sorted(_EXIT_NAMES)))
_IDENTIFIERS = Query(JAVASCRIPT, "(identifier) @id")
_MAX_EXITS = 64
_MAX_CLIMB = 200


def runs_unconditionally(script: ExecScript, call: Node, straight_line: bool = False) -> bool:
    """Whether the call expression ``call`` runs whenever its script runs to completion: it is reached
    through top-level code only (not in a function, callback, class, branch, loop body, try block or
    handler, labelled statement, short-circuit or ternary arm, nor after an optional chain's ``?.``), and
    no ``exit`` (nor ``eval``, ``Function``, ``globalThis``, ``self``) can run before it.

    ``straight_line`` says the caller knows the script is straight-line (:attr:`ExecScript.straight_line`):
    every node on the way down to the call lets it run, so the path is not walked."""
    if syntax_problem(script) is not None:  # a script that does not parse never ran
        return False
    if straight_line:
        return call.end_byte <= _first_exit(script)
    if _guarded(script, call) or call.end_byte > _first_exit(script):
        return False
    path = _path_to(script, call)
    if path is None:
        return False
    return all(_runs_with(script, parent, child, field) for (parent, _), (child, field) in zip(path, path[1:]))


def _path_to(script: ExecScript, target: Node) -> list[tuple[Node, str | None]] | None:
    """The nodes from the program down to ``target``, each with its field name in its parent: one walk down
    (tree-sitter finds a node's parent by walking down from the root, so climbing costs depth² steps); None
    when the call sits deeper than real calls do (not claimed)."""
    cursor = script.root.walk()
    path: list[tuple[Node, str | None]] = []
    field: str | None = None
    byte = target.start_byte
    for _ in range(_MAX_CLIMB):
        node = cursor.node
        if node is None:  # never: a cursor always stands on a node
            return None
        path.append((node, field))
        if node == target:
            return path
        if cursor.goto_first_child_for_byte(byte) is None:
            return None
        field = cursor.field_name
    return None


def _runs_with(script: ExecScript, parent: Node, child: Node, field: str | None) -> bool:
    """Whether ``child`` (``field`` of ``parent``) runs whenever ``parent`` runs."""
    kind = TYPE_OF[parent.kind_id]
    if kind in _ALL_CHILDREN:
        return TYPE_OF[child.kind_id] != "method_definition"
    if kind in _SOME_CHILDREN:
        return field in _SOME_CHILDREN[kind]
    if kind in ("binary_expression", "assignment_expression", "augmented_assignment_expression"):
        if field == "left":  # an assignment's target runs when it is a member
            return kind == "binary_expression" or TYPE_OF[child.kind_id] in _CHAINS
        operator = parent.child_by_field_id(FIELD_OPERATOR)
        return field == "right" and (operator is None or TYPE_OF[operator.kind_id] not in _SHORT_CIRCUITS)
    if kind == "call_expression":
        return field == "function" or not _guarded(script, parent)
    if kind in ("member_expression", "subscript_expression"):
        return field == "object" or not _guarded(script, parent)
    return False


def _guarded(script: ExecScript, node: Node | None) -> bool:
    """Whether a ``?.`` in the call/member chain ending at ``node`` may skip it (``tools?.x`` never does:
    the global tools object is never nullish)."""
    if not _has_optional_chain(script):  # no optional chain anywhere: nothing to look for link by link
        return False
    while node is not None and TYPE_OF[node.kind_id] in _CHAINS:
        if any(TYPE_OF[c.kind_id] == "optional_chain" for c in node.children) and not _is_tools(script, node):
            return True
        node = node.child_by_field_name("function" if TYPE_OF[node.kind_id] == "call_expression" else "object")
    return False


@once_per_object
def _has_optional_chain(script: ExecScript) -> bool:
    """Whether the script holds ``?.`` at all: looked for once per script, not once per call (a script of
    thousands of calls made that quadratic)."""
    return b"?." in script.data


def _is_tools(script: ExecScript, link: Node) -> bool:
    """``tools?.x``: the global ``tools`` object is never nullish, so its ``?.`` never skips."""
    target = link.child_by_field_id(FIELD_OBJECT) if TYPE_OF[link.kind_id] != "call_expression" else None
    return (
        target is not None
        and TYPE_OF[target.kind_id] == "identifier"
        and script.name_of(target) == "tools"
        and script.resolve(target) is None
    )


@once_per_object
def _first_exit(script: ExecScript) -> int:
    """The byte where the first top-level ``exit`` (or code-running global) starts; -1 when one sits in a
    function or class, which may be called before any call; the script's end when there is none."""
    return _find_first_exit(script)


def _exit_words(source: str) -> bool:
    """Whether the names of _EXIT_NAMES stand anywhere (inside longer names too): a superset, one C search a word, a
    third of a regular expression's alternation on a script holding none (stop 40; the leading \\b of _EXITS
    costs five times that, issue 25), so it goes first."""
    return "exit" in source or "globalThis" in source or "self" in source or "eval" in source or "Function" in source


def _find_first_exit(script: ExecScript) -> int:
    first = len(script.data)
    source = script.source
    # names may be spelled with \u escapes
    if "\\u" not in source and (not _exit_words(source) or not _EXITS.search(source)):
        return first
    names = [
        n
        for n in QueryCursor(_IDENTIFIERS).captures(script.root).get("id", [])
        if script.name_of(n) in _EXIT_NAMES and script.resolve(n) is None
    ]
    if len(names) > _MAX_EXITS:
        return -1
    for name in names:
        node = name.parent
        while node is not None:
            if TYPE_OF[node.kind_id] in FUNCTIONS or TYPE_OF[node.kind_id] == "class_body":
                return -1
            node = node.parent
        first = min(first, name.start_byte)
    return first
