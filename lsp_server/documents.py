"""Text documents that split lines as LSP does.

pygls's ``TextDocument.lines`` uses ``str.splitlines``, which also breaks at
U+2028, U+2029, U+0085 and a few control characters.  JSON (and Codex) write
those raw inside strings, so incremental edits would land on the wrong line and
corrupt the rollout.  :class:`RolloutDocument` breaks only at ``\\r\\n``, ``\\r``
and ``\\n`` and applies an edit by splicing the text at its offsets;
:class:`RolloutWorkspace` creates it and is swapped in during ``initialize``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from analysis.positions import LineColumns, PositionEncoding

_BREAK = re.compile(r"\r\n|\r|\n")


def encoding_of(kind: types.PositionEncodingKind | str | None) -> PositionEncoding:
    value = getattr(kind, "value", kind) or "utf-16"
    return PositionEncoding(value) if value in ("utf-8", "utf-16", "utf-32") else PositionEncoding.UTF16


class RolloutDocument(TextDocument):
    def __init__(self, *args, encoding: PositionEncoding = PositionEncoding.UTF16, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.encoding = encoding
        self._indexed_source: str | None = None
        self._starts: list[int] = [0]

    def _index(self) -> list[int]:
        source = self.source
        if self._indexed_source is not source:
            self._starts = [0] + [m.end() for m in _BREAK.finditer(source)]
            self._indexed_source = source
        return self._starts

    @property
    def lines(self) -> Sequence[str]:
        """Lines with their terminators, broken only at ``\\r\\n``, ``\\r`` and ``\\n``."""
        starts = self._index()
        source = self.source
        bounds = starts + [len(source)] if starts[-1] != len(source) else starts
        return tuple(source[a:b] for a, b in zip(bounds, bounds[1:]))

    def line_text(self, line: int) -> str:
        """One line without its terminator ('' past the end)."""
        starts = self._index()
        if not 0 <= line < len(starts):
            return ""
        source = self.source
        end = starts[line + 1] if line + 1 < len(starts) else len(source)
        return source[starts[line]:end].rstrip("\r\n")

    def line_break(self, line: int) -> str:
        """The terminator of ``line`` (``\r\n``, ``\r`` or ``\n``; '' for the last line)."""
        starts = self._index()
        if not 0 <= line < len(starts) - 1:
            return ""
        source = self.source
        end = starts[line + 1]
        return "\r\n" if source[end - 2:end] == "\r\n" else source[end - 1:end]

    def offset_of(self, position: types.Position) -> int:
        """The code-point offset of a client position (clamped into the document)."""
        starts = self._index()
        if position.line >= len(starts):
            return len(self.source)
        line = self.line_text(position.line)
        column = LineColumns(line).from_units(position.character, self.encoding)
        return starts[position.line] + min(column, len(line))

    def line_of_offset(self, offset: int) -> int:
        return bisect_right(self._index(), offset) - 1

    # pygls's own splice goes through ``lines`` (str.splitlines): this override, of a private method, is the
    # point of this class.  Pinned by test_incremental_edits_with_u2028 and the soak test.
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        start = self.offset_of(change.range.start)
        end = max(start, self.offset_of(change.range.end))
        source = self.source
        self._source = source[:start] + change.text + source[end:]


class RolloutWorkspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return RolloutDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec,
                               encoding=encoding_of(self.position_encoding))


def install_workspace(protocol) -> None:
    """Replace the workspace pygls made in ``initialize`` by a :class:`RolloutWorkspace`.

    pygls has no public way to choose the workspace class; it creates the workspace just before calling
    our ``initialize`` handler, so this sets its private ``_workspace`` (as esbonio does) and reads the
    private ``_sync_kind``.  Pinned by test_incremental_edits_with_u2028 (which fails with pygls's
    line splitting).
    """
    old: Workspace = protocol.workspace
    protocol._workspace = RolloutWorkspace(old.root_uri, old._sync_kind, list(old.folders.values()),
                                           old.position_encoding)
