"""docs/editors.md: the setups the editor tests read out of it are there (Neovim, Emacs, Vim, Kate), and the
ones no test can run here (Helix, Sublime, Zed: not packaged) are at least valid in their formats."""

from __future__ import annotations

import json
import re

import tomllib

from tests.helpers import ROOT

DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
SNIPPETS = dict(re.findall(r"^<!-- snippet: ([\w.-]+) -->\n```\w+\n(.*?)\n```$", DOC, re.M | re.S))


def test_every_editor_has_its_snippet():
    assert sorted(SNIPPETS) == [
        "emacs",
        "helix",
        "kate",
        "neovim-0.11",
        "neovim-0.7",
        "neovim-blame",
        "neovim-script",
        "sublime",
        "vim-ale",
        "vim-lsp",
        "zed",
    ]


def test_the_tests_read_the_snippets_they_run():
    neovim = (ROOT / "tests" / "nvim" / "test_neovim.lua").read_text(encoding="utf-8")
    emacs = (ROOT / "tests" / "emacs" / "test_eglot.el").read_text(encoding="utf-8")
    assert 'snippet("neovim-0.7")' in neovim and 'snippet("neovim-script")' in neovim
    assert 'snippet("neovim-blame")' in neovim
    assert '(rollout-test-snippet "emacs")' in emacs
    vim = (ROOT / "tests" / "vim" / "test_ale.vim").read_text(encoding="utf-8")
    assert "s:Snippet('vim-ale')" in vim
    kate = (ROOT / "tests" / "kate" / "kate_e2e.py").read_text(encoding="utf-8")
    assert 'doc_block("snippet: kate")' in kate and 'doc_block("kate-file: rollout.xml")' in kate


def test_the_untested_configurations_parse():
    helix = tomllib.loads(SNIPPETS["helix"])
    assert helix["language-server"]["rollout-lsp"] == {
        "command": "rollout-lsp",
        "args": ["serve"],
        "config": {"hoverOutputLines": 30},
    }
    assert helix["language"][0]["language-servers"] == ["rollout-lsp"]
    assert json.loads(SNIPPETS["sublime"])["clients"]["rollout-lsp"]["command"] == ["rollout-lsp", "serve"]
    assert json.loads(SNIPPETS["zed"])["lsp"]["rollout-lsp"]["binary"] == {
        "path": "rollout-lsp",
        "arguments": ["serve"],
    }


def test_every_setup_starts_the_server_the_same_way():
    for name, text in SNIPPETS.items():
        if name not in ("neovim-script", "neovim-blame"):
            assert "rollout-lsp" in text and "serve" in text, name
    assert "positionEncoding': 'utf-8'" in SNIPPETS["vim-ale"]
