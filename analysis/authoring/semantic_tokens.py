"""Colour inside the string: the tokens of an exec script and of a patch, at columns of the rollout line.

A rollout line shows a script as one JSON string, so an editor colours it as one
string.  These tokens say what each piece is: the JavaScript grammar's own
highlight query (shipped with tree-sitter-javascript) names keywords, strings,
numbers, comments, regular expressions, functions, variables and operators; the
call analysis adds the ``tools.*`` calls themselves (``tools`` a namespace, the
tool a default-library function); the lines of a patch, in an ``apply_patch``
literal or a top-level ``apply_patch`` record, are headers, hunks, added and
removed lines.  Offsets go through the script's JSON escapes (``EscapeMap``), so
a token covers exactly the raw characters of its text in the line.
"""

from __future__ import annotations

import json
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass

import tree_sitter_javascript
from tree_sitter import Node, Query, QueryCursor

from ..jsonl.jsonspans import locate, string_content
from ..jsonl.positions import EscapeMap
from ..script.calls import HELPERS, ToolSite, tool_sites
from ..script.script import JAVASCRIPT, MAX_DEPTH, ExecScript
from ..session.record_analysis import LineAnalysis

# The legend: standard LSP token types first, then the patch types (VS Code maps them to diff scopes).
TOKEN_TYPES = (
    "keyword",
    "string",
    "number",
    "comment",
    "regexp",
    "function",
    "method",
    "variable",
    "property",
    "class",
    "operator",
    "namespace",
    "patchHeader",
    "patchHunk",
    "patchAdded",
    "patchRemoved",
)
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")


# py-tree-sitter 0.26.1 corrupts the heap when it frees a Query in which a pattern has a text predicate (``#eq?``,
# ``#match?``) followed by a property one (``#is-not?``, ``#is?``, ``#set!``): the grammar's
# ``((identifier) @function.builtin (#eq? … "require") (#is-not? local))`` is one.  The server's semantic-token
# requests run on several threads at once, and each of them that found no query yet compiled one (``functools.cache``
# does not lock), the losers freed: language servers of the real-VS Code tests died of a fault in CPython's
# allocator (docs/reliability.md, "Crashes in native code").  The property predicates are taken out (py-tree-sitter
# only reports them, ``Query.pattern_assertions``: no match depends on them) and the queries are compiled once.
_PROPERTY_PREDICATE = re.compile(r"\(#(?:is\?|is-not\?|set!)[^()\"]*\)")
TOOL_MEMBERS_SOURCE = """
(member_expression object: (identifier) @tools property: (property_identifier) @tool (#eq? @tools "tools"))
"""
_QUERIES: list[tuple[Query, Query]] = []
_QUERIES_LOCK = threading.Lock()


def highlights_source() -> str:
    """The grammar's highlight query without its property predicates, plus the punctuation it leaves out (which
    would otherwise keep the string's colour); read when first needed (the grammar reads its file on access)."""
    return _PROPERTY_PREDICATE.sub("", tree_sitter_javascript.HIGHLIGHTS_QUERY) + '\n[":" "?" "..."] @operator\n'


def _queries() -> tuple[Query, Query]:
    """The highlights and the ``tools.NAME`` members: compiled on the first tokens asked for, not when the server
    starts, by one thread while the others wait (see above)."""
    if not _QUERIES:
        with _QUERIES_LOCK:
            if not _QUERIES:
                _QUERIES.append((Query(JAVASCRIPT, highlights_source()), Query(JAVASCRIPT, TOOL_MEMBERS_SOURCE)))
    return _QUERIES[0]


# capture name of the grammar's query -> (token type, modifiers); None punches a hole (text inside ``${…}``
# that no other capture names keeps the editor's own colour, not the template's)
_CAPTURES: dict[str, tuple[str, tuple[str, ...]] | None] = {
    "variable": ("variable", ()),
    "variable.builtin": ("keyword", ()),
    "property": ("property", ()),
    "function": ("function", ("declaration",)),
    "function.method": ("method", ()),
    "function.builtin": ("function", ("defaultLibrary",)),
    "constructor": ("class", ()),
    "constant": ("variable", ("readonly",)),
    "constant.builtin": ("keyword", ()),
    "comment": ("comment", ()),
    "string": ("string", ()),
    "string.special": ("regexp", ()),
    "number": ("number", ()),
    "operator": ("operator", ()),
    "punctuation.delimiter": ("operator", ()),
    "punctuation.bracket": ("operator", ()),
    "punctuation.special": ("operator", ()),
    "keyword": ("keyword", ()),
    "embedded": None,
}
_CALL_FUNCTION = "function"  # a call of a plain identifier: the grammar says @function, not a declaration
_OVERLAY = 1 << 20  # the call analysis wins over the grammar's query on the same characters
_PATCH = 1 << 19
_Kind = tuple[str, tuple[str, ...]]  # a legend type and its modifiers
_Span = tuple[int, int, int, _Kind | None]  # start, end, priority, kind (None: no colour)


@dataclass(frozen=True, slots=True)
class Token:
    """One coloured piece of a line: columns ``start`` to ``end`` (code points), a legend type, modifiers."""

    start: int
    end: int
    type: str
    modifiers: tuple[str, ...] = ()


def line_tokens(line: str, record: LineAnalysis) -> list[Token]:
    """The tokens of one analysed line, sorted and never overlapping (empty for lines with nothing to colour)."""
    if record.is_exec and record.script is not None and record.script_map is not None:
        return _mapped(script_tokens(record.script), record.script_map)
    if record.kind == "custom_tool_call" and record.name == "apply_patch" and record.text is not None:
        found = locate(line, [("payload", "input")]).get(("payload", "input"))
        if found is not None and line[found[0]] == '"':
            raw_start, raw = string_content(line, found)
            return _mapped(patch_tokens(record.text), EscapeMap(raw, raw_start))
    if record.kind == "function_call" and record.name == "apply_patch" and record.text is not None:
        return _argument_patch_tokens(line, record.text)
    return []


def script_tokens(source: str) -> list[Token]:
    """The tokens of a script, at code-point offsets of the script."""
    script = ExecScript(source)
    spans: list[_Span] = []  # start, end (bytes), priority, kind
    cursor = QueryCursor(_queries()[0])
    cursor.set_max_start_depth(MAX_DEPTH)
    for pattern, captures in cursor.matches(script.root):
        for name, nodes in captures.items():
            if name not in _CAPTURES:
                continue
            kind = _CAPTURES[name]
            for node in nodes:
                if name == "function" and _is_called(node):
                    kind = (_CALL_FUNCTION, ())
                spans.append((node.start_byte, node.end_byte, pattern, kind))
    spans = _outside_regexes(spans)
    # ``tools.x`` names a tool even where the call is not complete yet (while it is being typed)
    members = QueryCursor(_queries()[1])
    members.set_max_start_depth(MAX_DEPTH)
    for _, captures in members.matches(script.root):
        obj, prop = captures["tools"][0], captures["tool"][0]
        if script.resolve(obj) is None:
            spans.append((obj.start_byte, obj.end_byte, _OVERLAY, ("namespace", ())))
            spans.append((prop.start_byte, prop.end_byte, _OVERLAY, ("function", ("defaultLibrary",))))
    for _, callee in script.call_sites():  # text(), store(), notify()…: the code-mode runtime's own functions
        if callee.type == "identifier" and script.name_of(callee) in HELPERS and script.resolve(callee) is None:
            spans.append((callee.start_byte, callee.end_byte, _OVERLAY, ("function", ("defaultLibrary",))))
    patches: list[_Span] = []
    for site in tool_sites(script):
        spans.extend(_tool_spans(site))
        if site.patch_literal is not None:
            patches.extend(_literal_patch_spans(script, site.patch_literal))
    return _flatten(_in_characters(script, spans) + patches)


def _in_characters(script: ExecScript, spans: list[_Span]) -> list[_Span]:
    """Byte spans as code-point spans, converting every offset in one pass over the text (a script's own
    ``span`` searches per offset, too slow for thousands of tokens in a non-ASCII script)."""
    if script.source.isascii():
        return spans
    data = script.data
    chars: dict[int, int] = {}
    count = previous = 0
    for offset in sorted({b for a, c, _, _ in spans for b in (a, c)}):
        count += len(data[previous:offset].decode("utf-8", "replace"))
        chars[offset] = count
        previous = offset
    return [(chars[a], chars[c], priority, kind) for a, c, priority, kind in spans]


def _outside_regexes(spans: list[_Span]) -> list[_Span]:
    """Drops the grammar's operator captures of a regex's own ``/`` delimiters: the regex is one token."""
    regexes = sorted((a, b) for a, b, _, kind in spans if kind is not None and kind[0] == "regexp")
    if not regexes:
        return spans
    starts = [a for a, _ in regexes]
    kept = []
    for span in spans:
        a, b, _, kind = span
        if kind is not None and kind[0] == "operator":
            k = bisect_right(starts, a) - 1
            if k >= 0 and regexes[k][0] <= a and b <= regexes[k][1]:
                continue
        kept.append(span)
    return kept


def patch_tokens(text: str) -> list[Token]:
    """The tokens of a patch text, at offsets of the text."""
    return _flatten([(a, b, _PATCH, (kind, ())) for a, b, kind in _patch_lines(text, 0)])


def _is_called(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node


def _tool_spans(site: ToolSite) -> list[_Span]:
    callee = site.callee
    while callee.type == "parenthesized_expression" and callee.named_children:
        callee = callee.named_children[0]
    tool: _Kind = ("function", ("defaultLibrary",))
    if callee.type == "identifier":
        return [(callee.start_byte, callee.end_byte, _OVERLAY, tool)]
    out: list[_Span] = []
    obj = callee.child_by_field_name("object")
    if obj is not None and obj.type == "identifier":
        out.append((obj.start_byte, obj.end_byte, _OVERLAY, ("namespace", ())))
    prop = callee.child_by_field_name("property")
    if callee.type == "member_expression" and prop is not None:
        out.append((prop.start_byte, prop.end_byte, _OVERLAY, tool))
    return out


def _literal_patch_spans(script: ExecScript, literal: Node) -> list[_Span]:
    """Patch lines inside a JS string or template literal: lines end at raw line breaks and ``\\n`` escapes."""
    text = script.source
    start, end = script.span(literal)
    holes = [script.span(c) for c in literal.named_children if c.type == "template_substitution"]
    out: list[_Span] = []
    for a, b, kind in _patch_lines(text[start + 1 : end - 1], start + 1, js_escapes=True):
        pieces = [(a, b)]
        for ha, hb in holes:  # a substitution keeps its own JavaScript colours
            pieces = [p for x, y in pieces for p in ((x, min(y, ha)), (max(x, hb), y)) if p[0] < p[1]]
        out.extend((x, y, _PATCH, (kind, ())) for x, y in pieces)
    return out


def _patch_lines(text: str, offset: int, js_escapes: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, type) of each patch line that gets a colour; offsets are ``offset`` plus the text's."""
    out = []
    for start, end in _lines(text, js_escapes):
        line = text[start:end]
        kind = _patch_kind(line)
        if kind is not None and end > start:
            out.append((offset + start, offset + end, kind))
    return out


def _patch_kind(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith("***"):
        return "patchHeader"
    if line.startswith("@@"):
        return "patchHunk"
    if line.startswith("+"):
        return "patchAdded"
    if line.startswith("-"):
        return "patchRemoved"
    return None


def _lines(text: str, js_escapes: bool) -> list[tuple[int, int]]:
    """Line spans of a patch text; in JS literal source a ``\\n`` escape ends a line too."""
    spans = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and js_escapes and i + 1 < n:
            if text[i + 1] == "n":
                spans.append((start, i))
                i += 2
                start = i
                continue
            i += 2
            continue
        if c in "\r\n":
            spans.append((start, i))
            i += 2 if text.startswith("\r\n", i) else 1
            start = i
            continue
        i += 1
    spans.append((start, n))
    return spans


def _argument_patch_tokens(line: str, arguments: str) -> list[Token]:
    """A top-level ``apply_patch`` function call: the patch is JSON inside the JSON string ``arguments``."""
    found = locate(line, [("payload", "arguments")]).get(("payload", "arguments"))
    if found is None or line[found[0]] != '"':
        return []
    try:
        inner = locate(arguments, [("input",)]).get(("input",))
        if inner is None or arguments[inner[0]] != '"':
            return []
        patch = json.loads(arguments[inner[0] : inner[1]])
    except ValueError:
        return []
    raw_start, raw = string_content(line, found)
    outer = EscapeMap(raw, raw_start)
    inner_start, inner_raw = string_content(arguments, inner)
    nested = EscapeMap(inner_raw, inner_start)
    tokens = patch_tokens(patch)
    return [
        Token(outer.start(nested.start(t.start)), outer.end(nested.end(t.end)), t.type, t.modifiers) for t in tokens
    ]


def _mapped(tokens: list[Token], escapes: EscapeMap) -> list[Token]:
    return [Token(escapes.start(t.start), escapes.end(t.end), t.type, t.modifiers) for t in tokens]


def _flatten(spans: list[_Span]) -> list[Token]:
    """Nested, overlapping captures as one sequence of tokens: an inner span wins over the span around it,
    and of spans on the same characters the later pattern (or the call analysis) wins."""
    best: dict[tuple[int, int], tuple[int, _Kind | None]] = {}
    for start, end, priority, kind in spans:
        if end <= start:
            continue
        held = best.get((start, end))
        if held is None or priority >= held[0]:
            best[(start, end)] = (priority, kind)
    ordered = sorted(best.items(), key=lambda item: (item[0][0], -item[0][1]))
    out: list[Token] = []
    stack: list[tuple[int, _Kind | None]] = []  # (end, kind) of the spans around the current position
    at = 0

    def emit(a: int, b: int, kind: _Kind | None) -> None:
        if a < b and kind is not None:
            out.append(Token(a, b, kind[0], kind[1]))

    for (start, end), (_, kind) in ordered:
        while stack and stack[-1][0] <= start:
            top_end, top_kind = stack.pop()
            emit(at, top_end, top_kind)
            at = max(at, top_end)
        if stack:
            emit(at, start, stack[-1][1])
            end = min(end, stack[-1][0])  # partial overlaps do not happen in a tree; clamp if they do
        at = max(at, start)
        if end > at:
            stack.append((end, kind))
    while stack:
        top_end, top_kind = stack.pop()
        emit(at, top_end, top_kind)
        at = max(at, top_end)
    return out


__all__ = ["TOKEN_MODIFIERS", "TOKEN_TYPES", "Token", "line_tokens", "patch_tokens", "script_tokens"]
