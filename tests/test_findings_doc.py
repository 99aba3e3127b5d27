"""Diagnostics link their code to a findings.md the user can open: the copy beside the server unless the
project names a published one."""

from __future__ import annotations

import email.message
import importlib.metadata
import re

from analysis.jsonl.findings import CODES
from lsp_server import findings_doc
from tests.helpers import ROOT


def test_every_code_has_a_section_the_link_can_land_on():
    headings = re.findall(r"^## (\S+)$", (ROOT / "docs" / "findings.md").read_text(encoding="utf-8"), re.M)
    assert sorted(set(CODES) - set(headings)) == []


def test_without_a_published_address_the_link_is_the_local_copy(monkeypatch):
    monkeypatch.setattr(findings_doc, "published_url", lambda: None)
    findings_doc.findings_doc.cache_clear()
    try:
        assert findings_doc.section_url("dead-branch") == (ROOT / "docs" / "findings.md").as_uri() + "#dead-branch"
    finally:
        findings_doc.findings_doc.cache_clear()


def test_the_installed_copy_wins_over_the_source_tree(monkeypatch, tmp_path):
    installed = tmp_path / "findings.md"
    installed.write_text("# Findings\n")
    monkeypatch.setattr(findings_doc, "COPIES", (installed, ROOT / "docs" / "findings.md"))
    monkeypatch.setattr(findings_doc, "published_url", lambda: None)
    findings_doc.findings_doc.cache_clear()
    try:
        assert findings_doc.section_url("secret") == installed.as_uri() + "#secret"
    finally:
        findings_doc.findings_doc.cache_clear()


def test_a_published_address_in_the_metadata_wins(monkeypatch):
    metadata = email.message.Message()
    metadata["Project-URL"] = "Source, https://git.example/rollout-lsp"
    metadata["Project-URL"] = "Findings, https://docs.example/rollout-lsp/findings.html"
    monkeypatch.setattr(importlib.metadata, "metadata", lambda name: metadata)
    findings_doc.findings_doc.cache_clear()
    try:
        assert findings_doc.section_url("secret") == "https://docs.example/rollout-lsp/findings.html#secret"
    finally:
        findings_doc.findings_doc.cache_clear()
