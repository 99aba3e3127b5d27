"""``rollout-lsp.export [uri, format, redact]``: the open rollout as a Markdown or HTML document
(:mod:`analysis.reports.export`), for an editor to save.  Secrets are redacted unless ``redact`` is false."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from .base import Feature, lsp_command

EXPORT = "rollout-lsp.export"


class ExportFeature(Feature):
    @lsp_command(EXPORT)
    async def export_command(self, *arguments: Any) -> dict | None:
        """``{"text", "format", "name"}``: the document, and a file name to suggest."""
        from analysis.reports.export import FORMATS, ExportOptions, export  # here: the server's start needs none

        if not arguments or not isinstance(arguments[0], str):
            raise JsonRpcInvalidParams(f'{EXPORT}: expected [document URI, "md" or "html", redact]')
        uri = arguments[0]
        fmt = arguments[1] if len(arguments) > 1 else "md"
        redact = arguments[2] if len(arguments) > 2 else True
        if fmt not in FORMATS or not isinstance(redact, bool):
            raise JsonRpcInvalidParams(f'{EXPORT}: the format is "md" or "html", redact true or false')
        result = await self.rollout(uri)
        if result is None:
            return None
        path = to_fs_path(uri) or uri
        options = ExportOptions(
            redact=redact,
            output_lines=max(1, self.server.settings.hover_output_lines),
            extra_secrets=self.server.settings.compiled_secret_patterns(),
        )
        name = Path(path).name.removesuffix(".zst").removesuffix(".jsonl") + (".md" if fmt == "md" else ".html")
        return {"text": export(result.analysis, path, fmt, options), "format": fmt, "name": name}
