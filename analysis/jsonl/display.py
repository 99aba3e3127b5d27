"""Text from a rollout made safe to show: lone surrogates, terminal control characters, invisible format
characters, and lengths.

A rollout may hold any string JSON can spell: a lone surrogate (``"\\ud83d"``, an emoji cut in half by a tool
that truncated its output) cannot be encoded as UTF-8 at all, and an ESC, BEL, CR or BS written raw to a
terminal sets the window title, writes the clipboard (OSC 52), clears the screen or overwrites what was
printed.  A bidirectional override (U+202E, the isolates U+2066–U+2069: the "Trojan Source" trick) shows a
command or a file name in an order other than the one it has, and the other invisible format characters
(zero-width spaces and joiners, the tag characters U+E0020–U+E007F that spell hidden ASCII) hide what is
there.  Output meant for people (:func:`for_people`) shows a surrogate as U+FFFD, a control character as its
``\\xNN`` escape and a format character as its ``\\u202e`` / ``\\U000e0041`` escape; output meant for
programs (:func:`json_exact`) stays exact: a surrogate inside a JSON string becomes its ``\\uXXXX`` escape,
which decodes to the same string.  :func:`shown` puts a name, a request or a path on one line of bounded
length, saying how many characters it cut.
"""

from __future__ import annotations

import re

from .lazy_pattern import lazy

_SURROGATE = lazy("[\ud800-\udfff]")
# C0 controls but tab and line feed, DEL, and the C1 controls (0x9b is a one-character CSI on some terminals)
_CONTROLS = "".join(chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)))
# Invisible characters that change or hide what is shown: every format character (category Cf, Unicode 14 as
# Python 3.11 knows it; a literal, since building it from unicodedata costs a fifth of a second at start,
# and a test compares the two), the line and paragraph separators, and the Hangul fillers (letters that
# show as nothing, used to spoof names).  Zero-width joiners are escaped too: an emoji family shows as
# its parts joined by ``\\u200d``, a spoofed name cannot hide.
FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)  # fmt: skip
_INVISIBLE_RANGES = (*FORMAT_RANGES, (0x2028, 0x2029), (0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0))
_INVISIBLE = "".join(chr(c) for low, high in _INVISIBLE_RANGES for c in range(low, high + 1))
_UNSAFE = re.compile(f"[{re.escape(_CONTROLS)}{re.escape(_INVISIBLE)}\ud800-\udfff]")
_SHOWN = {ord(c): f"\\x{ord(c):02x}" for c in _CONTROLS} | {
    ord(c): f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in _INVISIBLE
}

NAME_LIMIT = 80  # a session id, a tool's name, a call id
TITLE_LIMIT = 100  # a thread name, a turn's request
PATH_LIMIT = 200  # a file's path, a parent's label
COMMAND_LIMIT = 160  # a command, as search prints it
MESSAGE_LIMIT = 400  # a finding's message, which may quote a name or a command (the longest on the corpus: 165)


def for_people(text: str) -> str:
    """``text`` for a terminal or a document: lone surrogates as U+FFFD, control characters (all but tab and
    line feed) as ``\\x1b``-style escapes, invisible format characters (bidirectional controls, zero-width
    characters, tag characters, line separators) as ``\\u202e``-style escapes."""
    if text.isascii() and text.isprintable():
        return text
    if not _UNSAFE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text).translate(_SHOWN)


def shown(text: str, limit: int) -> str:
    """``text`` on one line (a line break as ``⏎``) of at most ``limit`` characters, and, when it is longer,
    its first ``limit`` characters followed by ``…`` and how many were cut: ``fix the pa… (+182 chars)``.
    Escaping is :func:`for_people`'s (the CLI's output goes through it); this bounds the length only."""
    text = text.replace("\r", "").replace("\n", "⏎ ")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit:,} chars)"


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


__all__ = [
    "COMMAND_LIMIT",
    "MESSAGE_LIMIT",
    "NAME_LIMIT",
    "PATH_LIMIT",
    "TITLE_LIMIT",
    "for_people",
    "json_exact",
    "shown",
    "storable",
]
