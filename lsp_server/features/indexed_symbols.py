"""Workspace symbols from the session index (``rollout-lsp index``): the calls of every indexed rollout,
beside those of the open documents, whose newer state takes precedence (their files' index hits are left out).

The index is only read here, in a worker thread, with a short lock timeout; a missing, locked or corrupt
index is logged once and answers nothing, so the open documents' symbols still come."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.index import Hit, IndexUnavailable, RolloutIndex, default_db_path
from analysis.positions import PositionEncoding

log = logging.getLogger("rollout_lsp")
_KINDS = {"command": types.SymbolKind.Event, "patch": types.SymbolKind.File}


class IndexedSymbols:
    def __init__(self) -> None:
        self._reported: str | None = None  # the last problem logged, so a broken index is not logged per key

    async def workspace_symbols(self, query: str, open_uris: list[str], encoding: PositionEncoding,
                                limit: int) -> list[types.WorkspaceSymbol]:
        """Index hits for ``query`` outside the open documents; nothing for an empty query (every call of
        every session is no answer)."""
        if not query.strip() or limit <= 0:
            return []
        exclude = frozenset(p for p in (_path_of(u) for u in open_uris) if p)
        hits = await asyncio.get_running_loop().run_in_executor(None, self._search, query, exclude, limit)
        return [self.symbol(hit, encoding) for hit in hits]

    def _search(self, query: str, exclude: frozenset[str], limit: int) -> list[Hit]:
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
        return hits

    @staticmethod
    def symbol(hit: Hit, encoding: PositionEncoding) -> types.WorkspaceSymbol:
        name = " ".join(hit.text.split()) or hit.tool or "call"
        name = name if len(name) <= 120 else name[:119] + "…"
        where = [hit.session_id or os.path.basename(hit.path), f"line {hit.line + 1}"]
        if hit.turn_title:
            title = " ".join(hit.turn_title.split())
            where.append(title if len(title) <= 60 else title[:59] + "…")
        start, end = hit.columns[encoding.value]
        rng = types.Range(types.Position(hit.line, start), types.Position(hit.line, end))
        return types.WorkspaceSymbol(name=name, kind=_KINDS.get(hit.kind, types.SymbolKind.Method),
                                     location=types.Location(Path(hit.path).as_uri(), rng),
                                     container_name=" · ".join(where),
                                     tags=[types.SymbolTag.Deprecated] if hit.executed == "no" else None)


def _path_of(uri: str) -> str | None:
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None
