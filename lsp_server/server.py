"""The rollout language server: every LSP method is registered here, each a thin call into a feature.

Features are plain classes in ``features/``; analyses come from the
:class:`~lsp_server.store.AnalysisStore`.  A failure inside one feature is
logged and answered with an empty result: the server stays up.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from typing import Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from analysis.positions import PositionEncoding
from analysis.report import outline_json
from analysis.source import load

from .config import Settings, parse_settings
from .convert import to_diagnostic
from .documents import RolloutDocument, encoding_of, install_workspace
from .features.actions import CALL_COMMAND, DECODED_SCRIPT, ActionFeature
from .features.hover import HoverFeature
from .features.lenses import LensFeature
from .features.navigation import NavigationFeature
from .features.symbols import SymbolFeature
from .store import AnalysisStore, DocumentAnalysis

log = logging.getLogger("rollout_lsp")
ANALYZE_FILE = "rollout/analyzeFile"
VERSION = "0.1.0"


class Plain(list):
    """A result that is already plain JSON data: sent as it is, without a cattrs pass over it."""


class RolloutProtocol(LanguageServerProtocol):
    """Answers a request whose params do not deserialize with an error, as JSON-RPC asks: pygls only logs
    it, and the client would wait for an answer forever.  Sends :class:`Plain` results without converting
    them again (an outline of a large rollout is thousands of symbols)."""

    def _serialize_message(self, data: Any) -> Any:
        result = getattr(data, "result", None)
        if isinstance(result, Plain) and hasattr(data, "id"):
            return {"jsonrpc": "2.0", "id": data.id, "result": list(result)}
        return super()._serialize_message(data)

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise


class RolloutLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rollout-lsp", VERSION, protocol_cls=RolloutProtocol)
        self.settings = Settings()
        self.pull_diagnostics = False
        self.store: AnalysisStore | None = None
        self.hovers = HoverFeature(self.settings.hover_output_lines)
        self.symbols = SymbolFeature()
        self.navigation = NavigationFeature()
        self.lenses = LensFeature()
        self.actions = ActionFeature()
        self.configured: asyncio.Event | None = None  # set once the client's configuration is known

    @property
    def encoding(self) -> PositionEncoding:
        return encoding_of(self.workspace.position_encoding)

    def apply_settings(self, value: Any) -> None:
        old = self.settings
        self.settings, problems = parse_settings(value, old)
        for problem in problems:
            log.warning(problem)
        self.hovers.output_lines = self.settings.hover_output_lines
        if self.store is not None and self.settings.secret_patterns != old.secret_patterns:
            self.store.reset_caches(self.settings.compiled_secret_patterns())
            self.reanalyze_all()

    async def wait_configured(self) -> None:
        """Findings are shown with the client's severities: wait (briefly) for its configuration."""
        if self.configured is not None and not self.configured.is_set():
            try:
                await asyncio.wait_for(self.configured.wait(), 5)
            except asyncio.TimeoutError:
                pass

    def ensure_store(self) -> AnalysisStore:
        if self.store is None:
            self.store = AnalysisStore(self.publish, lambda uri: self.settings.is_rollout_path(uri))
            self.store.reset_caches(self.settings.compiled_secret_patterns())
        return self.store

    def diagnostics(self, result: DocumentAnalysis) -> list[types.Diagnostic]:
        if not result.is_rollout:
            return []
        out = []
        for finding in result.analysis.findings:
            diagnostic = to_diagnostic(result.analysis, finding, result.uri, self.encoding, self.settings.severity)
            if diagnostic is not None:
                out.append(diagnostic)
        return out

    async def publish(self, result: DocumentAnalysis) -> None:
        if self.pull_diagnostics:
            return
        await self.wait_configured()
        latest = self.ensure_store().latest(result.uri)
        if latest is not result:  # a newer analysis came while waiting; it publishes itself
            return
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=result.uri, version=result.version, diagnostics=self.diagnostics(result)))

    def reanalyze_all(self) -> None:
        store = self.ensure_store()
        for uri in store.uris:
            document = self.workspace.get_text_document(uri)
            store.update(uri, document.source, document.version, 0)

    async def rollout(self, uri: str) -> DocumentAnalysis | None:
        """The newest analysis of an open rollout; None for other documents."""
        result = await self.ensure_store().get(uri)
        return result if result is not None and result.is_rollout else None


def guarded(empty: Any) -> Callable:
    """Answer ``empty`` (and log) when a feature fails, so one bad request never stops the server."""
    def wrap(handler):
        @functools.wraps(handler)
        async def run(ls: RolloutLanguageServer, params):
            try:
                return await handler(ls, params)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s failed", handler.__name__)
                return empty() if callable(empty) else empty
        return run
    return wrap


def create_server() -> RolloutLanguageServer:
    server = RolloutLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RolloutLanguageServer, params: types.InitializeParams) -> None:
        install_workspace(ls.protocol)
        ls.configured = asyncio.Event()
        caps = params.capabilities.text_document
        ls.pull_diagnostics = bool(caps and caps.diagnostic)
        ls.apply_settings(params.initialization_options)
        log.info("rollout-lsp %s: %s diagnostics, %s positions", VERSION,
                 "pull" if ls.pull_diagnostics else "push", ls.encoding.value)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: RolloutLanguageServer, params: types.InitializedParams) -> None:
        ls.configured = ls.configured or asyncio.Event()
        try:
            await refresh_configuration(ls)
        finally:
            ls.configured.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: RolloutLanguageServer, params: types.DidChangeConfigurationParams):
        settings = params.settings
        if isinstance(settings, dict) and settings:
            ls.apply_settings(settings)
        else:
            await refresh_configuration(ls, apply=False)
        ls.reanalyze_all()
        if ls.pull_diagnostics and _supports_refresh(ls):
            ls.workspace_diagnostic_refresh(None)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RolloutLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.ensure_store().update(doc.uri, doc.text, doc.version, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RolloutLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        ls.ensure_store().update(document.uri, document.source, params.text_document.version,
                                 ls.settings.debounce_ms / 1000)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RolloutLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.ensure_store().close(params.text_document.uri)
        if not ls.pull_diagnostics:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, []))

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(identifier="rollout-lsp", inter_file_dependencies=False,
                                            workspace_diagnostics=False))
    @guarded(lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))
    async def pull_diagnostics(ls: RolloutLanguageServer, params: types.DocumentDiagnosticParams):
        await ls.wait_configured()
        result = await ls.ensure_store().get(params.text_document.uri)
        items = ls.diagnostics(result) if result is not None else []
        return types.RelatedFullDocumentDiagnosticReport(items=items)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(None)
    async def hover(ls: RolloutLanguageServer, params: types.HoverParams):
        result = await ls.rollout(params.text_document.uri)
        return ls.hovers.hover(result.analysis, params.position, ls.encoding) if result else None

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(list)
    async def document_symbols(ls: RolloutLanguageServer, params: types.DocumentSymbolParams):
        result = await ls.rollout(params.text_document.uri)
        if result is None:
            return []
        if result.symbols is None:  # an outline is asked for again and again: build and unstructure it once
            name = ls.workspace.get_text_document(params.text_document.uri).filename or "rollout"
            result.symbols = Plain(ls.protocol._converter.unstructure(
                ls.symbols.document_symbols(result.analysis, ls.encoding, name)))
        return result.symbols

    @server.feature(types.WORKSPACE_SYMBOL)
    @guarded(list)
    async def workspace_symbols(ls: RolloutLanguageServer, params: types.WorkspaceSymbolParams):
        store = ls.ensure_store()
        analyses = []
        for uri in store.uris:
            result = await store.get(uri)
            if result is not None and result.is_rollout:
                analyses.append((uri, result.analysis))
        return ls.symbols.workspace_symbols(analyses, params.query, ls.encoding)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(list)
    async def definition(ls: RolloutLanguageServer, params: types.DefinitionParams):
        result = await ls.rollout(params.text_document.uri)
        if result is None:
            return []
        folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]  # where other sessions are looked for
        return ls.navigation.definition(result.analysis, params.text_document.uri, params.position.line, ls.encoding,
                                        [f for f in folders if f])

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(list)
    async def references(ls: RolloutLanguageServer, params: types.ReferenceParams):
        result = await ls.rollout(params.text_document.uri)
        if result is None:
            return []
        return ls.navigation.references(result.analysis, params.text_document.uri, params.position.line,
                                        params.context.include_declaration, ls.encoding)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @guarded(list)
    async def code_lens(ls: RolloutLanguageServer, params: types.CodeLensParams):
        result = await ls.rollout(params.text_document.uri)
        return ls.lenses.code_lenses(result.analysis, params.text_document.uri, ls.encoding) if result else []

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded(list)
    async def folding_range(ls: RolloutLanguageServer, params: types.FoldingRangeParams):
        result = await ls.rollout(params.text_document.uri)
        return ls.lenses.folding_ranges(result.analysis) if result else []

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @guarded(list)
    async def code_action(ls: RolloutLanguageServer, params: types.CodeActionParams):
        result = await ls.rollout(params.text_document.uri)
        return ls.actions.code_actions(result.analysis, params.text_document.uri, params, ls.encoding) \
            if result else []

    @server.command(DECODED_SCRIPT)
    async def decoded_script(ls: RolloutLanguageServer, uri: str, line: int):
        result = await ls.rollout(uri)
        return ls.actions.decoded_script(result.analysis, int(line)) if result else None

    @server.command(CALL_COMMAND)
    async def call_command(ls: RolloutLanguageServer, uri: str, line: int, character: int = 0):
        result = await ls.rollout(uri)
        return ls.actions.call_command(result.analysis, int(line), int(character), ls.encoding) if result else None

    @server.feature(ANALYZE_FILE)
    async def analyze_file(ls: RolloutLanguageServer, params) -> dict:
        """Analyse a rollout on disk (editors never open files over 50 MB): its outline and findings."""
        path = params.get("path") if isinstance(params, dict) else getattr(params, "path", None)
        if not isinstance(path, str):
            return {"file": None, "error": "params.path must be a file path", "calls": [], "diagnostics": []}

        def work() -> dict:
            loaded = load(path)
            if loaded.error:
                return {"file": path, "error": loaded.error, "calls": [], "diagnostics": []}
            from analysis.rollout import analyze_text

            analysis = analyze_text(loaded.text)
            out = outline_json(path, analysis, ls.encoding)
            out["error"] = None
            return out

        return await asyncio.get_running_loop().run_in_executor(None, work)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RolloutLanguageServer, params: None) -> None:
        if ls.store is not None:
            ls.store.shutdown()

    return server


def _supports_refresh(ls: RolloutLanguageServer) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)


async def refresh_configuration(ls: RolloutLanguageServer, apply: bool = True) -> None:
    """Ask the client for the ``rolloutLsp`` section when it answers ``workspace/configuration``."""
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        values = await asyncio.wait_for(ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section="rolloutLsp")])), 5)
    except Exception as error:  # a client that cannot answer keeps the settings it gave at initialize
        log.warning("workspace/configuration failed: %s", error)
        return
    if values and isinstance(values[0], dict):
        ls.apply_settings(values[0])


class _ClientLogHandler(logging.Handler):
    """Sends log records to the client's log (window/logMessage) as well as stderr."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = types.MessageType.Error if record.levelno >= logging.ERROR else \
                types.MessageType.Warning if record.levelno >= logging.WARNING else types.MessageType.Info
            self.server.window_log_message(types.LogMessageParams(kind, self.format(record)))
        except Exception:
            pass  # no client yet, or it is gone: stderr still has the record


def run(tcp: str | None = None, ws: str | None = None, log_level: str = "INFO") -> int:
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message body at INFO
    server = create_server()
    log.addHandler(_ClientLogHandler(server))
    logging.getLogger("lsp_server").addHandler(_ClientLogHandler(server))
    if tcp or ws:
        host, _, port = (tcp or ws or "").rpartition(":")
        start = server.start_tcp if tcp else server.start_ws
        start(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0


__all__ = ["create_server", "run", "RolloutLanguageServer", "RolloutDocument"]
