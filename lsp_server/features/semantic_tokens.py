"""Semantic tokens (full and range): the colours of exec scripts and patches inside their JSON strings.

The analysis gives tokens at code-point columns of each line
(:mod:`analysis.semantic_tokens`); this encodes them as LSP's relative integer
quintuples in the client's position units.  Tokens of a line depend only on its
text, so they are kept by line text and an edit recomputes only the lines it changed.
"""

from __future__ import annotations

import threading

from lsprotocol import types

from analysis.positions import LineColumns, PositionEncoding
from analysis.rollout import RolloutAnalysis
from analysis.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, Token, line_tokens

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_TYPE_INDEX = {name: index for index, name in enumerate(TOKEN_TYPES)}
_MODIFIER_BIT = {name: 1 << index for index, name in enumerate(TOKEN_MODIFIERS)}


class SemanticTokensFeature:
    def __init__(self) -> None:
        self._by_uri: dict[str, dict[str, list[Token]]] = {}
        self._lock = threading.Lock()  # requests of two documents may run in two worker threads

    def full(self, uri: str, analysis: RolloutAnalysis, encoding: PositionEncoding) -> types.SemanticTokens:
        return types.SemanticTokens(data=self._encode(uri, analysis, range(len(analysis.lines)), encoding, True))

    def range(self, uri: str, analysis: RolloutAnalysis, wanted: types.Range,
              encoding: PositionEncoding) -> types.SemanticTokens:
        """The tokens of the lines ``wanted`` touches (whole tokens: the protocol allows more than asked)."""
        lines = range(max(0, wanted.start.line), min(len(analysis.lines), wanted.end.line + 1))
        return types.SemanticTokens(data=self._encode(uri, analysis, lines, encoding, False))

    def forget(self, uri: str) -> None:
        with self._lock:
            self._by_uri.pop(uri, None)

    def tokens_of(self, uri: str, analysis: RolloutAnalysis, line: int) -> list[Token]:
        text = analysis.lines[line]
        with self._lock:
            found = self._by_uri.setdefault(uri, {}).get(text)
        if found is None:
            found = line_tokens(text, analysis.records[line])
            with self._lock:
                self._by_uri.setdefault(uri, {})[text] = found
        return found

    def _encode(self, uri: str, analysis: RolloutAnalysis, lines: range, encoding: PositionEncoding,
                forget: bool) -> list[int]:
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
                data += (delta_line, start - previous_start if delta_line == 0 else start, length,
                         _TYPE_INDEX[token.type], modifiers)
                previous_line, previous_start = number, start
        if forget:  # a full pass knows every line of the document: drop the tokens of lines that are gone
            keep = set(analysis.lines)
            with self._lock:
                known = self._by_uri.get(uri, {})
                self._by_uri[uri] = {k: v for k, v in known.items() if k in keep}
        return data
