"""The outline: session, turns, call records, and each record's tool calls."""

from __future__ import annotations

import json
from typing import Any, Callable

from lsprotocol import types

from analysis.script.calls import COMMAND, PATCH
from analysis.jsonl.positions import PositionEncoding, Span
from analysis.session.rollout import LocatedCall, RolloutAnalysis

from ..protocol import Encoded
from ..convert import line_range, to_range
from pygls.protocol import default_converter

from .base import Feature, lsp_method
from .indexed_symbols import IndexedSymbols
from .invocation_logs import InvocationLogFeature
from .common import summarize
from .sessions import SessionOutline, session_workspace_symbols, uri_path, workspace_paths

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
        self._fragments: dict = {}  # (line, id(record)) → (record, what it shows, its encoded symbol)

    @lsp_method(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list)
    async def document_symbol(self, params: types.DocumentSymbolParams):
        """The outline: session, turns, call records and their calls (encoded once per analysis)."""
        logs = self.server.feature_of(InvocationLogFeature)
        if logs.is_log(params.text_document.uri):
            return await logs.document_symbols(params.text_document.uri)
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        if result.symbols is None:  # an outline is asked for again and again: encode it once per version
            name = self.server.workspace.get_text_document(params.text_document.uri).filename or "rollout"
            result.symbols = Encoded(self.outline_parts(result.analysis, self.server.encoding, name,
                                                        uri_path(params.text_document.uri)))
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

    def outline_parts(self, analysis: RolloutAnalysis, encoding: PositionEncoding,
                      name: str = "rollout", path: str | None = None) -> list[bytes]:
        """The outline as compact JSON, in pieces to be joined.  Each call record's symbol is encoded once and
        reused by the next versions while its line, its text, its output's status and its calls' ``executed``
        stay the same: after an edit only the records it changed are built again."""
        pieces: list[bytes] = []
        _encode(self._outline(analysis, encoding, name, self._cached_record, path), pieces)
        return pieces

    def document_symbols(self, analysis: RolloutAnalysis, encoding: PositionEncoding,
                         name: str = "rollout", path: str | None = None) -> list[types.DocumentSymbol]:
        """The outline as lsprotocol symbols (what :meth:`outline_parts` encodes)."""
        return self._outline(analysis, encoding, name, self.record_symbol, path)

    def _outline(self, analysis: RolloutAnalysis, encoding: PositionEncoding, name: str, record_symbol,
                 path: str | None = None) -> list:
        last = len(analysis.lines) - 1
        whole = to_range(analysis, Span(last, 0, len(analysis.lines[last])), encoding)
        whole = types.Range(types.Position(0, 0), whole.end)
        # usage, inherited history (copied, or by reference), thread name, unknown records
        session = SessionOutline(analysis, encoding, path, workspace_paths(self.server.workspace))
        root = types.DocumentSymbol(name=session.session_name(name), detail=session.session_detail(),
                                    kind=types.SymbolKind.Module, range=whole,
                                    selection_range=line_range(analysis, 0, encoding), children=[])
        root.children.extend(session.parent_symbols())
        turns = {t.line: t for t in analysis.turns}
        parent = root
        fresh: dict = {}
        for number, record in enumerate(analysis.records):
            if session.in_inherited(number):  # a replayed history is one node, not a copy of its turns
                if number == session.inherited.start:
                    root.children.append(session.inherited_symbol())
                continue
            unknown = session.unknown_symbol(number)
            if unknown is not None:
                parent.children.append(unknown)
            if number in turns:
                turn = turns[number]
                title = " ".join(self.server.masker(turn.title).split())
                end = line_range(analysis, turn.end_line, encoding).end
                parent = types.DocumentSymbol(
                    name=f"turn: {title[:80] + ('…' if len(title) > 80 else '')}", kind=types.SymbolKind.Namespace,
                    detail=session.turn_detail(number), range=types.Range(types.Position(number, 0), end),
                    selection_range=line_range(analysis, number, encoding), children=[])
                root.children.append(parent)
            settings = session.settings_symbol(number) if record.settings is not None else None
            if settings is not None:
                parent.children.append(settings)
            if record.is_call:
                parent.children.append(record_symbol(analysis, number, encoding, fresh))
        if record_symbol == self._cached_record:
            self._fragments = fresh  # only the records of this version stay cached
        return [root]

    def _cached_record(self, analysis: RolloutAnalysis, line: int, encoding: PositionEncoding,
                       fresh: dict) -> "_Fragment":
        """The encoded symbol of a call record, from the cache when nothing it shows has changed."""
        record = analysis.records[line]
        output = analysis.record_output(line)
        key = (encoding, self.server.masker.extra,
               None if output is None else (output.status, output.note),
               tuple(c.call.executed for c in analysis.calls_on(line)))
        cached = self._fragments.get((line, id(record)))
        if cached is None or cached[0] is not record or cached[1] != key:
            symbol = self.converter.unstructure(self.record_symbol(analysis, line, encoding))
            cached = (record, key, _Fragment(json.dumps(symbol, separators=(",", ":")).encode("utf-8")))
        fresh[(line, id(record))] = cached
        return cached[2]

    def record_symbol(self, analysis: RolloutAnalysis, line: int, encoding: PositionEncoding,
                      fresh: dict | None = None) -> types.DocumentSymbol:
        record = analysis.records[line]
        calls = analysis.calls_on(line)
        rng = line_range(analysis, line, encoding)
        detail = summarize(calls) if record.is_exec else (record.call_id or "")
        output = analysis.record_output(line)
        if output is not None and (output.status != "completed" or output.note):  # "failed", "completed after 2 waits"
            detail = " · ".join(p for p in (detail, " ".join(w for w in (output.status, output.note) if w)) if p)
        children = [self.call_symbol(analysis, c, encoding) for c in calls] if record.is_exec else []
        name = record.name or record.kind
        if not record.is_exec and calls and calls[0].call.kind != "tool":  # a tool call's name is its record's
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
        out: list[types.WorkspaceSymbol] = session_workspace_symbols(analyses, query)  # sessions by id, nickname
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


class _Fragment(bytes):
    """A symbol already encoded as JSON (UTF-8)."""


def _encode(value: Any, out: list[bytes]) -> None:
    """Appends the compact JSON of unstructured symbols to ``out``, with :class:`_Fragment` children as they
    are (the pieces are joined once, not at every level of the tree)."""
    if isinstance(value, _Fragment):
        out.append(value)
    elif isinstance(value, list):
        out.append(b"[")
        for number, item in enumerate(value):
            if number:
                out.append(b",")
            _encode(item, out)
        out.append(b"]")
    elif hasattr(value, "__attrs_attrs__"):
        children = getattr(value, "children", None)
        if children is None:
            out.append(_dumps(_CONVERTER.unstructure(value)))
            return
        value.children = None
        try:
            head = _dumps(_CONVERTER.unstructure(value))
        finally:
            value.children = children
        out.append(head[:-1] + b',"children":')
        _encode(children, out)
        out.append(b"}")
    else:
        out.append(_dumps(value))


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


_CONVERTER = default_converter()
