"""docs/editors.md has both session pickers (the pickers run in `make e2e-nvim` and `make e2e-emacs`:
tests/editor_pickers)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.editor_pickers.pickers import SNIPPETS


def test_both_pickers_are_in_the_docs():
    assert sorted(SNIPPETS) == ["emacs", "neovim"]
    assert shutil.which("rollout-lsp", path=str(Path(sys.executable).parent))
