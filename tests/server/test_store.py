"""The analysis store: a superseded analysis never races the newer one, and requests never get a stale one."""

from __future__ import annotations

import asyncio
import threading
import time

import analysis.session.memo as memo  # LineCache.get analyses a line with memo.analyze_line
import lsp_server.store
from analysis.session.rollout import LineCache
from lsp_server.store import EDIT_SHARE, AnalysisStore
from tests.helpers import fixture


async def _opened(uri: str) -> tuple[AnalysisStore, list, str]:
    """A store that records the versions it publishes, with the demo rollout analysed as version 1 of ``uri``."""
    published: list = []

    async def on_ready(result):
        published.append(result.version)

    store = AnalysisStore(on_ready)
    text = fixture("rollout-demo.jsonl")
    store.update(uri, text, 1, 0)
    assert (await store.get(uri)).version == 1
    return store, published, text


async def test_a_superseded_analysis_never_fills_the_cache_while_it_is_pruned(monkeypatch):
    """An analysis of an older version keeps inserting into the document's line cache from its worker thread
    until it next asks whether it is stale; the newer version prunes the same cache.  Pruning iterates the
    cache: with both at once it raised "dictionary changed size during iteration", and that version's
    diagnostics were never published.  Line analyses are slowed down and pruning walks the cache slowly,
    so before the fix the two overlap on every run."""
    inserting = threading.Event()
    original_analyze_line = memo.analyze_line

    def slow_analyze_line(line, extra=(), secrets=True):
        if line.startswith('{"slow"'):
            inserting.set()
            time.sleep(0.002)
        return original_analyze_line(line, extra, secrets)

    def slow_keep_only(self, lines):
        keep = set(lines)
        kept = {}
        for key, value in self._by_text.items():  # the real keep_only iterates like this, only faster
            time.sleep(0.0005)
            if key in keep:
                kept[key] = value
        self._by_text = kept

    monkeypatch.setattr(memo, "analyze_line", slow_analyze_line)
    monkeypatch.setattr(LineCache, "keep_only", slow_keep_only)
    uri = "file:///tmp/rollout-race.jsonl"
    store, published, small = await _opened(uri)
    slow = "".join('{"slow": %d}\n' % n for n in range(600))  # 600 lines × 2 ms: stale is checked every 64
    store.update(uri, small + slow, 2, 0)
    await asyncio.get_running_loop().run_in_executor(None, inserting.wait, 10)
    store.update(uri, small.replace("pytest -q", "pytest -x"), 3, 0)
    result = await store.get(uri)
    assert result is not None and result.version == 3
    assert "pytest -x" in result.analysis.lines[4]
    assert published[-1] == 3 and 2 not in published
    store.shutdown()


async def test_a_failed_analysis_is_not_answered_with_the_previous_one(monkeypatch):
    store = AnalysisStore()
    uri = "file:///tmp/rollout-fails.jsonl"
    store.update(uri, fixture("rollout-demo.jsonl"), 1, 0)
    assert (await store.get(uri)).version == 1

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("lsp_server.store.analyze_lines", broken)
    store.update(uri, fixture("rollout-demo.jsonl") + "\n", 2, 0)
    assert await store.get(uri) is None
    assert store.latest(uri).version == 1  # what is shown stays; it is just not passed off as version 2
    store.shutdown()


async def test_a_request_that_times_out_gets_no_older_analysis(monkeypatch):
    store = AnalysisStore()
    uri = "file:///tmp/rollout-slow.jsonl"
    store.update(uri, fixture("rollout-demo.jsonl"), 1, 0)
    assert (await store.get(uri)).version == 1
    store.update(uri, fixture("rollout-demo.jsonl"), 2, 5)  # debounced for 5 s
    assert await store.get(uri, timeout=0.05) is None
    store.close(uri)
    store.shutdown()


async def _debounced_edit(monkeypatch, expected: float | None, delay: float) -> tuple[float, float, float]:
    """(when the edit was made, when its analysis started, when its diagnostics were published), on the event
    loop's clock, for an edit debounced by ``delay`` whose analysis is expected to take ``expected`` seconds
    (None: as the store expects after the document's first read)."""
    loop = asyncio.get_running_loop()
    published = {}

    async def on_ready(result):
        published[result.version] = loop.time()

    store = AnalysisStore(on_ready)
    uri = "file:///tmp/rollout-debounce.jsonl"
    text = fixture("rollout-demo.jsonl")
    store.update(uri, text, 1, 0)
    assert (await store.get(uri)).version == 1
    if expected is not None:
        store._states[uri].expected_seconds = expected
    started = []
    original = lsp_server.store.analyze_lines

    def recording(*args, **kwargs):
        started.append(time.monotonic())  # the event loop's clock
        return original(*args, **kwargs)

    monkeypatch.setattr(lsp_server.store, "analyze_lines", recording)
    edited_at = loop.time()
    store.update(uri, text.replace("pytest -q", "pytest -x"), 2, delay)
    result = await store.get(uri)
    assert result is not None and result.version == 2 and "pytest -x" in result.analysis.lines[4]
    store.shutdown()
    return edited_at, started[0], published[2]


async def test_a_cheap_analysis_runs_during_the_debounce_and_is_published_when_it_ends(monkeypatch):
    edited, analysed, published = await _debounced_edit(monkeypatch, None, 0.6)
    assert analysed < edited + 0.6  # an edit of this small rollout is expected to be cheap: it ran at once
    assert published >= edited + 0.6  # but its diagnostics waited for the debounce


async def test_a_costly_analysis_waits_for_the_debounce(monkeypatch):
    edited, analysed, published = await _debounced_edit(monkeypatch, 10.0, 0.3)
    assert analysed >= edited + 0.3  # expected to take 10 s: typing must not start one per keystroke
    assert published >= analysed


async def test_an_edit_is_expected_to_cost_a_share_of_the_first_read_then_what_the_last_analysis_took():
    store = AnalysisStore()
    uri = "file:///tmp/rollout-expected.jsonl"
    text = fixture("rollout-demo.jsonl")
    store.update(uri, text, 1, 0)
    first = await store.get(uri)
    assert store._states[uri].expected_seconds == first.seconds * EDIT_SHARE
    store.update(uri, text.replace("pytest -q", "pytest -x"), 2, 0)
    second = await store.get(uri)
    assert second.version == 2 and store._states[uri].expected_seconds == second.seconds
    store.shutdown()


async def test_an_early_analysis_waiting_for_its_debounce_is_never_published_once_a_newer_edit_comes(monkeypatch):
    loop = asyncio.get_running_loop()
    uri = "file:///tmp/rollout-early.jsonl"
    store, published, text = await _opened(uri)
    analysed = asyncio.Event()
    original = lsp_server.store.analyze_lines

    def recording(*args, **kwargs):
        result = original(*args, **kwargs)
        loop.call_soon_threadsafe(analysed.set)
        return result

    monkeypatch.setattr(lsp_server.store, "analyze_lines", recording)
    store.update(uri, text.replace("pytest -q", "pytest -x"), 2, 0.5)
    await asyncio.wait_for(analysed.wait(), 5)  # version 2 is analysed and waits for its debounce
    store.update(uri, text.replace("pytest -q", "pytest -k"), 3, 0.5)
    result = await store.get(uri)
    assert result.version == 3 and "pytest -k" in result.analysis.lines[4]
    await asyncio.sleep(0.6)  # past version 2's debounce
    assert published == [1, 3]
    store.shutdown()
