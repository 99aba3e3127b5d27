"""What every feature is: a class whose methods answer LSP methods, registered by :func:`register`.

A feature method is marked with :func:`lsp_method` (a request or notification) or :func:`lsp_command`
(a ``workspace/executeCommand`` command).  ``server.py`` lists the feature classes once; the server
creates each with itself, registers every marked method, and calls :meth:`Feature.configure` with the
client's capabilities during ``initialize``.  Adding a feature is one class here and one line there.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

if TYPE_CHECKING:
    from ..language_server import RolloutLanguageServer
    from ..store import DocumentAnalysis

log = logging.getLogger("rollout_lsp")
_METHOD = "_rollout_lsp_method"
_COMMAND = "_rollout_lsp_command"


def lsp_method(name: str, options: Any = None, empty: Any = ...) -> Callable:
    """Mark a feature method as the handler of LSP method ``name``.

    ``empty`` (a value, or a callable making one) is answered when the method fails, so one bad request
    never stops the server; leave it out for notifications, whose failures are only logged.
    """
    def mark(function: Callable) -> Callable:
        setattr(function, _METHOD, (name, options, empty))
        return function
    return mark


def lsp_command(name: str) -> Callable:
    """Mark a feature method as the handler of the ``workspace/executeCommand`` command ``name``.

    The method receives the command's arguments as they came (plain JSON values) and checks them itself.
    """
    def mark(function: Callable) -> Callable:
        setattr(function, _COMMAND, name)
        return function
    return mark


class Feature:
    """A group of LSP methods over the analyses of open rollouts.

    Subclasses keep what they computed from the client's capabilities in :meth:`configure`; they
    read the server's settings, store and position encoding through ``self.server``.
    """

    def __init__(self, server: "RolloutLanguageServer") -> None:
        self.server = server

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        """Called once during ``initialize``: adapt to what the client supports."""

    async def rollout(self, uri: str) -> "DocumentAnalysis | None":
        """The analysis of the newest text of an open rollout; None for other documents."""
        return await self.server.rollout(uri)

    def workspace_folders(self) -> list[str]:
        """The workspace's folders on this machine (its root when the client named no folder)."""
        workspace = self.server.workspace
        uris = [f.uri for f in workspace.folders.values()] if workspace.folders else []
        if not uris and workspace.root_uri:
            uris = [workspace.root_uri]
        return [p for p in (to_fs_path(u) for u in uris) if p]


def guarded(empty: Any) -> Callable:
    """Answer ``empty`` (and log) when a handler fails, so one bad request never stops the server."""
    def wrap(handler: Callable) -> Callable:
        @functools.wraps(handler)
        async def run(*args: Any) -> Any:
            try:
                result = handler(*args)
                return await result if inspect.isawaitable(result) else result
            except (asyncio.CancelledError, JsonRpcException):  # an error the client is meant to get
                raise
            except Exception:
                log.exception("%s failed", getattr(handler, "__qualname__", handler))
                if empty is ...:
                    return None
                return empty() if callable(empty) else empty
        return run
    return wrap


def register(server: Any, feature: Feature) -> None:
    """Register every marked method of ``feature`` with the pygls server."""
    for name in dir(type(feature)):
        function = getattr(type(feature), name)
        method = getattr(function, _METHOD, None)
        command = getattr(function, _COMMAND, None)
        if method is not None:
            server.feature(method[0], method[1])(_handler(guarded(method[2])(getattr(feature, name))))
        elif command is not None:
            server.command(command)(_command(guarded(None)(getattr(feature, name))))


def _handler(bound: Callable) -> Callable:
    # a plain function of the params: pygls passes the server only to a first parameter named ``ls``
    async def handle(params):
        return await bound(params)
    handle.__doc__ = bound.__doc__
    return handle


def _command(bound: Callable) -> Callable:
    # ``*arguments`` makes pygls pass the command's arguments unconverted; the feature method checks them
    async def run(*arguments):
        return await bound(*arguments)
    run.__doc__ = bound.__doc__
    return run


__all__ = ["Feature", "lsp_method", "lsp_command", "guarded", "register"]
