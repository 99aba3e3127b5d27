"""The invocation-log kind: recording shims' logs (``cli_mocks/calls.jsonl``), each linked to the rollout of its run.

A document of the ``invocation-log`` kind (:mod:`lsp_server.kinds`: its path matches the ``invocationLogs``
patterns) is linked to one open rollout, the rollout named by ``rollout-lsp.linkInvocationLog`` or else the open
rollout whose commands explain the most invocations (ties go to the most recently opened; a rollout that runs
no recorded tool is never chosen), and matched with it (:func:`analysis.reports.invocations.match_invocations`).
:class:`InvocationLinks` keeps the links and is the ``invocation-log`` source of diagnostics
(:class:`~lsp_server.features.diagnostics.DiagnosticsFeature`): a log's findings and its match's, and on a
rollout the commands its linked logs did not record.  When a link changes, it tells the diagnostics that its
source changed on both documents; the other sources' diagnostics are kept as they were.  The LSP answers for
logs (outline, hover, definition, the command) are :mod:`lsp_server.features.invocation_logs`.

The log is read from the store's analysis of the same text (its lines), so a log's findings always belong to
the version they are published with, and every computed log and match is kept until that analysis changes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from analysis.jsonl.findings import EXIT_MISMATCH, Finding, log_finding_sort_key
from analysis.jsonl.positions import LineColumns
from analysis.reports.invocations import (
    InvocationLog,
    MatchResult,
    RolloutCommand,
    match_invocations,
    read_invocation_log,
    rollout_commands,
)
from analysis.session.memo import same

from .calls import call_at
from .convert import to_diagnostic, to_range
from .kinds import INVOCATION_LOG, ROLLOUT
from .wire import CONVERTER, compact

if TYPE_CHECKING:
    from .features.diagnostics import DiagnosticsFeature
    from .kinds import DocumentKinds
    from .language_server import RolloutLanguageServer
    from .store import DocumentAnalysis

SOURCE = "invocation-log"


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
    rollout: DocumentAnalysis
    match: MatchResult
    named: bool  # by the command, not chosen automatically


class InvocationLinks:
    """The open logs, the rollouts they are linked to and their matches; the ``invocation-log`` diagnostics."""

    name = SOURCE
    kinds = (ROLLOUT, INVOCATION_LOG)

    def __init__(self, server: RolloutLanguageServer, *, kinds: DocumentKinds, diagnostics: DiagnosticsFeature) -> None:
        self.server = server
        self.document_kinds = kinds
        self.diagnostics_feature = diagnostics  # told when this source changed on other documents
        self.converter = CONVERTER
        self.named: dict[str, str] = {}  # log URI → the rollout URI the command linked it to
        self._logs: dict[str, tuple[Any, InvocationLog]] = {}  # log URI → (its analysis, the log read from it)
        self._matches: dict[tuple[str, str], tuple[Any, Any, MatchResult]] = {}
        self._commands: dict[str, tuple[Any, list[RolloutCommand]]] = {}  # rollout URI → (analysis, commands)
        self._linked: dict[str, str | None] = {}  # log URI → rollout URI, as last published

    # -- which documents, which link ------------------------------------------------------------------
    def _logs_of(self, uris) -> list[str]:
        return [u for u in uris if self.document_kinds.of(u) == INVOCATION_LOG]

    def log_of(self, result: DocumentAnalysis) -> InvocationLog:
        """The log read from an analysis's text (once per analysis)."""
        cached = self._logs.get(result.uri)
        if cached is not None and same(cached, result):
            return cached[1]
        read = read_invocation_log("\n".join(result.analysis.lines))
        self._logs[result.uri] = (result, read)
        return read

    def match(self, rollout: DocumentAnalysis, log_result: DocumentAnalysis) -> MatchResult:
        key = (rollout.uri, log_result.uri)
        cached = self._matches.get(key)
        if cached is not None and same(cached, rollout, log_result):
            return cached[2]
        found = match_invocations(rollout.analysis, self.log_of(log_result), self.commands_of(rollout))
        self._matches[key] = (rollout, log_result, found)
        return found

    def commands_of(self, rollout: DocumentAnalysis) -> list[RolloutCommand]:
        """Every command of a rollout, split as a shell splits it (once per analysis)."""
        cached = self._commands.get(rollout.uri)
        if cached is not None and same(cached, rollout):
            return cached[1]
        commands = rollout_commands(rollout.analysis)
        self._commands[rollout.uri] = (rollout, commands)
        return commands

    async def prepare(self, result: DocumentAnalysis) -> None:
        """Before a document's diagnostics: split the commands of the rollouts a log may be matched with in a
        worker thread (seconds on a rollout of thousands of commands), and only while a log is open."""
        if not self._logs_of(self.server.store.uris):
            return
        is_log = self.document_kinds.of(result.uri) == INVOCATION_LOG
        rollouts = self.open_rollouts() if is_log else [result] if result.is_rollout else []
        for rollout in rollouts:
            cached = self._commands.get(rollout.uri)
            if cached is None or not same(cached, rollout):
                commands = await asyncio.to_thread(rollout_commands, rollout.analysis)
                self._commands[rollout.uri] = (rollout, commands)

    def open_logs(self) -> list[DocumentAnalysis]:
        store = self.server.store
        return [r for r in (store.latest(u) for u in self._logs_of(store.uris)) if r is not None]

    def open_rollouts(self) -> list[DocumentAnalysis]:
        """Open rollouts with an analysis, in the order they were opened."""
        store = self.server.store
        return [
            r
            for r in (store.latest(u) for u in store.uris if self.document_kinds.of(u) != INVOCATION_LOG)
            if r is not None and r.is_rollout
        ]

    def link(self, log_result: DocumentAnalysis) -> Link | None:
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
        return [
            link
            for link in (self.link(r) for r in self.open_logs())
            if link is not None and link.rollout.uri == rollout_uri
        ]

    # -- diagnostics ------------------------------------------------------------------------------------
    def diagnostics(self, result: DocumentAnalysis) -> list[str]:
        """This source's diagnostics of a document, as JSON texts."""
        if self.document_kinds.of(result.uri) != INVOCATION_LOG and not result.complete:
            # a rollout still being read: it is matched with the whole analysis
            return []
        return [compact(self.converter.unstructure(d)) for d in self.diagnostic_list(result)]

    def diagnostic_list(self, result: DocumentAnalysis) -> list[types.Diagnostic]:
        """A log's findings and its match's; for a rollout, the commands its linked logs did not record."""
        if self.document_kinds.of(result.uri) == INVOCATION_LOG:
            return self.log_diagnostics(result)
        if not result.is_rollout:
            return []
        out = []
        for link in self.links_to(result.uri):
            for finding in link.match.rollout_findings():
                diagnostic = self._diagnostic(result, finding)
                if diagnostic is not None:
                    diagnostic.related_information = [
                        *(diagnostic.related_information or []),
                        types.DiagnosticRelatedInformation(
                            types.Location(link.log_uri, types.Range(types.Position(0, 0), types.Position(0, 0))),
                            f"the invocation log {log_name(link.log_uri)}",
                        ),
                    ]
                    out.append(diagnostic)
        return out

    def log_diagnostics(self, result: DocumentAnalysis) -> list[types.Diagnostic]:
        read = self.log_of(result)
        findings = list(read.findings)
        link = self.link(result)
        made_by = {}
        if link is not None:
            findings += link.match.log_findings()
            made_by = {m.invocation.line: m for m in link.match.matches}
        findings.sort(key=log_finding_sort_key)
        out = []
        for finding in findings:
            diagnostic = self._diagnostic(result, finding)
            if diagnostic is None:
                continue
            match = made_by.get(finding.span.line) if finding.code == EXIT_MISMATCH else None
            if match is not None and link is not None:
                located = match.command.located
                diagnostic.related_information = [
                    *(diagnostic.related_information or []),
                    types.DiagnosticRelatedInformation(
                        types.Location(
                            link.rollout.uri, to_range(link.rollout.analysis, located.span, self.server.encoding)
                        ),
                        f"the command that made it (line {located.line + 1} of {log_name(link.rollout.uri)})",
                    ),
                ]
            out.append(diagnostic)
        return out

    def _diagnostic(self, result: DocumentAnalysis, finding: Finding) -> types.Diagnostic | None:
        server = self.server
        return to_diagnostic(
            result.analysis,
            finding,
            result.uri,
            server.encoding,
            server.settings.severity,
            server.masker,
            result.version,
        )

    async def published(self, result: DocumentAnalysis) -> None:
        """A document has new diagnostics: publish again those of the documents linked with it."""
        if self.document_kinds.of(result.uri) == INVOCATION_LOG:
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
        if self.document_kinds.of(uri) != INVOCATION_LOG:
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
        """Linking changed this source's diagnostics of ``uris``: the diagnostics feature publishes them again
        (the other sources' as they were)."""
        if uris:
            self.diagnostics_feature.changed(SOURCE, uris)

    def invocations_at(self, result: DocumentAnalysis, position: types.Position) -> list:
        """(link, match) of each invocation the linked logs recorded for the rollout call at ``position``."""
        analysis = result.analysis
        line = position.line
        if not 0 <= line < len(analysis.lines) or not analysis.calls_on(line):
            return []
        column = LineColumns(analysis.lines[line]).from_units(position.character, self.server.encoding)
        located = call_at(analysis, line, column)
        if located is None:
            return []
        return [
            (link, m)
            for link in self.links_to(result.uri)
            for m in link.match.matches_of_call(located.line, located.index)
        ]


def log_name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1]


__all__ = ["InvocationLinks", "Link", "SOURCE", "iso_time", "log_name"]
