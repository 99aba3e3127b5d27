"""An exec script: the JavaScript of one code-mode ``exec`` call, parsed by tree-sitter.

It knows the script's text, its syntax tree, its ``// @exec:`` pragma, its first
syntax error, and its lexical scopes: which declaration an identifier refers to.
Scripts are ES modules, so ``let``, ``const``, ``class`` and function
declarations are block-scoped, ``var`` is scoped to its function's body (a
parameter's default value does not see it) and parameters to their function;
the name of a function or class *expression* is visible only inside it.

tree-sitter's grammar is wider than module code: it reads ``await`` as a name
and accepts what strict mode forbids.  :meth:`ExecScript.call_sites` undoes the
first, and :func:`analysis.script.module_syntax.syntax_problem` adds V8's early errors
to :attr:`ExecScript.tree_problem` for the second, so a script V8 would refuse is never read as having run.
"""

from __future__ import annotations

import json
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass, replace

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from ..jsonl.memo import cached_property
from .literals import UNKNOWN, string_value
from .straight_line import is_straight_line, not_straight_pattern
from .syntax_problem import SyntaxProblem, first_module_error

JAVASCRIPT = Language(tree_sitter_javascript.language())
_LOCAL = threading.local()

_PRAGMA = re.compile(r"[ \t\f\v]*// @exec:([^\n]*)")  # the first line, up to its \n (a \r is trimmed)
PRAGMA_KEYS = frozenset({"yield_time_ms", "max_output_tokens"})
_MAX_SAFE_INTEGER = 2 ** 53 - 1

FUNCTIONS = frozenset({
    "function_declaration", "function_expression", "arrow_function", "method_definition",
    "generator_function_declaration", "generator_function", "class_static_block",
})
BLOCKS = frozenset({"statement_block", "program", "for_statement", "for_in_statement", "switch_body"})

# Everything the analysis needs from a script's tree, in one pass of one query.  Every pattern captures
# at a node's start (fields are read in Python), so no in-progress match waits across a deep subtree:
# patterns like `(binary_expression left: (_) right: (_) @r)` make matching quadratic on `a && b && …`.
STRUCTURE = Query(JAVASCRIPT, """
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
""" + not_straight_pattern(JAVASCRIPT))
_GROUPS = ("call", "declarator", "fn_decl", "class_decl", "fn_expr", "class_expr", "params", "arrow", "catch",
           "import", "loop", "scope_block", "scope_function", "if", "while", "for", "binary", "ternary",
           "statement_list", "assign")
# the ``suspect_*`` groups are nodes that may hold an early error of module code (see analysis.script.module_syntax):
# read in the same pass, as a second query would walk the whole tree again
SUSPECT_GROUPS = ("suspect_always", "suspect_body", "suspect_delete", "suspect_return", "suspect_jump",
                  "suspect_await", "suspect_new", "suspect_declarator", "suspect_regex", "suspect_number")
_ALL_GROUPS = _GROUPS + SUSPECT_GROUPS + ("not_straight",)
_PATTERN_GROUP: dict[int, str] = {}  # a pattern of STRUCTURE → its group (its capture names are fixed)
# tree-sitter's query cursor degrades sharply (and drops matches) on captured nodes nested ~60,000 deep;
# real scripts nest a few dozen levels, so matching is capped here and a deeper script says so.
MAX_DEPTH = 8192
CONFIRM_LIMIT = 256 * 1024  # bytes of a broken script the strict parser is asked about (pure Python: ~2 µs/byte)
_OPAQUE = frozenset({"string", "template_string", "comment", "regex"})
_DECLARATION_GROUPS = ("declarator", "fn_decl", "class_decl", "fn_expr", "class_expr", "params", "arrow", "catch",
                       "import", "loop")
_NAME_ESCAPE = re.compile(r"\\u(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4}))")


def _parser() -> Parser:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:  # a Parser is not safe to share between threads
        parser = _LOCAL.parser = Parser(JAVASCRIPT)
    return parser


@dataclass(frozen=True, slots=True)
class Binding:
    """One declared name.

    ``init`` is the value the name always holds: the initialiser of a plain ``NAME = value`` declarator,
    None when a ``let`` or ``var`` is assigned again anywhere.  ``key`` is the property a destructuring
    pattern takes the name from, when it is a named property of the destructured value itself
    (``const {a, b: c} = v``); None for array elements, nested patterns, rests and computed keys that
    are not string literals.
    """

    name: str
    kind: str  # const, let, var, param, function, class, import, catch
    node: Node  # the identifier that declares it
    scope: Node
    init: Node | None = None
    key: str | None = None
    module: str | None = None  # for imports: the module specifier
    imported: str | None = None  # for imports: the exported name (``*`` or ``default``)
    pattern_init: Node | None = None  # for destructuring: the value destructured


class ExecScript:
    """A parsed exec script; offsets it returns are code-point indices into :attr:`source`."""

    def __init__(self, source: str) -> None:
        # lone surrogates (from ``\\ud800`` in JSON) cannot be UTF-8 encoded: one U+FFFD each keeps offsets
        if not source.isascii() and re.search("[\ud800-\udfff]", source):
            source = re.sub("[\ud800-\udfff]", "\ufffd", source)
        self.source = source
        self.data = source.encode("utf-8")
        self.tree = _parser().parse(self.data)
        self.root: Node = self.tree.root_node
        self._columns: _CodePoints | None = None if source.isascii() else _CodePoints(source)

    # -- text and offsets -------------------------------------------------------------------
    def text(self, node: Node) -> str:
        if self._columns is None:  # an ASCII script: its bytes are its characters, no decoding needed
            return self.source[node.start_byte:node.end_byte]
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def char(self, byte: int) -> int:
        if self._columns is None:
            return byte
        return self._columns.at(byte)

    def span(self, node: Node) -> tuple[int, int]:
        return self.char(node.start_byte), self.char(node.end_byte)

    def name_of(self, node: Node) -> str:
        """The name an identifier or property name spells, its ``\\u0065`` and ``\\u{65}`` escapes decoded
        (``tools.\\u0065xec_command`` calls ``exec_command``).  Use it, never :meth:`text`, wherever a name
        is compared with a tool, a binding or a keyword."""
        text = self.text(node)
        if "\\" not in text:
            return text
        return _NAME_ESCAPE.sub(_decode_name_escape, text)

    def call_sites(self) -> list[tuple[Node, Node]]:
        """Every call of the script as (call expression, callee expression), in source order.

        In module code ``await`` is always the operator, never a name, but tree-sitter reads
        ``await (tools.x)()`` as a call of a function ``await`` whose result is called: that inner "call"
        is dropped, and the outer call's callee is the last expression inside the parentheses.  A call whose
        chain starts with such a misreading (``await (tools).x()``) starts at its parenthesis, as V8 reads it:
        see :meth:`call_span`."""
        return self._call_sites[0]

    def call_span(self, call: Node) -> tuple[int, int]:
        """The code-point offsets of a call expression, starting where V8's call starts: after the ``await``
        tree-sitter takes into a misread ``await (…)`` call at the head of the call's chain."""
        start = self._call_sites[1].get(call.id)
        return self.char(call.start_byte if start is None else start), self.char(call.end_byte)

    def call_text(self, call: Node) -> str:
        start, end = self.call_span(call)
        return self.source[start:end]

    @cached_property
    def _call_sites(self) -> tuple[list[tuple[Node, Node]], dict[int, int]]:
        calls = [(c["call"][0], c["callee"][0]) for c in self.structure["call"]]
        fake: dict[int, Node | None] = {}  # id of a misread ``await (…)`` call → the expression in its parentheses
        heads: dict[int, Node] = {}  # start byte of a misread call → that call
        for call, callee in calls:
            if is_misread_await(call):
                fake[call.id] = misread_await_inner(call)
                heads[call.start_byte] = call
        if not fake:
            return calls, {}
        sites = []
        starts: dict[int, int] = {}
        for call, callee in calls:
            if call.id in fake:
                continue
            if call.start_byte in heads:
                head = _chain_head(call)
                if head is not None and head.id in fake:
                    arguments = head.child_by_field_name("arguments")
                    starts[call.id] = arguments.start_byte if arguments is not None else head.start_byte
            if callee.id in fake:
                callee = fake[callee.id]
                if callee is None:
                    continue
            sites.append((call, callee))
        return sites, starts

    # -- pragma and syntax ------------------------------------------------------------------
    @cached_property
    def pragma(self) -> dict | None:
        """The ``// @exec: {…}`` object of the first line when Codex accepts it; None without a pragma or with
        one it refuses (see :attr:`pragma_problem`)."""
        found = self._pragma
        return found[0] if found is not None and found[1] is None else None

    @cached_property
    def pragma_problem(self) -> tuple[int, str] | None:
        """(end of the pragma, why Codex refuses it) for a first-line pragma Codex refuses; None otherwise."""
        found = self._pragma
        return (found[2], found[1]) if found is not None and found[1] is not None else None

    @cached_property
    def _pragma(self) -> tuple[dict, str | None, int] | None:
        """Codex's own reading of the first line (``parse_exec_source`` in code-mode's description.rs): the
        first line, whitespace trimmed at its start, begins with ``// @exec:``; the rest of it is a JSON object
        with only ``yield_time_ms`` and ``max_output_tokens``, each null or a non-negative safe integer; and
        JavaScript follows on later lines.  (value, problem, end of the pragma)."""
        m = _PRAGMA.match(self.source)
        if not m:
            return None
        end = m.start(1) + len(m.group(1).rstrip("\r"))
        directive = m.group(1).strip()
        if not directive:
            return {}, "the '// @exec:' pragma must be a JSON object", end
        try:
            value = json.loads(directive)
        except (ValueError, RecursionError):
            return {}, "the '// @exec:' pragma must be valid JSON", end
        if not isinstance(value, dict):
            return {}, "the '// @exec:' pragma must be a JSON object", end
        unknown = sorted(set(value) - PRAGMA_KEYS)
        if unknown:
            return {}, f"the '// @exec:' pragma does not support {unknown[0]!r}", end
        for key, number in value.items():
            if number is not None and (type(number) is not int or not 0 <= number <= _MAX_SAFE_INTEGER):
                return {}, f"the '// @exec:' pragma's {key} must be a non-negative safe integer", end
        _, _, rest = self.source.partition("\n")
        if not rest.strip():
            return {}, "the '// @exec:' pragma must be followed by JavaScript on later lines", end
        return value, None, end

    @cached_property
    def too_deep(self) -> bool:
        """Whether the tree nests deeper than :data:`MAX_DEPTH` (outside strings and comments)."""
        if len(self.data) < MAX_DEPTH:  # every level needs at least one character
            return False
        cursor = self.root.walk()
        depth = 0
        while True:
            if depth > MAX_DEPTH:
                return True
            if cursor.node.type not in _OPAQUE and cursor.goto_first_child():
                depth += 1
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return False
                depth -= 1

    @cached_property
    def tree_problem(self) -> SyntaxProblem | None:
        """The first problem of tree-sitter's reading: too deep, a malformed pragma, or an error in the tree
        (confirmed as V8's by esprima when it can tell).  None for a tree without error, which V8 may still
        refuse: :func:`analysis.script.module_syntax.syntax_problem` gives the whole verdict."""
        if self.too_deep:
            return SyntaxProblem(0, min(len(self.source), 1), f"the script nests more than {MAX_DEPTH} levels "
                                 "deep: only its outer levels are analysed, calls below them are not listed")
        if self.pragma_problem is not None:
            end, problem = self.pragma_problem
            return SyntaxProblem(0, end, f"{problem} (Codex takes a JSON object with only yield_time_ms and "
                                 "max_output_tokens): the script never ran", refused=True)
        if not self.root.has_error:
            return None
        node = self.root
        while not (node.is_error or node.is_missing):
            child = next((c for c in node.children if c.has_error or c.is_error or c.is_missing), None)
            if child is None:
                break
            node = child
        start, end = self.span(node)
        refused = self._refused_too()
        if node.is_missing:
            return SyntaxProblem(start, end, f"syntax error: missing {node.type!r}", refused)
        text = self.source[start:end]
        shown = text if len(text) <= 40 else text[:37] + "..."
        return SyntaxProblem(start, end, f"syntax error: unexpected {shown!r}", refused)

    def _refused_too(self) -> bool:
        """Whether the strict parser refuses a script tree-sitter could not read either (it knows syntax
        tree-sitter may not); not asked of very long scripts, whose calls then stay ``unknown``."""
        if len(self.data) > CONFIRM_LIMIT:
            return False
        return first_module_error(self.source) is not None

    # -- structure and scopes ---------------------------------------------------------------
    @cached_property
    def structure(self) -> dict[str, list[dict[str, list[Node]]]]:
        """The matches of :data:`STRUCTURE`, by group (``call``, ``if``, ``declarator``…), in source order."""
        groups: dict[str, list] = {g: [] for g in _ALL_GROUPS}
        cursor = QueryCursor(STRUCTURE)
        cursor.set_max_start_depth(MAX_DEPTH)
        pattern_group = _PATTERN_GROUP
        for pattern, captures in cursor.matches(self.root):
            group = pattern_group.get(pattern)
            if group is None:
                group = pattern_group[pattern] = next(g for g in _ALL_GROUPS if g in captures)
            groups[group].append(captures)
        groups["statement_list"].append({"statement_list": [self.root]})
        return groups

    @cached_property
    def straight_line(self) -> bool:
        """Whether the script is straight-line code (see :mod:`analysis.script.straight_line`): then no code is
        dead and every call runs unless the script does not parse or an ``exit`` comes first."""
        return not self.too_deep and is_straight_line(self.structure)

    @cached_property
    def bindings(self) -> dict[str, list[Binding]]:
        found: dict[str, list[Binding]] = {}
        for group in _DECLARATION_GROUPS:
            for captures in self.structure[group]:
                for binding in self._bindings_of(captures):
                    found.setdefault(binding.name, []).append(binding)
        reassigned = self._reassigned(found)
        if reassigned:  # a ``let``/``var`` assigned again holds no one value: forget its initialiser
            for name, bindings in found.items():
                found[name] = [replace(b, init=None) if b.node.id in reassigned else b for b in bindings]
        return found

    def resolve(self, node: Node, name: str | None = None) -> Binding | None:
        """The declaration ``node`` (an identifier) refers to; None for a global."""
        return _innermost(self.bindings.get(name or self.name_of(node), ()), node.start_byte)

    def assigned_names(self) -> list[Node]:
        """Every identifier an assignment, an update or a ``for (x of …)`` without a declaration writes."""
        targets: list[Node] = []
        for captures in self.structure["assign"]:
            node = captures["assign"][0]
            target = node.child_by_field_name("argument" if node.type == "update_expression" else "left")
            if target is None:
                continue
            if target.type == "identifier":
                targets.append(target)
            elif target.type in ("object_pattern", "array_pattern"):
                targets.extend(ident for ident, _ in self._pattern_names(target))
        for captures in self.structure["loop"]:
            loop = captures["loop"][0]
            if loop.child_by_field_name("kind") is None:
                targets.extend(ident for ident, _ in self._pattern_names(captures["name"][0]))
        return targets

    def _reassigned(self, found: dict[str, list[Binding]]) -> set[int]:
        """Ids of the declaring identifiers of ``let``/``var`` names written after their declaration."""
        held = {name for name, bindings in found.items()
                if any(b.init is not None and b.kind in ("let", "var") for b in bindings)}
        if not held:
            return set()
        out: set[int] = set()
        for name in held:  # ``var x = a; var x = b``: the second declaration assigns the first
            seen: dict[int, list[Binding]] = {}
            for b in found[name]:
                if b.kind == "var":
                    seen.setdefault(b.scope.id, []).append(b)
            out.update(b.node.id for group in seen.values() if len(group) > 1 for b in group)
        for target in self.assigned_names():
            name = self.name_of(target)
            if name in held:
                binding = _innermost(found[name], target.start_byte)
                if binding is not None and binding.kind in ("let", "var"):
                    out.add(binding.node.id)
        return out

    def declared_once(self, binding: Binding) -> bool:
        """True when no other declaration of the name shares the binding's scope."""
        return sum(1 for b in self.bindings.get(binding.name, ()) if b.scope == binding.scope) == 1

    def _bindings_of(self, captures: dict[str, list[Node]]):
        if "declarator" in captures:
            declarator = captures["declarator"][0]
            kind = captures["kind"][0].type if "kind" in captures else "var"
            kind = kind if kind in ("const", "let") else "var"
            target = captures["name"][0]
            value = declarator.child_by_field_name("value")
            scope = self._scope(declarator, function_scoped=kind == "var")
            if target.type == "identifier":
                yield Binding(self.name_of(target), kind, target, scope, value)
            else:
                for ident, key in self._pattern_names(target):
                    yield Binding(self.name_of(ident), kind, ident, scope, None, key, pattern_init=value)
        elif "fn_decl" in captures or "class_decl" in captures:
            node = (captures.get("fn_decl") or captures["class_decl"])[0]
            ident = captures["name"][0]
            yield Binding(self.name_of(ident), "function" if "fn_decl" in captures else "class", ident,
                          self._scope(node, function_scoped=False))
        elif "fn_expr" in captures or "class_expr" in captures:  # its name is seen only inside it
            node = (captures.get("fn_expr") or captures["class_expr"])[0]
            ident = captures["name"][0]
            yield Binding(self.name_of(ident), "function" if "fn_expr" in captures else "class", ident, node)
        elif "params" in captures:
            params = captures["params"][0]
            function = self.innermost_function(params)
            for child in params.named_children:
                for ident, _ in self._pattern_names(child):
                    yield Binding(self.name_of(ident), "param", ident, function)
        elif "arrow" in captures:
            ident = captures["name"][0]
            yield Binding(self.name_of(ident), "param", ident, captures["arrow"][0])
        elif "catch" in captures:
            clause = captures["catch"][0]
            for ident, _ in self._pattern_names(captures["name"][0]):
                yield Binding(self.name_of(ident), "catch", ident, clause)
        elif "loop" in captures:
            loop = captures["loop"][0]
            kind_node = loop.child_by_field_name("kind")
            kind = self.text(kind_node) if kind_node is not None else None
            if kind in ("const", "let", "var"):  # without one, the loop assigns an existing name
                scope = self._scope(loop, function_scoped=True) if kind == "var" else loop
                for ident, _ in self._pattern_names(captures["name"][0]):
                    yield Binding(self.name_of(ident), kind, ident, scope)
        elif "import" in captures:
            yield from self._import_bindings(captures["import"][0])

    def _import_bindings(self, statement: Node):
        source = statement.child_by_field_name("source")
        module = self.text(source)[1:-1] if source is not None else ""
        for clause in statement.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    yield Binding(self.name_of(part), "import", part, self.root, module=module,
                                  imported="default")
                elif part.type == "namespace_import":
                    ident = next((c for c in part.named_children if c.type == "identifier"), None)
                    if ident is not None:
                        yield Binding(self.name_of(ident), "import", ident, self.root, module=module,
                                      imported="*")
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type != "import_specifier":
                            continue
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias") or name
                        if name is None or alias is None:
                            continue
                        imported = self.property_name(name)
                        if imported is None or alias.type == "string":
                            continue
                        yield Binding(self.name_of(alias), "import", alias, self.root, module=module,
                                      imported=imported)

    def _pattern_names(self, node: Node) -> list[tuple[Node, str | None]]:
        """(identifier, key) for every name a binding pattern declares; the key is the property of the
        destructured value the name takes (see :class:`Binding`), known only at the pattern's first level.
        Iterative: patterns can nest as deep as a script likes."""
        stack: list[tuple[Node, str | None, bool]] = [(node, None, True)]  # (pattern, key, at the top)
        found = []
        while stack:
            node, key, top = stack.pop()
            kind = node.type
            if kind == "identifier":
                found.append((node, key))
            elif kind == "shorthand_property_identifier_pattern":
                found.append((node, self.name_of(node) if top else None))
            elif kind == "pair_pattern":
                value = node.child_by_field_name("value")
                if value is not None:
                    stack.append((value, self.property_name(node.child_by_field_name("key")) if top else None,
                                  False))
            elif kind in ("assignment_pattern", "object_assignment_pattern"):
                left = node.child_by_field_name("left")
                if left is not None:
                    stack.append((left, key, top and kind == "object_assignment_pattern"))
            elif kind == "object_pattern":
                stack.extend((child, None, top) for child in reversed(node.named_children))
            elif kind in ("array_pattern", "rest_pattern"):
                stack.extend((child, None, False) for child in reversed(node.named_children))
        return found

    def property_name(self, node: Node | None) -> str | None:
        """The property name a key spells: ``a``, ``"a"``, ``1``, ``["a"]``; None when it is computed."""
        if node is None:
            return None
        kind = node.type
        if kind == "computed_property_name":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) != 1 or inner[0].type != "string":
                return None
            node, kind = inner[0], "string"
        if kind in ("property_identifier", "identifier", "private_property_identifier"):
            return self.name_of(node)
        if kind == "string":
            value = string_value(self.text(node))
            return None if value is UNKNOWN else value
        if kind == "number":
            return self.text(node)
        return None

    @cached_property
    def _scope_index(self) -> tuple["_Intervals", "_Intervals"]:
        return (_Intervals([c["scope_block"][0] for c in self.structure["scope_block"]]),
                _Intervals([c["scope_function"][0] for c in self.structure["scope_function"]]))

    def _scope(self, node: Node, function_scoped: bool) -> Node:
        """The innermost block (or, for ``var``, function body) around ``node``; tree-sitter's ``parent`` is
        O(depth), so scopes come from an index of the captured scope nodes."""
        blocks, functions = self._scope_index
        found = (functions if function_scoped else blocks).innermost(node.start_byte, node.start_byte + 1, node)
        if found is None:
            return self.root
        if function_scoped:  # a ``var`` lives in the body: the parameters' default values do not see it
            body = found.child_by_field_name("body")
            if body is not None and body.start_byte <= node.start_byte < body.end_byte:
                return body
        return found

    def innermost_function(self, node: Node) -> Node:
        found = self._scope_index[1].innermost(node.start_byte, node.end_byte, None)
        return found if found is not None else self.root


def is_misread_await(node: Node) -> bool:
    """Whether ``node`` is tree-sitter's misreading of ``await (x)`` as a call of a function named ``await``
    (in module code ``await`` is always the operator)."""
    if node.type != "call_expression":
        return False
    function = node.child_by_field_name("function")
    if function is None or function.type != "identifier" or function.end_byte - function.start_byte != 5 or \
            function.text != b"await":
        return False
    arguments = node.child_by_field_name("arguments")
    return arguments is not None and arguments.type == "arguments"


def misread_await_inner(node: Node) -> Node | None:
    """The expression a misread ``await (…)`` awaits: the last inside its parentheses (``(0, f)`` is ``f``)."""
    arguments = node.child_by_field_name("arguments")
    inner = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
    return inner[-1] if inner else None


def _chain_head(node: Node) -> Node | None:
    """The innermost node at the start of a call/member chain (``a`` of ``a.b(c)[d]()``)."""
    for _ in range(MAX_DEPTH):
        if node.type == "call_expression":
            if is_misread_await(node):
                return node
            following = node.child_by_field_name("function")
        elif node.type in ("member_expression", "subscript_expression"):
            following = node.child_by_field_name("object")
        else:
            return node
        if following is None:
            return node
        node = following
    return None


def _innermost(bindings, at: int) -> Binding | None:
    """Of the bindings of one name, the one whose scope is the innermost around byte ``at``."""
    best: Binding | None = None
    for binding in bindings:
        scope = binding.scope
        if scope.start_byte <= at < scope.end_byte or scope.type == "program":
            if best is None or scope.start_byte >= best.scope.start_byte and \
                    scope.end_byte <= best.scope.end_byte:
                best = binding
    return best


def _decode_name_escape(match: re.Match) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)  # out of range: the module check rejects it


_NON_ASCII = re.compile("[^\x00-\x7f]")


class _CodePoints:
    """The code-point offset of each UTF-8 byte offset of a text (a byte inside a character: the character's),
    by one bisect over the text's non-ASCII characters; the tables are made on the first question."""

    __slots__ = ("_text", "_starts", "_before", "_after")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None  # the byte where each non-ASCII character starts
        self._before: list[int] = []  # extra bytes (beyond one a character) before it
        self._after: list[int] = []  # and up to its end

    def _tables(self) -> list[int]:
        starts, before, after = [], self._before, self._after
        extra = 0
        for m in _NON_ASCII.finditer(self._text):
            code = ord(m.group())
            starts.append(m.start() + extra)
            before.append(extra)
            extra += 1 if code < 0x800 else 2 if code < 0x10000 else 3
            after.append(extra)
        self._starts = starts
        return starts

    def at(self, byte: int) -> int:
        starts = self._starts if self._starts is not None else self._tables()
        k = bisect_right(starts, byte) - 1
        if k < 0:
            column = byte
        elif byte <= starts[k] + self._after[k] - self._before[k]:  # at or inside character k
            column = starts[k] - self._before[k]
        else:
            column = byte - self._after[k]
        return max(0, min(column, len(self._text)))


class _Intervals:
    """Nested byte ranges (scopes), to find the innermost one around a position in O(log n + nesting)."""

    def __init__(self, nodes: list[Node]) -> None:
        nodes = sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))
        self.nodes = nodes
        self.starts = [n.start_byte for n in nodes]
        self.parent: list[int] = []
        stack: list[int] = []
        for index, node in enumerate(nodes):
            while stack and nodes[stack[-1]].end_byte <= node.start_byte:
                stack.pop()
            self.parent.append(stack[-1] if stack else -1)
            stack.append(index)

    def innermost(self, start: int, end: int, exclude: Node | None) -> Node | None:
        index = bisect_right(self.starts, start) - 1
        while index >= 0:
            node = self.nodes[index]
            if node.start_byte <= start and end <= node.end_byte and node != exclude:
                return node
            index = self.parent[index]
        return None
