"""The lexical scopes of an exec script: which declaration an identifier refers to.

Scripts are ES modules, so ``let``, ``const``, ``class`` and function declarations are block-scoped, ``var``
is scoped to its function's body (a parameter's default value does not see it) and parameters to their
function; the name of a function or class *expression* is visible only inside it.  :class:`Scopes` is the
part of :class:`~analysis.script.script.ExecScript` that reads them from the script's ``structure``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tree_sitter import Node

from ..jsonl.memo import cached_property
from .js_tree import (
    DECLARATION_GROUPS,
    FIELD_ALIAS,
    FIELD_BODY,
    FIELD_KEY,
    FIELD_KIND,
    FIELD_LEFT,
    FIELD_NAME,
    FIELD_SOURCE,
    FIELD_VALUE,
    TYPE_OF,
)
from .literals import UNKNOWN, string_value


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


class Scopes:
    """The bindings and scopes of a script, for :class:`~analysis.script.script.ExecScript` (whose text,
    names and ``structure`` they read)."""

    if TYPE_CHECKING:
        root: Node
        structure: dict[str, list[dict[str, list[Node]]]]

        def text(self, node: Node) -> str: ...

        def name_of(self, node: Node) -> str: ...

    @cached_property
    def bindings(self) -> dict[str, list[Binding]]:
        found: dict[str, list[Binding]] = {}
        for group in DECLARATION_GROUPS:
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
        bindings = self.bindings.get(name or self.name_of(node))
        if bindings is None:
            return None
        if len(bindings) < _INDEXED:
            return _innermost(bindings, node.start_byte)
        return self._indexed(bindings).innermost(node.start_byte)

    @cached_property
    def _indexes(self) -> dict[int, _NameIndex]:
        return {}

    def _indexed(self, bindings: list[Binding]) -> _NameIndex:
        """The index of one name's bindings (a name declared many times: ``x`` in each of 1,000 blocks)."""
        found = self._indexes.get(id(bindings))
        if found is None or found.bindings is not bindings:
            found = self._indexes[id(bindings)] = _NameIndex(bindings)
        return found

    def assigned_names(self) -> list[Node]:
        """Every identifier an assignment, an update or a ``for (x of …)`` without a declaration writes."""
        targets: list[Node] = []
        for captures in self.structure["assign"]:
            node = captures["assign"][0]
            target = node.child_by_field_name("argument" if TYPE_OF[node.kind_id] == "update_expression" else "left")
            if target is None:
                continue
            if TYPE_OF[target.kind_id] == "identifier":
                targets.append(target)
            elif TYPE_OF[target.kind_id] in ("object_pattern", "array_pattern"):
                targets.extend(ident for ident, _ in self._pattern_names(target))
        for captures in self.structure["loop"]:
            loop = captures["loop"][0]
            if loop.child_by_field_id(FIELD_KIND) is None:
                targets.extend(ident for ident, _ in self._pattern_names(captures["name"][0]))
        return targets

    def _reassigned(self, found: dict[str, list[Binding]]) -> set[int]:
        """Ids of the declaring identifiers of ``let``/``var`` names written after their declaration."""
        held = {
            name
            for name, bindings in found.items()
            if any(b.init is not None and b.kind in ("let", "var") for b in bindings)
        }
        if not held:
            return set()
        out: set[int] = set()
        for name in held:  # ``var x = a; var x = b``: the second declaration assigns the first
            seen: dict[int, list[Binding]] = {}
            for b in found[name]:
                if b.kind == "var":
                    seen.setdefault(b.scope.id, []).append(b)
            out.update(b.node.id for group in seen.values() if len(group) > 1 for b in group)
        indexes: dict[str, _NameIndex] = {}
        for target in self.assigned_names():
            name = self.name_of(target)
            if name in held:
                bindings = found[name]
                if len(bindings) < _INDEXED:
                    binding = _innermost(bindings, target.start_byte)
                else:
                    index = indexes.get(name)
                    if index is None:
                        index = indexes[name] = _NameIndex(bindings)
                    binding = index.innermost(target.start_byte)
                if binding is not None and binding.kind in ("let", "var"):
                    out.add(binding.node.id)
        return out

    def declared_once(self, binding: Binding) -> bool:
        """True when no other declaration of the name shares the binding's scope."""
        return sum(1 for b in self.bindings.get(binding.name, ()) if b.scope == binding.scope) == 1

    def _bindings_of(self, captures: dict[str, list[Node]]) -> Iterator[Binding]:
        if "declarator" in captures:
            declarator = captures["declarator"][0]
            kind = TYPE_OF[captures["kind"][0].kind_id] if "kind" in captures else "var"
            kind = kind if kind in ("const", "let") else "var"
            target = captures["name"][0]
            value = declarator.child_by_field_id(FIELD_VALUE)
            scope = self._scope(declarator, function_scoped=kind == "var")
            if TYPE_OF[target.kind_id] == "identifier":
                yield Binding(self.name_of(target), kind, target, scope, value)
            else:
                for ident, key in self._pattern_names(target):
                    yield Binding(self.name_of(ident), kind, ident, scope, None, key, pattern_init=value)
        elif "fn_decl" in captures or "class_decl" in captures:
            node = (captures.get("fn_decl") or captures["class_decl"])[0]
            ident = captures["name"][0]
            yield Binding(
                self.name_of(ident),
                "function" if "fn_decl" in captures else "class",
                ident,
                self._scope(node, function_scoped=False),
            )
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
            kind_node = loop.child_by_field_id(FIELD_KIND)
            loop_kind = self.text(kind_node) if kind_node is not None else None
            if loop_kind in ("const", "let", "var"):  # without one, the loop assigns an existing name
                scope = self._scope(loop, function_scoped=True) if loop_kind == "var" else loop
                for ident, _ in self._pattern_names(captures["name"][0]):
                    yield Binding(self.name_of(ident), loop_kind, ident, scope)
        elif "import" in captures:
            yield from self._import_bindings(captures["import"][0])

    def _import_bindings(self, statement: Node) -> Iterator[Binding]:
        source = statement.child_by_field_id(FIELD_SOURCE)
        module = self.text(source)[1:-1] if source is not None else ""
        for clause in statement.named_children:
            if TYPE_OF[clause.kind_id] != "import_clause":
                continue
            for part in clause.named_children:
                if TYPE_OF[part.kind_id] == "identifier":
                    yield Binding(self.name_of(part), "import", part, self.root, module=module, imported="default")
                elif TYPE_OF[part.kind_id] == "namespace_import":
                    ident = next((c for c in part.named_children if TYPE_OF[c.kind_id] == "identifier"), None)
                    if ident is not None:
                        yield Binding(self.name_of(ident), "import", ident, self.root, module=module, imported="*")
                elif TYPE_OF[part.kind_id] == "named_imports":
                    for spec in part.named_children:
                        if TYPE_OF[spec.kind_id] != "import_specifier":
                            continue
                        name = spec.child_by_field_id(FIELD_NAME)
                        alias = spec.child_by_field_id(FIELD_ALIAS) or name
                        if name is None or alias is None:
                            continue
                        imported = self.property_name(name)
                        if imported is None or TYPE_OF[alias.kind_id] == "string":
                            continue
                        yield Binding(self.name_of(alias), "import", alias, self.root, module=module, imported=imported)

    def _pattern_names(self, node: Node) -> list[tuple[Node, str | None]]:
        """(identifier, key) for every name a binding pattern declares; the key is the property of the
        destructured value the name takes (see :class:`Binding`), known only at the pattern's first level.
        Iterative: patterns can nest as deep as a script likes."""
        stack: list[tuple[Node, str | None, bool]] = [(node, None, True)]  # (pattern, key, at the top)
        found = []
        while stack:
            node, key, top = stack.pop()
            kind = TYPE_OF[node.kind_id]
            if kind == "identifier":
                found.append((node, key))
            elif kind == "shorthand_property_identifier_pattern":
                found.append((node, self.name_of(node) if top else None))
            elif kind == "pair_pattern":
                value = node.child_by_field_id(FIELD_VALUE)
                if value is not None:
                    stack.append((value, self.property_name(node.child_by_field_id(FIELD_KEY)) if top else None, False))
            elif kind in ("assignment_pattern", "object_assignment_pattern"):
                left = node.child_by_field_id(FIELD_LEFT)
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
        kind = TYPE_OF[node.kind_id]
        if kind == "computed_property_name":
            inner = [c for c in node.named_children if TYPE_OF[c.kind_id] != "comment"]
            if len(inner) != 1 or TYPE_OF[inner[0].kind_id] != "string":
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
    def _scope_index(self) -> tuple[_Intervals, _Intervals]:
        return (
            _Intervals([c["scope_block"][0] for c in self.structure["scope_block"]]),
            _Intervals([c["scope_function"][0] for c in self.structure["scope_function"]]),
        )

    def _scope(self, node: Node, function_scoped: bool) -> Node:
        """The innermost block (or, for ``var``, function body) around ``node``; tree-sitter's ``parent`` is
        O(depth), so scopes come from an index of the captured scope nodes."""
        blocks, functions = self._scope_index
        found = (functions if function_scoped else blocks).innermost(node.start_byte, node.start_byte + 1, node)
        if found is None:
            return self.root
        if function_scoped:  # a ``var`` lives in the body: the parameters' default values do not see it
            body = found.child_by_field_id(FIELD_BODY)
            if body is not None and body.start_byte <= node.start_byte < body.end_byte:
                return body
        return found

    def innermost_function(self, node: Node) -> Node:
        found = self._scope_index[1].innermost(node.start_byte, node.end_byte, None)
        return found if found is not None else self.root


def _innermost(bindings: Iterable[Binding], at: int) -> Binding | None:
    """Of the bindings of one name, the one whose scope is the innermost around byte ``at``."""
    best: Binding | None = None
    for binding in bindings:
        scope = binding.scope
        if scope.start_byte <= at < scope.end_byte or TYPE_OF[scope.kind_id] == "program":
            if best is None or scope.start_byte >= best.scope.start_byte and scope.end_byte <= best.scope.end_byte:
                best = binding
    return best


_INDEXED = 8  # bindings of one name from which resolving goes through a _NameIndex rather than a scan


class _NameIndex:
    """The bindings of one name by scope, to find what :func:`_innermost` finds in O(log n + nesting) rather than
    O(bindings): of the scopes around a position (which nest), the innermost; of the bindings with that scope's
    range, the last.  A ``program`` scope counts wherever the position is (the root may not span leading text)."""

    def __init__(self, bindings: list[Binding]) -> None:
        self.bindings = bindings
        by_range: dict[tuple[int, int], Binding] = {}
        nodes: list[Node] = []
        self.program: Binding | None = None
        for binding in bindings:
            scope = binding.scope
            key = (scope.start_byte, scope.end_byte)
            if key not in by_range:
                nodes.append(scope)
            by_range[key] = binding
            if TYPE_OF[scope.kind_id] == "program":
                self.program = binding
        self.by_range = by_range
        self.scopes = _Intervals(nodes)

    def innermost(self, at: int) -> Binding | None:
        scope = self.scopes.innermost(at, at + 1, None)
        if scope is None:
            return self.program
        return self.by_range[(scope.start_byte, scope.end_byte)]


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


__all__ = ["Binding", "Scopes"]
