"""The VS Code extension's settings schema: VS Code resolves no `$ref` inside a contributed setting."""

from __future__ import annotations

import json

from analysis.jsonl.findings import CODES
from lsp_server.config import Settings
from tests.helpers import ROOT


def contributed() -> dict:
    return json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))["contributes"]


def test_the_settings_schema_has_no_references():
    def refs(value):
        if isinstance(value, dict):
            return [k for k in value if k in ("$ref", "definitions")] + [r for v in value.values() for r in refs(v)]
        if isinstance(value, list):
            return [r for v in value for r in refs(v)]
        return []

    assert refs(contributed()["configuration"]) == []


def test_every_finding_code_has_a_severity_setting():
    severity = contributed()["configuration"]["properties"]["rolloutLsp.severity"]
    assert [code for code in CODES if code not in severity["properties"]] == []
    assert all(
        p == {"type": "string", "enum": ["error", "warning", "information", "hint", "off"]}
        for p in severity["properties"].values()
    )


def test_the_client_sends_every_code_it_offers():
    """settings.ts filters the severities it sends by its own list of codes: it must know every one."""
    source = (ROOT / "vscode-client" / "src" / "settings.ts").read_text(encoding="utf-8")
    listed = source[source.index("export const CODES = [") : source.index("] as const;")]
    severity = contributed()["configuration"]["properties"]["rolloutLsp.severity"]
    assert [code for code in severity["properties"] if f'"{code}"' not in listed] == []


def test_every_server_setting_is_contributed():
    properties = contributed()["configuration"]["properties"]
    for name, field in Settings.model_fields.items():
        if name == "pull_diagnostics":  # the extension always sets it (see settings.ts)
            continue
        if name == "position_encoding":  # for clients that do not negotiate; VS Code negotiates UTF-16
            continue
        assert f"rolloutLsp.{field.alias or name}" in properties, name
