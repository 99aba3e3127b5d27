"""Findings as diagnostics: published after each analysis, or pulled by clients that ask for them.

A document's diagnostics come from sources, each for some document kinds (:mod:`lsp_server.kinds`):
``rollout`` (:class:`RolloutFindings`, the analysis's findings) and ``invocation-log``
(:class:`~lsp_server.invocation_links.InvocationLinks`, a log's findings and the link findings on both
documents).  Each source's diagnostics are kept per document and published merged, in the order the sources
were added; a source whose diagnostics of other documents changed (a log was linked) says so
(:meth:`DiagnosticsFeature.changed`), and only its part is computed again.

Diagnostics are never cleared between versions: a new set replaces the old one only when the analysis
of the newest text is done.  Pull mode is chosen during ``initialize`` only when the client supports it
and has not asked for push (``pullDiagnostics: false``): vscode-languageclient 9 clears the Problems view
whenever it cancels a pull request, so the VS Code extension asks for push.
"""

from __future__ import annotations

import json
import logging
from typing import Protocol

from lsprotocol import types

from analysis.jsonl.findings import Finding
from analysis.session.finish import missing_parents
from analysis.session.memo import same
from analysis.session.profiles import quiet_findings, severity_in
from analysis.session.rollout import RolloutAnalysis

from ..convert import output_of_call_record, to_diagnostic
from ..kinds import ROLLOUT, DocumentKinds
from ..sessions import uri_path, workspace_paths
from ..store import DocumentAnalysis
from ..wire import CONVERTER, Encoded, compact
from .base import Feature, guarded

log = logging.getLogger("rollout_lsp")


class DiagnosticSource(Protocol):
    """Diagnostics of some document kinds, as JSON texts."""

    name: str

    @property
    def kinds(self) -> tuple[str, ...]:
        """The document kinds it has diagnostics for."""

    async def prepare(self, result: DocumentAnalysis) -> None:
        """Before a document's diagnostics are computed (in the background, off the event loop)."""

    def diagnostics(self, result: DocumentAnalysis) -> list[str]: ...

    async def published(self, result: DocumentAnalysis) -> None:
        """A document's diagnostics were published (or are ready to be pulled)."""

    def closed(self, uri: str) -> None: ...


class DiagnosticsFeature(Feature):
    pull = False
    refresh_support = False

    def __init__(self, server, *, kinds: DocumentKinds) -> None:
        super().__init__(server)
        self.kinds = kinds
        self.sources: list[DiagnosticSource] = []
        self._kept: dict[str, dict[str, tuple[DocumentAnalysis, list[str]]]] = {}  # uri → source → (of, items)

    def add_source(self, source: DiagnosticSource) -> None:
        self.sources.append(source)

    def sources_of(self, uri: str) -> list[DiagnosticSource]:
        kind = self.kinds.of(uri)
        return [s for s in self.sources if kind in s.kinds]

    def changed(self, source: str, uris: set[str]) -> None:
        """The diagnostics ``source`` gives ``uris`` changed (an invocation log was linked to a rollout or
        unlinked): publish them again, the other sources' as they were."""
        for uri in uris:
            self._kept.get(uri, {}).pop(source, None)
        if self.pull:
            self.refresh()
            return
        for uri in sorted(uris):
            result = self.server.store.latest(uri)
            if result is not None:  # (not analysed yet: its own analysis publishes it)
                self.publish(result)

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        document = capabilities.text_document
        workspace = capabilities.workspace
        self.refresh_support = bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)
        self.pull = bool(document and document.diagnostic) and self.server.settings.pull_diagnostics
        if self.pull:
            # registered here, before pygls computes the server's capabilities, so a push client never
            # sees a diagnosticProvider (it would pull and get every finding twice)
            self.server.feature(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(
                    identifier="rollout-lsp", inter_file_dependencies=False, workspace_diagnostics=False
                ),
            )(_pull_handler(self))
        log.info("diagnostics: %s", "pulled by the client" if self.pull else "published")

    def encoded(self, result: DocumentAnalysis) -> list[str]:
        """The diagnostics of an analysis as JSON texts: every source's for its kind, in order, each computed
        once per analysis (a source that changed is computed again)."""
        kept = self._kept.setdefault(result.uri, {})
        out: list[str] = []
        for source in self.sources_of(result.uri):
            known = kept.get(source.name)
            if known is None or not same(known, result):
                known = kept[source.name] = (result, source.diagnostics(result))
            out += known[1]
        return out

    def publish(self, result: DocumentAnalysis) -> None:
        """Publish the diagnostics of ``result``, encoded once without a cattrs pass."""
        body = '{"uri":%s,"version":%s,"diagnostics":[%s]}' % (
            json.dumps(result.uri),
            json.dumps(result.version),
            ",".join(self.encoded(result)),
        )
        self.server.protocol.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, body.encode("utf-8"))

    def partial_ready(self, result: DocumentAnalysis) -> None:
        """While a large rollout is still being read: publish the findings of the lines read so far (pushed
        only, and only once the client's severities are known); the complete set replaces them."""
        configured = self.server.configured
        if self.pull or not result.is_rollout or configured is None or not configured.is_set():
            return
        if self.kinds.of(result.uri) != ROLLOUT:
            return
        self.publish(result)

    async def analysis_ready(self, result: DocumentAnalysis) -> None:
        """Publish the diagnostics of a finished analysis, unless a newer one has come meanwhile."""
        sources = self.sources_of(result.uri)
        for source in sources:
            await source.prepare(result)
        if not self.pull:
            await self.server.wait_configured()
            if self.server.store.latest(result.uri) is not result:  # a newer analysis publishes itself
                return
            self.publish(result)
        for source in sources:
            await source.published(result)

    async def pull_diagnostics(self, params: types.DocumentDiagnosticParams):
        """``textDocument/diagnostic``: the findings of the newest text (a full report, encoded as published
        ones are)."""
        await self.server.wait_configured()
        result = await self.server.store.get(params.text_document.uri)
        items = self.encoded(result) if result is not None else []
        return Encoded(b'{"kind":"full","items":[%s]}' % ",".join(items).encode("utf-8"))

    def closed(self, uri: str) -> None:
        self._kept.pop(uri, None)
        if not self.pull:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        for source in self.sources_of(uri):
            source.closed(uri)

    def refresh(self) -> None:
        """Settings changed: ask a pulling client to pull again (a pushing one gets new analyses)."""
        self._kept.clear()
        if self.pull and self.refresh_support:
            self.server.workspace_diagnostic_refresh(None)


class RolloutFindings:
    """The ``rollout`` source: a rollout's findings with the configured severities, data for their fixes and
    secrets masked in their messages, then the findings about the sessions it came from."""

    name = "rollout"
    kinds = (ROLLOUT,)

    def __init__(self, server) -> None:
        self.server = server
        self.converter = CONVERTER
        self._payloads: dict[str, _Payloads] = {}  # uri → the diagnostics last computed, encoded

    async def prepare(self, result: DocumentAnalysis) -> None:
        pass

    async def published(self, result: DocumentAnalysis) -> None:
        pass

    def closed(self, uri: str) -> None:
        self._payloads.pop(uri, None)

    def diagnostics(self, result: DocumentAnalysis) -> list[str]:
        """A finding's diagnostic is converted and encoded once and reused by the next versions while the
        finding, the texts of the lines it points at and its call's output line are the same: after an edit
        only the findings of the lines it changed are converted again."""
        if not result.is_rollout:
            return []
        server = self.server
        profile = server.settings.profile_of(uri_path(result.uri))
        config = (server.encoding, tuple(sorted(server.settings.severity.items())), server.masker.extra, profile)
        cached = self._payloads.get(result.uri)
        if cached is None or cached.config != config:
            cached = self._payloads[result.uri] = _Payloads(config)
        analysis = result.analysis
        fresh: dict = {}
        out = []
        version = json.dumps(result.version)
        quiet = quiet_findings(analysis.calls)
        for finding in analysis.findings:
            output = output_of_call_record(analysis, finding)
            texts = _texts(analysis, finding, output)
            severity = severity_in(profile, finding, quiet)
            key = (finding, output, severity)
            hit = cached.items.get(key)
            if hit is not None and len(hit[0]) == len(texts) and all(a is b for a, b in zip(hit[0], texts)):
                encoded = hit[1]
            else:
                diagnostic = to_diagnostic(
                    analysis,
                    finding,
                    result.uri,
                    server.encoding,
                    server.settings.severity,
                    server.masker,
                    None,
                    severity,
                )
                encoded = None if diagnostic is None else compact(self.converter.unstructure(diagnostic))
            fresh[key] = (texts, encoded)
            if encoded is not None:
                # ``data`` (last) ends with the document version, encoded as null: this version goes there
                out.append(
                    encoded[: -len(_NO_VERSION)] + f'"version":{version}}}}}'
                    if encoded.endswith(_NO_VERSION)
                    else encoded
                )
        cached.items = fresh
        if not result.complete:  # a partial analysis: the parents are looked for with the whole one
            return out
        for finding in missing_parents(analysis, uri_path(result.uri), workspace_paths(server)):
            diagnostic = to_diagnostic(
                analysis, finding, result.uri, server.encoding, server.settings.severity, server.masker, None
            )
            if diagnostic is not None:
                out.append(compact(self.converter.unstructure(diagnostic)))
        return out


_NO_VERSION = '"version":null}}'  # how an encoded diagnostic with fix data and no version ends


class _Payloads:
    """One document's encoded diagnostics: (finding, its call's output line) → (the texts of the lines it
    points at, its JSON text or None when its code is turned off), valid for one configuration."""

    def __init__(self, config: tuple) -> None:
        self.config = config
        self.items: dict[tuple, tuple[tuple[str, ...], str | None]] = {}  # (finding, output line, severity) → …


def _texts(analysis: RolloutAnalysis, finding: Finding, output: int | None) -> tuple[str, ...]:
    """The lines whose text a finding's diagnostic depends on: its own, its related places', its output's."""
    lines = analysis.lines
    count = len(lines)
    numbers = [finding.span.line, *(r.span.line for r in finding.related)]
    if output is not None:
        numbers.append(output)
    return tuple(lines[n] if 0 <= n < count else "" for n in numbers)


def _pull_handler(feature: DiagnosticsFeature):
    guarded_pull = guarded(lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))(feature.pull_diagnostics)

    async def pull(params):
        return await guarded_pull(params)

    pull.__doc__ = feature.pull_diagnostics.__doc__
    return pull
