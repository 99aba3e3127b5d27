"""Text that may be a construct tree-sitter accepts and V8 refuses in module code (for
:mod:`analysis.script.module_syntax`): legacy octal and out-of-range escapes, escaped names that spell keywords,
names strict mode reserves, ``yield``/``export``/``__proto__`` as tokens, HTML-like comments, a line break
before ``=>`` or after ``async``; found in the text, then placed in the tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from tree_sitter import Node

try:
    import re2
except ImportError:  # pragma: no cover - a platform without the wheel: every script takes the searches below
    re2 = None

from ..jsonl.lazy_pattern import lazy
from .script import ExecScript

# Text that may be a construct tree-sitter accepts and V8 refuses, found with ``bytes.find`` or a regular
# expression that starts with a literal or a class (Python's fast path), and placed in the tree: escapes count in strings, templates and names, the
# rest outside strings, templates, comments and regular expressions.  Linear on any input.
_ESCAPES = lazy(rb"\\(?:[1-9xu]|0[0-9])")  # legacy octal, \8 \9, \u (names, \u{…}), \x: see _bad_escape
_WORDS = (b"yield", b"export", b"__proto__")  # as whole tokens
# names strict mode reserves (or may not bind): suspect as names, not as keywords or property names; found by
# text, as a query predicate on every identifier costs more than the rest of the look together
# (``let`` and ``await`` are everywhere as keywords, ``eval`` and ``arguments`` may be read, only not bound or
# assigned: they are looked for among declared and assigned names and callees instead, see _misnames)
# ``let`` too: a name (an identifier) only where sloppy code allows it (``if (a) let``, ``x = let``, ``f(let)``)
_RESERVED = (
    b"static",
    b"implements",
    b"interface",
    b"package",
    b"private",
    b"protected",
    b"public",
    b"enum",
    b"let",
)
_NAMES = frozenset({"identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"})
_MARKS = (b"<!--", b"-->")  # HTML-like comments: not in modules
_ALL_WORDS = _WORDS + _RESERVED + _MARKS
_ARROW = lazy(rb"[\n\r\xa8\xa9][ \t\f\v]*=>|\*/\s*=>")  # U+2028 and U+2029 end in A8 and A9
_ASYNC = lazy(rb"async[ \t\f\v]*[\n\r\xe2/]")


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

# What the strict pre-check (module_syntax.might_be_refused) asks of a script's text, answered by one pass of one
# RE2 set (stop 44): which of these four may be in the text.  Each pattern is a superset of the texts its reader
# needs before it can say "maybe", so a pattern the set does not report lets that reader be skipped:
# TEXT_TRIGGER is _ANY_TEXT_HIT's pattern (_text_hit searches with nothing else first); CALLED the text
# module_names._misnames reads calls for (``await`` or ``let`` then blanks and ``(``, ``/``, a backquote or ``?``
# as in _CALLED_AWAIT and _CALLED_LET, whose ``let`` is also a word of TEXT_TRIGGER; a tagged chain's ``?.`` and
# backquote, in either order); LABELLED what module_syntax._labelled_in_braces needs (``:``, blanks or comments,
# maybe ``async``, ``function`` or ``class``); STRICT the directive _strict_directive_refused looks for.
# One set's pass costs what one search through google-re2's wrapper cost (stop 43: about 10,500 instructions a
# script against 15,500), and answers the four at once.
TEXT_TRIGGER, CALLED, LABELLED, STRICT, DECIDED = range(5)
_EVERY_SUSPECT = (TEXT_TRIGGER, CALLED, LABELLED, STRICT)
_SPACE = rb"[ \t\n\r\f\v]"
# what may stand between a label's ``:``, ``async`` and ``function`` (stop 44's miss 3): blanks, any non-ASCII byte
# (Unicode spaces and line ends are several), a block comment (unambiguous, linear), a line comment (its end is a
# blank); RE2 is an automaton, linear whatever the pattern
_GAP = rb"(?:[ \t\n\r\f\v\x80-\xff]|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/|//[^\n\r]*)"


def _suspects_set() -> Callable[[bytes], Sequence[int] | None] | None:
    r"""The bound ``Match`` of the RE2 set of the four patterns and the sentinel (Latin-1, as _ANY_TEXT_HIT's):
    the C method itself where google-re2's wrapper keeps it (``_set``; a Python frame less a script), else the
    wrapper's (``None`` for none)."""
    if re2 is None:
        return None
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False  # a bail-out is told by the missing sentinel, not on stderr
    found = re2.Set.SearchSet(options)
    words = b"|".join(re.escape(word) for word in _ALL_WORDS)
    patterns = (
        rb"\\(?:[1-9xu]|0[0-9])|"
        + words
        + rb"|[\n\r\xa8\xa9][ \t\f\v]*=>|\*/[ \t\n\r\f\v]*=>|async[ \t\f\v]*[\n\r\xe2/]",
        rb"(?:await|let)[ \t\n\r\v\f\x80-\xff]*[(/`?]|\?\.[\x00-\xff]*`|`[\x00-\xff]*\?\.",
        rb":" + _GAP + rb"*(?:async" + _GAP + rb"+)?(?:function|class)",
        rb"use strict",
        rb"\z",  # DECIDED: matches every text (at its end), as analysis.jsonl.pattern_set's sentinel
    )
    for index, pattern in enumerate(patterns):
        if found.Add(pattern) != index:  # pragma: no cover - the set numbers its patterns in order
            return None
    found.Compile()
    inner = getattr(found, "_set", None)
    match: Callable[[bytes], Sequence[int] | None] = getattr(inner, "Match", None) or found.Match
    return match


def _every_suspect(data: bytes) -> Sequence[int]:
    return _EVERY_SUSPECT  # without RE2: every reader is asked, as before stop 44


# the set's raw answer (a list of pattern numbers; None or no DECIDED when it could not tell): its own C method where
# google-re2 has it, called directly, as a Python frame around it costs a tenth of its pass; read by text_suspects
_match_suspects: Callable[[bytes], Sequence[int] | None] = _suspects_set() or _every_suspect


def text_suspects(data: bytes) -> Sequence[int]:
    """Which of TEXT_TRIGGER, CALLED, LABELLED and STRICT may be in a script's bytes (with DECIDED among them when
    the set answered).  An RE2 set that runs out of its automaton's memory answers no match at all, where a single
    search would fall back to a slower engine (the review of stop 44): a result without the sentinel, which matches
    every text, is no answer, and every reader is asked, as without RE2."""
    found = _match_suspects(data)
    if not found or DECIDED not in found:
        return _EVERY_SUSPECT
    return found


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
_NAME_BYTE = lazy(rb"[\w$\\]")
_OCTAL_ESCAPE = lazy(rb"\\[0-7]+")
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


def _text_hit(script: ExecScript) -> bool:
    if _ANY_TEXT_HIT is not None and _ANY_TEXT_HIT.search(script.data) is None:
        return False
    return placed_text_hit(script)


def placed_text_hit(script: ExecScript) -> bool:
    """_text_hit without its first search: for a script whose text :func:`text_suspects` says holds a trigger."""
    data, root = script.data, script.root
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
