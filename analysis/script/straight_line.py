"""Straight-line scripts: code without branches, loops, functions or anything else that may skip a call.

Most exec scripts (about four in five of real ones) are a few statements that call tools one after the
other.  In such a script no code is dead and every call runs whenever the script runs to completion, unless
the script does not parse or an ``exit`` (or code-running global) comes before it; no call depends on an
iteration.  :mod:`analysis.script.calls` then skips the dead-code, reachability-path and expansion readings
(the short path), and a differential test runs both paths on every script of the corpora and of generated
ones.

Whether a script is straight-line is decided from its tree, exactly: every node is of a type of
:data:`STRAIGHT_TYPES` (any other type, found by one group of the script's one structure query, makes it
not straight-line), no binary operator short-circuits, and an assignment's target is a name or a member.
The allowed types are those under which :func:`analysis.script.reachability.runs_unconditionally` lets every
child that can hold a call run: blocks, declarations, expressions whose operands all run, members and calls
(an optional chain is not allowed), literals and names.  Whatever is not listed (every other type the
grammar has, today's or a future grammar's: the list of refused types is made from the grammar itself) makes
a script take the full path, which is never wrong, only slower.
"""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Language, Node

# Node types a straight-line script may hold.  For each that can hold a call, every child runs when it runs
# (see reachability._runs_with): a binary expression and an assignment are checked further by
# :func:`is_straight_line`; a declarator's name is an identifier (patterns are not listed, so a default value
# in one is never met); an import holds no call (its attributes are not listed).
STRAIGHT_TYPES = frozenset(
    {
        "program",
        "statement_block",
        "expression_statement",
        "empty_statement",
        "debugger_statement",
        "lexical_declaration",
        "variable_declaration",
        "variable_declarator",
        "import_statement",
        "import_clause",
        "import_specifier",
        "named_imports",
        "namespace_import",
        "import",
        "export_statement",
        "export_clause",
        "export_specifier",
        "namespace_export",
        "call_expression",
        "arguments",
        "member_expression",
        "subscript_expression",
        "new_expression",
        "await_expression",
        "parenthesized_expression",
        "sequence_expression",
        "spread_element",
        "binary_expression",
        "unary_expression",
        "update_expression",
        "assignment_expression",
        "augmented_assignment_expression",
        "array",
        "object",
        "pair",
        "computed_property_name",
        "shorthand_property_identifier",
        "template_string",
        "template_substitution",
        "string",
        "string_fragment",
        "escape_sequence",
        "number",
        "regex",
        "regex_pattern",
        "regex_flags",
        "true",
        "false",
        "null",
        "undefined",
        "this",
        "super",
        "meta_property",
        "identifier",
        "property_identifier",
        "private_property_identifier",
        "comment",
        "hash_bang_line",
        "html_comment",
    }
)
SHORT_CIRCUITS = frozenset({"&&", "||", "??", "&&=", "||=", "??="})
_TARGETS = frozenset({"identifier", "member_expression", "subscript_expression"})


def not_straight_pattern(language: Language) -> str:
    """A query pattern capturing, as ``@not_straight``, every node of a type a straight-line script may not hold:
    every named type of the grammar outside :data:`STRAIGHT_TYPES`, and errors."""
    kinds = (
        language.node_kind_for_id(i)
        for i in range(language.node_kind_count)
        if language.node_kind_is_named(i) and language.node_kind_is_visible(i)
    )
    refused = sorted({kind for kind in kinds if kind is not None} - STRAIGHT_TYPES)  # None: an id with no kind
    return "[" + " ".join(f"({kind})" for kind in refused + ["ERROR"]) + "] @not_straight\n"


def is_straight_line(groups: Mapping[str, list[dict[str, list[Node]]]]) -> bool:
    """Whether a script whose structure query found ``groups`` (see ``ExecScript.structure``) is straight-line:
    no node of a refused type, no short-circuit, every assignment's target a name or a member."""
    if groups["not_straight"]:
        return False
    for captures in groups["binary"]:
        operator = captures["binary"][0].child_by_field_name("operator")
        if operator is not None and operator.type in SHORT_CIRCUITS:
            return False
    for captures in groups["assign"]:
        node = captures["assign"][0]
        if node.type == "update_expression":
            continue
        left = node.child_by_field_name("left")
        if left is not None and left.type not in _TARGETS:
            return False
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type in SHORT_CIRCUITS:
            return False
    return True


__all__ = ["SHORT_CIRCUITS", "STRAIGHT_TYPES", "is_straight_line", "not_straight_pattern"]
