"""Splitting a document into lines exactly as LSP and VS Code do.

Only ``\\r\\n``, ``\\r`` and ``\\n`` end a line.  ``str.splitlines`` also breaks at
U+2028, U+2029, U+0085 and a few control characters, which JSON (and Codex)
write raw inside strings, so it must never be used on a rollout.
"""

from __future__ import annotations

import re

BOM = "\ufeff"
_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their terminators; a final terminator yields a last empty line."""
    if "\r" not in text:
        return text.split("\n")
    return _BREAK.split(text)


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark."""
    return text[1:] if text.startswith(BOM) else text
