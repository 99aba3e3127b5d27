"""Open documents: each new text is analysed (debounced while typing), a closed one is forgotten."""

from __future__ import annotations

from lsprotocol import types

from ..documents import snapshot_lines
from ..kinds import DocumentKinds
from .base import Feature, lsp_method
from .diagnostics import DiagnosticsFeature


class DocumentSyncFeature(Feature):
    def __init__(self, server, *, kinds: DocumentKinds, diagnostics: DiagnosticsFeature) -> None:
        super().__init__(server)
        self.kinds = kinds  # decides an opened document's kind, forgets a closed one's
        self.diagnostics = diagnostics  # clears a closed document's

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Analyse a document as soon as it opens."""
        document = self.server.workspace.get_text_document(params.text_document.uri)
        self.kinds.opened(document.uri)
        self.server.store.update(document.uri, snapshot_lines(document), params.text_document.version, 0)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Analyse the new text after the debounce delay; a newer change cancels it."""
        document = self.server.workspace.get_text_document(params.text_document.uri)
        self.server.store.update(
            document.uri,
            snapshot_lines(document),
            params.text_document.version,
            self.server.settings.debounce_ms / 1000,
        )

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        """Forget the document and clear its published diagnostics."""
        self.server.store.close(params.text_document.uri)
        self.diagnostics.closed(params.text_document.uri)
        self.kinds.closed(params.text_document.uri)
