"""The rollout language server.

Every LSP method is a documented method of a feature class in ``features/``, marked with
``@lsp_method``/``@lsp_command``; :data:`FEATURES` below is the one list of them.  To add a feature,
write its class and add it there.  During ``initialize`` each feature is configured from the client's
capabilities.  A failing feature method is logged and answered with an empty result: the server stays up.
"""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import json
import logging
import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from analysis.positions import PositionEncoding

from .access import PathPolicy
from .config import Settings
from .documents import RolloutDocument, encoding_of, snapshot_lines
from .edits import EditBuilder
from .features.actions import ActionFeature
from .features.analyze_file import AnalyzeFileFeature
from .features.base import Feature, guarded, register
from .features.commands import CommandFeature
from .features.completion import CompletionFeature
from .features.diagnostics import DiagnosticsFeature
from .features.export import ExportFeature
from .features.hover import HoverFeature
from .features.invocation_logs import InvocationLogFeature
from .features.lenses import FoldingFeature, LensFeature
from .features.lifecycle import LifecycleFeature
from .features.navigation import NavigationFeature
from .features.script_edit import ScriptEditFeature
from .features.semantic_tokens import SemanticTokensFeature
from .features.symbols import SymbolFeature
from .features.sync import DocumentSyncFeature
from .masking import Masker
from .progress import ClientProgress
from .store import AnalysisStore, DocumentAnalysis
from .transport import MessageStdout, ReleasingStdin

log = logging.getLogger("rollout_lsp")
VERSION = "0.1.0"

# Every feature of the server, in one place.
FEATURES: tuple[type[Feature], ...] = (
    LifecycleFeature,      # initialize, initialized, shutdown, settings
    DocumentSyncFeature,   # didOpen, didChange, didClose
    DiagnosticsFeature,    # published, or pulled when the client asks
    HoverFeature,
    SymbolFeature,         # outline and workspace symbols
    NavigationFeature,     # definition, references
    LensFeature,
    FoldingFeature,
    ActionFeature,         # quick fixes
    CommandFeature,        # workspace/executeCommand
    AnalyzeFileFeature,    # rollout/analyzeFile
    SemanticTokensFeature,  # colours inside exec scripts and patches
    CompletionFeature,     # authoring: types, tools, argument keys, call ids, the exec snippet
    ScriptEditFeature,     # the exec script as an editable document, written back as one edit
    ExportFeature,         # rollout-lsp.export: a rollout as Markdown or HTML
    InvocationLogFeature,  # cli_mocks/calls.jsonl, linked to its rollout
)


class Plain(list):
    """A result that is already plain JSON data: sent as it is, without a cattrs pass over it."""


class Encoded:
    """A result or notification params already encoded as JSON (UTF-8): sent as these bytes, without a cattrs
    pass or a ``json.dumps`` over it.  The outline of a large rollout is megabytes of JSON that a client asks
    for again and again; it is encoded once per version, and kept as the pieces it was encoded in (each call
    record's symbol is also cached for the next version): joining them is left to each write, so the outline
    is not held twice."""

    __slots__ = ("parts",)

    def __init__(self, parts: bytes | list[bytes]) -> None:
        self.parts = (parts,) if isinstance(parts, bytes) else tuple(parts)


class RolloutProtocol(LanguageServerProtocol):
    """Two changes to pygls's JSON-RPC handling, each through a private method, each pinned by a test.

    - A request whose params do not deserialize is answered with an error, as JSON-RPC asks; pygls only
      logs it and the client waits forever (``_send_response``; pinned by
      ``test_malformed_messages_do_not_stop_the_server``).
    - A :class:`Plain` result is sent without converting it again: the outline of a large rollout is
      thousands of symbols, and a cattrs pass over them costs more than building them
      (``_serialize_message``; pinned by ``test_outline_shape`` and the soak's outline comparison).
    - An :class:`Encoded` result, and the params of :meth:`notify_encoded`, are written as the bytes they
      already are (``_send_data``; pinned by ``test_outline_shape`` and the diagnostics tests).
    """

    message_stdout: MessageStdout | None = None  # set when serving on stdio

    def _send_data(self, data: Any):
        result = getattr(data, "result", None)
        if isinstance(result, Encoded) and hasattr(data, "id"):
            self._write_body(b'{"jsonrpc":"2.0","id":%s,"result":' % json.dumps(data.id).encode(), *result.parts, b"}")
            return
        super()._send_data(data)

    def notify_encoded(self, method: str, params: bytes) -> None:
        """A notification whose params are already JSON."""
        self._write_body(b'{"jsonrpc":"2.0","method":%s,"params":' % json.dumps(method).encode(), params, b"}")

    def _write_body(self, *parts: bytes) -> None:
        """One message whose body is ``parts`` joined: on stdio written piece by piece under the output's lock
        (:class:`~lsp_server.transport.MessageStdout`), elsewhere joined once and written at once (a log line
        from another thread must not land inside it).  A large outline is megabytes."""
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        header = (f"Content-Length: {sum(map(len, parts))}\r\nContent-Type: {self.CONTENT_TYPE}; "
                  f"charset={self.CHARSET}\r\n\r\n").encode("ascii") if self._include_headers else b""
        try:
            if self.message_stdout is not None:  # stdio: the pieces are written as they are
                self.message_stdout.write_message((header, *parts))
                return
            written = self.writer.write(b"".join((header, *parts)))
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise

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
    """The server's state: settings, the analyses of open documents, and the features."""

    def __init__(self) -> None:
        super().__init__("rollout-lsp", VERSION, protocol_cls=RolloutProtocol)
        self.settings = Settings()
        self.masker = Masker()
        self.edits = EditBuilder()
        self.paths = PathPolicy()
        self._store: AnalysisStore | None = None
        self.configured: asyncio.Event | None = None  # set once the client's configuration is known
        self.features: dict[type[Feature], Feature] = {}
        for feature_class in FEATURES:
            feature = self.features[feature_class] = feature_class(self)
            register(self, feature)

    def feature_of(self, feature_class: type[Feature]) -> Any:
        return self.features[feature_class]

    @property
    def encoding(self) -> PositionEncoding:
        return encoding_of(self.workspace.position_encoding)

    @property
    def store(self) -> AnalysisStore:
        """The analyses of open documents (made on first use: it needs the running event loop)."""
        if self._store is None:
            diagnostics = self.feature_of(DiagnosticsFeature)
            self._store = AnalysisStore(diagnostics.analysis_ready, self.settings_is_rollout_path,
                                        diagnostics.partial_ready)
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
        return self.settings.is_rollout_path(uri)

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


def create_server() -> RolloutLanguageServer:
    return RolloutLanguageServer()


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


class QuietNormalOperation(logging.Filter):
    """Drops pygls warnings about what a client does all the time: cancelling a request that was just
    answered (VS Code cancels every hover and outline request it no longer needs)."""

    NORMAL = ("Cancel notification for unknown message id",)

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(self.NORMAL))


def configure_logging(server: LanguageServer, log_level: str = "INFO") -> None:
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.WARNING)  # it logs every message body at INFO
    for handler in logging.getLogger().handlers:
        handler.addFilter(QuietNormalOperation())
    log.addHandler(_ClientLogHandler(server))
    logging.getLogger("lsp_server").addHandler(_ClientLogHandler(server))


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(tcp: str | None = None, ws: str | None = None, log_level: str = "INFO", allow_remote: bool = False) -> int:
    """Serve over stdio, or listen on ``HOST:PORT`` (TCP or WebSocket).

    Anyone who can connect can ask the server to read files (LSP has no authentication), so it listens on
    loopback only unless ``allow_remote`` is given, and then says so on stderr.
    """
    server = create_server()
    configure_logging(server, log_level)
    if tcp or ws:
        host, _, port = (tcp or ws or "").rpartition(":")
        host = host or "127.0.0.1"
        if not is_loopback(host):
            if not allow_remote:
                print(f"rollout-lsp serve: refusing to listen on {host}: only loopback addresses (127.0.0.1, ::1, "
                      "localhost) unless --allow-remote is given", file=sys.stderr)
                return 2
            print(f"rollout-lsp serve: WARNING: listening on {host}, reachable from other machines; the language "
                  "server protocol has no authentication: anyone who connects can read rollouts through it",
                  file=sys.stderr)
        start = server.start_tcp if tcp else server.start_ws
        start(host.strip("[]"), int(port))
    else:
        stdout = server.protocol.message_stdout = MessageStdout(sys.stdout.buffer)
        server.start_io(ReleasingStdin(sys.stdin.buffer), stdout)
    return 0


__all__ = ["create_server", "run", "RolloutLanguageServer", "RolloutDocument", "FEATURES", "Plain", "Encoded", "guarded"]
