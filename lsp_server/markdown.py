"""Markdown from transcript text that cannot inject links, images or HTML.

Text outside code blocks has every Markdown and HTML metacharacter escaped;
code blocks use a fence longer than any backtick run inside them.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&:\"'=$])")
_BACKTICKS = re.compile(r"`+")


def escape(text: str) -> str:
    """Plain text as Markdown that renders as the same characters and nothing else."""
    text = text.replace("\r", "")
    return _SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def code_block(text: str, language: str = "") -> str:
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def inline_code(text: str) -> str:
    text = text.replace("\n", " ")
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def first_lines(text: str, limit: int) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) <= limit:
        return text
    return "\n".join(lines[:limit]) + f"\n… ({len(lines) - limit} more lines)"
