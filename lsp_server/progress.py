"""Work-done progress (``$/progress``) for analyses that take a while: a user who opens a large rollout sees
it being read, with a percentage, in the client's status bar or notification area.

The store (store.py) decides when an analysis is slow enough to show; this module only speaks the protocol:
a server-initiated token (``window/workDoneProgress/create``), then begin, report and end.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from typing import Protocol

from lsprotocol import types
from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

# an analysis still running after this many seconds shows progress; tests set the variable to 0
PROGRESS_AFTER = float(os.environ.get("ROLLOUT_LSP_PROGRESS_AFTER", "0.5"))
CREATE_TIMEOUT = 5.0  # a client that never answers window/workDoneProgress/create gets no progress


class ProgressSink(Protocol):
    """Where the store shows an analysis's progress (a percentage, 0 to 100)."""

    async def begin(self, title: str, percentage: int, message: str) -> object | None: ...

    def report(self, handle: object, percentage: int, message: str) -> None: ...

    def end(self, handle: object, message: str) -> None: ...


class ClientProgress:
    """Progress shown by the client, when its capabilities say it supports server-initiated progress."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server

    def _supported(self) -> bool:
        window = getattr(self.server.client_capabilities, "window", None)
        return bool(window and window.work_done_progress)

    async def begin(self, title: str, percentage: int, message: str) -> str | None:
        if not self._supported():
            return None
        token = f"rollout-lsp/analysis/{uuid.uuid4()}"
        try:
            await asyncio.wait_for(self.server.work_done_progress.create_async(token), CREATE_TIMEOUT)
        except Exception as error:  # refused or unanswered: the analysis goes on without progress
            log.info("the client did not create progress %s: %s", token, error)
            return None
        self.server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=False, message=message, percentage=percentage)
        )
        return token

    def report(self, handle: object, percentage: int, message: str) -> None:
        self.server.work_done_progress.report(
            str(handle), types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    def end(self, handle: object, message: str) -> None:
        self.server.work_done_progress.end(str(handle), types.WorkDoneProgressEnd(message=message))


class LinesRead:
    """How far an analysis has read its lines: written by the worker thread, read on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.done = 0
        self.total = 0
        self.percentage = 0
        self.changed = asyncio.Event()
        self.shown = False  # set once progress is shown: until then the loop need not be woken

    def update(self, done: int, total: int) -> None:
        """Called by the worker every 64 lines; wakes the loop only when the percentage grows while it is
        shown (an analysis that ends before it is shown wakes the loop for nothing)."""
        self.done, self.total = done, total
        percentage = done * 100 // total if total else 0
        if percentage > self.percentage:
            self.percentage = percentage
            if self.shown:
                self.loop.call_soon_threadsafe(self.changed.set)

    def message(self) -> str:
        return f"{self.done:,} of {self.total:,} lines" if self.total else "starting"


async def show_progress(
    sink: ProgressSink,
    title: str,
    running: asyncio.Future,
    lines: LinesRead,
    after: float,
    stopped: str = "stopped: a newer version came",
) -> None:
    """Progress for the analysis ``running`` if it takes more than ``after`` seconds: begin, a report for each
    new percentage of lines read, and an end when it finishes or is cancelled."""
    done, _ = await asyncio.wait({running}, timeout=after)
    if done:
        return
    lines.shown = True
    handle = await sink.begin(title, lines.percentage, lines.message())
    if handle is None:
        return
    shown = lines.percentage
    try:
        while not running.done():
            lines.changed.clear()
            changed = asyncio.ensure_future(lines.changed.wait())
            await asyncio.wait({running, changed}, return_when=asyncio.FIRST_COMPLETED)
            changed.cancel()
            if lines.percentage > shown:
                shown = lines.percentage
                sink.report(handle, shown, lines.message())
    finally:
        finished = running.done() and not running.cancelled() and running.exception() is None
        sink.end(handle, f"{lines.total:,} lines read" if finished else stopped)
