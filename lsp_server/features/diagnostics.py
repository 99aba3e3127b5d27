"""Findings as diagnostics: published after each analysis, or pulled by clients that ask for them.

Diagnostics are never cleared between versions: a new set replaces the old one only when the analysis
of the newest text is done.  Pull mode is chosen during ``initialize`` only when the client supports it
and has not asked for push (``pullDiagnostics: false``): vscode-languageclient 9 clears the Problems view
whenever it cancels a pull request, so the VS Code extension asks for push.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from ..convert import to_diagnostic
from ..store import DocumentAnalysis
from .base import Feature, guarded
from .invocation_logs import InvocationLogFeature

log = logging.getLogger("rollout_lsp")


class DiagnosticsFeature(Feature):
    pull = False
    refresh_support = False

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        document = capabilities.text_document
        workspace = capabilities.workspace
        self.refresh_support = bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)
        self.pull = bool(document and document.diagnostic) and self.server.settings.pull_diagnostics
        if self.pull:
            # registered here, before pygls computes the server's capabilities, so a push client never
            # sees a diagnosticProvider (it would pull and get every finding twice)
            self.server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
                identifier="rollout-lsp", inter_file_dependencies=False, workspace_diagnostics=False))(
                _pull_handler(self))
        log.info("diagnostics: %s", "pulled by the client" if self.pull else "published")

    def diagnostics(self, result: DocumentAnalysis) -> list[types.Diagnostic]:
        """The diagnostics of an analysis, with the configured severities, data for their fixes and
        secrets masked in their messages."""
        server = self.server
        logs = server.feature_of(InvocationLogFeature)  # invocation logs, and their findings on rollouts
        if logs.is_log(result.uri) or not result.is_rollout:
            return logs.diagnostics(result)
        out = []
        for finding in result.analysis.findings:
            diagnostic = to_diagnostic(result.analysis, finding, result.uri, server.encoding,
                                       server.settings.severity, server.masker, result.version)
            if diagnostic is not None:
                out.append(diagnostic)
        return out + logs.diagnostics(result)

    async def analysis_ready(self, result: DocumentAnalysis) -> None:
        """Publish the diagnostics of a finished analysis, unless a newer one has come meanwhile."""
        logs = self.server.feature_of(InvocationLogFeature)
        await logs.prepare(result)
        if self.pull:
            await logs.analysis_ready(result)
            return
        await self.server.wait_configured()
        if self.server.store.latest(result.uri) is not result:  # a newer analysis publishes itself
            return
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=result.uri, version=result.version, diagnostics=self.diagnostics(result)))
        await logs.analysis_ready(result)

    async def pull_diagnostics(self, params: types.DocumentDiagnosticParams) -> types.FullDocumentDiagnosticReport:
        """``textDocument/diagnostic``: the findings of the newest text."""
        await self.server.wait_configured()
        result = await self.server.store.get(params.text_document.uri)
        items = self.diagnostics(result) if result is not None else []
        return types.RelatedFullDocumentDiagnosticReport(items=items)

    def closed(self, uri: str) -> None:
        if not self.pull:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        self.server.feature_of(InvocationLogFeature).closed(uri)

    def refresh(self) -> None:
        """Settings changed: ask a pulling client to pull again (a pushing one gets new analyses)."""
        if self.pull and self.refresh_support:
            self.server.workspace_diagnostic_refresh(None)


def _pull_handler(feature: DiagnosticsFeature):
    guarded_pull = guarded(lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))(feature.pull_diagnostics)

    async def pull(params):
        return await guarded_pull(params)
    pull.__doc__ = feature.pull_diagnostics.__doc__
    return pull

