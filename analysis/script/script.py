"""An exec script: the JavaScript of one code-mode ``exec`` call, parsed by tree-sitter.

It knows the script's text, its syntax tree, its ``// @exec:`` pragma, its first
syntax error, and its lexical scopes: which declaration an identifier refers to
(:mod:`analysis.script.scopes`).  The language, the query and the parser are in
:mod:`analysis.script.js_tree`, the pragma's reading in :mod:`analysis.script.pragma`,
byte-to-character offsets in :mod:`analysis.script.code_points`; this module
re-exports what its importers use of them.

tree-sitter's grammar is wider than module code: it reads ``await`` as a name
and accepts what strict mode forbids.  :meth:`ExecScript.call_sites` undoes the
first, and :func:`analysis.script.module_syntax.syntax_problem` adds V8's early errors
to :attr:`ExecScript.tree_problem` for the second, so a script V8 would refuse is never read as having run.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node, QueryCursor

from ..jsonl.memo import cached_property
from .code_points import CodePoints
from .js_tree import (
    ALL_GROUPS,
    BLOCKS,
    CONFIRM_LIMIT,
    FIELD_ARGUMENTS,
    FUNCTIONS,
    JAVASCRIPT,
    MAX_DEPTH,
    OPAQUE,
    PATTERN_GROUP,
    STRUCTURE,
    SUSPECT_GROUPS,
    TYPE_OF,
    chain_head,
    is_misread_await,
    misread_await_inner,
    parser,
)
from .pragma import PRAGMA_KEYS, read_pragma
from .scopes import Binding, Scopes
from .straight_line import is_straight_line
from .syntax_problem import SyntaxProblem, first_module_error

# ``await`` then spaces (any non-ASCII byte: Unicode spaces are several) and ``(`` or a comment: see _call_sites
_AWAIT_CALLED = re.compile(rb"await[ \t\n\r\v\f\x80-\xff]*[(/]")
_NAME_ESCAPE = re.compile(r"\\u(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4}))")
_CodePoints = CodePoints  # the name tests.test_straight_line imports


class ExecScript(Scopes):
    """A parsed exec script; offsets it returns are code-point indices into :attr:`source`."""

    def __init__(self, source: str) -> None:
        # lone surrogates (from ``\\ud800`` in JSON) cannot be UTF-8 encoded: one U+FFFD each keeps offsets
        if not source.isascii() and re.search("[\ud800-\udfff]", source):
            source = re.sub("[\ud800-\udfff]", "\ufffd", source)
        self.source = source
        self.data = source.encode("utf-8")
        self.tree = parser().parse(self.data)
        self.root: Node = self.tree.root_node
        self._columns: CodePoints | None = None if source.isascii() else CodePoints(source)

    # -- text and offsets -------------------------------------------------------------------
    def text(self, node: Node) -> str:
        if self._columns is None:  # an ASCII script: its bytes are its characters, no decoding needed
            return self.source[node.start_byte : node.end_byte]
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

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
        # a misread call's callee is the word ``await`` with its arguments' ``(`` after it, spaces or comments between:
        # a script without that text has none, and its calls are not asked one by one (stop 38)
        if _AWAIT_CALLED.search(self.data) is None:
            return calls, {}
        fake: dict[int, Node | None] = {}  # id of a misread ``await (…)`` call → the expression in its parentheses
        heads: dict[int, Node] = {}  # start byte of a misread call → that call
        for call, _callee in calls:
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
                head = chain_head(call)
                if head is not None and head.id in fake:
                    arguments = head.child_by_field_id(FIELD_ARGUMENTS)
                    starts[call.id] = arguments.start_byte if arguments is not None else head.start_byte
            if callee.id in fake:
                inner = fake[callee.id]
                if inner is None:
                    continue
                callee = inner
            sites.append((call, callee))
        return sites, starts

    # -- pragma and syntax ------------------------------------------------------------------
    @cached_property
    def pragma(self) -> dict[str, Any] | None:
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
    def _pragma(self) -> tuple[dict[str, Any], str | None, int] | None:
        """(value, problem, end of the pragma): :func:`~analysis.script.pragma.read_pragma` of the source."""
        return read_pragma(self.source)

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
            node = cursor.node  # never None: the cursor walks a tree from its root
            # a subtree of fewer bytes than the levels left cannot reach MAX_DEPTH (as for the whole script above)
            if (
                node is not None
                and node.end_byte - node.start_byte + depth >= MAX_DEPTH
                and TYPE_OF[node.kind_id] not in OPAQUE
                and cursor.goto_first_child()
            ):
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
            return SyntaxProblem(
                0,
                min(len(self.source), 1),
                f"the script nests more than {MAX_DEPTH} levels "
                "deep: only its outer levels are analysed, calls below them are not listed",
            )
        if self.pragma_problem is not None:
            end, problem = self.pragma_problem
            return SyntaxProblem(
                0,
                end,
                f"{problem} (Codex takes a JSON object with only yield_time_ms and "
                "max_output_tokens): the script never ran",
                refused=True,
            )
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
            return SyntaxProblem(start, end, f"syntax error: missing {TYPE_OF[node.kind_id]!r}", refused)
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
        groups: dict[str, list[dict[str, list[Node]]]] = {g: [] for g in ALL_GROUPS}
        cursor = QueryCursor(STRUCTURE)
        cursor.set_max_start_depth(MAX_DEPTH)
        pattern_group = PATTERN_GROUP
        for pattern, captures in cursor.matches(self.root):
            group = pattern_group.get(pattern)
            if group is None:
                group = pattern_group[pattern] = next(g for g in ALL_GROUPS if g in captures)
            groups[group].append(captures)
        groups["statement_list"].append({"statement_list": [self.root]})
        return groups

    @cached_property
    def straight_line(self) -> bool:
        """Whether the script is straight-line code (see :mod:`analysis.script.straight_line`): then no code is
        dead and every call runs unless the script does not parse or an ``exit`` comes first."""
        return not self.too_deep and is_straight_line(self.structure)


def _decode_name_escape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)  # out of range: the module check rejects it


__all__ = [
    "ExecScript",
    "Binding",
    "JAVASCRIPT",
    "STRUCTURE",
    "FUNCTIONS",
    "BLOCKS",
    "MAX_DEPTH",
    "CONFIRM_LIMIT",
    "SUSPECT_GROUPS",
    "PRAGMA_KEYS",
    "is_misread_await",
    "misread_await_inner",
]
