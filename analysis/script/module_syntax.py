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
from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol
from weakref import WeakKeyDictionary

from tree_sitter import Node

try:
    import re2
except ImportError:  # pragma: no cover - a platform without the wheel: every script takes the searches below
    re2 = None

from .script import Binding, ExecScript
from .syntax_problem import SyntaxProblem, first_module_error

# Text that may be a construct tree-sitter accepts and V8 refuses, found with ``bytes.find`` or a regular
# expression that starts with a literal or a class (Python's fast path), and placed in the tree: escapes count in strings, templates and names, the
# rest outside strings, templates, comments and regular expressions.  Linear on any input.
_ESCAPES = re.compile(rb"\\(?:[1-9xu]|0[0-9])")  # legacy octal, \8 \9, \u (names, \u{…}), \x: see _bad_escape
_WORDS = (b"yield", b"export", b"__proto__")  # as whole tokens
# names strict mode reserves (or may not bind): suspect as names, not as keywords or property names; found by
# text, as a query predicate on every identifier costs more than the rest of the look together
# (``let`` and ``await`` are everywhere as keywords, ``eval`` and ``arguments`` may be read, only not bound or
# assigned: they are looked for among declared and assigned names and callees instead, see _misnames)
_RESERVED = (b"static", b"implements", b"interface", b"package", b"private", b"protected", b"public", b"enum")
_NAMES = frozenset({"identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"})
_MARKS = (b"<!--", b"-->")  # HTML-like comments: not in modules
_ALL_WORDS = _WORDS + _RESERVED + _MARKS
_ARROW = re.compile(rb"[\n\r\xa8\xa9][ \t\f\v]*=>|\*/\s*=>")  # U+2028 and U+2029 end in A8 and A9
_ASYNC = re.compile(rb"async[ \t\f\v]*[\n\r\xe2/]")


class _BytesSearch(Protocol):
    """What is used of an ``re2`` pattern (google-re2 ships no types)."""

    def search(self, text: bytes) -> object | None: ...


def _any_text_hit_pattern() -> _BytesSearch | None:
    r"""Every text trigger above in one RE2 automaton, read once in linear time (issue 25): a script it finds
    nothing in has no text hit (most scripts), else the searches above place each hit.  A superset: words are
    found inside longer names too.  The bytes are read as Latin-1 (one byte, one character: ``\xa8`` is the
    byte); ``\s`` is spelled out, as RE2's lacks ``\v``."""
    if re2 is None:
        return None
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    words = b"|".join(re.escape(word) for word in _ALL_WORDS)
    pattern: _BytesSearch = re2.compile(
        rb"\\(?:[1-9xu]|0[0-9])|"
        + words
        + rb"|[\n\r\xa8\xa9][ \t\f\v]*=>|\*/[ \t\n\r\f\v]*=>|async[ \t\f\v]*[\n\r\xe2/]",
        options,
    )
    return pattern


_ANY_TEXT_HIT = _any_text_hit_pattern()
_NOT_CODE = frozenset(
    {
        "string_fragment",
        "escape_sequence",
        "string",
        "template_string",
        "comment",
        "regex_pattern",
        "regex_flags",
        "regex",
    }
)
_NOT_ESCAPE = frozenset({"comment", "regex_pattern", "regex_flags", "regex"})
_NAME_BYTE = re.compile(rb"[\w$\\]")
_OCTAL_ESCAPE = re.compile(rb"\\[0-7]+")
_NAME_TYPES = frozenset(
    {
        "identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "property_identifier",
        "private_property_identifier",
        "statement_identifier",
    }
)
_PROPERTY_NAMES = frozenset({"property_identifier", "private_property_identifier"})
# names an escaped identifier may not spell in module code: reserved words, strict mode's, and the contextual
# keywords an escape may not spell where they are keywords (read conservatively: wherever they are names)
_NOT_ESCAPED = frozenset(
    {
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "await",
        "eval",
        "arguments",
        "async",
        "of",
        "get",
        "set",
        "from",
        "as",
        "target",
        "meta",
        "accessor",
        "using",
    }
)
_ACCESSORS = frozenset({"get", "set", "async", "static", "accessor"})  # escaped, not a method's keyword either
_TEXT_HITS = 256  # hits placed in the tree before the script is simply asked about
_PAIRS = 64  # declarations of one name compared pairwise before the script is simply asked about

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
    return _misnames(script) or _assigns_badly(script) or _redeclares(script)


def _text_hit(script: ExecScript) -> bool:
    data, root = script.data, script.root
    if _ANY_TEXT_HIT is not None and _ANY_TEXT_HIT.search(data) is None:
        return False
    hits = _text_hits(data)
    if len(hits) > _TEXT_HITS:
        return True
    for at, what in hits:
        node = root.descendant_for_byte_range(at, at + 1)
        if node is None:
            return True
        if what is _NOT_ESCAPE:
            if node.type == "escape_sequence":
                if node.start_byte == at and _bad_escape(data, node):  # else the 2 of "\\2": an escaped \, a digit
                    return True
            elif node.type in _NAME_TYPES:
                if _bad_name(script, node):
                    return True
            elif node.type not in _NOT_ESCAPE:
                return True
        elif what is _NAMES:
            if node.type in _NAMES:
                return True
        elif what is _MARKS:  # read by tree-sitter as operators (``a<!--b``, ``a-->b``), as V8 reads a module
            if node.type not in _NOT_CODE and node.type not in ("<", "--"):
                return True
        elif isinstance(what, bytes):  # a word: the whole token, in code
            if node.type not in _NOT_CODE and data[node.start_byte : node.end_byte] == what:
                return True
        elif node.type not in _NOT_CODE:
            return True
    return False


def _text_hits(data: bytes) -> list[tuple[int, object]]:
    """Where the text triggers stand: (byte, what may not be there)."""
    hits: list[tuple[int, object]] = []
    if b"\\" in data:
        hits.extend((m.start(), _NOT_ESCAPE) for m in _ESCAPES.finditer(data))
    for word in _present(data):
        if word in _MARKS:
            hits.extend((at, _MARKS) for at in _occurrences(data, word))
            continue
        what = _NAMES if word in _RESERVED else word
        hits.extend(
            (at, what)
            for at in _occurrences(data, word)
            if not _NAME_BYTE.match(data, at + len(word)) and not (at and _NAME_BYTE.match(data, at - 1))
        )
    if b"=>" in data:  # a line break (or a comment) before =>
        hits.extend((m.start(), _NOT_CODE) for m in _ARROW.finditer(data))
    if b"async" in data:  # async, then a line break or a comment
        hits.extend((m.start(), _NOT_CODE) for m in _ASYNC.finditer(data))
    return hits


def _bad_escape(data: bytes, node: Node) -> bool:
    """A string or template escape strict code refuses: a legacy octal (``\\1``, ``\\01``, ``\\0`` before a
    digit), ``\\8``, ``\\9``, or a code point past U+10FFFF (tree-sitter's tokens take the valid ``\\x`` and
    ``\\u`` forms only, any number of digits in braces)."""
    text = data[node.start_byte : node.end_byte]
    if _OCTAL_ESCAPE.fullmatch(text):
        return text != b"\\0" or data[node.end_byte : node.end_byte + 1].isdigit()
    if text in (b"\\8", b"\\9"):
        return True
    if text.startswith(b"\\u{") and text.endswith(b"}"):
        return int(text[3:-1] or b"0", 16) > 0x10FFFF
    return False


def _bad_name(script: ExecScript, node: Node) -> bool:
    """A name written with escapes that module code may refuse: one that spells a reserved word (where it is
    not a property name) or a contextual keyword, one whose characters are not a name's, an escape past
    U+10FFFF."""
    name = script.name_of(node)
    if (
        "\\" in name
        or not name
        or name[0] in "\u200c\u200d"
        or not name.replace("$", "_").replace("\u200c", "_").replace("\u200d", "_").isidentifier()
    ):
        return True  # isidentifier is XID_Start/XID_Continue, within JavaScript's ID_Start/ID_Continue
    if node.type in _PROPERTY_NAMES:
        return name in _ACCESSORS
    return name in _NOT_ESCAPED


def _present(data: bytes) -> list[bytes]:
    return [word for word in _ALL_WORDS if word in data]  # one C search a word: most scripts hold none


def _occurrences(data: bytes, word: bytes) -> Iterator[int]:
    at = data.find(word)
    while at != -1:
        yield at
        at = data.find(word, at + len(word))


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


_MISNAMES = ("let", "await", "eval", "arguments")


def _misnames(script: ExecScript) -> bool:
    """``let``, ``await``, ``eval`` or ``arguments`` declared or assigned, ``let`` called as a name, and ``await``
    where it is no operator: tree-sitter reads ``await (f)()`` as a call of ``await``, which is V8's ``await``
    operator wherever it may stand (at the top level, in an async function's body); and a tagged template on an
    optional chain (:func:`_tags_a_chain`), read in the same pass over the calls."""
    bindings = script.bindings
    if any(name in bindings for name in _MISNAMES):
        return True
    if any(script.name_of(target) in _MISNAMES for target in script.assigned_names()):
        return True
    data = script.data
    tags = b"?." in data and b"`" in data  # a tagged chain's callee holds ``?.``, its template a backquote
    for captures in script.structure["call"]:  # one pass over the calls for both readings
        callee = captures["callee"][0]
        if callee.type == "identifier":
            name = script.text(callee)
            if name == "let" or name == "await" and _await_refused(script, captures["call"][0]):
                return True
        elif tags and _tags_a_chain(script, captures["call"][0], callee):
            return True
    return False


def _await_refused(script: ExecScript, node: Node) -> bool:
    """Whether ``await`` at ``node`` stands where module code refuses it: in a function that is not async, or in an
    async function's parameters (at the top level it is the operator)."""
    function = script.innermost_function(node)
    if function == script.root:
        return False
    if not any(c.type == "async" for c in function.children):
        return True
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    return parameters is not None and parameters.start_byte <= node.start_byte < parameters.end_byte


def _strict_directive_refused(script: ExecScript) -> bool:
    """A ``"use strict"`` directive in a function whose parameters are not all plain names (an early error
    whatever the mode; at the top of a module the directive changes nothing).  Found by its text in the body."""
    if "use strict" not in script.source:
        return False
    for captures in script.structure["params"]:
        parameters = captures["params"][0]
        if any(c.type not in ("identifier", "comment") for c in parameters.named_children):
            body = script.innermost_function(parameters).child_by_field_name("body")
            if body is not None and script.data.find(b"use strict", body.start_byte, body.end_byte) != -1:
                return True
    return False


def _tags_a_chain(script: ExecScript, call: Node, callee: Node) -> bool:
    """A tagged template on an optional chain (``a?.b`x` ``)."""
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and arguments.type == "template_string" and "?." in script.text(callee)


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
    """A name declared twice where module code refuses it ("has already been declared", "duplicate parameter
    names"): see :func:`_conflict`."""
    for bindings in script.bindings.values():
        if len(bindings) < 2:
            continue
        if len(bindings) > _PAIRS:
            return True  # too many to compare pairwise: the parser decides
        for i, first in enumerate(bindings):
            for second in bindings[i + 1 :]:
                if _conflict(script, first, second) or _conflict(script, second, first):
                    return True
    return False


_EXPRESSION_NAMED = frozenset({"function_expression", "generator_function", "class"})


def _conflict(script: ExecScript, first: Binding, second: Binding) -> bool:
    """Whether two declarations of one name clash: in one scope when either is lexical (or both are parameters
    of one function, or names of one catch parameter); a ``var`` inside the scope of a lexical one in the same
    function; a lexical one at the top of a function's body (or a catch block) and a parameter of it (or the
    catch's).  A lexical declaration in an inner block only shadows.  The name of a function or class
    expression is seen only inside it, and never clashes."""
    if (
        first.kind in ("function", "class")
        and first.scope.type in _EXPRESSION_NAMED
        or second.kind in ("function", "class")
        and second.scope.type in _EXPRESSION_NAMED
    ):
        return False
    if first.scope == second.scope:
        return (
            first.kind == second.kind
            and first.kind in ("param", "catch")
            or _lexical(script, first)
            or _lexical(script, second)
        )
    if not _lexical(script, first):
        return False
    if second.kind == "var":
        return _holds(first.scope, second.node) and script.innermost_function(first.scope) == script.innermost_function(
            second.node
        )
    if second.kind == "param":
        return first.scope == second.scope.child_by_field_name("body")
    if second.kind == "catch":
        return first.scope == second.scope.child_by_field_name("body")
    return False


def _lexical(script: ExecScript, binding: Binding) -> bool:
    """``let``, ``const``, ``class``, an import, and a function declaration anywhere but at the top of a function's
    body (in a block, or at the top of the module, function declarations are lexical)."""
    if binding.kind in ("let", "const", "class", "import"):
        return True
    if binding.kind != "function":
        return False
    scope = binding.scope
    if scope.type != "statement_block":
        return True
    function = script.innermost_function(scope)
    return function == script.root or function.child_by_field_name("body") != scope


def _holds(scope: Node, node: Node) -> bool:
    return scope.start_byte <= node.start_byte and node.end_byte <= scope.end_byte


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
