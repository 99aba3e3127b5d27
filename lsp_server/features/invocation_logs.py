"""Invocation logs of recording shims (``cli_mocks/calls.jsonl``) as documents, linked to the rollout of the run.

A document whose path matches the ``invocationLogs`` patterns is a log: it gets the log's findings as
diagnostics, an outline of its invocations grouped by tool, and a hover per invocation.  Each open log is
linked to one open rollout, the rollout named by ``rollout-lsp.linkInvocationLog`` or else the open rollout
whose commands explain the most invocations (ties go to the most recently opened; a rollout that runs no
recorded tool is never chosen), and matched with it (:func:`analysis.reports.invocations.match_invocations`):
definition goes from an invocation to the rollout call that made it and back, the hover of a rollout call
lists its invocations, and the match's findings are published on both documents.  When either document
changes, both are published again.

The log is read from the store's analysis of the same text (its lines), so a log's findings always belong to
the version they are published with, and every computed log and match is kept until that analysis changes.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.jsonl.findings import EXIT_MISMATCH, Finding
from analysis.reports.invocations import (Invocation, InvocationLog, MatchResult, RolloutCommand, match_invocations,
                                  read_invocation_log, rollout_commands)
from analysis.jsonl.positions import LineColumns

from ..convert import line_range, to_diagnostic, to_range
from ..markdown import code_block, escape, inline_code
from .base import Feature, lsp_command
from ..calls import call_at

if TYPE_CHECKING:
    from ..store import DocumentAnalysis

LINK_LOG = "rollout-lsp.linkInvocationLog"
_NOT_A_SPACE = re.compile(r"[^\S ]")  # tabs and line breaks: an outline name is one line


def iso_time(ts: float) -> str:
    """A shim's ``ts`` (seconds since the epoch) as ISO 8601 UTC: ``2026-11-30T12:01:02.345Z``."""
    try:
        return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, ValueError, OSError):
        return "out of range"


@dataclass(frozen=True)
class Link:
    """An open log, the open rollout it is linked to, and their match."""

    log_uri: str
    rollout: "DocumentAnalysis"
    match: MatchResult
    named: bool  # by the command, not chosen automatically


class InvocationLogFeature(Feature):
    """Invocation logs as documents, linked to the rollout of the same run."""

    markup = types.MarkupKind.Markdown

    def __init__(self, server) -> None:
        super().__init__(server)
        self.named: dict[str, str] = {}  # log URI → the rollout URI the command linked it to
        self._logs: dict[str, tuple[Any, InvocationLog]] = {}  # log URI → (its analysis, the log read from it)
        self._matches: dict[tuple[str, str], tuple[Any, Any, MatchResult]] = {}
        self._commands: dict[str, tuple[Any, list[RolloutCommand]]] = {}  # rollout URI → (analysis, commands)
        self._linked: dict[str, str | None] = {}  # log URI → rollout URI, as last published
        self.republish: Callable[[set[str]], None] = lambda uris: None  # set by lsp_server.server

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        hover = capabilities.text_document.hover if capabilities.text_document else None
        formats = hover.content_format if hover else None
        self.markup = types.MarkupKind.PlainText if formats and types.MarkupKind.Markdown not in formats \
            else types.MarkupKind.Markdown

    # -- which documents, which link ------------------------------------------------------------------
    def is_log(self, uri: str) -> bool:
        return self.server.settings.is_invocation_log_path(uri)

    def log_of(self, result: "DocumentAnalysis") -> InvocationLog:
        """The log read from an analysis's text (once per analysis)."""
        cached = self._logs.get(result.uri)
        if cached is not None and cached[0] is result:
            return cached[1]
        read = read_invocation_log("\n".join(result.analysis.lines))
        self._logs[result.uri] = (result, read)
        return read

    def match(self, rollout: "DocumentAnalysis", log_result: "DocumentAnalysis") -> MatchResult:
        key = (rollout.uri, log_result.uri)
        cached = self._matches.get(key)
        if cached is not None and cached[0] is rollout and cached[1] is log_result:
            return cached[2]
        found = match_invocations(rollout.analysis, self.log_of(log_result), self.commands_of(rollout))
        self._matches[key] = (rollout, log_result, found)
        return found

    def commands_of(self, rollout: "DocumentAnalysis") -> list[RolloutCommand]:
        """Every command of a rollout, split as a shell splits it (once per analysis)."""
        cached = self._commands.get(rollout.uri)
        if cached is not None and cached[0] is rollout:
            return cached[1]
        commands = rollout_commands(rollout.analysis)
        self._commands[rollout.uri] = (rollout, commands)
        return commands

    async def prepare(self, result: "DocumentAnalysis") -> None:
        """Before a document's diagnostics: split the commands of the rollouts a log may be matched with in a
        worker thread (seconds on a rollout of thousands of commands), and only while a log is open."""
        if not any(self.is_log(u) for u in self.server.store.uris):
            return
        rollouts = self.open_rollouts() if self.is_log(result.uri) else [result] if result.is_rollout else []
        for rollout in rollouts:
            cached = self._commands.get(rollout.uri)
            if cached is None or cached[0] is not rollout:
                commands = await asyncio.to_thread(rollout_commands, rollout.analysis)
                self._commands[rollout.uri] = (rollout, commands)

    def open_logs(self) -> list["DocumentAnalysis"]:
        store = self.server.store
        return [r for r in (store.latest(u) for u in store.uris if self.is_log(u)) if r is not None]

    def open_rollouts(self) -> list["DocumentAnalysis"]:
        """Open rollouts with an analysis, in the order they were opened."""
        store = self.server.store
        return [r for r in (store.latest(u) for u in store.uris if not self.is_log(u))
                if r is not None and r.is_rollout]

    def link(self, log_result: "DocumentAnalysis") -> Link | None:
        """The rollout a log is linked to: the one the command named, else the open rollout whose commands
        explain the most invocations (ties: the most recently opened), among those running a recorded tool."""
        named = self.named.get(log_result.uri)
        if named is not None:
            rollout = self.server.store.latest(named)
            if rollout is None or not rollout.is_rollout:
                return None
            return Link(log_result.uri, rollout, self.match(rollout, log_result), True)
        best: Link | None = None
        for rollout in self.open_rollouts():
            found = self.match(rollout, log_result)
            if not found.matches and not found.missing:  # runs no tool the log recorded: another run's rollout
                continue
            if best is None or len(found.matches) >= len(best.match.matches):
                best = Link(log_result.uri, rollout, found, False)
        return best

    def links_to(self, rollout_uri: str) -> list[Link]:
        """The open logs linked to a rollout."""
        return [link for link in (self.link(r) for r in self.open_logs())
                if link is not None and link.rollout.uri == rollout_uri]

    # -- diagnostics ------------------------------------------------------------------------------------
    def diagnostics(self, result: "DocumentAnalysis") -> list[types.Diagnostic]:
        """A log's findings and its match's; for a rollout, the commands its linked logs did not record."""
        if self.is_log(result.uri):
            return self.log_diagnostics(result)
        if not result.is_rollout:
            return []
        out = []
        for link in self.links_to(result.uri):
            for finding in link.match.rollout_findings():
                diagnostic = self._diagnostic(result, finding)
                if diagnostic is not None:
                    diagnostic.related_information = (diagnostic.related_information or []) + [
                        types.DiagnosticRelatedInformation(
                            types.Location(link.log_uri, types.Range(types.Position(0, 0), types.Position(0, 0))),
                            f"the invocation log {_name(link.log_uri)}")]
                    out.append(diagnostic)
        return out

    def log_diagnostics(self, result: "DocumentAnalysis") -> list[types.Diagnostic]:
        read = self.log_of(result)
        findings = list(read.findings)
        link = self.link(result)
        made_by = {}
        if link is not None:
            findings += link.match.log_findings()
            made_by = {m.invocation.line: m for m in link.match.matches}
        findings.sort(key=lambda f: (f.span.line, f.span.start, f.code))
        out = []
        for finding in findings:
            diagnostic = self._diagnostic(result, finding)
            if diagnostic is None:
                continue
            match = made_by.get(finding.span.line) if finding.code == EXIT_MISMATCH else None
            if match is not None and link is not None:
                located = match.command.located
                diagnostic.related_information = (diagnostic.related_information or []) + [
                    types.DiagnosticRelatedInformation(
                        types.Location(link.rollout.uri, to_range(link.rollout.analysis, located.span,
                                                                   self.server.encoding)),
                        f"the command that made it (line {located.line + 1} of {_name(link.rollout.uri)})")]
            out.append(diagnostic)
        return out

    def _diagnostic(self, result: "DocumentAnalysis", finding: Finding) -> types.Diagnostic | None:
        server = self.server
        return to_diagnostic(result.analysis, finding, result.uri, server.encoding, server.settings.severity,
                             server.masker, result.version)

    async def analysis_ready(self, result: "DocumentAnalysis") -> None:
        """A document has new diagnostics: publish again those of the documents linked with it."""
        if self.is_log(result.uri):
            partners = self.relink()
            link = self.link(result)
            if link is not None:
                partners.add(link.rollout.uri)
        elif result.is_rollout:
            partners = self.relink() | {r.uri for r in self.open_logs()}
        else:
            return
        partners.discard(result.uri)
        self.publish(partners)

    def closed(self, uri: str) -> None:
        """A document closed (and left the store): its partners lose their link findings."""
        self._logs.pop(uri, None)  # (a named link stays: it applies again when the documents reopen)
        self._commands.pop(uri, None)
        for key in [k for k in self._matches if uri in k]:
            del self._matches[key]
        partners = self.relink()
        if not self.is_log(uri):
            partners |= {r.uri for r in self.open_logs()}
        partners.discard(uri)
        self.publish(partners)

    def relink(self) -> set[str]:
        """Link every open log again; the rollouts whose logs changed."""
        current = {}
        for log_result in self.open_logs():
            link = self.link(log_result)
            current[log_result.uri] = link.rollout.uri if link is not None else None
        changed: set[str] = set()
        for uri in set(current) | set(self._linked):
            old, new = self._linked.get(uri), current.get(uri)
            if old != new:
                changed |= {u for u in (old, new) if u is not None}
        self._linked = current
        return changed

    def publish(self, uris: set[str]) -> None:
        """Publish again the diagnostics of ``uris`` (linking changed them), through the diagnostics feature
        (:meth:`~lsp_server.features.diagnostics.DiagnosticsFeature.republish`, wired by the server)."""
        if uris:
            self.republish(uris)

    # -- outline ----------------------------------------------------------------------------------------
    async def document_symbols(self, uri: str) -> list[types.DocumentSymbol]:
        """Tools, each with its invocations named as the shell command, in log order."""
        result = await self.server.store.get(uri)
        if result is None:
            return []
        read = self.log_of(result)
        encoding = self.server.encoding
        out = []
        for tool in read.tools:
            children = []
            for invocation in (i for i in read.invocations if i.tool == tool):
                rng = to_range(result.analysis, invocation.span, encoding)
                children.append(types.DocumentSymbol(
                    name=self._one_line(invocation.command), kind=types.SymbolKind.Event, range=rng,
                    selection_range=rng, detail=f"exit {invocation.exit} · {iso_time(invocation.ts)}"))
            whole = types.Range(children[0].range.start, children[-1].range.end)
            count = len(children)
            out.append(types.DocumentSymbol(
                name=self._one_line(tool), kind=types.SymbolKind.Module, range=whole,
                selection_range=children[0].range, detail=f"{count} invocation{'s' if count != 1 else ''}",
                children=children))
        return out

    def _one_line(self, text: str) -> str:
        text = _NOT_A_SPACE.sub(" ", self.server.masker(text))
        return text if len(text) <= 120 else text[:119] + "…"

    # -- hover ------------------------------------------------------------------------------------------
    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """Every field of the invocation on the line, its time, and the rollout call that made it."""
        result = await self.server.store.get(params.text_document.uri)
        if result is None:
            return None
        read = self.log_of(result)
        invocation = next((i for i in read.invocations if i.line == params.position.line), None)
        if invocation is None:
            return None
        mask = self.server.masker
        parts = [f"**{escape(mask(invocation.tool))}** invocation (line {invocation.line + 1})",
                 code_block(mask(invocation.command), "sh"),
                 "\n".join([f"- ts: {invocation.ts!r} ({iso_time(invocation.ts)})",
                            f"- tool: {inline_code(mask(invocation.tool))}",
                            "- argv: " + (", ".join(inline_code(mask(a)) for a in invocation.argv) or "none"),
                            f"- exit: {invocation.exit}"])]
        parts.append(self._made_by(result, invocation))
        return types.Hover(types.MarkupContent(self.markup, "\n\n".join(parts)),
                           to_range(result.analysis, invocation.span, self.server.encoding))

    def _made_by(self, result: "DocumentAnalysis", invocation: Invocation) -> str:
        link = self.link(result)
        if link is None:
            return "no rollout linked: open the rollout of this run"
        name = escape(_name(link.rollout.uri))
        match = next((m for m in link.match.matches if m.invocation is invocation), None)
        if match is None:
            return f"no command of {name} runs it"
        command = match.command
        shown = command.exit_code
        exit_text = f" · exit {shown}" if shown is not None else ""
        return f"made by line {command.located.line + 1} of {name}: " \
               f"{inline_code(self.server.masker(command.line.text))}{exit_text}"

    def with_invocations(self, hover: types.Hover | None, result: "DocumentAnalysis | None",
                         position: types.Position) -> types.Hover | None:
        """A rollout call's hover, with the invocations the linked logs recorded for it."""
        if hover is None or result is None or not isinstance(hover.contents, types.MarkupContent):
            return hover
        rows = [f"- {escape(_name(link.log_uri))} line {m.invocation.line + 1}: "
                f"{inline_code(self.server.masker(m.invocation.command))} · exit {m.invocation.exit} · "
                f"{iso_time(m.invocation.ts)}"
                for link, m in self._invocations_at(result, position)]
        if rows:
            hover.contents.value += "\n\n**invocations**\n\n" + "\n".join(rows)
        return hover

    def _invocations_at(self, result: "DocumentAnalysis", position: types.Position) -> list:
        analysis = result.analysis
        line = position.line
        if not 0 <= line < len(analysis.lines) or not analysis.calls_on(line):
            return []
        column = LineColumns(analysis.lines[line]).from_units(position.character, self.server.encoding)
        located = call_at(analysis, line, column)
        if located is None:
            return []
        return [(link, m) for link in self.links_to(result.uri)
                for m in link.match.matches_of_call(located.line, located.index)]

    # -- definition -------------------------------------------------------------------------------------
    async def definition(self, params: types.DefinitionParams) -> list[types.Location]:
        """From an invocation to the rollout call that made it."""
        result = await self.server.store.get(params.text_document.uri)
        if result is None:
            return []
        link = self.link(result)
        if link is None:
            return []
        return [types.Location(link.rollout.uri, to_range(link.rollout.analysis, m.command.located.span,
                                                          self.server.encoding))
                for m in link.match.matches if m.invocation.line == params.position.line]

    def invocation_locations(self, result: "DocumentAnalysis", position: types.Position) -> list[types.Location]:
        """From a rollout call to the invocations its commands left in the linked logs."""
        out = []
        for link, m in self._invocations_at(result, position):
            log_result = self.server.store.latest(link.log_uri)
            if log_result is not None:
                out.append(types.Location(link.log_uri, line_range(log_result.analysis, m.invocation.line,
                                                                   self.server.encoding)))
        return out

    # -- the command ------------------------------------------------------------------------------------
    @lsp_command(LINK_LOG)
    async def link_command(self, *arguments: Any) -> dict:
        """``[logUri]``: which rollout the log is linked to; ``[logUri, rolloutUri]``: link it to that rollout;
        ``[logUri, null]``: choose automatically again."""
        if not arguments or not isinstance(arguments[0], str) or \
                (len(arguments) > 1 and arguments[1] is not None and not isinstance(arguments[1], str)):
            raise JsonRpcInvalidParams(f"{LINK_LOG}: expected [log URI, rollout URI or null]")
        log_uri = arguments[0]
        if len(arguments) > 1:
            if arguments[1] is None:
                self.named.pop(log_uri, None)
            else:
                self.named[log_uri] = arguments[1]
            await self.server.store.get(log_uri)  # (its newest text)
            partners = self.relink() | {log_uri}
            self.publish({u for u in partners if self.server.store.latest(u) is not None})
        result = self.server.store.latest(log_uri)
        link = self.link(result) if result is not None else None
        report: dict[str, Any] = {"log": log_uri, "rollout": link.rollout.uri if link else self.named.get(log_uri),
                                  "named": log_uri in self.named}
        if link is not None:
            report.update(matched=len(link.match.matches), unexplained=len(link.match.unexplained),
                          missing=len(link.match.missing))
        return report


def _name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1]


__all__ = ["InvocationLogFeature", "LINK_LOG", "Link", "iso_time"]
