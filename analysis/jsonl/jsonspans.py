"""Where a JSON value sits in its line.

``json.loads`` gives values without positions; this finds the raw character span
of the values at a few known paths (``("payload", "input")``, or with ``"*"``
for any array index) so that ranges point at the exact characters.  Strings are
skipped with the standard library's C ``scanstring``; only containers on the way
to a wanted path are entered.  It is only called on lines ``json.loads`` accepted.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from functools import lru_cache
from json.decoder import scanstring  # type: ignore[attr-defined]  # typeshed omits it (the C one, as json uses)
from typing import Union

Path = tuple[str | int, ...]  # keys and array indexes; "*" in a pattern: any index
# what is wanted below a value: a trie of path parts, _LEAF where a wanted value is
_Trie = dict[str | int, Union["_Trie", "_Leaf"]]
_WS = re.compile(r"[ \t\n\r]*")
_SPACE = frozenset(" \t\n\r")
# a key without escapes or control characters, then the colon: what scanstring, _ws, one character and _ws read
_PLAIN_KEY = re.compile(r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*')
_W = "[ \\t\\n\\r]*"
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


class _Leaf(enum.Enum):
    LEAF = enum.auto()


_LEAF = _Leaf.LEAF


def locate(line: str, patterns: Sequence[Path]) -> dict[Path, tuple[int, int]]:
    """Spans ``(start, end)`` of the values at ``patterns``; a string's span includes its quotes."""
    trie: _Trie = {}
    for pattern in patterns:
        node = trie
        for part in pattern[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[pattern[-1]] = _LEAF
    found: dict[Path, tuple[int, int]] = {}
    try:
        _value(line, _ws(line, 0), (), trie, found)
    except (ValueError, IndexError):
        pass  # a line that is not JSON has no value spans
    return found


def string_content(line: str, span: tuple[int, int]) -> tuple[int, str]:
    """The column after the opening quote and the raw text between the quotes."""
    return span[0] + 1, line[span[0] + 1 : span[1] - 1]


def _ws(line: str, i: int) -> int:
    if i < len(line) and line[i] not in " \t\n\r":  # compact JSON: the usual case, no regex
        return i
    return _WS.match(line, i).end()  # type: ignore[union-attr]  # "[ \t\n\r]*" always matches


def _value(line: str, i: int, path: Path, trie: _Trie | _Leaf, found: dict[Path, tuple[int, int]]) -> int:
    """Reads the value at ``i``; ``trie`` holds what is wanted below it (``_LEAF``: this value)."""
    if trie is _LEAF:
        end = _skip(line, i)
        found[path] = (i, end)
        return end
    c = line[i]
    if c == "{":
        return _object(line, i, path, trie, found)
    if c == "[":
        return _array(line, i, path, trie, found)
    return _skip(line, i)


def _object(line: str, i: int, path: Path, trie: _Trie, found: dict[Path, tuple[int, int]]) -> int:
    # _ws inlined and a plain key read with its colon in one match: two thirds of a line's walk (issue 25)
    i += 1
    if line[i] in _SPACE:
        i = _WS.match(line, i).end()  # type: ignore[union-attr]  # "[ \t\n\r]*" always matches
    if line[i] == "}":
        return i + 1
    get = trie.get
    skip = None if "*" in trie else _skipper(tuple(k for k in trie if isinstance(k, str)))
    while True:
        if skip is not None:  # the plain members no path wants, in one match (stop 38)
            i = skip.match(line, i).end()  # type: ignore[union-attr]  # a repetition: always matches
        m = _PLAIN_KEY.match(line, i)
        if m is not None:  # the key as written is the key: no escape, no control character
            key, i = m.group(1), m.end()
        else:
            key, i = scanstring(line, i + 1)
            i = _ws(line, i)
            i = _ws(line, i + 1)  # past ':'
        child = get(key)
        if child is None:
            child = get("*")
        if child is not None:
            i = _value(line, i, path + (key,), child, found)
        elif line[i] == '"':
            i = scanstring(line, i + 1)[1]
        else:
            i = _skip(line, i)
        if line[i] in _SPACE:
            i = _WS.match(line, i).end()  # type: ignore[union-attr]  # "[ \t\n\r]*" always matches
        if line[i] == "}":
            return i + 1
        i += 1  # past ','
        if line[i] in _SPACE:
            i = _WS.match(line, i).end()  # type: ignore[union-attr]  # "[ \t\n\r]*" always matches


@lru_cache(maxsize=256)
def _skipper(wanted: tuple[str, ...]) -> re.Pattern[str]:
    """Skips, in one match, the members of an object that no wanted key names and that hold a plain scalar: a key
    without escapes (as written, what it means), a string without escapes or a number, true, false or null, then
    the comma and the whitespace after it.  It stops at the first other member (a wanted key, an escape, a
    container, the last member), which the loop of :func:`_object` reads as before."""
    not_wanted = "".join(f'(?!{re.escape(key)}")' for key in wanted)
    return re.compile(
        f'(?:"{not_wanted}[^"\\\\\\x00-\\x1f]*"{_W}:{_W}(?:"[^"\\\\\\x00-\\x1f]*"|{_SCALAR.pattern}){_W},{_W})*'
    )


def _array(line: str, i: int, path: Path, trie: _Trie, found: dict[Path, tuple[int, int]]) -> int:
    i = _ws(line, i + 1)
    if line[i] == "]":
        return i + 1
    index = 0
    while True:
        child = trie.get(index, trie.get("*"))
        i = _ws(line, _skip(line, i) if child is None else _value(line, i, path + (index,), child, found))
        index += 1
        if line[i] == "]":
            return i + 1
        i = _ws(line, i + 1)


def _skip(line: str, i: int) -> int:
    """The end of the value starting at ``i``, without recursion (nesting may be deep)."""
    depth = 0
    while True:
        i = _ws(line, i)
        c = line[i]
        if c == '"':
            i = scanstring(line, i + 1)[1]
        elif c in "{[":
            depth += 1
            i += 1
            continue
        elif c in "}]":
            depth -= 1
            i += 1
        elif c in ",:":
            i += 1
            continue
        else:
            m = _SCALAR.match(line, i)
            if m is None:
                raise ValueError(f"unexpected {c!r} at {i}")
            i = m.end()
        if depth == 0:
            return i
