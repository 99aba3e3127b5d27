"""Text documents that split lines as LSP does.

pygls's ``TextDocument.lines`` uses ``str.splitlines``, which also breaks at
U+2028, U+2029, U+0085 and a few control characters.  JSON (and Codex) write
those raw inside strings, so incremental edits would land on the wrong line and
corrupt the rollout.  :class:`RolloutDocument` breaks only at ``\\r\\n``, ``\\r``
and ``\\n`` and applies an edit to the lines it touches (:class:`~analysis.jsonl.lines.LineList`);
:class:`RolloutWorkspace` creates it and is swapped in during ``initialize``.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from analysis.jsonl.lines import LineList, split_lines
from analysis.jsonl.positions import LineColumns, PositionEncoding


def encoding_of(kind: types.PositionEncodingKind | str | None) -> PositionEncoding:
    value = getattr(kind, "value", kind) or "utf-16"
    return PositionEncoding(value) if value in ("utf-8", "utf-16", "utf-32") else PositionEncoding.UTF16


class RolloutDocument(TextDocument):
    """A document kept as its lines: an incremental edit replaces the lines it touches and no others, so the
    analysis finds every other line as the same string it analysed before.  The whole text is joined only
    when something asks for ``source``."""

    def __init__(self, *args, encoding: PositionEncoding = PositionEncoding.UTF16, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.encoding = encoding
        self._line_list: LineList | None = None

    @property
    def line_list(self) -> LineList:
        if self._line_list is None:
            self._line_list = LineList(super().source)
            self._source = None  # the lines hold the text now; ``source`` joins them when asked
        return self._line_list

    @property
    def text_lines(self) -> list[str]:
        """The lines without terminators, as the analysis reads them (the list changes with each edit)."""
        return self.line_list.lines

    @property
    def source(self) -> str:
        if self._line_list is None:
            return super().source
        if self._source is None:
            self._source = self._line_list.text()  # kept until the next edit
        return self._source

    @property
    def lines(self) -> Sequence[str]:
        """Lines with their terminators, broken only at ``\\r\\n``, ``\\r`` and ``\\n``."""
        lines = self.line_list
        return tuple(line + end for line, end in zip(lines.lines, lines.ends) if line or end)

    def line_text(self, line: int) -> str:
        """One line without its terminator ('' past the end)."""
        lines = self.line_list.lines
        return lines[line] if 0 <= line < len(lines) else ""

    def line_break(self, line: int) -> str:
        """The terminator of ``line`` (``\r\n``, ``\r`` or ``\n``; '' for the last line)."""
        ends = self.line_list.ends
        return ends[line] if 0 <= line < len(ends) else ""

    def _column(self, position: types.Position) -> int:
        line = self.line_text(position.line)
        return min(LineColumns(line).from_units(position.character, self.encoding), len(line))

    # pygls's own splice goes through ``lines`` (str.splitlines): this override, of a private method, is the
    # point of this class.  Pinned by test_incremental_edits_with_u2028 and the soak test.
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        lines = self.line_list
        start, end = change.range.start, change.range.end
        self.line_list.replace(
            start.line,
            self._column(start) if start.line < len(lines.lines) else 0,
            end.line,
            self._column(end) if end.line < len(lines.lines) else 0,
            change.text,
        )
        self._source = None

    def _apply_full_change(self, change) -> None:
        super()._apply_full_change(change)
        self._line_list = None


def document_lines(document: TextDocument) -> list[str]:
    """The document's lines as it keeps them (the list changes with the next edit): joining a large rollout's
    text only to split it again would cost two more copies of it."""
    lines = getattr(document, "text_lines", None)
    return lines if lines is not None else split_lines(document.source)


def line_text(document: TextDocument, line: int) -> str:
    """One line of any document without its terminator ('' past the end): a :class:`RolloutDocument`'s from
    the lines it keeps, another's split from its text."""
    if isinstance(document, RolloutDocument):
        return document.line_text(line)
    lines = document_lines(document)
    return lines[line] if 0 <= line < len(lines) else ""


def snapshot_lines(document: TextDocument) -> list[str] | str:
    """What an analysis of ``document`` reads: a copy of its lines (a :class:`RolloutDocument` edits its own
    list in place while the analysis runs in another thread), or the text of any other document."""
    lines = getattr(document, "text_lines", None)
    return list(lines) if lines is not None else document.source


class RolloutWorkspace(Workspace):
    def put_text_document(self, text_document: types.TextDocumentItem, notebook_uri: str | None = None) -> None:
        """Open a document as its lines, and drop the opened text from the didOpen message.

        pygls's reader loop keeps the last message it read until the next one comes (after the whole first
        analysis of a large rollout): without this, a 50 MB rollout would stay in memory twice, as the
        message's text and as the document's lines."""
        super().put_text_document(text_document, notebook_uri)
        document = self.text_documents.get(unquote(text_document.uri))
        if isinstance(document, RolloutDocument):
            document.line_list  # noqa: B018 (a property read for its effect) split now, while the text is at hand; the document forgets the text
            text_document.text = ""

    def _create_text_document(
        self, doc_uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None
    ) -> TextDocument:
        return RolloutDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
            encoding=encoding_of(self.position_encoding),
        )
