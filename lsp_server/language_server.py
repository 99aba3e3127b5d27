"""The server's state: settings, the analyses of open documents, and its features (made and registered in
:mod:`lsp_server.server`, the one place that knows them all)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pygls.lsp.server import LanguageServer

from analysis.jsonl.positions import PositionEncoding

from .access import PathPolicy
from .config import Settings
from .documents import encoding_of, snapshot_lines
from .edits import EditBuilder
from .masking import Masker
from .progress import ClientProgress
from .store import AnalysisStore, DocumentAnalysis
from .wire import CONVERTER, RolloutProtocol

VERSION = "0.1.0"
ROLLOUT_LANGUAGE = "rollout"
F = TypeVar("F")
Ready = Callable[[DocumentAnalysis], Awaitable[None]]  # an analysis is ready (awaited before the next)
Partial = Callable[[DocumentAnalysis], None]  # part of a running analysis is known


class RolloutLanguageServer(LanguageServer):
    """The server's state: settings, the analyses of open documents, and the features."""

    protocol: RolloutProtocol  # made by pygls from ``protocol_cls``

    def __init__(self) -> None:
        # one cattrs converter for the protocol and the features (each new one costs tens of ms at start, and
        # the hooks it generates for a class on first use are then generated once)
        super().__init__("rollout-lsp", VERSION, protocol_cls=RolloutProtocol, converter_factory=lambda: CONVERTER)
        self.settings = Settings.model_validate({})  # the defaults (mypy sees only the fields' aliases)
        self.masker = Masker()
        self.edits = EditBuilder()
        self.paths = PathPolicy()
        self._store: AnalysisStore | None = None
        self.configured: asyncio.Event | None = None  # set once the client's configuration is known
        self.features: dict[type, Any] = {}  # each feature class and its one instance (see lsp_server.server)
        self._analysis_listeners: tuple[Ready, Partial | None] | None = None

    def add_feature(self, feature: F) -> F:
        self.features[type(feature)] = feature
        return feature

    def listen_to_analyses(self, ready: Ready, partial: Partial | None) -> None:
        """What an analysis calls when it is ready, and when part of it is (the diagnostics feature's)."""
        self._analysis_listeners = (ready, partial)

    @property
    def encoding(self) -> PositionEncoding:
        return encoding_of(self.workspace.position_encoding)

    @property
    def store(self) -> AnalysisStore:
        """The analyses of open documents (made on first use: it needs the running event loop)."""
        if self._store is None:
            ready, partial = self._analysis_listeners or (None, None)
            self._store = AnalysisStore(ready, self.settings_is_rollout_path, partial, self.content_decides)
            self._store.reset_caches(self.settings.compiled_secret_patterns())
            self._store.progress = ClientProgress(self)
        return self._store

    async def wait_configured(self) -> None:
        """Findings are shown with the client's severities: wait (briefly) for its configuration."""
        if self.configured is not None and not self.configured.is_set():
            try:
                await asyncio.wait_for(self.configured.wait(), 5)
            except asyncio.TimeoutError:
                pass

    def settings_is_rollout_path(self, uri: str) -> bool:
        """Whether ``uri`` is a rollout whatever its content: its path matches ``files``, or the editor gives it
        in the ``rollout`` language (VS Code's "Treat as Rollout", an editor's filetype)."""
        if self.settings.is_rollout_path(uri):
            return True
        document = self.workspace.text_documents.get(uri)
        return getattr(document, "language_id", None) == ROLLOUT_LANGUAGE

    def content_decides(self, uri: str) -> bool:
        """Whether ``uri`` is analysed only when its first records are a rollout's: not a rollout by its path or
        language, nor an invocation log (read whatever its content)."""
        return not (self.settings_is_rollout_path(uri) or self.settings.is_invocation_log_path(uri))

    async def rollout(self, uri: str) -> DocumentAnalysis | None:
        """The analysis of the newest text of an open rollout; None for other documents."""
        result = await self.store.get(uri)
        return result if result is not None and result.is_rollout else None

    def reanalyze_all(self) -> None:
        """Analyse every open document again (settings changed what its findings are)."""
        store = self.store
        for uri in store.uris:
            document = self.workspace.get_text_document(uri)
            store.update(uri, snapshot_lines(document), document.version, 0)
