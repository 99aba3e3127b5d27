"""Constant evaluation: the exact value of a JavaScript expression, or UNKNOWN.

One evaluator serves the tool-call reading (commands, arguments, expansions) and
the dead-code reading (whether a condition is always true or always false).  It
follows JavaScript's own rules, never a guess: literals (strings, numbers,
booleans, ``null``, ``undefined``), templates whose substitutions are known,
``+`` on known primitives (string concatenation or number addition, with
JavaScript's ``ToString`` for numbers), unary ``-``, ``+``, ``!`` and ``void``,
``===``/``!==`` between primitives, and a ``const`` declared once whose value is
a primitive.  Arrays and objects are values only where they are written: a
``const`` bound to one can be mutated, so it is read only by the expansion
reading, which checks that it is not.
"""

from __future__ import annotations

import math
import weakref
from typing import Any, TypeGuard

from tree_sitter import Node

from ..jsonl.memo import once_per_object
from .js_tree import (
    FIELD_ARGUMENT,
    FIELD_INDEX,
    FIELD_KEY,
    FIELD_LEFT,
    FIELD_OBJECT,
    FIELD_OPERATOR,
    FIELD_PROPERTY,
    FIELD_RIGHT,
    FIELD_VALUE,
    TYPE_OF,
)
from .literals import UNKNOWN, Unknown, cook_raw, number_value, string_value, template_quasis
from .script import ExecScript, is_misread_await, misread_await_inner

MAX_DEPTH = 40
_SAFE_INTEGER = 2**53
_ALWAYS_TRUTHY = frozenset(
    {"array", "object", "arrow_function", "function_expression", "function", "class", "regex", "generator_function"}
)
OBJECT_PROTOTYPE = frozenset(
    {
        "constructor",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)


class Undefined:
    """JavaScript's ``undefined`` (Python's None is ``null``)."""

    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = Undefined()
# the global names whose value JavaScript fixes (non-writable properties of the global object)
_GLOBAL_CONSTANTS: dict[str, Any] = {"undefined": UNDEFINED, "NaN": math.nan, "Infinity": math.inf}

Env = dict[int, Any]  # loop variables bound to one element: declaring identifier's start byte → value


def unwrap(node: Node | None) -> Node | None:
    """The expression inside parentheses, or the last of ``(0, f)``; what ``await x`` awaits (also where
    tree-sitter misreads ``await (x)`` as a call): awaiting a value that is no promise gives the value itself, and
    neither ``tools``, a tool nor a literal is a promise."""
    while node is not None:
        kind = TYPE_OF[node.kind_id]  # read once: each read of a node's type is a call into tree-sitter
        if kind not in _WRAPPERS:
            return node
        if kind == "parenthesized_expression" or kind == "await_expression":
            inner = [c for c in node.named_children if TYPE_OF[c.kind_id] != "comment"]
            node = inner[-1] if inner else None
        elif kind == "sequence_expression":
            node = node.named_children[-1] if node.named_children else None
        elif is_misread_await(node):  # a call_expression
            node = misread_await_inner(node)
        else:
            return node
    return None


_WRAPPERS = frozenset({"parenthesized_expression", "sequence_expression", "call_expression", "await_expression"})


def is_primitive(value: object) -> bool:
    return value is None or value is UNDEFINED or isinstance(value, (str, bool, int, float))


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def truthy(value: Any) -> bool:
    """JavaScript's ToBoolean of a known value."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if is_number(value):
        return value != 0 and not math.isnan(value)
    return True  # true, arrays, objects


def to_string(value: Any) -> str | Unknown:
    """JavaScript's ToString of a known primitive; UNKNOWN for arrays and objects (their conversion calls
    methods a script can replace)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if is_number(value):
        return number_to_string(value)
    return UNKNOWN


def number_to_string(value: int | float) -> str:
    """Number::toString (ECMA-262 §6.1.6.1.20): the shortest digits that round-trip, laid out as JS does."""
    if isinstance(value, int) and abs(value) < _SAFE_INTEGER:
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if value == 0:
        return "0"  # also -0
    if value < 0:
        return "-" + number_to_string(-value)
    if math.isinf(value):
        return "Infinity"
    from decimal import Decimal  # here: only a fraction or a large number needs it; not every start

    _, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)  # a finite value's ("n", "N" and "F" are NaN's and infinity's)
    text = "".join(map(str, digits)).rstrip("0")
    exponent = exponent + len(digits) - len(text)
    k = len(text)
    n = exponent + k  # value = 0.text × 10^n
    if k <= n <= 21:
        return text + "0" * (n - k)
    if 0 < n <= 21:
        return text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + text
    sign = "+" if n - 1 >= 0 else "-"
    mantissa = text[0] + ("." + text[1:] if k > 1 else "")
    return f"{mantissa}e{sign}{abs(n - 1)}"


def _to_number(value: Any) -> int | float | Unknown:
    if is_number(value):
        return value
    if isinstance(value, bool):
        return int(value)
    if value is None:
        return 0
    if value is UNDEFINED:
        return math.nan
    return UNKNOWN  # strings: JS's StringToNumber grammar is not worth carrying for this


def _number(value: float | int) -> int | float:
    """A JS number as Python holds it here: an int when integral and exact, else a float (keeps -0)."""
    if isinstance(value, int):
        return value if abs(value) < _SAFE_INTEGER else float(value)
    if value.is_integer() and abs(value) < _SAFE_INTEGER and math.copysign(1.0, value) > 0:
        return int(value)
    return value


def _strict_equal(left: object, right: object) -> bool | Unknown:
    if not (is_primitive(left) and is_primitive(right)):
        return UNKNOWN
    if is_number(left) and is_number(right):
        return left == right  # NaN is unequal to itself, -0 equals 0: as in JS
    if type(left) is not type(right) and not (left is None and right is None):
        return False
    return left == right


class Constants:
    """The exact values of one script's expressions."""

    def __init__(self, script: ExecScript) -> None:
        # the script holds its evaluator (constants_of): a strong reference back would make a cycle, and a
        # script in a cycle (with its tree and caches) lives on until the collector runs
        self.script: ExecScript = weakref.proxy(script)  # a proxy answers as the script does

    def value(self, node: Node | None, env: Env | None = None, depth: int = 0) -> Any:
        """The exact value of ``node``, or UNKNOWN.  ``env`` binds loop variables (see expansions)."""
        node = unwrap(node)
        if node is None or depth > MAX_DEPTH:
            return UNKNOWN
        kind = TYPE_OF[node.kind_id]
        text = self.script.text
        if kind == "string":
            return string_value(text(node))
        if kind == "template_string":
            return self.template(node, env, depth)
        if kind == "number":
            value = number_value(text(node))
            return UNKNOWN if value is UNKNOWN else _number(value)
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "null":
            return None
        if kind == "undefined":
            return UNDEFINED
        if kind in ("identifier", "shorthand_property_identifier"):
            return self.name_value(node, env, depth)
        if kind == "unary_expression":
            return self.unary(node, env, depth)
        if kind == "binary_expression":
            return self.binary(node, env, depth)
        if kind == "array":
            if _has_hole(node):
                return UNKNOWN  # `[a, , b]`: iteration methods skip the hole, for…of does not
            items = [self.value(c, env, depth + 1) for c in node.named_children if TYPE_OF[c.kind_id] != "comment"]
            return UNKNOWN if any(i is UNKNOWN for i in items) else items
        if kind == "object":
            props, open_after = self.properties(node)
            if open_after:
                return UNKNOWN
            values = {k: self.value(v, env, depth + 1) for k, v in props.items()}
            return UNKNOWN if any(v is UNKNOWN for v in values.values()) else values
        if kind in ("member_expression", "subscript_expression") and env:
            return self.member(node, env, depth)
        return UNKNOWN

    def name_value(self, node: Node, env: Env | None, depth: int) -> Any:
        script = self.script
        binding = script.resolve(node)
        if binding is None:
            return _GLOBAL_CONSTANTS.get(script.name_of(node), UNKNOWN)
        if env is not None and binding.node.start_byte in env:
            return env[binding.node.start_byte]
        if (
            binding.kind == "const"
            and binding.key is None
            and binding.init is not None
            and script.declared_once(binding)
        ):
            value = self.value(binding.init, env, depth + 1)
            return value if is_primitive(value) else UNKNOWN  # a const array or object can be mutated
        return UNKNOWN

    def member(self, node: Node, env: Env, depth: int) -> Any:
        """``x.key`` / ``x[i]`` where ``x`` is a loop element (its reads are checked read-only there)."""
        target = unwrap(node.child_by_field_id(FIELD_OBJECT))
        if (
            target is None
            or TYPE_OF[target.kind_id] != "identifier"
            or any(TYPE_OF[c.kind_id] == "optional_chain" for c in node.children)
        ):
            return UNKNOWN
        binding = self.script.resolve(target)
        if binding is None or binding.node.start_byte not in env:
            return UNKNOWN
        base = env[binding.node.start_byte]
        if TYPE_OF[node.kind_id] == "member_expression":
            prop = node.child_by_field_id(FIELD_PROPERTY)
            key: Any = self.script.name_of(prop) if prop is not None else UNKNOWN
        else:
            key = self.value(node.child_by_field_id(FIELD_INDEX), env, depth + 1)
        if isinstance(base, dict) and isinstance(key, str):
            # a key the object lacks is looked up on Object.prototype
            return base[key] if key in base else UNKNOWN if key in OBJECT_PROTOTYPE else UNDEFINED
        if isinstance(base, list) and is_number(key) and float(key).is_integer() and key >= 0:
            return base[int(key)] if int(key) < len(base) else UNDEFINED
        if isinstance(base, list) and key == "length":
            return len(base)
        return UNKNOWN

    def unary(self, node: Node, env: Env | None, depth: int) -> Any:
        operator = node.child_by_field_id(FIELD_OPERATOR)
        op = self.script.text(operator) if operator is not None else ""
        argument = node.child_by_field_id(FIELD_ARGUMENT)
        if op == "!":
            truth = self.truth(argument, env, depth + 1)
            return UNKNOWN if truth is None else not truth
        if op == "void":
            return UNDEFINED  # `void f()` still calls f, but its value is always undefined
        inner = self.value(argument, env, depth + 1)
        if inner is UNKNOWN or not is_primitive(inner):
            return UNKNOWN
        if op in ("-", "+"):
            number = _to_number(inner)
            if number is UNKNOWN:
                return UNKNOWN
            if op == "+":
                return number
            return _number(-float(number)) if isinstance(number, float) or number == 0 else _number(-number)
        return UNKNOWN

    def binary(self, node: Node, env: Env | None, depth: int) -> Any:
        operator = node.child_by_field_id(FIELD_OPERATOR)
        op = TYPE_OF[operator.kind_id] if operator is not None else ""
        if op in ("&&", "||", "??"):
            return self.logical(node, op, env, depth)
        if op not in ("+", "===", "!=="):
            return UNKNOWN
        left = self.value(node.child_by_field_id(FIELD_LEFT), env, depth + 1)
        if left is UNKNOWN:
            return UNKNOWN
        right = self.value(node.child_by_field_id(FIELD_RIGHT), env, depth + 1)
        if right is UNKNOWN:
            return UNKNOWN
        if op != "+":
            equal = _strict_equal(left, right)
            return equal if equal is UNKNOWN or op == "===" else not equal
        if not (is_primitive(left) and is_primitive(right)):
            return UNKNOWN  # ToPrimitive of an array or object calls methods
        if isinstance(left, str) or isinstance(right, str):
            a, b = to_string(left), to_string(right)
            return UNKNOWN if a is UNKNOWN or b is UNKNOWN else a + b
        x, y = _to_number(left), _to_number(right)
        if x is UNKNOWN or y is UNKNOWN:
            return UNKNOWN
        return (
            _number(float(x) + float(y))
            if isinstance(x, float) or isinstance(y, float) or abs(x + y) >= _SAFE_INTEGER
            else x + y
        )

    def logical(self, node: Node, op: str, env: Env | None, depth: int) -> Any:
        """``a && b``, ``a || b``, ``a ?? b``: the operand JavaScript picks, when the left decides it."""
        left = self.value(node.child_by_field_id(FIELD_LEFT), env, depth + 1)
        if left is UNKNOWN:
            return UNKNOWN
        takes_left = (
            (left is not None and left is not UNDEFINED)
            if op == "??"
            else truthy(left)
            if op == "||"
            else not truthy(left)
        )
        return left if takes_left else self.value(node.child_by_field_id(FIELD_RIGHT), env, depth + 1)

    def template(self, node: Node, env: Env | None, depth: int) -> Any:
        pieces = self.quasis(node)
        if pieces is UNKNOWN:
            return UNKNOWN
        out = [pieces[0]]
        substitutions = [c for c in node.named_children if TYPE_OF[c.kind_id] == "template_substitution"]
        for sub, piece in zip(substitutions, pieces[1:]):
            value = self.substitution(sub, env, depth)
            if value is UNKNOWN:
                return UNKNOWN
            out.extend((value, piece))
        return "".join(out)

    def substitution(self, sub: Node, env: Env | None = None, depth: int = 0) -> str | Unknown:
        """The text a ``${…}`` inserts: ToString of its exactly known value."""
        inner = [c for c in sub.named_children if TYPE_OF[c.kind_id] != "comment"]
        if len(inner) != 1:
            return UNKNOWN
        value = self.value(inner[0], env, depth + 1)
        return UNKNOWN if value is UNKNOWN else to_string(value)

    def quasis(self, template: Node) -> list[str] | Unknown:
        """The cooked text pieces around a template's substitutions."""
        text = self.script.text(template)
        if "\\" in text:
            return template_quasis(text)  # escapes: esprima cooks them
        pieces = [""]
        for child in template.named_children:
            if TYPE_OF[child.kind_id] == "template_substitution":
                pieces.append("")
            elif TYPE_OF[child.kind_id] == "string_fragment":
                pieces[-1] += self.script.text(child)
        return [cook_raw(p) for p in pieces]

    def truth(self, node: Node | None, env: Env | None = None, depth: int = 0) -> bool | None:
        """Whether ``node`` is always truthy (True), always falsy (False), or not known (None)."""
        node = unwrap(node)
        if node is None or depth > MAX_DEPTH:
            return None
        if TYPE_OF[node.kind_id] in _ALWAYS_TRUTHY:
            return True  # an array, object, function, class or regex is truthy whatever it holds
        if TYPE_OF[node.kind_id] == "identifier":  # a const is as truthy as its initialiser, whatever that holds
            binding = self.script.resolve(node)
            if (
                binding is not None
                and binding.kind == "const"
                and binding.key is None
                and binding.init is not None
                and self.script.declared_once(binding)
                and (env is None or binding.node.start_byte not in env)
            ):
                return self.truth(binding.init, env, depth + 1)
        value = self.value(node, env, depth)
        return None if value is UNKNOWN else truthy(value)

    # -- object literals ----------------------------------------------------------------------
    def properties(self, obj: Node) -> tuple[dict[str, Node], set[str]]:
        """Static keys of an object literal (the last wins), and the keys a later spread or computed key
        may override (``*`` stands for every key not written yet)."""
        props: dict[str, Node] = {}
        open_after: set[str] = set()
        for child in obj.named_children:
            kind = TYPE_OF[child.kind_id]
            if kind == "pair":
                key = self.key(child.child_by_field_id(FIELD_KEY))
                value = child.child_by_field_id(FIELD_VALUE)
                if key is None or key == "__proto__":  # `__proto__: x` sets the prototype, not a key
                    open_after |= set(props) | {"*"}
                elif value is not None:
                    props[key] = value
                    open_after.discard(key)
            elif kind == "shorthand_property_identifier":
                name = self.script.name_of(child)
                props[name] = child
                open_after.discard(name)
            elif kind in ("spread_element", "method_definition"):
                open_after |= set(props) | {"*"}
        return props, open_after

    def key(self, node: Node | None) -> str | None:
        """A property key written statically: ``name``, ``"name"``, ``1``, ``["name"]``."""
        if node is None:
            return None
        kind = TYPE_OF[node.kind_id]  # read once: each read of a node's type is a call into tree-sitter
        if kind == "property_identifier":
            return self.script.name_of(node)
        if kind == "string":
            value = string_value(self.script.text(node))
            return None if value is UNKNOWN else value
        if kind == "number":
            number = number_value(self.script.text(node))
            return None if number is UNKNOWN else number_to_string(_number(number))
        if kind == "computed_property_name":
            inner = [c for c in node.named_children if TYPE_OF[c.kind_id] != "comment"]
            value = self.value(inner[0]) if len(inner) == 1 else UNKNOWN
            text = to_string(value) if is_primitive(value) else UNKNOWN
            return None if text is UNKNOWN else text
        return None


@once_per_object
def constants_of(script: ExecScript) -> Constants:
    """The script's evaluator (one per script, shared by every reading of it)."""
    return Constants(script)


__all__ = [
    "Constants",
    "UNDEFINED",
    "Env",
    "constants_of",
    "is_primitive",
    "number_to_string",
    "to_string",
    "truthy",
    "unwrap",
]


def _has_hole(array: Node) -> bool:
    """Whether an array literal has an elision (``[a, , b]``, ``[, a]``)."""
    expecting = True  # after `[` or `,`, an element is due
    for child in array.children:
        if TYPE_OF[child.kind_id] == ",":
            if expecting:
                return True
            expecting = True
        elif TYPE_OF[child.kind_id] not in ("[", "]", "comment"):
            expecting = False
    return False
