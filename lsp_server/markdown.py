"""Markdown from transcript text that cannot inject links, images or HTML.

Text outside code blocks has every Markdown and HTML metacharacter escaped;
code blocks use a fence longer than any backtick run inside them.  A block of plain output (a command's
output, a message) has a bare fence: a fence naming ``text`` makes vim-lsp look for ``syntax/text.vim``, which
Vim does not have.  The languages the server names are ones VS Code and Vim both highlight: ``sh``,
``diff``, ``json`` and ``javascript`` (Vim has no ``syntax/js.vim``).

:func:`client_markup` reads which format a client shows (``contentFormat``); :func:`for_client` turns the
server's Markdown into what that client reads (plain text: :mod:`lsp_server.plaintext`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from analysis.jsonl.lazy_pattern import lazy

from .plaintext import plain_text

_SPECIAL = lazy(r"([\\`*_{}\[\]()#+\-.!|<>~&:\"'=$])")
_BACKTICKS = lazy(r"`+")


def escape(text: str) -> str:
    """Plain text as Markdown that renders as the same characters and nothing else."""
    text = text.replace("\r", "")
    return _SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def code_block(text: str, language: str = "") -> str:
    """``text`` fenced; ``language`` "" (or "text", which no fence names) for plain output."""
    language = "" if language == "text" else language
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


def client_markup(formats: Sequence[types.MarkupKind] | None) -> types.MarkupKind:
    """Markdown unless the client lists the formats it shows and Markdown is not among them."""
    return (
        types.MarkupKind.PlainText
        if formats and types.MarkupKind.Markdown not in formats
        else types.MarkupKind.Markdown
    )


def hover_markup(capabilities: types.ClientCapabilities) -> types.MarkupKind:
    """The format of the client's hovers, from ``textDocument.hover.contentFormat``."""
    hover = capabilities.text_document.hover if capabilities.text_document else None
    return client_markup(hover.content_format if hover else None)


def for_client(markdown: str, markup: types.MarkupKind) -> types.MarkupContent:
    """The server's Markdown as the client reads it: as it is, or made plain."""
    return types.MarkupContent(markup, markdown if markup == types.MarkupKind.Markdown else plain_text(markdown))
