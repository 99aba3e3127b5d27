"""The server's structure: document kinds decided in one place, methods several features answer registered
once and fanned out by kind, diagnostics kept per source, collaborators given at construction."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

from lsprotocol import types
from pygls.workspace import Workspace

from lsp_server.features.diagnostics import DiagnosticsFeature
from lsp_server.kinds import INVOCATION_LOG, ROLLOUT, WORKSPACE_FILE, DocumentKinds
from lsp_server.server import FEATURES, create_server

PACKAGE = Path(__file__).resolve().parents[2] / "lsp_server"


def _server(folder: Path):
    server = create_server()
    server.protocol._workspace = Workspace(folder.as_uri(), types.TextDocumentSyncKind.Incremental)
    return server


def test_each_document_is_of_one_kind_decided_in_one_place(tmp_path):
    server = _server(tmp_path)
    kinds = DocumentKinds(server)
    source = tmp_path / "src" / "app.py"
    assert kinds.of((tmp_path / "run" / "cli_mocks" / "calls.jsonl").as_uri()) == INVOCATION_LOG
    assert kinds.of(source.as_uri()) == WORKSPACE_FILE
    assert kinds.of((tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl").as_uri()) == ROLLOUT
    assert kinds.of("untitled:Untitled-1") == ROLLOUT
    assert kinds.of("file:///elsewhere/app.py") == ROLLOUT  # outside the workspace: not blame's
    server.settings = server.settings.model_copy(update={"blame": False})
    assert kinds.of(source.as_uri()) == ROLLOUT
    # an open document keeps the kind it was given until the settings change
    server.settings = server.settings.model_copy(update={"blame": True})
    log = (tmp_path / "calls.jsonl").as_uri()
    assert kinds.opened(log) == ROLLOUT
    server.settings = server.settings.model_copy(update={"invocation_logs": ["**/calls.jsonl"]})
    assert kinds.of(log) == ROLLOUT
    kinds.settings_changed()
    assert kinds.of(log) == INVOCATION_LOG
    kinds.closed(log)


def test_methods_several_features_answer_are_registered_once_and_fanned_out():
    server = create_server()
    handlers = server.protocol.fm.features
    for method in (
        types.TEXT_DOCUMENT_HOVER,
        types.TEXT_DOCUMENT_CODE_LENS,
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        types.TEXT_DOCUMENT_DEFINITION,
    ):
        doc = handlers[method].__doc__
        assert doc and doc.count(":") >= 1, method
    hover = handlers[types.TEXT_DOCUMENT_HOVER].__doc__
    assert hover.index("HoverFeature.hover") < hover.index("InvocationLogFeature.call_invocations")
    definition = handlers[types.TEXT_DOCUMENT_DEFINITION].__doc__
    assert definition.index("InvocationLogFeature.invocation_locations") < definition.index(
        "NavigationFeature.goto_definition"
    )
    assert set(server.features) == set(FEATURES)


def test_no_feature_checks_the_document_itself_nor_looks_another_up():
    sources = {p: p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}
    for path, text in sources.items():
        assert not re.search(r"\bis_log\(|\.handles\(|feature_of\(", text), path
        assert len(text.splitlines()) <= 500, path
    assert not list((PACKAGE / "features").glob("sessions.py"))


def _result(uri: str, version: int):
    return SimpleNamespace(uri=uri, version=version, is_rollout=True, complete=True)


class _Source:
    def __init__(self, name: str, kinds: tuple[str, ...]) -> None:
        self.name, self.kinds, self.computed, self.items = name, kinds, [], [name]

    async def prepare(self, result) -> None:
        pass

    async def published(self, result) -> None:
        pass

    def diagnostics(self, result) -> list[str]:
        self.computed.append(result.version)
        return [json.dumps({"message": item}) for item in self.items]

    def closed(self, uri: str) -> None:
        self.items = []


def test_diagnostics_are_kept_per_source_and_published_merged():
    uri = "file:///r.jsonl"
    latest = {uri: _result(uri, 1)}
    sent = []
    server = SimpleNamespace(
        store=SimpleNamespace(latest=latest.get),
        protocol=SimpleNamespace(notify_encoded=lambda m, body: sent.append(json.loads(body))),
        text_document_publish_diagnostics=lambda params: sent.append(params),
    )
    feature = DiagnosticsFeature(server, kinds=SimpleNamespace(of=lambda u: ROLLOUT))
    first, second, other = (
        _Source("rollout", (ROLLOUT,)),
        _Source("invocation-log", (ROLLOUT,)),
        _Source("blame", (WORKSPACE_FILE,)),
    )
    for source in (first, second, other):
        feature.add_source(source)
    feature.publish(latest[uri])
    assert [d["message"] for d in sent[-1]["diagnostics"]] == ["rollout", "invocation-log"]
    second.items = ["linked"]
    feature.changed("invocation-log", {uri})  # only that source is computed again
    assert [d["message"] for d in sent[-1]["diagnostics"]] == ["rollout", "linked"]
    assert (first.computed, second.computed, other.computed) == ([1], [1, 1], [])
    latest[uri] = _result(uri, 2)
    feature.changed("invocation-log", {uri})  # a newer analysis: every source of it
    assert sent[-1]["version"] == 2 and first.computed == [1, 2]
    feature.closed(uri)
    assert sent[-1] == types.PublishDiagnosticsParams(uri, [])
