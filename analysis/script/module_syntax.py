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
superset: a false alarm costs one esprima parse, never a wrong answer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from weakref import WeakKeyDictionary

from tree_sitter import Node

from .script import ExecScript
from .syntax_problem import SyntaxProblem, first_module_error

# Text that may be a construct tree-sitter accepts and V8 refuses, found with ``bytes.find`` or a regular
# expression that starts with a literal or a class (Python's fast path), and placed in the tree: escapes count in strings, templates and names, the
# rest outside strings, templates, comments and regular expressions.  Linear on any input.
_ESCAPES = re.compile(rb"\\(?:[1-9xu]|0[0-9])")  # legacy octal, \8 \9, hex and unicode escapes (maybe invalid)
_WORDS = (b"yield", b"export", b"__proto__")  # as whole tokens
# names strict mode reserves (or may not bind): suspect as names, not as keywords or property names; found by
# text, as a query predicate on every identifier costs more than the rest of the look together
# (``let`` and ``await`` are everywhere as keywords: they are looked for among declared and assigned names and
# callees instead, see _misnames)
_RESERVED = (b"static", b"implements", b"interface", b"package", b"private", b"protected", b"public", b"eval",
             b"arguments", b"enum")
_NAMES = frozenset({"identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"})
_MARKS = (b"<!--", b"-->")  # HTML-like comments: not in modules
_ALL_WORDS = _WORDS + _RESERVED + _MARKS
_ARROW = re.compile(rb"[\n\r\xa8\xa9][ \t\f\v]*=>|\*/\s*=>")  # U+2028 and U+2029 end in A8 and A9
_ASYNC = re.compile(rb"async[ \t\f\v]*[\n\r\xe2/]")
_NOT_CODE = frozenset({"string_fragment", "escape_sequence", "string", "template_string", "comment", "regex_pattern",
                       "regex_flags", "regex"})
_NOT_ESCAPE = frozenset({"comment", "regex_pattern", "regex_flags", "regex"})
_NAME_BYTE = re.compile(rb"[\w$\\]")
_TEXT_HITS = 256  # hits placed in the tree before the script is simply asked about
_PAIRS = 64  # declarations of one name compared pairwise before the script is simply asked about

# Nodes that may be, or hold, an early error, by the group of ``_refused`` that looks at them: the
# ``suspect_*`` groups of the script's one structure query, and groups the rest of the analysis reads too.
_CHECKS = (("operator", "binary"), ("operator", "assign"), ("method", "scope_function"), ("body", "if"),
           ("body", "while"), ("body", "for"), ("body", "loop"), ("body", "suspect_body"),
           ("delete", "suspect_delete"), ("return", "suspect_return"), ("jump", "suspect_jump"),
           ("await", "suspect_await"), ("new", "suspect_new"), ("declarator", "suspect_declarator"),
           ("regex", "suspect_regex"), ("number", "suspect_number"))
# the node types each shared group is read for (a group may hold other nodes as well)
_CHECKED_TYPES = {"binary": frozenset({"binary_expression"}), "assign": frozenset({"augmented_assignment_expression"}),
                  "scope_function": frozenset({"method_definition"})}
_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration", "class_declaration",
                           "lexical_declaration"})
_TARGETS = frozenset({"identifier", "member_expression", "subscript_expression"})
_PARENT_STEPS = 64  # how far up a ``break`` is followed to its loop before it is simply asked about


_VERDICTS: WeakKeyDictionary[ExecScript, SyntaxProblem | None] = WeakKeyDictionary()


def syntax_problem(script: ExecScript) -> SyntaxProblem | None:
    """The first reason the script never ran, as V8 reads it: tree-sitter's reading
    (:attr:`~analysis.script.script.ExecScript.tree_problem`), else an early error of module code.  Asked once a
    script (reachability asks for every call), so the verdict is kept while the script lives."""
    try:
        return _VERDICTS[script]
    except KeyError:
        problem = script.tree_problem or module_problem(script)
        _VERDICTS[script] = problem
        return problem


def module_problem(script: ExecScript) -> SyntaxProblem | None:
    """The first reason V8 refuses ``script`` (one tree-sitter read without error) as a module, or None."""
    if script.too_deep or not might_be_refused(script):
        return None
    return first_module_error(script.source)


def might_be_refused(script: ExecScript) -> bool:
    """Whether the script holds any construct that tree-sitter accepts and a module may not."""
    if "use strict" in script.source or _text_hit(script):
        return True
    structure = script.structure
    if structure["suspect_always"]:
        return True
    for check, group in _CHECKS:
        types = _CHECKED_TYPES.get(group)
        for captures in structure[group]:
            node = captures[group][0]
            if (types is None or node.type in types) and _refused(script, check, node):
                return True
    return _misnames(script) or _assigns_badly(script) or _tags_a_chain(script) or _redeclares(script)


def _text_hit(script: ExecScript) -> bool:
    data, root = script.data, script.root
    hits = []  # (byte, what may not be there)
    if b"\\" in data:
        hits.extend((m.start(), _NOT_ESCAPE) for m in _ESCAPES.finditer(data))
    for word in _present(data):
        if word in _MARKS:
            hits.extend((at, _NOT_CODE) for at in _occurrences(data, word))
            continue
        what = _NAMES if word in _RESERVED else word
        hits.extend((at, what) for at in _occurrences(data, word) if not _NAME_BYTE.match(data, at + len(word))
                    and not (at and _NAME_BYTE.match(data, at - 1)))
    if b"=>" in data:  # a line break (or a comment) before =>
        hits.extend((m.start(), _NOT_CODE) for m in _ARROW.finditer(data))
    if b"async" in data:  # async, then a line break or a comment
        hits.extend((m.start(), _NOT_CODE) for m in _ASYNC.finditer(data))
    if len(hits) > _TEXT_HITS:
        return True
    for at, what in hits:
        node = root.descendant_for_byte_range(at, at + 1)
        if node is None:
            return True
        if what is _NOT_ESCAPE:
            if node.type == "escape_sequence" and node.start_byte != at:
                continue  # the 2 of "\\2": an escaped backslash, then a digit
            if node.type not in _NOT_ESCAPE:
                return True
        elif what is _NAMES:
            if node.type in _NAMES:
                return True
        elif isinstance(what, bytes):  # a word: the whole token, in code
            if node.type not in _NOT_CODE and data[node.start_byte:node.end_byte] == what:
                return True
        elif node.type not in _NOT_CODE:
            return True
    return False


def _present(data: bytes) -> list[bytes]:
    return [word for word in _ALL_WORDS if word in data]  # one C search a word: most scripts hold none


def _occurrences(data: bytes, word: bytes):
    at = data.find(word)
    while at != -1:
        yield at
        at = data.find(word, at + len(word))


def _short_circuit(node: Node | None) -> bool:
    operator = node.child_by_field_name("operator") if node is not None and node.type == "binary_expression" \
        else None
    return operator is not None and operator.type in ("||", "&&")


def _mixes_short_circuits(node: Node) -> bool:
    """Whether a ``??`` stands beside ``||`` or ``&&`` without parentheses (``a ?? b || c``): the only way ``??``
    is an early error.  Parentheses are a node of their own in the tree, so a mixed operand is a direct child."""
    return _short_circuit(node.parent) or any(_short_circuit(node.child_by_field_name(side))
                                              for side in ("left", "right"))


def _refused(script: ExecScript, group: str, node: Node) -> bool:
    text = script.text
    if group == "operator":
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "??":
            return _mixes_short_circuits(node)
        return operator is not None and operator.type in ("**", "**=")
    if group == "method":  # getters and setters of object literals
        parent = node.parent
        return parent is not None and parent.type == "object"
    if group == "body":  # a declaration as the whole body of an if, else or loop
        kind = node.type
        body = node.named_children[0] if kind == "else_clause" and node.named_children else \
            node.child_by_field_name("consequence" if kind == "if_statement" else "body")
        return body is not None and body.type in _DECLARATIONS or \
            kind == "for_in_statement" and node.child_by_field_name("kind") is None and \
            _unwrapped(node.child_by_field_name("left")) not in _TARGETS | {"object_pattern", "array_pattern"}
    if group == "delete":
        return _unwrapped(node.child_by_field_name("argument")) == "identifier"
    if group == "return":
        return _function_of(script, node) in (None, "class_static_block")
    if group == "jump":
        return _jump_refused(node)
    if group == "await":
        return _function_of(script, node, async_only=True) not in (None, "async")
    if group == "new":
        constructor = node.child_by_field_name("constructor")
        return constructor is not None and "?." in text(constructor)
    if group == "number":  # 010, 08, 1__0, 1_, 0x_1, 3in x
        data = script.data
        digits = data[node.start_byte:node.end_byte]
        return digits[:1] == b"0" and digits[1:2].isdigit() or b"_" in digits or \
            bool(_NAME_BYTE.match(data, node.end_byte))
    if group == "declarator":  # one without a value: a const, or a pattern
        declaration = node.parent
        name = node.child_by_field_name("name")
        return name is not None and name.type != "identifier" or \
            declaration is not None and declaration.type == "lexical_declaration" and \
            declaration.children[0].type == "const"
    if group == "regex":
        pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
        return not _valid_regexp(text(pattern) if pattern is not None else "",
                                 text(flags) if flags is not None else "")
    return False


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
        if parent.type in ("function_declaration", "function_expression", "arrow_function", "method_definition",
                           "generator_function_declaration", "generator_function", "class_static_block",
                           "program"):
            return True
        parent = parent.parent
    return True


def _misnames(script: ExecScript) -> bool:
    """``let`` or ``await`` declared, assigned or called as a name (tree-sitter reads ``await (f)()`` so)."""
    bindings = script.bindings
    if "let" in bindings or "await" in bindings:
        return True
    return any(script.name_of(target) in ("let", "await") for target in script.assigned_names()) or \
        any(callee.type == "identifier" and script.text(callee) in ("let", "await")
            for callee in (c["callee"][0] for c in script.structure["call"]))


def _tags_a_chain(script: ExecScript) -> bool:
    """A tagged template on an optional chain (``a?.b`x` ``)."""
    for captures in script.structure["call"]:
        call = captures["call"][0]
        arguments = call.child_by_field_name("arguments")
        if arguments is not None and arguments.type == "template_string" and \
                "?." in script.text(captures["callee"][0]):
            return True
    return False


def _assigns_badly(script: ExecScript) -> bool:
    """An assignment or update whose target is not a plain name, member or (for ``=``) pattern."""
    for captures in script.structure["assign"]:
        node = captures["assign"][0]
        target = node.child_by_field_name("argument" if node.type == "update_expression" else "left")
        if target is None:
            continue
        kind = target.type
        if kind in ("member_expression", "subscript_expression"):
            if "?." in script.text(target):
                return True
        elif kind in ("object_pattern", "array_pattern"):
            if node.type != "assignment_expression":
                return True
        elif kind != "identifier":
            return True
    return False


def _redeclares(script: ExecScript) -> bool:
    """Two declarations of one name in one function where one scope holds the other and they are not
    both ``var``-like (``var`` and parameters), or two parameters of one function: candidates for "has
    already been declared" and "duplicate parameter names"."""
    for bindings in script.bindings.values():
        if len(bindings) < 2:
            continue
        if len(bindings) > _PAIRS:
            return True  # too many to compare pairwise: the parser decides
        for i, first in enumerate(bindings):
            for second in bindings[i + 1:]:
                if first.kind in ("var", "param") and second.kind in ("var", "param") and \
                        not (first.kind == second.kind == "param" and first.scope == second.scope):
                    continue
                if _holds(first.scope, second.node) or _holds(second.scope, first.node):
                    if script.innermost_function(first.scope) == script.innermost_function(second.scope):
                        return True
    return False


def _holds(scope: Node, node: Node) -> bool:
    return scope.start_byte <= node.start_byte and node.end_byte <= scope.end_byte


@lru_cache(maxsize=4096)
def _valid_regexp(pattern: str, flags: str) -> bool:
    from esprima.regexp_validator import RegExpSyntaxError, validate_regexp

    try:
        validate_regexp(pattern, flags)
    except RegExpSyntaxError:
        return False
    except Exception:  # noqa: BLE001 - a validator bug must not hide the script: let the parser decide
        return False
    return True
