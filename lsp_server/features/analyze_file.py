"""``rollout/analyzeFile``: a rollout on disk, for files too large for the editor to open (over 50 MB)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from analysis.session.rollout import analyze_text

from ..access import PathRefused
from ..progress import LinesRead, show_progress
from .base import Feature, lsp_method

ANALYZE_FILE = "rollout/analyzeFile"


class AnalyzeFileFeature(Feature):
    @lsp_method(ANALYZE_FILE)
    async def analyze_file(self, params: Any) -> dict:
        """The outline (calls) and findings of the rollout at ``params.path``, as ``check --json`` shows them.

        Only paths the path rule allows are read (analysis/jsonl/access.py, lsp_server/access.py); any other is refused with an InvalidParams error
        that names the rule.  Commands and paths in the answer are masked like every shown text.
        """
        path = params.get("path") if isinstance(params, dict) else getattr(params, "path", None)
        if not isinstance(path, str):
            raise JsonRpcInvalidParams("params.path must be a file path")
        server = self.server
        try:
            readable = server.paths.check(path, server)
        except PathRefused as refused:
            raise JsonRpcInvalidParams(str(refused)) from None
        encoding, mask, extra = server.encoding, server.masker, server.masker.extra

        def work() -> dict:
            from analysis.jsonl.source import load  # here: the server's start needs neither
            from analysis.reports.report import outline_json

            loaded = load(readable)
            if loaded.error:
                return {"file": path, "error": loaded.error, "calls": [], "diagnostics": []}
            from analysis.session.rollout import LineCache

            analysis = analyze_text(loaded.text, LineCache(extra), None, lines.update)
            out = outline_json(path, analysis, encoding)
            # the view groups calls by turn (the title is the user's message: masked like every shown text)
            out["turns"] = [{"line": t.line, "end_line": t.end_line, "title": mask(t.title)} for t in analysis.turns]
            for call in out["calls"]:
                call["command"] = mask.optional(call["command"])
                call["expansion"] = [mask(c) for c in call["expansion"]] if call["expansion"] else None
            for finding in out["diagnostics"]:
                finding["message"] = mask(finding["message"])
            out["error"] = None
            return out

        loop = asyncio.get_running_loop()
        lines = LinesRead(loop)
        running = loop.run_in_executor(None, work)
        if server.store.progress is not None:  # a file too large to open takes seconds: show it being read
            asyncio.ensure_future(
                show_progress(
                    server.store.progress,
                    f"Reading {Path(path).name}",
                    running,
                    lines,
                    server.store.progress_after,
                    "stopped",
                )
            )
        return await running
