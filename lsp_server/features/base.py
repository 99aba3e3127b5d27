"""What every feature is: a class whose methods answer LSP methods, registered by :func:`register`.

A feature method is marked with :func:`lsp_method` (a request or notification) or :func:`lsp_command`
(a ``workspace/executeCommand`` command).  ``server.py`` lists the feature classes once; the server
creates each with itself and the collaborators its constructor names, registers every marked method, and
calls :meth:`Feature.configure` with the client's capabilities during ``initialize``.

A method marked for document kinds (``lsp_method(name, kinds=(ROLLOUT,))``, :mod:`lsp_server.kinds`) is
one feature's part of an answer: the server registers the LSP method once, decides the document's kind once
per request, asks every part marked for that kind (each guarded on its own), and gathers their results with
the method's rule in :data:`GATHER`, the one place that says how the parts make one answer.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..kinds import workspace_folders

if TYPE_CHECKING:
    from ..language_server import RolloutLanguageServer
    from ..store import DocumentAnalysis

log = logging.getLogger("rollout_lsp")
_METHOD = "_rollout_lsp_method"
_COMMAND = "_rollout_lsp_command"


def lsp_method(
    name: str, options: Any = None, empty: Any = ..., kinds: tuple[str, ...] = (), first: bool = False
) -> Callable:
    """Mark a feature method as the handler of LSP method ``name``, or with ``kinds`` as its part of the answer
    for documents of those kinds (a method several features answer: see :data:`GATHER`); the parts are asked
    in :data:`~lsp_server.server.FEATURES` order, a part marked ``first`` before the others.

    ``empty`` (a value, or a callable making one) is answered when the method fails, so one bad request
    never stops the server; leave it out for notifications, whose failures are only logged.
    """

    def mark(function: Callable) -> Callable:
        setattr(function, _METHOD, (name, options, empty, tuple(kinds), first))
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

    def __init__(self, server: RolloutLanguageServer) -> None:
        self.server = server  # its settings, store, position encoding and client; other collaborators are
        # keyword-only parameters of a subclass's constructor, given by lsp_server.server.create_server

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        """Called once during ``initialize``: adapt to what the client supports."""

    async def rollout(self, uri: str) -> DocumentAnalysis | None:
        """The analysis of the newest text of an open rollout; None for other documents."""
        return await self.server.rollout(uri)

    def workspace_folders(self) -> list[str]:
        """The workspace's folders on this machine (its root when the client named no folder)."""
        return workspace_folders(self.server)


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


def _first_hover(parts: list) -> Any:
    """The first part's hover; each later part's Markdown is a section added to it."""
    hovers = [p for p in parts if p is not None]
    if not hovers:
        return None
    hover = hovers[0]
    for more in hovers[1:]:
        if isinstance(hover.contents, types.MarkupContent) and isinstance(more.contents, types.MarkupContent):
            hover.contents.value += "\n\n" + more.contents.value
    return hover


def _first_found(parts: list) -> Any:
    """The first part that found something (an invocation before the call's output)."""
    return next((p for p in parts if p), [])


def _all(parts: list) -> Any:
    """Every part's items, in the parts' order; one part's answer as it is (an encoded outline)."""
    found = [p for p in parts if p]
    if len(found) == 1:
        return found[0]
    return [item for p in found for item in p]


# How the parts of a method several features answer make one answer (the parts in FEATURES order).
GATHER: dict[str, Callable[[list], Any]] = {
    types.TEXT_DOCUMENT_HOVER: _first_hover,
    types.TEXT_DOCUMENT_DEFINITION: _first_found,
    types.TEXT_DOCUMENT_CODE_LENS: _all,
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: _all,
}


def register(server: Any, features: list[Feature], kinds: Any) -> None:
    """Register every marked method of ``features`` with the pygls server: a method marked for document kinds
    once for all its parts (asked by ``kinds.of(uri)``, gathered by :data:`GATHER`)."""
    parts: dict[str, list[tuple[tuple[str, ...], Callable, bool]]] = {}
    marks: dict[str, tuple] = {}
    for feature in features:
        for name in dir(type(feature)):
            function = getattr(type(feature), name)
            method = getattr(function, _METHOD, None)
            command = getattr(function, _COMMAND, None)
            bound = getattr(feature, name)
            if method is not None and method[3]:
                parts.setdefault(method[0], []).append((method[3], guarded(method[2])(bound), method[4]))
                marks.setdefault(method[0], method)
            elif method is not None:
                server.feature(method[0], method[1])(_handler(guarded(method[2])(bound)))
            elif command is not None:
                server.command(command)(_command(guarded(None)(bound)))
    for method_name, answers in parts.items():
        _, options, empty, _, _ = marks[method_name]
        ordered = [(k, a) for k, a, first in answers if first] + [(k, a) for k, a, first in answers if not first]
        server.feature(method_name, options)(_handler(guarded(empty)(_fan_out(method_name, ordered, empty, kinds))))


def _fan_out(method_name: str, answers: list[tuple[tuple[str, ...], Callable]], empty: Any, kinds: Any) -> Callable:
    gather = GATHER[method_name]
    by_kind: dict[str, list[Callable]] = {}
    for answer_kinds, answer in answers:
        for kind in answer_kinds:
            by_kind.setdefault(kind, []).append(answer)

    async def fanned(params):
        found = by_kind.get(kinds.of(params.text_document.uri))
        if not found:
            return empty() if callable(empty) else None if empty is ... else empty
        return gather([await part(params) for part in found])

    fanned.__doc__ = "\n\n".join(f"{getattr(a, '__qualname__', '')}: {a.__doc__}" for _, a in answers)
    fanned.__qualname__ = method_name
    return fanned


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
