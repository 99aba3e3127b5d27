"""The values of JavaScript literals, decoded by esprima (esprima-fork, ES2026).

tree-sitter finds the literal nodes; esprima turns their source text into values
(every JS escape: ``\\x41``, ``\\u{1F600}``, line continuations, template
cooking), so the project carries no JS string decoder of its own.  A literal
without a backslash (or, in a template, without ``\\r``) is its own text, which
skips the parser on the common path.
"""

from __future__ import annotations

import enum
import json
from functools import lru_cache
from typing import Any, Final

from ..jsonl.lazy_pattern import lazy

_SURROGATE = lazy("[\ud800-\udfff]")
_DECIMAL = lazy(r"(?:0|[1-9][0-9]*)(\.[0-9]+)?")
_LINE_ENDS = lazy(r"\r\n?")
_SEPARATOR_MISPLACED = lazy(r"(?<![0-9a-fA-F])_|_(?![0-9a-fA-F])")


class Unknown(enum.Enum):
    """The value of an expression a static reading cannot know: one value, :data:`UNKNOWN` (an enum of one
    member, so that ``value is UNKNOWN`` narrows a value's type)."""

    UNKNOWN = "UNKNOWN"

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __str__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Final = Unknown.UNKNOWN


def string_value(source: str) -> str | Unknown:
    """The value of a string literal's source text (with its quotes)."""
    if "\\" not in source:
        return source[1:-1]
    if source[0] == '"':
        # a double-quoted JS string whose escapes are all JSON escapes (and holds no control character) means
        # what the same text means as JSON: the C JSON decoder reads it, and refuses every other one, which
        # esprima (pure Python, slow on long patches) reads
        try:
            decoded: str = json.loads(source)  # a JSON string literal: a str
            return decoded
        except ValueError:
            pass
    node = _expression(source)
    if node is None or node.type != "Literal" or not isinstance(node.value, str):
        return UNKNOWN
    return _join_surrogates(node.value)


def template_quasis(source: str) -> list[str] | Unknown:
    """The cooked text pieces of a template literal's source (substitutions as ``${x}``)."""
    if "\\" not in source and "${" not in source:
        return [cook_raw(source[1:-1])]
    node = _expression(source)
    if node is None or node.type != "TemplateLiteral":
        return UNKNOWN
    cooked = [q.value.cooked for q in node.quasis]
    if any(c is None for c in cooked):  # an invalid escape in a tagged-only position
        return UNKNOWN
    return [_join_surrogates(c) for c in cooked]


def cook_raw(raw: str) -> str:
    """The cooked value of template text that holds no escape: its raw text with line ends as ``\\n``."""
    return _LINE_ENDS.sub("\n", raw) if "\r" in raw else raw


def number_value(source: str) -> int | float | Unknown:
    if "_" in source:  # numeric separators (ES2021), which esprima 4 predates: only ever between two digits
        if _SEPARATOR_MISPLACED.search(source) or source.startswith("0_"):
            return UNKNOWN
        source = source.replace("_", "")
    plain = _DECIMAL.fullmatch(source)
    if plain:  # a plain decimal literal is its digits; hex, exponents, separators go to esprima
        return float(source) if plain.group(1) else int(source)
    node = _expression(source)
    if node is None or node.type != "Literal" or isinstance(node.value, (str, bool)) or node.value is None:
        return UNKNOWN
    value = node.value
    return int(value) if isinstance(value, float) and value.is_integer() and "." not in source else value


@lru_cache(maxsize=4096)
def _expression(source: str) -> Any:
    # imported on first use: esprima builds tables of every Unicode character when it loads (0.5 s, 130 MB),
    # and most sessions never need it (their literals hold no escapes)
    import esprima

    try:
        program = esprima.parseModule("(" + source + ")")  # strict, as exec scripts are: "\143" is refused
    except Exception:  # esprima raises its own Error type for any source it rejects
        return None
    body = program.body
    if len(body) != 1 or body[0].type != "ExpressionStatement":
        return None
    return body[0].expression


def _join_surrogates(text: str) -> str:
    """esprima works in UTF-16 units: pair its surrogate halves into code points."""
    if not _SURROGATE.search(text):
        return text
    return _pair_some(text)


def _pair_some(text: str) -> str:
    """Pairs what pairs, keeps lone halves as they are (JS strings may hold them)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if "\ud800" <= c <= "\udbff" and i + 1 < len(text) and "\udc00" <= text[i + 1] <= "\udfff":
            out.append(chr(0x10000 + ((ord(c) - 0xD800) << 10) + (ord(text[i + 1]) - 0xDC00)))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)
