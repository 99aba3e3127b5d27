"""Text from a rollout made safe to show: lone surrogates and terminal control characters.

A rollout may hold any string JSON can spell: a lone surrogate (``"\\ud83d"``, an emoji cut in half by a tool
that truncated its output) cannot be encoded as UTF-8 at all, and an ESC, BEL, CR or BS written raw to a
terminal sets the window title, writes the clipboard (OSC 52), clears the screen or overwrites what was
printed.  Output meant for people (:func:`for_people`) shows a surrogate as U+FFFD and a control character
as its ``\\xNN`` escape; output meant for programs (:func:`json_exact`) stays exact: a surrogate inside a JSON
string becomes its ``\\uXXXX`` escape, which decodes to the same string.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls but tab and line feed, DEL, and the C1 controls (0x9b is a one-character CSI on some terminals)
_CONTROLS = "".join(chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)))
_UNSAFE = re.compile(f"[{re.escape(_CONTROLS)}\ud800-\udfff]")
_SHOWN = {ord(c): f"\\x{ord(c):02x}" for c in _CONTROLS}


def for_people(text: str) -> str:
    """``text`` for a terminal or a document: lone surrogates as U+FFFD, control characters (all but tab and
    line feed) as ``\\x1b``-style escapes."""
    if text.isascii() and text.isprintable():
        return text
    if not _UNSAFE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text).translate(_SHOWN)


def json_exact(text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with each lone surrogate as its
    ``\\uXXXX`` escape: encodable as UTF-8, and decoding to the same value."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def storable(text: str) -> str:
    """``text`` as UTF-8 can hold it (SQLite, a file): lone surrogates as U+FFFD, one character for one."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


__all__ = ["for_people", "json_exact", "storable"]
