"""The LSP answers for invocation logs (the ``invocation-log`` kind, :mod:`lsp_server.invocation_links`), and
their part of a rollout's answers.

For a log: an outline of its invocations grouped by tool, a hover per invocation, and definition from an
invocation to the rollout call that made it.  For a rollout linked to logs: its call's hover lists the
invocations they recorded, and definition goes from the call to them.  ``rollout-lsp.linkInvocationLog``
links a log to a rollout, or lets the link be chosen automatically again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.reports.invocations import Invocation

from ..convert import line_range, to_range
from ..invocation_links import InvocationLinks, iso_time, log_name
from ..kinds import INVOCATION_LOG, ROLLOUT
from ..markdown import code_block, escape, for_client, hover_markup, inline_code
from ..names import safe_name
from .base import Feature, lsp_command, lsp_method

if TYPE_CHECKING:
    from ..store import DocumentAnalysis

LINK_LOG = "rollout-lsp.linkInvocationLog"
_NOT_A_SPACE = re.compile(r"[^\S ]")  # tabs and line breaks: an outline name is one line


class InvocationLogFeature(Feature):
    """Outline, hover and definition of invocation logs; a rollout call's invocations; the link command."""

    markup = types.MarkupKind.Markdown

    def __init__(self, server, *, links: InvocationLinks) -> None:
        super().__init__(server)
        self.links = links

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        self.markup = hover_markup(capabilities)  # Markdown, or plain text made from it (plaintext.py)

    # -- outline ----------------------------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list, kinds=(INVOCATION_LOG,))
    async def document_symbols(self, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        """Tools, each with its invocations named as the shell command, in log order."""
        result = await self.server.store.get(params.text_document.uri)
        if result is None:
            return []
        read = self.links.log_of(result)
        encoding = self.server.encoding
        out = []
        for tool in read.tools:
            children = []
            for invocation in (i for i in read.invocations if i.tool == tool):
                rng = to_range(result.analysis, invocation.span, encoding)
                children.append(
                    types.DocumentSymbol(
                        name=self._one_line(invocation.command),
                        kind=types.SymbolKind.Event,
                        range=rng,
                        selection_range=rng,
                        detail=f"exit {invocation.exit} · {iso_time(invocation.ts)}",
                    )
                )
            whole = types.Range(children[0].range.start, children[-1].range.end)
            count = len(children)
            out.append(
                types.DocumentSymbol(
                    name=self._one_line(tool),
                    kind=types.SymbolKind.Module,
                    range=whole,
                    selection_range=children[0].range,
                    detail=f"{count} invocation{'s' if count != 1 else ''}",
                    children=children,
                )
            )
        return out

    def _one_line(self, text: str) -> str:
        text = _NOT_A_SPACE.sub(" ", self.server.masker(text))
        return safe_name(text if len(text) <= 120 else text[:119] + "…")  # nothing invisible (names.py)

    # -- hover ------------------------------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_HOVER, empty=None, kinds=(INVOCATION_LOG,))
    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """Every field of the invocation on the line, its time, and the rollout call that made it."""
        result = await self.server.store.get(params.text_document.uri)
        if result is None:
            return None
        read = self.links.log_of(result)
        invocation = next((i for i in read.invocations if i.line == params.position.line), None)
        if invocation is None:
            return None
        mask = self.server.masker
        parts = [
            f"**{escape(mask(invocation.tool))}** invocation (line {invocation.line + 1})",
            code_block(mask(invocation.command), "sh"),
            "\n".join(
                [
                    f"- ts: {invocation.ts!r} ({iso_time(invocation.ts)})",
                    f"- tool: {inline_code(mask(invocation.tool))}",
                    "- argv: " + (", ".join(inline_code(mask(a)) for a in invocation.argv) or "none"),
                    f"- exit: {invocation.exit}",
                ]
            ),
        ]
        parts.append(self._made_by(result, invocation))
        return types.Hover(
            for_client("\n\n".join(parts), self.markup),
            to_range(result.analysis, invocation.span, self.server.encoding),
        )

    def _made_by(self, result: DocumentAnalysis, invocation: Invocation) -> str:
        link = self.links.link(result)
        if link is None:
            return "no rollout linked: open the rollout of this run"
        name = escape(log_name(link.rollout.uri))
        match = next((m for m in link.match.matches if m.invocation is invocation), None)
        if match is None:
            return f"no command of {name} runs it"
        command = match.command
        shown = command.exit_code
        exit_text = f" · exit {shown}" if shown is not None else ""
        return (
            f"made by line {command.located.line + 1} of {name}: "
            f"{inline_code(self.server.masker(command.line.text))}{exit_text}"
        )

    @lsp_method(types.TEXT_DOCUMENT_HOVER, empty=None, kinds=(ROLLOUT,))
    async def call_invocations(self, params: types.HoverParams) -> types.Hover | None:
        """A section of a rollout call's hover: the invocations the linked logs recorded for it."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return None
        rows = [
            f"- {escape(log_name(link.log_uri))} line {m.invocation.line + 1}: "
            f"{inline_code(self.server.masker(m.invocation.command))} · exit {m.invocation.exit} · "
            f"{iso_time(m.invocation.ts)}"
            for link, m in self.links.invocations_at(result, params.position)
        ]
        return types.Hover(for_client("**invocations**\n\n" + "\n".join(rows), self.markup)) if rows else None

    # -- definition -------------------------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_DEFINITION, empty=list, kinds=(INVOCATION_LOG,))
    async def definition(self, params: types.DefinitionParams) -> list[types.Location]:
        """From an invocation to the rollout call that made it."""
        result = await self.server.store.get(params.text_document.uri)
        if result is None:
            return []
        link = self.links.link(result)
        if link is None:
            return []
        return [
            types.Location(
                link.rollout.uri, to_range(link.rollout.analysis, m.command.located.span, self.server.encoding)
            )
            for m in link.match.matches
            if m.invocation.line == params.position.line
        ]

    @lsp_method(types.TEXT_DOCUMENT_DEFINITION, empty=list, kinds=(ROLLOUT,), first=True)
    async def invocation_locations(self, params: types.DefinitionParams) -> list[types.Location]:
        """From a rollout call to the invocations its commands left in the linked logs (before its output)."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        out = []
        for link, m in self.links.invocations_at(result, params.position):
            log_result = self.server.store.latest(link.log_uri)
            if log_result is not None:
                out.append(
                    types.Location(
                        link.log_uri, line_range(log_result.analysis, m.invocation.line, self.server.encoding)
                    )
                )
        return out

    # -- the command ------------------------------------------------------------------------------------
    @lsp_command(LINK_LOG)
    async def link_command(self, *arguments: Any) -> dict:
        """``[logUri]``: which rollout the log is linked to; ``[logUri, rolloutUri]``: link it to that rollout;
        ``[logUri, null]``: choose automatically again."""
        if (
            not arguments
            or not isinstance(arguments[0], str)
            or (len(arguments) > 1 and arguments[1] is not None and not isinstance(arguments[1], str))
        ):
            raise JsonRpcInvalidParams(f"{LINK_LOG}: expected [log URI, rollout URI or null]")
        log_uri = arguments[0]
        if len(arguments) > 1:
            if arguments[1] is None:
                self.links.named.pop(log_uri, None)
            else:
                self.links.named[log_uri] = arguments[1]
            await self.server.store.get(log_uri)  # (its newest text)
            partners = self.links.relink() | {log_uri}
            self.links.publish({u for u in partners if self.server.store.latest(u) is not None})
        result = self.server.store.latest(log_uri)
        link = self.links.link(result) if result is not None else None
        report: dict[str, Any] = {
            "log": log_uri,
            "rollout": link.rollout.uri if link else self.links.named.get(log_uri),
            "named": log_uri in self.links.named,
        }
        if link is not None:
            report.update(
                matched=len(link.match.matches),
                unexplained=len(link.match.unexplained),
                missing=len(link.match.missing),
            )
        return report


__all__ = ["InvocationLogFeature", "LINK_LOG"]
