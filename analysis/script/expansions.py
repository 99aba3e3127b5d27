"""Expansions: the runs of one call driven by a constant array, each exactly known.

``cmds.map(c => tools.exec_command({cmd: c}))``, ``[0, 1, 2].map(page => …)``,
``for (const [name, args] of calls) await tools[name](args)``: when a call's tool
or command depends on the element of exactly one array that is written as
literals and never changed, the call runs once per element (where it runs at all)
with values known exactly, so each element is listed.  The array is iterated by
``for…of`` over a ``const`` binding, or by ``.map``, ``.forEach`` or ``.flatMap``
whose callback takes the element (destructured or not) and optionally its index.

"Never changed" is checked, never assumed: the array's ``const`` binding is used
only to be iterated, read (``a[i]``, ``a.length``) or spread, with no mutating
method or assignment; where its elements are arrays or objects (tuples), only its
own iteration and ``.length`` may use it, and each element binding holding an
object is only read: in a template or concatenation, as an index, or passed to a
tool.  Anything else leaves the call computed.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node, Query, QueryCursor

from .arguments import Arguments, read_arguments
from .callees import Callees
from .js_tree import (
    FIELD_FUNCTION,
    FIELD_INDEX,
    FIELD_KEY,
    FIELD_LEFT,
    FIELD_OBJECT,
    FIELD_OPERATOR,
    FIELD_PARAMETER,
    FIELD_PARAMETERS,
    FIELD_PROPERTY,
    FIELD_RIGHT,
    FIELD_VALUE,
    TYPE_OF,
)
from .script import JAVASCRIPT, Binding, ExecScript
from .values import OBJECT_PROTOTYPE, UNDEFINED, Constants, Env, is_primitive, unwrap

ITERATORS = frozenset({"map", "forEach", "flatMap"})
MUTATORS = frozenset({"push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"})
_IDENTIFIERS = Query(JAVASCRIPT, "[(identifier) (shorthand_property_identifier)] @id")
_PATTERNS = frozenset(
    {
        "array_pattern",
        "object_pattern",
        "pair_pattern",
        "assignment_pattern",
        "object_assignment_pattern",
        "shorthand_property_identifier_pattern",
        "rest_pattern",
    }
)
_CALLBACKS = frozenset({"arrow_function", "function_expression", "function"})
_ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression"})
_MAX_NAMES = 200  # identifiers looked at in one call; a larger call is not expanded


@dataclass(frozen=True, slots=True)
class Iteration:
    """One iteration over an array: the callback or ``for…of`` statement, and what it binds."""

    owner: Node  # the callback function or the for…of statement
    source: Node  # the expression iterated (an array literal or a const name)
    element: Node | None  # the identifier or pattern bound to each element
    index: Node | None  # the identifier bound to the element's index (callbacks only)


@dataclass(frozen=True, slots=True)
class Run:
    """One element's run of an expanded call."""

    tool: Any  # a tool name, DYNAMIC or None, as the callee names it for this element
    arguments: Arguments | None
    span: tuple[int, int] | None = None  # the element's code points in the script, when written one per item


class Expansions:
    def __init__(self, script: ExecScript, constants: Constants, callees: Callees) -> None:
        self.script = script
        self.constants = constants
        self.callees = callees
        self._references: dict[str, list[Node]] | None = None
        self._starts: dict[str, list[int]] | None = None

    def runs(self, callee: Node, argument: Node | None, only: tuple[str, ...] | None = None) -> list[Run] | None:
        """The call's runs, one per element of the one constant array it depends on; None when it depends on
        no such array, on several, or the array is not exactly known and unchanged.  ``only``: each run's
        arguments hold the values of these keys alone (see :func:`~analysis.script.arguments.read_arguments`)."""
        iteration = self.iteration_of([n for n in (callee, argument) if n is not None])
        if iteration is None:
            return None
        array, binding = self.const_array(iteration.source)
        if array is None:
            return None
        items = self.constants.value(array)
        if not isinstance(items, list) or not items:
            return None
        deep = not all(is_primitive(i) for i in items)
        if binding is not None and not self.array_unchanged(binding, iteration, deep):
            return None
        envs = [env for index, item in enumerate(items) if (env := self.bind(iteration, item, index)) is not None]
        if len(envs) < len(items) or not self.elements_unchanged(iteration, envs):
            return None
        spans = self.element_spans(array, len(items))
        return [
            Run(self.callees.tool(callee, env), read_arguments(self.constants, argument, env, only), span)
            for env, span in zip(envs, spans)
        ]

    def element_spans(self, array: Node, count: int) -> list[tuple[int, int] | None]:
        """Where each item of an array literal is written; none known when the literal does not write its
        items one by one (no such array is expanded today: its values would not be exactly known)."""
        elements = [n for n in array.named_children if TYPE_OF[n.kind_id] != "comment"]
        if len(elements) != count or any(TYPE_OF[n.kind_id] == "spread_element" for n in elements):
            return [None] * count
        return [self.script.span(n) for n in elements]

    # -- which iteration a call depends on ---------------------------------------------------
    def iteration_of(self, nodes: list[Node]) -> Iteration | None:
        found: dict[tuple[int, int], Iteration] = {}
        names = 0
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if TYPE_OF[node.kind_id] in ("identifier", "shorthand_property_identifier"):
                names += 1
                if names > _MAX_NAMES:
                    return None
                binding = self.script.resolve(node)
                iteration = self.iteration(binding) if binding is not None else None
                if iteration is not None:
                    found[(iteration.owner.start_byte, iteration.owner.end_byte)] = iteration
            else:
                stack.extend(node.named_children)
        return next(iter(found.values())) if len(found) == 1 else None

    def iteration(self, binding: Binding) -> Iteration | None:
        """The iteration whose element (or index) ``binding`` is, if any."""
        if binding.kind == "param":
            return self.callback_iteration(binding)
        if binding.kind != "const":
            return None  # a let or var loop variable can be reassigned in the body
        node = binding.node
        while node.parent is not None and TYPE_OF[node.parent.kind_id] in _PATTERNS:
            node = node.parent
        loop = node.parent
        if loop is None or TYPE_OF[loop.kind_id] != "for_in_statement" or loop.child_by_field_id(FIELD_LEFT) != node:
            return None
        operator = loop.child_by_field_id(FIELD_OPERATOR)
        right = loop.child_by_field_id(FIELD_RIGHT)
        if operator is None or self.script.text(operator) != "of" or right is None:
            return None
        return Iteration(loop, right, node, None)

    def callback_iteration(self, binding: Binding) -> Iteration | None:
        function = binding.scope
        if TYPE_OF[function.kind_id] not in _CALLBACKS:
            return None
        params = function.child_by_field_id(FIELD_PARAMETERS)
        if params is not None:
            listed = [c for c in params.named_children if TYPE_OF[c.kind_id] != "comment"]
        else:
            single = function.child_by_field_id(FIELD_PARAMETER)
            listed = [single] if single is not None else []
        if not listed:
            return None
        element = listed[0]
        index = listed[1] if len(listed) > 1 and TYPE_OF[listed[1].kind_id] == "identifier" else None
        at = binding.node.start_byte
        if not (element.start_byte <= at < element.end_byte or index is not None and index.start_byte == at):
            return None
        arguments = function.parent
        call = arguments.parent if arguments is not None else None
        if (
            arguments is None
            or TYPE_OF[arguments.kind_id] != "arguments"
            or call is None
            or TYPE_OF[call.kind_id] != "call_expression"
        ):
            return None
        first = next((c for c in arguments.named_children if TYPE_OF[c.kind_id] != "comment"), None)
        member = call.child_by_field_id(FIELD_FUNCTION)
        if first is None or first != function or member is None or TYPE_OF[member.kind_id] != "member_expression":
            return None
        prop = member.child_by_field_id(FIELD_PROPERTY)
        source = member.child_by_field_id(FIELD_OBJECT)
        if prop is None or self.script.name_of(prop) not in ITERATORS or source is None:
            return None
        return Iteration(function, source, element, index)

    def const_array(self, node: Node | None) -> tuple[Node | None, Binding | None]:
        """The array literal iterated: written in place, or bound once to a ``const``."""
        node = unwrap(node)
        if node is None:
            return None, None
        if TYPE_OF[node.kind_id] == "array":
            return node, None
        if TYPE_OF[node.kind_id] != "identifier":
            return None, None
        binding = self.script.resolve(node)
        if (
            binding is None
            or binding.kind != "const"
            or binding.key is not None
            or not self.script.declared_once(binding)
        ):
            return None, None
        init = unwrap(binding.init)
        return (init, binding) if init is not None and TYPE_OF[init.kind_id] == "array" else (None, None)

    # -- binding one element -----------------------------------------------------------------
    def bind(self, iteration: Iteration, item: Any, index: int) -> Env | None:
        env: Env = {}
        if iteration.index is not None:
            env[iteration.index.start_byte] = index
        if iteration.element is None or self.bind_pattern(iteration.element, item, env):
            return env
        return None

    def bind_pattern(self, node: Node, value: Any, env: Env) -> bool:
        """Binds the names of a destructuring pattern as JavaScript would; False where a default or rest
        would be needed (not evaluated here)."""
        kind = TYPE_OF[node.kind_id]
        if kind == "identifier":
            env[node.start_byte] = value
            return True
        if kind == "array_pattern":
            if not isinstance(value, list):
                return False
            position = 0
            for child in node.children:
                if TYPE_OF[child.kind_id] == ",":
                    position += 1
                elif child.is_named and TYPE_OF[child.kind_id] != "comment":
                    item = value[position] if position < len(value) else UNDEFINED
                    if not self.bind_pattern(child, item, env):
                        return False
            return True
        if kind == "object_pattern":
            if not isinstance(value, dict):
                return False
            key: str | None
            target: Node | None
            for child in node.named_children:
                if TYPE_OF[child.kind_id] == "shorthand_property_identifier_pattern":
                    key, target = self.script.name_of(child), child
                elif TYPE_OF[child.kind_id] == "pair_pattern":
                    key = self.constants.key(child.child_by_field_id(FIELD_KEY))
                    target = child.child_by_field_id(FIELD_VALUE)
                elif TYPE_OF[child.kind_id] == "comment":
                    continue
                else:
                    return False  # a default or a rest
                if key is None or target is None or key not in value and key in OBJECT_PROTOTYPE:
                    return False
                item = value.get(key, UNDEFINED)
                if TYPE_OF[target.kind_id] == "shorthand_property_identifier_pattern":
                    env[target.start_byte] = item
                elif not self.bind_pattern(target, item, env):
                    return False
            return True
        if kind == "assignment_pattern":
            left = node.child_by_field_id(FIELD_LEFT)
            return value is not UNDEFINED and left is not None and self.bind_pattern(left, value, env)
        return False

    # -- never changed -------------------------------------------------------------------------
    def array_unchanged(self, binding: Binding, iteration: Iteration, deep: bool) -> bool:
        for ref in self.uses(binding):
            if ref.start_byte == iteration.source.start_byte:
                continue
            parent = ref.parent
            if parent is None:
                return False
            if (
                TYPE_OF[parent.kind_id] in ("member_expression", "subscript_expression")
                and parent.child_by_field_id(FIELD_OBJECT) == ref
            ):
                prop = parent.child_by_field_id(FIELD_PROPERTY)
                name = self.script.name_of(prop) if prop is not None else None
                if deep and name != "length" or name in MUTATORS or self.written(parent):
                    return False
            elif TYPE_OF[parent.kind_id] == "spread_element" and not deep:
                continue
            elif (
                TYPE_OF[parent.kind_id] == "for_in_statement"
                and parent.child_by_field_id(FIELD_RIGHT) == ref
                and not deep
            ):
                continue
            else:
                return False
        return True

    def elements_unchanged(self, iteration: Iteration, envs: list[Env]) -> bool:
        """No element binding is reassigned, and one holding an array or object is only read."""
        holds_object = {at for env in envs for at, value in env.items() if not is_primitive(value)}
        for at in envs[0] if envs else ():
            declared = self.declared_at(iteration, at)
            if declared is None:
                return False
            binding = self.script.resolve(declared)
            if binding is None:
                return False
            for ref in self.uses(binding):
                if self.written(ref) or at in holds_object and not self.only_read(ref, envs):
                    return False
        return True

    def declared_at(self, iteration: Iteration, at: int) -> Node | None:
        for owner in (iteration.element, iteration.index):
            if owner is None:
                continue
            stack = [owner]
            while stack:
                node = stack.pop()
                if node.start_byte == at and TYPE_OF[node.kind_id] in (
                    "identifier",
                    "shorthand_property_identifier_pattern",
                ):
                    return node
                stack.extend(node.named_children)
        return None

    def only_read(self, ref: Node, envs: list[Env]) -> bool:
        """Whether a use of an element holding an object only reads it."""
        top = ref
        while (
            top.parent is not None
            and TYPE_OF[top.parent.kind_id] in ("member_expression", "subscript_expression")
            and top.parent.child_by_field_id(FIELD_OBJECT) == top
        ):
            top = top.parent
        parent = top.parent
        if parent is None or self.written(top):
            return False
        if TYPE_OF[parent.kind_id] == "call_expression" and parent.child_by_field_id(FIELD_FUNCTION) == top:
            return False  # a method called on the element may change it
        if top != ref and all(is_primitive(self.constants.value(top, env)) for env in envs):
            return True  # `c.url`: a primitive read out of the element, which nothing can change through it
        if TYPE_OF[parent.kind_id] in ("template_substitution", "binary_expression"):
            return True
        if TYPE_OF[parent.kind_id] == "subscript_expression" and parent.child_by_field_id(FIELD_INDEX) == top:
            return True
        if TYPE_OF[parent.kind_id] == "pair" and parent.child_by_field_id(FIELD_VALUE) == top:
            parent = parent.parent.parent if parent.parent is not None else None  # the object's container
            if parent is None:
                return False
        return (
            TYPE_OF[parent.kind_id] == "arguments"
            and parent.parent is not None
            and self.callees.tool(parent.parent.child_by_field_id(FIELD_FUNCTION)) is not None
        )

    def written(self, node: Node) -> bool:
        """Whether ``node`` (a name or member) is assigned, updated or deleted."""
        parent = node.parent
        if parent is None:
            return False
        if TYPE_OF[parent.kind_id] in _ASSIGNMENTS and parent.child_by_field_id(FIELD_LEFT) == node:
            return True
        if TYPE_OF[parent.kind_id] == "update_expression":
            return True
        if TYPE_OF[parent.kind_id] == "for_in_statement" and parent.child_by_field_id(FIELD_LEFT) == node:
            return True
        if TYPE_OF[parent.kind_id] == "unary_expression":
            operator = parent.child_by_field_id(FIELD_OPERATOR)
            return operator is not None and TYPE_OF[operator.kind_id] == "delete"
        return TYPE_OF[parent.kind_id] in _PATTERNS  # a destructuring assignment target

    def uses(self, binding: Binding) -> list[Node]:
        """Every reference to ``binding`` other than its declaration: of the references to its name, those inside
        its scope (a binding is seen nowhere else, but one of the program's is seen everywhere) that resolve to it."""
        refs = self.references(binding.name)
        scope = binding.scope
        if TYPE_OF[scope.kind_id] != "program" and refs:
            starts = self._reference_starts[binding.name]
            refs = refs[bisect_left(starts, scope.start_byte) : bisect_left(starts, scope.end_byte)]
        resolve = self.script.resolve
        declared = binding.node.start_byte
        return [ref for ref in refs if ref.start_byte != declared and _same(resolve(ref), binding)]

    def references(self, name: str) -> list[Node]:
        """The identifiers that spell ``name``, in source order."""
        if self._references is None:
            refs: dict[str, list[Node]] = {}
            for node in QueryCursor(_IDENTIFIERS).captures(self.script.root).get("id", []):
                refs.setdefault(self.script.name_of(node), []).append(node)
            for nodes in refs.values():
                nodes.sort(key=_start)
            self._references = refs
        return self._references.get(name, [])

    @property
    def _reference_starts(self) -> dict[str, list[int]]:
        if self._starts is None:
            self._starts = {name: [n.start_byte for n in nodes] for name, nodes in (self._references or {}).items()}
        return self._starts


def _start(node: Node) -> int:
    return node.start_byte


def _same(found: Binding | None, binding: Binding) -> bool:
    return found is binding or found == binding


__all__ = ["ITERATORS", "MUTATORS", "Expansions", "Iteration", "Run"]
