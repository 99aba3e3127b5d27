"""Analyses of open documents: debounced, off the event loop, cancelled when a newer version comes.

Each document keeps a :class:`~analysis.session.rollout.LineCache`, so a new version
re-analyses only the lines whose text changed.  Requests ask :meth:`get`, which
waits for the analysis of the document's newest text and never answers with an
older one.

The line cache is not thread-safe: a superseded analysis keeps filling it from
its worker thread until it next checks whether it is stale.  So each document's
analyses run one at a time, under the document's lock, and the cache is pruned
(:meth:`~analysis.session.rollout.LineCache.keep_only`) inside that lock, in the worker.

An analysis still running after :data:`~lsp_server.progress.PROGRESS_AFTER` seconds shows work-done
progress: the worker tells how many lines it has read, and the event loop reports each new percentage.

A change is debounced: its diagnostics are published ``delay`` seconds after it at the earliest, and a newer
change cancels it.  When the document's next analysis is expected to be cheap (under :data:`EARLY_SHARE` of
the delay, as for any rollout of a few MB after an edit) it runs during the delay instead of after it, so the
diagnostics come when the delay ends; a costly one waits for the delay, so typing in a large rollout does not
start an analysis per keystroke.  The expected cost is the last analysis's time, or after the first read of a
document :data:`EDIT_SHARE` of that read's (an edit re-reads only its own lines).

An analysis that reads many new lines (opening a large rollout) also hands ``on_partial`` what it knows so
far, :data:`PARTIAL_AFTER` seconds after it starts and then every :data:`PARTIAL_EVERY` seconds: the findings
of the lines read so far (:func:`~analysis.session.rollout.partial_analysis`), so they are shown before the end.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import unquote

from analysis.jsonl.lines import split_lines
from analysis.session.finish import is_rollout_file
from analysis.session.outputs import forget_read_again
from analysis.session.rollout import AnalysisCancelled, LineCache, RolloutAnalysis, analyze_lines
from analysis.session.sniff import looks_like_rollout

from .progress import PROGRESS_AFTER, LinesRead, ProgressSink, show_progress

log = logging.getLogger(__name__)
_SUPERSEDED = object()
PARTIAL_AFTER = 0.3  # seconds after an analysis starts: the findings of the lines read so far are handed on
PARTIAL_EVERY = 1.0  # and again every this many seconds, until the whole analysis is done
EARLY_SHARE = 0.5  # an analysis expected to take under this share of the debounce runs during it
# an edit's analysis against the first read of its document: 1.7% at 1 MB, 2.5% at 20 MB (bench/run.py's rollouts)
EDIT_SHARE = 0.05


@dataclass
class DocumentAnalysis:
    """The newest analysis of one document, and whether the document gets rollout features."""

    uri: str
    version: int | None
    analysis: RolloutAnalysis
    is_rollout: bool
    seconds: float
    symbols: object | None = None  # the outline, encoded, once asked for
    complete: bool = True  # False for what an analysis still running knows (the lines read so far)


@dataclass
class _State:
    cache: LineCache
    generation: int = 0
    version: int | None = None
    ready: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    task: asyncio.Task | None = None
    latest: DocumentAnalysis | None = None
    expected_seconds: float | None = None  # what the next analysis is expected to take
    lock: threading.Lock = field(default_factory=threading.Lock)  # one analysis (and cache) user at a time


class AnalysisStore:
    def __init__(
        self,
        on_ready: Callable[[DocumentAnalysis], Awaitable[None]] | None = None,
        is_rollout_path: Callable[[str], bool] = lambda uri: False,
        on_partial: Callable[[DocumentAnalysis], None] | None = None,
        content_decides: Callable[[str], bool] | None = None,
    ) -> None:
        self._states: dict[str, _State] = {}
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rollout-analysis")
        self.on_ready = on_ready
        self.is_rollout_path = is_rollout_path
        # documents analysed only when their first records are a rollout's (any other is analysed as no lines)
        self.content_decides = content_decides
        self.extra_secrets: tuple = ()
        self.progress: ProgressSink | None = None
        self.progress_after = PROGRESS_AFTER
        self.on_partial = on_partial
        self.partial_after = PARTIAL_AFTER
        self.partial_every = PARTIAL_EVERY

    @property
    def uris(self) -> list[str]:
        return list(self._states)

    def update(self, uri: str, text: str | list[str], version: int | None, delay: float) -> None:
        """Analyse ``text`` (or its lines, a list the store may keep) as the newest version of ``uri`` after
        ``delay`` seconds."""
        state = self._states.get(uri)
        if state is None:
            state = self._states[uri] = _State(LineCache(self.extra_secrets))
        state.generation += 1
        state.version = version
        if state.task is not None:
            state.task.cancel()
        old = state.ready
        state.ready = asyncio.get_running_loop().create_future()
        if not old.done():
            old.set_result(_SUPERSEDED)
        state.task = asyncio.ensure_future(self._run(uri, state, state.generation, text, version, delay))

    def reset_caches(self, extra_secrets: tuple) -> None:
        """New secret patterns change every line's findings: forget all cached lines."""
        self.extra_secrets = extra_secrets
        for state in self._states.values():
            state.cache = LineCache(extra_secrets)

    def close(self, uri: str) -> None:
        state = self._states.pop(uri, None)
        forget_read_again()  # the output a hover read last may be this document's
        if state is not None:
            state.generation += 1
            if state.task is not None:
                state.task.cancel()
            if not state.ready.done():
                state.ready.set_result(None)

    def latest(self, uri: str) -> DocumentAnalysis | None:
        state = self._states.get(uri)
        return state.latest if state else None

    async def get(self, uri: str, timeout: float = 30.0) -> DocumentAnalysis | None:
        """The analysis of the newest text of ``uri``.

        None for a document that is not open, and, with a log line, when the newest text has no analysis
        (it failed, or took longer than ``timeout``): an older analysis is never passed off as current.
        """
        deadline = time.monotonic() + timeout
        while True:
            state = self._states.get(uri)
            if state is None:
                return None
            future = state.ready
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise asyncio.TimeoutError
                result = await asyncio.wait_for(asyncio.shield(future), remaining)
            except asyncio.TimeoutError:
                log.warning(
                    "no analysis of version %s of %s within %g s: answering without one", state.version, uri, timeout
                )
                return None
            if result is not _SUPERSEDED:
                return result

    async def _run(
        self, uri: str, state: _State, generation: int, text: str | list[str], version: int | None, delay: float
    ) -> None:
        try:
            loop = asyncio.get_running_loop()
            publish_at = loop.time() + delay
            first_read = state.latest is None
            expected = state.expected_seconds
            early = delay > 0 and expected is not None and expected < delay * EARLY_SHARE
            if delay > 0 and not early:
                await asyncio.sleep(delay)
            started = time.perf_counter()
            cache = state.cache

            def stale() -> bool:
                return state.generation != generation

            lines = LinesRead(loop)

            due = [started + self.partial_after]

            def partial(make: Callable[[], RolloutAnalysis]) -> None:  # in the worker thread
                now = time.perf_counter()
                if now < due[0] or stale():
                    return
                due[0] = now + self.partial_every
                known = make()
                loop.call_soon_threadsafe(self._hand_partial, uri, state, generation, version, known, started)

            def work() -> RolloutAnalysis:
                with state.lock:
                    if stale():
                        raise AnalysisCancelled
                    read = split_lines(text) if isinstance(text, str) else text
                    if self.content_decides is not None and self.content_decides(uri) and not looks_like_rollout(read):
                        read = []  # not a rollout: a look at its first lines, not an analysis of all of them
                    result = analyze_lines(
                        read, cache, stale, lines.update, partial if self.on_partial is not None else None
                    )
                    cache.keep_only(result.lines)
                    return result

            running = loop.run_in_executor(self._executor, work)
            if self.progress is not None:
                title = f"Reading {unquote(uri.rsplit('/', 1)[-1])}"
                asyncio.ensure_future(show_progress(self.progress, title, running, lines, self.progress_after))
            analysis = await running
            seconds = time.perf_counter() - started
            if loop.time() < publish_at:  # an early analysis: its diagnostics still wait for the debounce
                await asyncio.sleep(publish_at - loop.time())
        except (asyncio.CancelledError, AnalysisCancelled):
            return
        except Exception:  # one bad document must not take the server down
            log.exception("analysis of version %s of %s failed", version, uri)
            if state.generation == generation and not state.ready.done():
                state.ready.set_result(None)  # requests get no analysis rather than an older one
            return
        if state.generation != generation:
            return
        is_rollout = is_rollout_file(uri, analysis.is_rollout, named=self.is_rollout_path)
        if not is_rollout and (state.latest is None or state.latest.is_rollout):
            log.info(
                "%s is not a Codex rollout (no rollout records in its first 50 lines, and its path "
                "matches no rollout file pattern): no rollout features for it",
                uri,
            )
        result = DocumentAnalysis(uri, version, analysis, is_rollout, seconds)
        state.latest = result
        state.expected_seconds = seconds * EDIT_SHARE if first_read else seconds
        if not state.ready.done():
            state.ready.set_result(result)
        if self.on_ready is not None:
            try:
                await self.on_ready(result)
            except Exception:
                log.exception("publishing the analysis of %s failed", uri)

    def _hand_partial(
        self, uri: str, state: _State, generation: int, version: int | None, known: RolloutAnalysis, started: float
    ) -> None:
        """On the event loop: hand on what an analysis still running knows, unless a newer one has come."""
        if state.generation != generation or state.ready.done() or self.on_partial is None:
            return
        is_rollout = is_rollout_file(uri, known.is_rollout, named=self.is_rollout_path)
        try:
            self.on_partial(
                DocumentAnalysis(uri, version, known, is_rollout, time.perf_counter() - started, complete=False)
            )
        except Exception:
            log.exception("publishing the first findings of %s failed", uri)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
