"""What the session-picker tests share: docs/editors.md's snippets and a Codex home built here.

The pickers themselves run in `make e2e-nvim` and `make e2e-emacs`, after those targets installed the editor:
`make test` runs on a machine that may have neither, and a test that skips there proves nothing."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tests.helpers import ROOT
from tests.reports.test_sessions_library import A, _home

DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
SNIPPETS = dict(re.findall(r"^<!-- sessions-snippet: ([\w.-]+) -->\n```\w+\n(.*?)\n```$", DOC, re.M | re.S))


def picker_env(tmp_path) -> dict[str, str]:
    home = _home(tmp_path)
    return {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "ROLLOUT_LSP_INDEX": str(tmp_path / "index.sqlite3"),
        "CODEX_HOME": home,
        "TZ": "UTC",
        "HOME": str(tmp_path),
    }


def picker_rollout(tmp_path) -> str:
    return str(tmp_path / "codex" / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{A}.jsonl")
