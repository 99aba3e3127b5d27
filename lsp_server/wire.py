"""The wire: every trick the server plays on pygls's JSON-RPC handling, in one module.

- :class:`RolloutProtocol` overrides private methods of pygls's ``LanguageServerProtocol`` (``_send_data``,
  ``_serialize_message``, ``_send_response``, ``_shutdown``, ``_include_headers``);
- :class:`Encoded`, :class:`Plain` and :class:`Fragment` are results sent as the JSON they already are
  (:func:`encode_tree` writes an outline with pre-encoded record symbols inside it);
- :func:`install_workspace` sets pygls's private ``_workspace``.

``tests/server/test_wire.py`` checks each of them against the installed pygls: an upgrade that renames or changes
one of these private parts fails there, not in a client.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import uuid
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import Workspace

from .converter import lazily_resolved_converter
from .documents import RolloutWorkspace
from .transport import MessageStdout

log = logging.getLogger("rollout_lsp")

UNANSWERED = "rollout-lsp:unanswered:"
"""The start of the id given to a ``shutdown`` notification, whose answer is not sent."""


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
    - ``shutdown`` sent as a notification (no ``id``, as Kate 22.12 does) is the shutdown it means, without
      a traceback (``structure_message``; pinned by ``test_a_shutdown_notification_shuts_down``).
    """

    message_stdout: MessageStdout | None = None  # set when serving on stdio
    initialized_by_client = False  # an initialize request has come

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.unanswered: set[str] = set()  # the ids given to shutdown notifications

    def handle_message(self, message: Any) -> None:
        """The lifecycle of the specification: a request before ``initialize`` fails with -32002 (a
        notification is dropped, ``exit`` aside), and one after ``shutdown`` with InvalidRequest (pygls leaves
        it unanswered, and the client waits forever)."""
        method = getattr(message, "method", None)
        request = method is not None and getattr(message, "id", None) is not None
        if method == types.INITIALIZE:
            self.initialized_by_client = True
        elif method is not None and method != types.EXIT:
            if self._shutdown:
                if request:
                    self._send_response(
                        message.id,
                        error=JsonRpcInvalidRequest(
                            f"{method}: the server is shutting down (shutdown was received)"
                        ).to_response_error(),
                    )
                return
            if not self.initialized_by_client:
                if request:
                    self._send_response(
                        message.id,
                        error=JsonRpcServerNotInitialized(
                            f"{method}: the server is not initialized (initialize first)"
                        ).to_response_error(),
                    )
                return
        super().handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if isinstance(msg_id, str) and msg_id in self.unanswered:
            self.unanswered.discard(msg_id)  # a notification: no answer
            return
        super()._send_response(msg_id, result, error)

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
        header = (
            (
                f"Content-Length: {sum(map(len, parts))}\r\nContent-Type: {self.CONTENT_TYPE}; "
                f"charset={self.CHARSET}\r\n\r\n"
            ).encode("ascii")
            if self._include_headers
            else b""
        )
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
        if isinstance(data, dict) and data.get("method") == types.SHUTDOWN and "id" not in data:
            # Kate 22.12 sends ``shutdown`` without an id: taken as the shutdown it means (pygls would log an
            # "Invalid Params" traceback and ignore it, and the ``exit`` after it would end with status 1)
            # and the ``exit`` after it would end with status 1).  It runs as a request whose answer is not sent:
            # pygls's shutdown cancels every pending request but the current one, a notification's included.
            msg_id = f"{UNANSWERED}{uuid.uuid4()}"
            self.unanswered.add(msg_id)
            return types.ShutdownRequest(id=msg_id, jsonrpc=data.get("jsonrpc", "2.0"))
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise


def shut_down(protocol: LanguageServerProtocol) -> bool:
    """Whether ``shutdown`` was received (pygls's private ``_shutdown``)."""
    return bool(protocol._shutdown)


def install_workspace(protocol, encoding: str | None = None) -> None:
    """Replace the workspace pygls made in ``initialize`` by a :class:`~lsp_server.documents.RolloutWorkspace`.

    pygls has no public way to choose the workspace class; it creates the workspace just before calling
    our ``initialize`` handler, so this sets its private ``_workspace`` (as esbonio does) and reads the
    private ``_sync_kind``.  Pinned by test_incremental_edits_with_u2028 (which fails with pygls's
    line splitting) and tests/server/test_wire.py.  ``encoding`` replaces the negotiated position encoding (the
    ``positionEncoding`` setting).
    """
    old: Workspace = protocol.workspace
    protocol._workspace = RolloutWorkspace(
        old.root_uri, old._sync_kind, list(old.folders.values()), encoding or old.position_encoding
    )


class Fragment(bytes):
    """A value already encoded as compact JSON (UTF-8), placed as it is by :func:`encode_tree`."""


def encode_tree(value: Any, out: list[bytes]) -> None:
    """Appends the compact JSON of a tree of lsprotocol values (symbols with ``children``) to ``out``, with
    :class:`Fragment` children as they are (the pieces are joined once, not at every level of the tree)."""
    if isinstance(value, Fragment):
        out.append(value)
    elif isinstance(value, list):
        out.append(b"[")
        for number, item in enumerate(value):
            if number:
                out.append(b",")
            encode_tree(item, out)
        out.append(b"]")
    elif hasattr(value, "__attrs_attrs__"):
        children = getattr(value, "children", None)
        if children is None:
            out.append(dumps(CONVERTER.unstructure(value)))
            return
        value.children = None
        try:
            head = dumps(CONVERTER.unstructure(value))
        finally:
            value.children = children
        out.append(head[:-1] + b',"children":')
        encode_tree(children, out)
        out.append(b"}")
    else:
        out.append(dumps(value))


# ``json.dumps(value, separators=…)`` makes a new encoder at every call (about 7 µs, more than encoding a row);
# this one encoder, with the same options, writes the same text and keeps no state between calls
_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


def dumps(value: Any) -> bytes:
    """Compact JSON, UTF-8 (the text of ``json.dumps(value, separators=(",", ":"))``)."""
    return _COMPACT(value).encode("utf-8")


def compact(value: Any) -> str:
    """Compact JSON text (the text of ``json.dumps(value, separators=(",", ":"))``)."""
    return _COMPACT(value)


CONVERTER = lazily_resolved_converter()
