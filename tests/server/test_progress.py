"""Work-done progress for long analyses: the store's reports, and the `$/progress` a client receives."""

from __future__ import annotations

import asyncio
import time

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

import analysis.session.memo as memo  # LineCache.get analyses a line with memo.analyze_line
from lsp_server.store import AnalysisStore
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, push_capabilities, start


class RecordingSink:
    """A ProgressSink that records what the store shows; ``on_begin`` runs when progress begins."""

    def __init__(self, on_begin=None) -> None:
        self.events: list[tuple] = []
        self.on_begin = on_begin

    async def begin(self, title, percentage, message):
        self.events.append(("begin", title, percentage))
        if self.on_begin is not None:
            self.on_begin()
        return "token"

    def report(self, handle, percentage, message):
        assert handle == "token"
        self.events.append(("report", percentage, message))

    def end(self, handle, message):
        assert handle == "token"
        self.events.append(("end", message))


def slow_lines(monkeypatch, count: int) -> str:
    """``count`` distinct lines whose analysis takes 1 ms each, so the analysis outlasts its first reports."""
    original = memo.analyze_line

    def slow_analyze_line(line, extra=(), secrets=True):
        if line.startswith('{"slow"'):
            time.sleep(0.001)
        return original(line, extra, secrets)

    monkeypatch.setattr(memo, "analyze_line", slow_analyze_line)
    return "".join('{"slow": %d}\n' % n for n in range(count))


async def test_a_long_analysis_reports_growing_percentages_then_ends(monkeypatch):
    text = fixture("rollout-demo.jsonl") + slow_lines(monkeypatch, 1280)
    total = len(text.split("\n"))
    store = AnalysisStore()
    store.progress = sink = RecordingSink()
    store.progress_after = 0
    uri = "file:///tmp/rollout-2026%20big.jsonl"
    store.update(uri, text, 1, 0)
    result = await store.get(uri)
    assert result is not None and result.version == 1
    for _ in range(100):  # the end is sent by its own task, right after the analysis
        if sink.events and sink.events[-1][0] == "end":
            break
        await asyncio.sleep(0.01)
    begin, *reports, end = sink.events
    assert begin[:2] == ("begin", "Reading rollout-2026 big.jsonl")
    assert end == ("end", f"{total:,} lines read")
    assert reports, "a 1.3 s analysis reports at least once"
    percentages = [begin[2]] + [r[1] for r in reports]
    assert all(a < b for a, b in zip(percentages, percentages[1:])), percentages
    assert all(0 < p < 100 for p in percentages[1:])
    assert all(r[2].endswith(f" of {total:,} lines") for r in reports)
    store.shutdown()


async def test_a_quick_analysis_shows_no_progress():
    store = AnalysisStore()
    store.progress = sink = RecordingSink()  # the default threshold, half a second
    store.update("file:///tmp/rollout-demo.jsonl", fixture("rollout-demo.jsonl"), 1, 0)
    assert (await store.get("file:///tmp/rollout-demo.jsonl")) is not None
    await asyncio.sleep(0.05)
    assert sink.events == []
    store.shutdown()


async def test_progress_of_a_superseded_analysis_ends_as_stopped(monkeypatch):
    text = slow_lines(monkeypatch, 2000)
    uri = "file:///tmp/rollout-edit.jsonl"
    store = AnalysisStore()
    store.progress_after = 0
    newer = fixture("rollout-demo.jsonl")
    store.progress = sink = RecordingSink(on_begin=lambda: store.update(uri, newer, 2, 0))
    store.update(uri, text, 1, 0)
    result = await store.get(uri)
    assert result is not None and result.version == 2
    for _ in range(100):
        if ("end", "stopped: a newer version came") in sink.events:
            break
        await asyncio.sleep(0.01)
    assert sink.events[0][:2] == ("begin", "Reading rollout-edit.jsonl")
    assert sink.events[-1] == ("end", "stopped: a newer version came")
    store.shutdown()


PROGRESS_NOW = ClientServerConfig(
    server_command=SERVER.server_command, server_env={**SERVER.server_env, "ROLLOUT_LSP_PROGRESS_AFTER": "0"}
)


@pytest_lsp.fixture(config=PROGRESS_NOW)
async def progress_client(lsp_client: LanguageClient):
    capabilities = push_capabilities()
    capabilities.window.work_done_progress = True
    await start(lsp_client, capabilities)
    yield
    await lsp_client.shutdown_session()


def large_rollout() -> str:
    """The demo rollout repeated with distinct call ids: about 1.5 MB, several thousand lines to read."""
    demo = fixture("rollout-demo.jsonl")
    return "".join(demo.replace('"call_demo', f'"call_{n}_demo') for n in range(500))


async def test_the_client_receives_begin_report_end_with_growing_percentages(progress_client: LanguageClient):
    text = large_rollout()
    total = len(text.split("\n"))
    uri = "file:///tmp/rollout-2026-11-30T12-00-00-large.jsonl"
    open_text(progress_client, uri, text)
    await diagnostics_of(progress_client, uri, timeout=120)
    deadline = asyncio.get_running_loop().time() + 30
    while not any(isinstance(v[-1], types.WorkDoneProgressEnd) for v in progress_client.progress_reports.values() if v):
        assert asyncio.get_running_loop().time() < deadline, progress_client.progress_reports
        await asyncio.sleep(0.01)
    [(token, values)] = progress_client.progress_reports.items()
    assert token.startswith("rollout-lsp/analysis/")
    begin, *reports, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.title == f"Reading {uri.rsplit('/', 1)[-1]}"
    assert begin.cancellable is False
    assert all(isinstance(r, types.WorkDoneProgressReport) for r in reports)
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == f"{total:,} lines read"
    percentages = [begin.percentage] + [r.percentage for r in reports]
    assert all(a < b for a, b in zip(percentages, percentages[1:])), percentages
    assert reports and reports[-1].percentage < 100


@pytest_lsp.fixture(config=PROGRESS_NOW)
async def client(lsp_client: LanguageClient):
    await start(lsp_client, push_capabilities())  # no window.workDoneProgress
    yield
    await lsp_client.shutdown_session()


async def test_no_progress_without_the_capability(client: LanguageClient):
    open_text(client, "file:///tmp/rollout-2026-11-30T12-00-00-small.jsonl", large_rollout())
    await diagnostics_of(client, "file:///tmp/rollout-2026-11-30T12-00-00-small.jsonl", timeout=120)
    assert client.progress_reports == {}


async def test_reading_a_file_from_disk_reports_progress(progress_client: LanguageClient, tmp_path):
    """`rollout/analyzeFile` (the large-rollout view) shows the file being read, too."""
    text = large_rollout()
    path = tmp_path / "rollout-2026-11-30T12-00-00-on-disk.jsonl"
    path.write_text(text, encoding="utf-8")
    result = await progress_client.protocol.send_request_async("rollout/analyzeFile", {"path": str(path)})
    assert len(result.calls) == 500 * 5
    deadline = asyncio.get_running_loop().time() + 30
    while not any(
        v and isinstance(v[-1], types.WorkDoneProgressEnd) for v in progress_client.progress_reports.values()
    ):
        assert asyncio.get_running_loop().time() < deadline, progress_client.progress_reports
        await asyncio.sleep(0.01)
    [values] = progress_client.progress_reports.values()
    begin, *reports, end = values
    assert begin.title == f"Reading {path.name}"
    assert end.message == f"{len(text.split(chr(10))):,} lines read"
    percentages = [begin.percentage] + [r.percentage for r in reports]
    assert all(a < b for a, b in zip(percentages, percentages[1:])), percentages
