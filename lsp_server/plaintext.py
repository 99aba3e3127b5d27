"""Plain text from the server's own Markdown, for a client that shows only ``plaintext`` (eldoc, ALE).

The Markdown comes from ``markdown.py``: escaped text, ``**bold**`` heads, inline code, links to lines and
fenced code blocks.  Plain text keeps the characters a reader sees rendered: escapes, ``**`` and the
backticks of inline code go, a link keeps its text, and a code block becomes its lines indented by four
spaces (no fence, so no language a client may not know)."""

from __future__ import annotations

from analysis.jsonl.lazy_pattern import lazy

_FENCE = lazy(r"^(`{3,})[\w+-]*$")
_ESCAPED = lazy(r"\\([\\`*_{}\[\]()#+\-.!|<>~&:\"'=$])")
_LINK = lazy(r"\[((?:[^\]\\]|\\.)*)\]\([^)\s]*\)")
_BOLD = lazy(r"(?<!\\)\*\*")
_CODE = lazy(r"(?<!\\)(`+)(.*?)(?<!`)\1(?!`)")


def plain_text(markdown: str) -> str:
    """``markdown`` as plain text (see the module's docstring)."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        if fence is not None:
            if line == fence:
                fence = None
            else:
                out.append("    " + line if line else "")
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            continue
        out.append(_inline(line.removesuffix("  ")))
    return "\n".join(out)


def _inline(line: str) -> str:
    # inline code first: its content is literal (no escapes inside)
    pieces: list[str] = []
    start = 0
    for match in _CODE.finditer(line):
        pieces.append(_text(line[start : match.start()]))
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        pieces.append(code)
        start = match.end()
    pieces.append(_text(line[start:]))
    return "".join(pieces)


def _text(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _BOLD.sub("", text)
    return _ESCAPED.sub(r"\1", text)
