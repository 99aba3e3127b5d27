"""Writing an edited exec script back into its record, escaped the way the line already escapes.

A rollout line holds the script as one JSON string (``payload.input``).  Writers
differ in how they escape it: serde_json writes non-ASCII and U+2028 raw,
``json.dumps`` escapes every non-ASCII character as ``\\uXXXX``, Go escapes
``<``, ``>`` and ``&``, some write ``\\/`` or upper-case hex.  :class:`EscapeStyle`
reads the style off the original string; :func:`script_edit` returns the one edit
that turns the old string into the new script: only the characters that changed
are rewritten (an unchanged stretch keeps its original raw text, whatever it was)
and the new ones are escaped as the line escapes them, so the JSON never breaks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..jsonl.jsonspans import locate, string_content
from ..jsonl.lazy_pattern import lazy
from ..jsonl.positions import EscapeMap

INPUT = ("payload", "input")
_SHORT = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
_ESCAPE = lazy(r"\\(?:u([0-9a-fA-F]{4})|(.))", re.DOTALL)
# differences in longer texts are found by trimming the common ends only: SequenceMatcher is quadratic
_DIFF_LIMIT = 20_000


@dataclass(frozen=True, slots=True)
class StringEdit:
    """Replace columns ``start`` to ``end`` (code points of the line) by ``text``."""

    start: int
    end: int
    text: str

    @property
    def is_empty(self) -> bool:
        return self.start == self.end and not self.text

    def apply(self, line: str) -> str:
        return line[: self.start] + self.text + line[self.end :]


@dataclass
class EscapeStyle:
    """How one JSON string escapes its characters, read from its raw text.

    ``written`` remembers, for every character the original escaped, the escape it used (the first
    one, when a writer was inconsistent); characters it wrote raw stay raw.  A character the original
    never had follows the writer's evident habits: ``\\u`` escapes for all non-ASCII (``json.dumps``),
    upper- or lower-case hex, ``\\/``, short (``\\n``) or long (``\\u000a``) control escapes.
    """

    written: dict[str, str] = field(default_factory=dict)
    raw: set[str] = field(default_factory=set)
    escape_non_ascii: bool = False
    upper_hex: bool = False
    long_controls: bool = False
    escape_slash: bool = False

    @classmethod
    def of(cls, raw: str) -> EscapeStyle:
        style = cls()
        escaped_non_ascii = raw_non_ascii = lower = upper = short_controls = long_controls = 0
        at = 0
        previous: tuple[int, str, int] | None = None  # the end, character and start of a high surrogate escape
        for m in _ESCAPE.finditer(raw):
            for c in raw[at : m.start()]:
                if c not in style.raw:
                    style.raw.add(c)
                    raw_non_ascii += not c.isascii()
            at = m.end()
            hex_digits, single = m.groups()
            if hex_digits is None:
                previous = None
                char = json.loads(f'"\\{single}"')
                short_controls += char < " "
                style.written.setdefault(char, m.group())
                continue
            char = chr(int(hex_digits, 16))
            if "\udc00" <= char <= "\udfff" and previous is not None and previous[0] == m.start():
                high, text = previous[1], raw[previous[2] : m.end()]  # a pair: one astral character
                style.written.setdefault(chr(0x10000 + ((ord(high) - 0xD800) << 10) + ord(char) - 0xDC00), text)
            previous = (m.end(), char, m.start()) if "\ud800" <= char <= "\udbff" else None
            letters = [h for h in hex_digits if h.isalpha()]
            upper += any(h.isupper() for h in letters)
            lower += any(h.islower() for h in letters)
            long_controls += char < " " and char in _SHORT
            escaped_non_ascii += not char.isascii()
            style.written.setdefault(char, m.group())
        for c in raw[at:]:
            if c not in style.raw:
                style.raw.add(c)
                raw_non_ascii += not c.isascii()
        style.escape_non_ascii = escaped_non_ascii > 0 and raw_non_ascii == 0
        style.upper_hex = upper > 0 and lower == 0
        style.long_controls = long_controls > 0 and short_controls == 0
        style.escape_slash = "/" in style.written and "/" not in style.raw
        return style

    def encode(self, text: str) -> str:
        """``text`` as the raw content of a JSON string in this style (without the quotes)."""
        out: list[str] = []
        written, raw = self.written, self.raw
        for c in text:
            known = written.get(c)
            if known is not None and c not in raw:
                out.append(known)
            elif c in raw and c not in _SHORT and c >= " " and not _is_surrogate(c):
                out.append(c)
            else:
                out.append(self._escape(c))
        return "".join(out)

    def _escape(self, c: str) -> str:
        if c in ('"', "\\"):
            return self.written.get(c, _SHORT[c])
        if c < " ":
            return self._unicode(c) if self.long_controls or c not in _SHORT else _SHORT[c]
        if c == "/" and self.escape_slash:
            return "\\/"
        if _is_surrogate(c):  # a lone surrogate cannot be written raw in UTF-8
            return self._unicode(c)
        if c in (
            "\u2028",
            "\u2029",
        ):  # line terminators to editors and old JavaScript: escaped unless the line had them raw
            return self._unicode(c)
        if not c.isascii() and self.escape_non_ascii:
            code = ord(c)
            if code > 0xFFFF:
                code -= 0x10000
                return self._unicode(chr(0xD800 + (code >> 10))) + self._unicode(chr(0xDC00 + (code & 0x3FF)))
            return self._unicode(c)
        return c

    def _unicode(self, c: str) -> str:
        digits = f"{ord(c):04X}" if self.upper_hex else f"{ord(c):04x}"
        return "\\u" + digits


def _is_surrogate(c: str) -> bool:
    return "\ud800" <= c <= "\udfff"


def script_span(line: str) -> tuple[int, str] | None:
    """The column after the opening quote of ``payload.input`` and its raw text; None when there is none."""
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return None  # a broken line has no string to write into
    found = locate(line, [INPUT]).get(INPUT)
    if found is None or line[found[0]] != '"':
        return None
    return string_content(line, found)


def script_edit(line: str, new_script: str) -> StringEdit | None:
    """The edit of ``line`` whose ``payload.input`` becomes ``new_script``; None when the line has no such
    string.  It changes nothing outside the string's quotes; an unchanged script gives an empty edit."""
    found = script_span(line)
    if found is None:
        return None
    raw_start, raw = found
    return string_edit(raw_start, raw, new_script)


def string_edit(raw_start: int, raw: str, new_value: str) -> StringEdit:
    """The edit turning a JSON string's raw content (at column ``raw_start``) into one for ``new_value``."""
    old = json.loads(f'"{raw}"')
    escapes = EscapeMap(raw, raw_start)
    prefix = _common_prefix(old, new_value)
    suffix = _common_prefix(old[prefix:][::-1], new_value[prefix:][::-1])
    old_end, new_end = len(old) - suffix, len(new_value) - suffix
    start = escapes.start(prefix)
    end = escapes.end(old_end) if old_end > prefix else start
    if old_end == prefix and new_end == prefix:
        return StringEdit(start, start, "")
    style = EscapeStyle.of(raw)
    old_mid, new_mid = old[prefix:old_end], new_value[prefix:new_end]
    if len(old_mid) > _DIFF_LIMIT or len(new_mid) > _DIFF_LIMIT or not old_mid:
        return StringEdit(start, end, style.encode(new_mid))
    pieces: list[str] = []
    matcher = SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":  # unchanged characters keep the raw text they had
            a, b = escapes.start(prefix + i1), escapes.end(prefix + i2)
            pieces.append(raw[a - raw_start : b - raw_start])
        else:
            pieces.append(style.encode(new_mid[j1:j2]))
    return StringEdit(start, end, "".join(pieces))


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


__all__ = ["EscapeStyle", "StringEdit", "script_edit", "script_span", "string_edit"]
