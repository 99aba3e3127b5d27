"""The rollout language server.

Every LSP method is a documented method of a feature class in ``features/``, marked with
``@lsp_method``/``@lsp_command``; :data:`FEATURES` below is the one list of them.  To add a feature,
write its class and add it there.  Each document is of one kind (:mod:`lsp_server.kinds`): a method several
features answer is registered once and fanned out to the features marked for the document's kind.  During
``initialize`` each feature is configured from the client's capabilities.  A failing feature method is logged and answered with an empty result: the server stays up.
"""

from __future__ import annotations

import inspect
import io
import ipaddress
import logging
import sys
from typing import BinaryIO, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from .documents import RolloutDocument
from .features.actions import ActionFeature
from .features.analyze_file import AnalyzeFileFeature
from .features.base import Feature, guarded, register
from .features.blame import BlameFeature
from .features.changed_files import ChangedFileFeature
from .features.commands import CommandFeature
from .features.completion import CompletionFeature
from .features.diagnostics import DiagnosticsFeature, RolloutFindings
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
from .invocation_links import InvocationLinks
from .kinds import DocumentKinds
from .language_server import RolloutLanguageServer
from .transport import (
    DEFAULT_MAX_MESSAGE,
    MessageStdout,
    ReleasingStdin,
    allowed_origins,
    refusal_message,
    serve_tcp,
    serve_websocket,
)
from .wire import shut_down

log = logging.getLogger("rollout_lsp")

# Every feature of the server, in one place.  A method several features answer is registered once and asked
# of the features that answer it for the document's kind, in this order (features/base.py, GATHER).
FEATURES: tuple[type[Feature], ...] = (
    LifecycleFeature,  # initialize, initialized, shutdown, settings
    DocumentSyncFeature,  # didOpen, didChange, didClose
    DiagnosticsFeature,  # per source, published, or pulled when the client asks
    HoverFeature,  # rollouts: a call or record
    SymbolFeature,  # rollouts: outline; workspace symbols
    NavigationFeature,  # rollouts: definition, references
    LensFeature,  # rollouts: exec records, the session, failures
    FoldingFeature,
    ActionFeature,  # quick fixes
    CommandFeature,  # workspace/executeCommand
    AnalyzeFileFeature,  # rollout/analyzeFile
    SemanticTokensFeature,  # colours inside exec scripts and patches
    CompletionFeature,  # authoring: types, tools, argument keys, call ids, the exec snippet
    ScriptEditFeature,  # the exec script as an editable document, written back as one edit
    ExportFeature,  # rollout-lsp.export: a rollout as Markdown or HTML
    InvocationLogFeature,  # invocation logs: outline, hover, definition; a rollout call's invocations
    ChangedFileFeature,  # rollout → the files it changed (a lens per file, rollout-lsp.openChangedFile)
    BlameFeature,  # workspace files: the sessions that changed them (lens, hover)
)


def create_server() -> RolloutLanguageServer:
    """The server, its document kinds, the diagnostics' sources and every feature, each made with the
    collaborators its constructor names (keyword-only parameters: ``kinds``, ``diagnostics``, ``links``,
    ``blame``)."""
    server = RolloutLanguageServer()
    kinds = DocumentKinds(server)
    diagnostics = DiagnosticsFeature(server, kinds=kinds)
    links = InvocationLinks(server, kinds=kinds, diagnostics=diagnostics)
    diagnostics.add_source(RolloutFindings(server))  # rollout, then invocation-log: the order they are published in
    diagnostics.add_source(links)
    blame = BlameFeature(server, kinds=kinds)
    collaborators = {"kinds": kinds, "diagnostics": diagnostics, "links": links, "blame": blame}
    made = {DiagnosticsFeature: diagnostics, BlameFeature: blame}
    features = [server.add_feature(made.get(c) or c(server, **_wanted(c, collaborators))) for c in FEATURES]
    register(server, features, kinds)
    server.listen_to_analyses(diagnostics.analysis_ready, diagnostics.partial_ready)
    return server


def _wanted(feature_class: type, collaborators: dict) -> dict:
    """The collaborators a feature's constructor names (its keyword-only parameters)."""
    parameters = inspect.signature(feature_class).parameters.values()
    return {p.name: collaborators[p.name] for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}


class _ClientLogHandler(logging.Handler):
    """Sends log records to the client's log (window/logMessage) as well as stderr."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = (
                types.MessageType.Error
                if record.levelno >= logging.ERROR
                else types.MessageType.Warning
                if record.levelno >= logging.WARNING
                else types.MessageType.Info
            )
            self.server.window_log_message(types.LogMessageParams(kind, self.format(record)))
        except Exception:
            pass  # no client yet, or it is gone: stderr still has the record


class QuietNormalOperation(logging.Filter):
    """Drops pygls warnings about what a client does all the time: cancelling a request that was just
    answered (VS Code cancels every hover and outline request it no longer needs)."""

    NORMAL = ("Cancel notification for unknown message id",)

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(self.NORMAL))


class OneLineRefusals(logging.Filter):
    """A request refused with a JSON-RPC error (a path not allowed, bad params) is normal operation: one
    line, not pygls's traceback of it.  An internal error keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            record.msg, record.args = "request refused: %s", (str(error) or type(error).__name__,)
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif (
            isinstance(record.msg, str)
            and record.msg == "%s"
            and isinstance(record.args, tuple)
            and record.args
            and isinstance(record.args[0], JsonRpcException)
            and not isinstance(record.args[0], JsonRpcInternalError)
        ):
            return False  # pygls's report_server_error says it a second time
        return True


def configure_logging(server: LanguageServer, log_level: str = "WARNING") -> None:
    """Standard error gets ``log_level`` and above (warnings by default: Neovim records every stderr line
    as an error); the client's log (window/logMessage) still gets the server's INFO lines."""
    level = getattr(logging, log_level.upper(), logging.WARNING)
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.WARNING)  # it logs every message body at INFO
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
        handler.addFilter(QuietNormalOperation())
        handler.addFilter(OneLineRefusals())
    for name in ("rollout_lsp", "lsp_server"):
        logger = logging.getLogger(name)
        logger.setLevel(min(level, logging.INFO))
        logger.addHandler(_ClientLogHandler(server))


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(
    tcp: str | None = None,
    ws: str | None = None,
    log_level: str = "WARNING",
    allow_remote: bool = False,
    allow_origins: tuple[str, ...] = (),
    max_message: int = DEFAULT_MAX_MESSAGE,
) -> int:
    """Serve over stdio, or listen on ``HOST:PORT`` (TCP or WebSocket).

    Anyone who can connect can ask the server to read files (LSP has no authentication), so it listens on
    loopback only unless ``allow_remote`` is given, and then says so on stderr; a WebSocket is refused to a
    web page of another origin than loopback and ``allow_origins`` (docs/security.md).  The exit status is
    the specification's: 0 after ``shutdown`` then ``exit``, 1 when input ends or ``exit`` comes without
    ``shutdown``.
    """
    server = create_server()
    configure_logging(server, log_level)
    if tcp or ws:
        host, _, port = (tcp or ws or "").rpartition(":")
        host = host or "127.0.0.1"
        if not is_loopback(host):
            if not allow_remote:
                print(
                    f"rollout-lsp serve: refusing to listen on {host}: only loopback addresses (127.0.0.1, ::1, "
                    "localhost) unless --allow-remote is given",
                    file=sys.stderr,
                )
                return 2
            print(
                f"rollout-lsp serve: WARNING: listening on {host}, reachable from other machines; the language "
                "server protocol has no authentication: anyone who connects can read rollouts through it",
                file=sys.stderr,
            )
        if tcp:
            serve_tcp(server, host.strip("[]"), int(port), max_message)
        else:
            serve_websocket(server, host.strip("[]"), int(port), allowed_origins(allow_origins), max_message)
    else:
        stdout = server.protocol.message_stdout = MessageStdout(sys.stdout.buffer)

        def refused(reason: str) -> None:
            log.warning("refused input: %s; closing the connection", reason)
            try:
                stdout.write(refusal_message(reason))
                stdout.flush()
            except OSError:
                pass

        # the standard input's buffer is a BufferedReader (typeshed says BinaryIO, which has no readinto); pygls
        # types its streams as BinaryIO and calls only readline/read and write/flush, which these two have
        stdin = ReleasingStdin(cast(io.BufferedReader, sys.stdin.buffer), max_message, refused)
        server.start_io(cast(BinaryIO, stdin), cast(BinaryIO, stdout))
    return 0 if shut_down(server.protocol) else 1


__all__ = ["create_server", "run", "RolloutLanguageServer", "RolloutDocument", "FEATURES", "guarded"]
