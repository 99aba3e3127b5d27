"""Open documents: each new text is analysed (debounced while typing), a closed one is forgotten."""

from __future__ import annotations

from lsprotocol import types

from ..documents import snapshot_lines
from .base import Feature, lsp_method
from .diagnostics import DiagnosticsFeature


class DocumentSyncFeature(Feature):
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Analyse a document as soon as it opens."""
        document = self.server.workspace.get_text_document(params.text_document.uri)
        self.server.store.update(document.uri, snapshot_lines(document), params.text_document.version, 0)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Analyse the new text after the debounce delay; a newer change cancels it."""
        document = self.server.workspace.get_text_document(params.text_document.uri)
        self.server.store.update(document.uri, snapshot_lines(document), params.text_document.version,
                                 self.server.settings.debounce_ms / 1000)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        """Forget the document and clear its published diagnostics."""
        self.server.store.close(params.text_document.uri)
        self.server.feature_of(DiagnosticsFeature).closed(params.text_document.uri)
