"""JavaScript as tree-sitter reads it: the language, a parser per thread, and :data:`STRUCTURE`, the one query
whose matches (by group) are all :class:`~analysis.script.script.ExecScript` needs of a script's tree.

Also tree-sitter's one misreading of module code every reader must undo: ``await (x)`` read as a call of a
function named ``await`` (:func:`is_misread_await`).
"""

from __future__ import annotations

import sys
import threading

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Query

from .straight_line import not_straight_pattern

JAVASCRIPT = Language(tree_sitter_javascript.language())
_LOCAL = threading.local()

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
        "class_static_block",
    }
)
BLOCKS = frozenset({"statement_block", "program", "for_statement", "for_in_statement", "switch_body"})

# Everything the analysis needs from a script's tree, in one pass of one query.  Every pattern captures
# at a node's start (fields are read in Python), so no in-progress match waits across a deep subtree:
# patterns like `(binary_expression left: (_) right: (_) @r)` make matching quadratic on `a && b && …`.
STRUCTURE = Query(
    JAVASCRIPT,
    """
(call_expression function: (_) @callee) @call
(lexical_declaration kind: _ @kind (variable_declarator name: (_) @name) @declarator)
(variable_declaration (variable_declarator name: (_) @name) @declarator)
(function_declaration name: (identifier) @name) @fn_decl
(generator_function_declaration name: (identifier) @name) @fn_decl
(class_declaration name: (identifier) @name) @class_decl
[(function_expression name: (identifier) @name) (generator_function name: (identifier) @name)] @fn_expr
(class name: (identifier) @name) @class_expr
(formal_parameters) @params
(arrow_function parameter: (identifier) @name) @arrow
(catch_clause parameter: (_) @name) @catch
(import_statement) @import
(for_in_statement left: (_) @name) @loop
[(statement_block) (for_statement) (for_in_statement) (switch_body) (catch_clause) (class_static_block)] @scope_block
[(function_declaration) (function_expression) (arrow_function) (method_definition)
 (generator_function_declaration) (generator_function) (class_static_block)] @scope_function
(if_statement) @if
(while_statement) @while
(for_statement) @for
(binary_expression) @binary
(ternary_expression) @ternary
[(statement_block) (switch_case) (switch_default)] @statement_list
[(assignment_expression) (augmented_assignment_expression) (update_expression)] @assign
[(with_statement) (labeled_statement) (yield_expression) (private_property_identifier) (meta_property) (super)
 (class_declaration) (class) (export_statement) (jsx_element) (jsx_self_closing_element)] @suspect_always
[(else_clause) (do_statement)] @suspect_body
(unary_expression operator: "delete") @suspect_delete
(return_statement) @suspect_return
[(break_statement) (continue_statement)] @suspect_jump
(await_expression) @suspect_await
(new_expression) @suspect_new
(variable_declarator !value) @suspect_declarator
(regex) @suspect_regex
(number) @suspect_number
"""
    + not_straight_pattern(JAVASCRIPT),
)
_GROUPS = (
    "call",
    "declarator",
    "fn_decl",
    "class_decl",
    "fn_expr",
    "class_expr",
    "params",
    "arrow",
    "catch",
    "import",
    "loop",
    "scope_block",
    "scope_function",
    "if",
    "while",
    "for",
    "binary",
    "ternary",
    "statement_list",
    "assign",
)
# the ``suspect_*`` groups are nodes that may hold an early error of module code (see analysis.script.module_syntax):
# read in the same pass, as a second query would walk the whole tree again
SUSPECT_GROUPS = (
    "suspect_always",
    "suspect_body",
    "suspect_delete",
    "suspect_return",
    "suspect_jump",
    "suspect_await",
    "suspect_new",
    "suspect_declarator",
    "suspect_regex",
    "suspect_number",
)
ALL_GROUPS = _GROUPS + SUSPECT_GROUPS + ("not_straight",)
PATTERN_GROUP: dict[int, str] = {}  # a pattern of STRUCTURE → its group (its capture names are fixed)
# tree-sitter's query cursor degrades sharply (and drops matches) on captured nodes nested ~60,000 deep;
# real scripts nest a few dozen levels, so matching is capped here and a deeper script says so.
MAX_DEPTH = 8192
CONFIRM_LIMIT = 256 * 1024  # bytes of a broken script the strict parser is asked about (pure Python: ~2 µs/byte)
OPAQUE = frozenset({"string", "template_string", "comment", "regex"})
DECLARATION_GROUPS = (
    "declarator",
    "fn_decl",
    "class_decl",
    "fn_expr",
    "class_expr",
    "params",
    "arrow",
    "catch",
    "import",
    "loop",
)


# A node's ``kind_id`` → its ``type``: ``TYPE_OF[node.kind_id]`` is ``node.type`` without the string tree-sitter makes at
# every read (about 300 instructions a read, callgrind); ``kind_id`` is a small int, and a plain dict (not a subclass)
# is what the interpreter's specialised subscript reads fastest.  Both read the node's public symbol, whose name is
# its type ("ERROR" is 65535, "_ERROR" 65534); ``tests/script/test_script_speed44.py`` checks every node of the corpus.
TYPE_OF: dict[int, str] = {
    kind_id: sys.intern(name)
    for kind_id in (*range(JAVASCRIPT.node_kind_count), 65534, 65535)
    if (name := JAVASCRIPT.node_kind_for_id(kind_id)) is not None
}


def _field(name: str) -> int:
    found = JAVASCRIPT.field_id_for_name(name)
    if found is None:
        raise LookupError(f"tree-sitter-javascript has no field {name!r}")
    return found


# Field ids: ``node.child_by_field_id(FIELD_X)`` is ``node.child_by_field_name("x")`` without the lookup of the name
# among the grammar's field names (about 900 of the 1,700 instructions of a call, callgrind).
FIELD_ALIAS = _field("alias")
FIELD_ARGUMENT = _field("argument")
FIELD_ARGUMENTS = _field("arguments")
FIELD_BODY = _field("body")
FIELD_CONDITION = _field("condition")
FIELD_CONSTRUCTOR = _field("constructor")
FIELD_FUNCTION = _field("function")
FIELD_INDEX = _field("index")
FIELD_KEY = _field("key")
FIELD_KIND = _field("kind")
FIELD_LEFT = _field("left")
FIELD_NAME = _field("name")
FIELD_OBJECT = _field("object")
FIELD_OPERATOR = _field("operator")
FIELD_PARAMETER = _field("parameter")
FIELD_PARAMETERS = _field("parameters")
FIELD_PROPERTY = _field("property")
FIELD_RIGHT = _field("right")
FIELD_SOURCE = _field("source")
FIELD_VALUE = _field("value")


def parser() -> Parser:
    """This thread's parser (a Parser is not safe to share between threads)."""
    found = getattr(_LOCAL, "parser", None)
    if found is None:
        found = _LOCAL.parser = Parser(JAVASCRIPT)
    return found


def is_misread_await(node: Node) -> bool:
    """Whether ``node`` is tree-sitter's misreading of ``await (x)`` as a call of a function named ``await``
    (in module code ``await`` is always the operator)."""
    if TYPE_OF[node.kind_id] != "call_expression":
        return False
    function = node.child_by_field_id(FIELD_FUNCTION)
    if (
        function is None
        or TYPE_OF[function.kind_id] != "identifier"
        or function.end_byte - function.start_byte != 5
        or function.text != b"await"
    ):
        return False
    arguments = node.child_by_field_id(FIELD_ARGUMENTS)
    return arguments is not None and TYPE_OF[arguments.kind_id] == "arguments"


def misread_await_inner(node: Node) -> Node | None:
    """The expression a misread ``await (…)`` awaits: the last inside its parentheses (``(0, f)`` is ``f``)."""
    arguments = node.child_by_field_id(FIELD_ARGUMENTS)
    inner = [c for c in arguments.named_children if TYPE_OF[c.kind_id] != "comment"] if arguments is not None else []
    return inner[-1] if inner else None


def chain_head(node: Node) -> Node | None:
    """The innermost node at the start of a call/member chain (``a`` of ``a.b(c)[d]()``)."""
    for _ in range(MAX_DEPTH):
        if TYPE_OF[node.kind_id] == "call_expression":
            if is_misread_await(node):
                return node
            following = node.child_by_field_id(FIELD_FUNCTION)
        elif TYPE_OF[node.kind_id] in ("member_expression", "subscript_expression"):
            following = node.child_by_field_id(FIELD_OBJECT)
        else:
            return node
        if following is None:
            return node
        node = following
    return None


__all__ = [
    "FIELD_ALIAS",
    "FIELD_ARGUMENT",
    "FIELD_ARGUMENTS",
    "FIELD_BODY",
    "FIELD_CONDITION",
    "FIELD_CONSTRUCTOR",
    "FIELD_FUNCTION",
    "FIELD_INDEX",
    "FIELD_KEY",
    "FIELD_KIND",
    "FIELD_LEFT",
    "FIELD_NAME",
    "FIELD_OBJECT",
    "FIELD_OPERATOR",
    "FIELD_PARAMETER",
    "FIELD_PARAMETERS",
    "FIELD_PROPERTY",
    "FIELD_RIGHT",
    "FIELD_SOURCE",
    "FIELD_VALUE",
    "TYPE_OF",
    "JAVASCRIPT",
    "FUNCTIONS",
    "BLOCKS",
    "STRUCTURE",
    "SUSPECT_GROUPS",
    "ALL_GROUPS",
    "MAX_DEPTH",
    "CONFIRM_LIMIT",
    "OPAQUE",
    "DECLARATION_GROUPS",
    "parser",
    "is_misread_await",
    "misread_await_inner",
    "chain_head",
]
