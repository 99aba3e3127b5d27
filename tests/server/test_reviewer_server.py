"""The findings profile through `rollout-lsp serve`: ``author`` for a fixture by default, ``reader`` for a
rollout under a Codex sessions folder or when the ``findings`` setting asks for it."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def reader_client(lsp_client: LanguageClient):
    lsp_client.set_configuration({"findings": "reader"}, section="rolloutLsp")
    await start(lsp_client, options={"findings": "reader"})
    yield
    await lsp_client.shutdown_session()


def computed(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [
        (d.range.start.line, d.code, d.severity, len(d.related_information or ()))
        for d in diagnostics
        if d.code in ("computed-command", "expanded-command")
    ]


async def test_a_fixture_is_read_as_an_author_and_a_session_as_a_reader(client: LanguageClient, tmp_path):
    uri = uri_of("rollout-demo.jsonl")
    open_text(client, uri, fixture("rollout-demo.jsonl"))
    assert computed(await diagnostics_of(client, uri)) == [
        (8, "expanded-command", types.DiagnosticSeverity.Information, 0)
    ]
    uri = uri_of("rollout-computed.jsonl")
    open_text(client, uri, fixture("rollout-computed.jsonl"))
    warning, information = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Information
    assert computed(await diagnostics_of(client, uri)) == [(1, "computed-command", warning, 1)] * 4 + [
        (2, "expanded-command", information, 1),
        (2, "computed-command", warning, 1),
        (3, "computed-command", warning, 1),
    ]
    sessions = tmp_path / ".codex" / "sessions" / "2026" / "07" / "20"
    sessions.mkdir(parents=True)
    session = (sessions / "rollout-2026-07-20T10-00-00-x.jsonl").as_uri()
    open_text(client, session, fixture("rollout-computed.jsonl"))
    assert {d[2] for d in computed(await diagnostics_of(client, session))} == {types.DiagnosticSeverity.Hint}


async def test_the_reader_profile_lowers_what_a_reader_cannot_act_on(reader_client: LanguageClient):
    uri = uri_of("rollout-computed.jsonl")
    open_text(reader_client, uri, fixture("rollout-computed.jsonl"))
    hint = types.DiagnosticSeverity.Hint
    # hints without the link to the call's output (the Outline and the hover show it)
    assert computed(await diagnostics_of(reader_client, uri)) == [(1, "computed-command", hint, 0)] * 4 + [
        (2, "expanded-command", hint, 0),
        (2, "computed-command", hint, 0),
        (3, "computed-command", hint, 0),
    ]
