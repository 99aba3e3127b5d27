"""Names the client shows as they are (Outline rows, workspace symbols, lens titles) made safe as the CLI's
text is (:mod:`analysis.jsonl.display`): on one line (a line break as ``⏎``), at most :data:`SYMBOL_LIMIT`
characters (:data:`TITLE_LIMIT` for a lens's title; ``…`` and how many were cut past it), control characters as ``\\x1b``-style escapes and invisible
format characters (bidirectional overrides, zero-width characters, tag characters) as ``\\u202e``-style
escapes, so that a row cannot show a command or a path in an order other than the one it has.  A detail
is escaped the same way, and not cut (editors cut it to their width)."""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from analysis.jsonl.display import for_people, shown

# a row's name: its mark and its label (a call's label is cut at 120 where it is made: labels.LABEL_LIMIT), a
# path or a request; a lens's title: counts and statuses, a session's usage
SYMBOL_LIMIT = 200
TITLE_LIMIT = 200


# The only characters :func:`~analysis.jsonl.display.for_people` escapes that ``str.isprintable`` passes: the
# Hangul fillers (letters that show as nothing).  tests/server/test_names_42.py checks every code point.
_PRINTABLE_HIDDEN = ("\u115f", "\u1160", "\u3164", "\uffa0")


def _as_is(text: str) -> bool:
    """Whether ``text`` is shown as it is: no line break, nothing invisible or controlling.  Most rows and
    details have a ``·`` or another non-ASCII letter; this spares them ``for_people``'s search (10 µs each,
    thousands on a large rollout's open)."""
    return text.isprintable() and (text.isascii() or not any(c in text for c in _PRINTABLE_HIDDEN))


def safe_name(text: str, limit: int = SYMBOL_LIMIT) -> str:
    """``text`` on one line of at most ``limit`` characters, with nothing in it invisible or controlling."""
    if len(text) <= limit and _as_is(text):
        return text  # the common case, at no cost
    return for_people(shown(text, limit))


def _safe_detail(text: str | None) -> str | None:
    if text is None or _as_is(text):
        return text
    return for_people(text.replace("\r", "").replace("\n", "⏎ "))


def safe_symbols(symbols: Iterable[object]) -> None:
    """Makes the names and details of document symbols safe, children included, in place (anything that is
    not a :class:`~lsprotocol.types.DocumentSymbol`, such as an outline fragment already encoded, is left)."""
    for symbol in symbols:
        if not isinstance(symbol, types.DocumentSymbol):
            continue
        symbol.name = safe_name(symbol.name)
        symbol.detail = _safe_detail(symbol.detail)
        if symbol.children:
            safe_symbols(symbol.children)


def safe_workspace_symbols(symbols: list[types.WorkspaceSymbol]) -> list[types.WorkspaceSymbol]:
    """Workspace symbols with safe names and containers, in place."""
    for symbol in symbols:
        symbol.name = safe_name(symbol.name)
        if symbol.container_name is not None:
            symbol.container_name = safe_name(symbol.container_name)
    return symbols


def safe_lenses(lenses: list[types.CodeLens]) -> list[types.CodeLens]:
    """Code lenses with safe titles, in place."""
    for lens in lenses:
        if lens.command is not None:
            lens.command.title = safe_name(lens.command.title, TITLE_LIMIT)
    return lenses


__all__ = ["SYMBOL_LIMIT", "TITLE_LIMIT", "safe_lenses", "safe_name", "safe_symbols", "safe_workspace_symbols"]
