"""The outline: session, turns, call records, and each record's tool calls."""

from __future__ import annotations

from typing import Callable

from lsprotocol import types

from analysis.calls import COMMAND, PATCH
from analysis.positions import PositionEncoding, Span
from analysis.rollout import LocatedCall, RolloutAnalysis

from ..convert import line_range, to_range
from pygls.protocol import default_converter

from .base import Feature, lsp_method
from .indexed_symbols import IndexedSymbols
from .common import summarize

_KINDS = {COMMAND: types.SymbolKind.Event, PATCH: types.SymbolKind.File, "tool": types.SymbolKind.Method}


def call_name(call, mask: Callable[[str], str] = str) -> str:
    """A one-line name for a tool call: its command, its patched files, or its tool, masked."""
    if call.kind == PATCH and call.files:
        text = "patch " + ", ".join(f.path + (f" → {f.move_to}" if f.move_to else "") for f in call.files)
    elif call.kind == COMMAND and call.command is None and call.computed:
        text = f"computed: {call.computed_expression or call.tool}"
    else:
        text = call.label
    text = " ".join(mask(text).split()) or (call.tool or "call")
    return text if len(text) <= 120 else text[:119] + "…"


class SymbolFeature(Feature):
    """The outline of a rollout, and the calls of every open rollout as workspace symbols.  Names show
    transcript text: secrets in them are masked."""

    def __init__(self, server) -> None:
        super().__init__(server)
        self.converter = default_converter()  # the outline is unstructured once, then sent as it is
        self.indexed = IndexedSymbols()

    @lsp_method(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list)
    async def document_symbol(self, params: types.DocumentSymbolParams):
        """The outline: session, turns, call records and their calls (built once per analysis)."""
        from ..server import Plain

        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        if result.symbols is None:  # an outline is asked for again and again: build and unstructure it once
            name = self.server.workspace.get_text_document(params.text_document.uri).filename or "rollout"
            result.symbols = Plain(self.converter.unstructure(
                self.document_symbols(result.analysis, self.server.encoding, name)))
        return result.symbols

    @lsp_method(types.WORKSPACE_SYMBOL, empty=list)
    async def workspace_symbol(self, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        """Calls of open rollouts whose command, patched files or tool contain the query."""
        store = self.server.store
        analyses = []
        for uri in store.uris:
            result = await store.get(uri)
            if result is not None and result.is_rollout:
                analyses.append((uri, result.analysis))
        found = self.workspace_symbols(analyses, params.query, self.server.encoding)
        # every other session, from the index `rollout-lsp index` keeps (open documents take precedence)
        return found + await self.indexed.workspace_symbols(params.query, store.uris, self.server.encoding,
                                                            1000 - len(found), self.server.masker)

    def document_symbols(self, analysis: RolloutAnalysis, encoding: PositionEncoding,
                         name: str = "rollout") -> list[types.DocumentSymbol]:
        last = len(analysis.lines) - 1
        whole = to_range(analysis, Span(last, 0, len(analysis.lines[last])), encoding)
        whole = types.Range(types.Position(0, 0), whole.end)
        session_id = analysis.session_id
        root = types.DocumentSymbol(name=f"session {session_id}" if session_id else name,
                                    kind=types.SymbolKind.Module, range=whole,
                                    selection_range=line_range(analysis, 0, encoding), children=[])
        turns = {t.line: t for t in analysis.turns}
        parent = root
        for number, record in enumerate(analysis.records):
            if number in turns:
                turn = turns[number]
                title = " ".join(self.server.masker(turn.title).split())
                end = line_range(analysis, turn.end_line, encoding).end
                parent = types.DocumentSymbol(
                    name=f"turn: {title[:80] + ('…' if len(title) > 80 else '')}", kind=types.SymbolKind.Namespace,
                    range=types.Range(types.Position(number, 0), end),
                    selection_range=line_range(analysis, number, encoding), children=[])
                root.children.append(parent)
            if record.is_call:
                parent.children.append(self.record_symbol(analysis, number, encoding))
        return [root]

    def record_symbol(self, analysis: RolloutAnalysis, line: int, encoding: PositionEncoding) -> types.DocumentSymbol:
        record = analysis.records[line]
        calls = analysis.calls_on(line)
        rng = line_range(analysis, line, encoding)
        detail = summarize(calls) if record.is_exec else (record.call_id or "")
        children = [self.call_symbol(analysis, c, encoding) for c in calls] if record.is_exec else []
        name = record.name or record.kind
        if not record.is_exec and calls:
            name = f"{name}: {call_name(calls[0].call, self.server.masker)}"
        return types.DocumentSymbol(name=name or "call", kind=types.SymbolKind.Function, range=rng,
                                    selection_range=rng, detail=detail, children=children)

    def call_symbol(self, analysis: RolloutAnalysis, located: LocatedCall,
                    encoding: PositionEncoding) -> types.DocumentSymbol:
        call = located.call
        marks = [m for m in ("dead" if call.executed == "no" else None,
                             "computed" if call.computed else None) if m]
        rng = to_range(analysis, located.span, encoding)
        return types.DocumentSymbol(
            name=call_name(call, self.server.masker), kind=_KINDS.get(call.kind, types.SymbolKind.Method), range=rng,
            selection_range=rng, detail=" · ".join([call.tool or "computed tool"] + marks),
            tags=[types.SymbolTag.Deprecated] if call.executed == "no" else None)

    def workspace_symbols(self, analyses: list[tuple[str, RolloutAnalysis]], query: str,
                          encoding: PositionEncoding) -> list[types.WorkspaceSymbol]:
        """Calls of open rollouts whose command, patched files or tool contain the query."""
        needle = query.lower()
        out: list[types.WorkspaceSymbol] = []
        for uri, analysis in analyses:
            for located in analysis.calls:
                call = located.call
                haystack = " ".join([call.command or "", call.tool or "", *(f.path for f in call.files),
                                     *(f.move_to or "" for f in call.files), *(call.expansion or ())]).lower()
                if needle in haystack:
                    out.append(types.WorkspaceSymbol(
                        name=call_name(call, self.server.masker), kind=_KINDS.get(call.kind, types.SymbolKind.Method),
                        location=types.Location(uri, to_range(analysis, located.span, encoding)),
                        container_name=f"line {located.line + 1} {located.record.call_id or ''}".strip()))
                    if len(out) >= 1000:
                        return out
        return out
