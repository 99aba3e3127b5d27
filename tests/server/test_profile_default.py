"""The findings profile's default, decided by where the rollout is: ``reader`` inside any Codex home (the
``codexHome`` setting, ``$CODEX_HOME``, ``~/.codex``), ``author`` elsewhere (a fixture, a copy kept in a project);
the setting's ``auto`` is that default, by name."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.config import Settings, codex_homes, in_codex_home, parse_settings
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start

# a Codex home that is not ~/.codex, given to the server as $CODEX_HOME, and one given as the codexHome setting
HOMES = Path(tempfile.mkdtemp(prefix="rollout-lsp-homes-"))
ENV_HOME, SETTING_HOME, PROJECT = HOMES / "env-home", HOMES / "setting-home", HOMES / "project"
WITH_CODEX_HOME = ClientServerConfig(
    server_command=SERVER.server_command, server_env={**(SERVER.server_env or {}), "CODEX_HOME": str(ENV_HOME)}
)
HINT, WARNING = types.DiagnosticSeverity.Hint, types.DiagnosticSeverity.Warning


@pytest_lsp.fixture(config=WITH_CODEX_HOME)
async def client(lsp_client: LanguageClient):
    lsp_client.set_configuration({"codexHome": str(SETTING_HOME)}, section="rolloutLsp")
    await start(lsp_client, options={"codexHome": str(SETTING_HOME)})
    yield
    await lsp_client.shutdown_session()


def severities(diagnostics: list[types.Diagnostic]) -> set:
    return {d.severity for d in diagnostics if d.code == "computed-command" and d.range.start.line == 1}


async def test_a_rollout_in_any_codex_home_is_a_readers(client: LanguageClient):
    places = {
        "$CODEX_HOME's sessions": ENV_HOME / "sessions" / "2026" / "07" / "20" / "rollout-2026-07-20T10-00-00-a.jsonl",
        "$CODEX_HOME, elsewhere": ENV_HOME / "kept" / "rollout-b.jsonl",
        "the codexHome setting's": SETTING_HOME / "archived_sessions" / "rollout-c.jsonl",
        "a project's copy": PROJECT / "reviews" / "rollout-2026-07-20T10-00-00-a.jsonl",
    }
    found = {}
    for place, path in places.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        open_text(client, path.as_uri(), fixture("rollout-computed.jsonl"))
        found[place] = severities(await diagnostics_of(client, path.as_uri()))
    assert found == {
        "$CODEX_HOME's sessions": {HINT},
        "$CODEX_HOME, elsewhere": {HINT},
        "the codexHome setting's": {HINT},
        "a project's copy": {WARNING},
    }


def test_the_setting_auto_is_the_default_and_a_profile_set_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.delenv("ROLLOUT_LSP_CODEX_HOME", raising=False)
    inside, outside = str(tmp_path / "codex" / "x" / "rollout-a.jsonl"), str(tmp_path / "proj" / "rollout-a.jsonl")
    auto, problems = parse_settings({"findings": "auto"})
    assert problems == [] and auto.findings == "auto"
    assert [auto.profile_of(inside), auto.profile_of(outside), Settings().profile_of(inside)] == [
        "reader",
        "author",
        "reader",
    ]
    assert Settings(findings="author").profile_of(inside) == "author"
    assert Settings(findings="reader").profile_of(outside) == "reader"
    # the usual ~/.codex whatever $HOME's Codex home is, and any .codex/sessions folder as before
    assert Settings().profile_of(os.path.expanduser("~/.codex/sessions/rollout-a.jsonl")) == "reader"
    assert Settings().profile_of("/srv/u/.codex/archived_sessions/rollout-a.jsonl") == "reader"
    assert parse_settings({"findings": "null"})[1] == [
        "setting 'findings' ignored: Input should be 'auto', 'reader' or 'author'"
    ]


def test_codex_homes_and_what_is_inside_one(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", "/srv/codex/")
    monkeypatch.setenv("ROLLOUT_LSP_CODEX_HOME", "/opt/other")
    homes = codex_homes("~/work/codex")
    assert homes == (
        os.path.expanduser("~/work/codex"),
        "/opt/other",
        "/srv/codex",
        os.path.expanduser("~/.codex"),
    )
    assert in_codex_home("/srv/codex/sessions/a.jsonl", homes)
    assert not in_codex_home("/srv/codex-copy/a.jsonl", homes)  # a name that only starts like a home
    real = tmp_path / "real-home"
    (real / "sessions").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    assert in_codex_home(str(tmp_path / "link" / "sessions" / "a.jsonl"), (str(real),))  # reached through a link
