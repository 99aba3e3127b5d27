"""Workspace symbols from the session index (``rollout-lsp index``): the calls of every indexed rollout,
beside those of the open documents, whose newer state takes precedence (their files' index hits are left out).

The index is only read here, in a worker thread, with a short lock timeout; a missing, locked or corrupt
index is logged once and answers nothing, so the open documents' symbols still come.  An index that answers
is kept fresh: after a query, at most every :data:`REFRESH_SECONDS` (``$ROLLOUT_LSP_INDEX_REFRESH``; 0: never),
``rollout-lsp index`` runs again in a
process of its own at low priority (no analysis competes with the editor's requests in this one), reading
only what changed in the folders indexed before."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.jsonl.positions import PositionEncoding
from analysis.reports.spread import PARENT_ENV
from analysis.session.labels import DEAD, FAILED, exit_outcome
from analysis.session.thread_names import name_of

if TYPE_CHECKING:  # the session index (its process pool, its readers) is imported at the first query, not at start
    from analysis.reports.index import Hit

log = logging.getLogger("rollout_lsp")
_KINDS = {"command": types.SymbolKind.Event, "patch": types.SymbolKind.File}
REFRESH_ENV = "ROLLOUT_LSP_INDEX_REFRESH"  # seconds between background refreshes; 0 turns them off
REFRESH_SECONDS = 600.0


class IndexedSymbols:
    def __init__(self) -> None:
        self._reported: str | None = None  # the last problem logged, so a broken index is not logged per key
        self._refresh: subprocess.Popen | None = None
        self._refreshed_at = float("-inf")
        self._lock = threading.Lock()

    async def workspace_symbols(
        self, query: str, open_uris: list[str], encoding: PositionEncoding, limit: int, mask: Callable[[str], str] = str
    ) -> list[types.WorkspaceSymbol]:
        """Index hits for ``query`` outside the open documents; nothing for an empty query (every call of
        every session is no answer).  The index holds text redacted with the built-in secret patterns;
        ``mask`` adds the configured ones to what is shown."""
        if not query.strip() or limit <= 0:
            return []
        exclude = frozenset(p for p in (_path_of(u) for u in open_uris) if p)
        loop = asyncio.get_running_loop()
        sessions = await loop.run_in_executor(None, indexed_sessions, query, exclude, limit, mask)
        hits = await loop.run_in_executor(None, self._search, query, exclude, limit - len(sessions))
        return sessions + [self.symbol(hit, encoding, mask) for hit in hits]

    def _search(self, query: str, exclude: frozenset[str], limit: int) -> list[Hit]:
        from analysis.reports.index import IndexUnavailable, RolloutIndex, default_db_path

        path = default_db_path()
        if not path.is_file():
            return []
        try:
            with RolloutIndex.open_existing(path, timeout=0.5) as index:
                hits = index.search(query, limit=limit, exclude_paths=exclude)
        except IndexUnavailable as error:
            if str(error) != self._reported:
                self._reported = str(error)
                log.warning("workspace symbols without the session index: %s", error)
            return []
        self._reported = None
        self._refresh_if_stale(path)
        return hits

    def _refresh_if_stale(self, path: Path) -> None:
        with self._lock:  # queries run in worker threads
            self._start_refresh(path)

    def _start_refresh(self, path: Path) -> None:
        """Start ``rollout-lsp index`` on ``path`` unless one is running or one started recently."""
        if self._refresh is not None and self._refresh.poll() is None:
            return
        every = _refresh_seconds()
        if every <= 0 or time.monotonic() - self._refreshed_at < every:
            return
        self._refreshed_at = time.monotonic()
        command = [sys.executable, "-m", "lsp_server", "index", "--db", str(path), "--timeout", "60"]
        try:
            self._refresh = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env={**os.environ, PARENT_ENV: str(os.getpid())},  # it dies with this server (reports/spread.py)
                cwd=Path(__file__).resolve().parents[2],
            )  # where `analysis` is
        except OSError as error:
            log.warning("cannot refresh the session index: %s", error)
            return
        try:
            os.setpriority(os.PRIO_PROCESS, self._refresh.pid, 10)  # behind the editor and this server
        except (AttributeError, OSError):
            pass
        log.info("refreshing the session index %s in the background (pid %d)", path, self._refresh.pid)
        threading.Thread(target=self._refresh.wait, daemon=True).start()  # reaped when it ends

    @staticmethod
    def symbol(hit: Hit, encoding: PositionEncoding, mask: Callable[[str], str] = str) -> types.WorkspaceSymbol:
        text = " ".join(mask(hit.text).split())
        name = f"{hit.tool}: {text}" if hit.tool and text and text != hit.tool else text or hit.tool or "call"
        outcome = (
            DEAD
            if hit.executed == "no"
            else exit_outcome(hit.exit_code)
            if hit.exit_code not in (None, 0)
            else FAILED
            if hit.status == "failed"
            else None
        )  # as the Outline of an open rollout marks it
        name = (outcome.mark if outcome else "") + name
        name = name if len(name) <= 120 else name[:119] + "…"
        where = [hit.session_id or os.path.basename(hit.path), f"line {hit.line + 1}"]
        if hit.turn_title:
            title = " ".join(mask(hit.turn_title).split())
            where.append(title if len(title) <= 60 else title[:59] + "…")
        start, end = hit.columns[encoding.value]
        rng = types.Range(types.Position(hit.line, start), types.Position(hit.line, end))
        return types.WorkspaceSymbol(
            name=name,
            kind=_KINDS.get(hit.kind, types.SymbolKind.Method),
            location=types.Location(Path(hit.path).as_uri(), rng),
            container_name=" · ".join(where),
            tags=[types.SymbolTag.Deprecated] if hit.executed == "no" else None,
        )


def indexed_sessions(
    query: str, exclude: frozenset[str], limit: int, mask: Callable[[str], str] = str
) -> list[types.WorkspaceSymbol]:
    """Indexed sessions (outside the open documents) whose thread name (session_index.jsonl) or first request
    contains ``query`` (case-insensitive), newest first: a symbol at the rollout's first line."""
    from analysis.reports.index import IndexUnavailable, RolloutIndex, default_db_path

    path = default_db_path()
    needle = query.strip().lower()
    if not needle or limit <= 0 or not path.is_file():
        return []
    try:
        with RolloutIndex.open_existing(path, timeout=0.5) as index:
            rows = index.db.execute(
                "SELECT path, session_id, request, coalesce(started, session_time) FROM files "
                "WHERE skipped IS NULL AND error IS NULL AND session_id IS NOT NULL ORDER BY 4 DESC"
            ).fetchall()
    except (IndexUnavailable, sqlite3.Error):
        return []
    out = []
    for rollout, session_id, request, started in rows:
        if rollout in exclude:
            continue
        named = name_of(rollout, session_id)
        words = " ".join(mask(request or "").split())
        if not ((named and needle in named.lower()) or needle in words.lower()):
            continue
        label = named or words or session_id
        label = label if len(label) <= 100 else label[:99] + "…"
        start = types.Position(0, 0)
        out.append(
            types.WorkspaceSymbol(
                name=f"session: {label}",
                kind=types.SymbolKind.Module,
                location=types.Location(Path(rollout).as_uri(), types.Range(start, start)),
                container_name=" · ".join(x for x in (session_id, started) if x),
            )
        )
        if len(out) >= limit:
            break
    return out


def _refresh_seconds() -> float:
    try:
        return float(os.environ.get(REFRESH_ENV, REFRESH_SECONDS))
    except ValueError:
        return REFRESH_SECONDS


def _path_of(uri: str) -> str | None:
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None
