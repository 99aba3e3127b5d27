"""Semantic tokens (full and range): the colours of exec scripts and patches inside their JSON strings.

The analysis gives tokens at code-point columns of each line
(:mod:`analysis.authoring.semantic_tokens`); this encodes them as LSP's relative integer
quintuples in the client's position units.  Tokens of a line depend only on its
text, so they are kept by line text and an edit recomputes only the lines it changed.
"""

from __future__ import annotations

import asyncio
import builtins
import threading

from lsprotocol import types

from analysis.authoring.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, Token, line_tokens
from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.session.rollout import RolloutAnalysis

from .base import Feature, lsp_method

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_TYPE_INDEX = {name: index for index, name in enumerate(TOKEN_TYPES)}
_MODIFIER_BIT = {name: 1 << index for index, name in enumerate(TOKEN_MODIFIERS)}


class SemanticTokensFeature(Feature):
    """Tokens for exec scripts (keywords, strings, numbers, comments, regexes, functions, ``tools.*``) and
    patches (headers, hunks, added and removed lines); other lines keep the editor's JSON colours."""

    def __init__(self, server) -> None:
        super().__init__(server)
        self._by_uri: dict[str, dict[str, list[Token]]] = {}
        self._lock = threading.Lock()  # tokens are computed in worker threads, one per request

    @lsp_method(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND, empty=None)
    async def semantic_tokens_full(self, params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        """The tokens of the whole document (computed off the event loop: a large rollout has thousands)."""
        uri = params.text_document.uri
        result = await self.rollout(uri)
        if result is None:
            return None
        return await asyncio.get_running_loop().run_in_executor(
            None, self.full, uri, result.analysis, self.server.encoding
        )

    @lsp_method(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND, empty=None)
    async def semantic_tokens_range(self, params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
        """The tokens of the lines a range touches (whole tokens: the protocol allows more than asked)."""
        uri = params.text_document.uri
        result = await self.rollout(uri)
        if result is None:
            return None
        return await asyncio.get_running_loop().run_in_executor(
            None, self.range, uri, result.analysis, params.range, self.server.encoding
        )

    def full(self, uri: str, analysis: RolloutAnalysis, encoding: PositionEncoding) -> types.SemanticTokens:
        data = self._encode(uri, analysis, range(len(analysis.lines)), encoding)
        keep = set(analysis.lines)  # a full pass knows every line: drop lines that are gone, and closed documents
        open_uris = set(self.server.store.uris)
        with self._lock:
            known = self._by_uri.get(uri, {})
            self._by_uri = {u: c for u, c in self._by_uri.items() if u in open_uris}
            self._by_uri[uri] = {k: v for k, v in known.items() if k in keep}
        return types.SemanticTokens(data=data)

    def range(
        self, uri: str, analysis: RolloutAnalysis, wanted: types.Range, encoding: PositionEncoding
    ) -> types.SemanticTokens:
        lines = range(max(0, wanted.start.line), min(len(analysis.lines), wanted.end.line + 1))
        return types.SemanticTokens(data=self._encode(uri, analysis, lines, encoding))

    def tokens_of(self, uri: str, analysis: RolloutAnalysis, line: int) -> list[Token]:
        text = analysis.lines[line]
        with self._lock:
            found = self._by_uri.get(uri, {}).get(text)
        if found is None:
            found = line_tokens(text, analysis.records[line])
            with self._lock:
                self._by_uri.setdefault(uri, {})[text] = found
        return found

    def _encode(
        self, uri: str, analysis: RolloutAnalysis, lines: builtins.range, encoding: PositionEncoding
    ) -> list[int]:
        data: list[int] = []
        previous_line = previous_start = 0
        for number in lines:
            record = analysis.records[number]
            if not (record.is_exec or record.name == "apply_patch"):
                continue
            tokens = self.tokens_of(uri, analysis, number)
            if not tokens:
                continue
            columns = LineColumns(analysis.lines[number])
            for token in tokens:
                start = columns.to_units(token.start, encoding)
                length = columns.to_units(token.end, encoding) - start
                modifiers = 0
                for name in token.modifiers:
                    modifiers |= _MODIFIER_BIT[name]
                delta_line = number - previous_line
                data += (
                    delta_line,
                    start - previous_start if delta_line == 0 else start,
                    length,
                    _TYPE_INDEX[token.type],
                    modifiers,
                )
                previous_line, previous_start = number, start
        return data
