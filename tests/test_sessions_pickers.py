"""docs/editors.md's session pickers, run as written: Neovim (headless) and Emacs (batch) list the sessions of a
Codex home built here through `rollout-lsp sessions --json` and open the chosen rollout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.reports.test_sessions_library import A, _home

DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
SNIPPETS = dict(re.findall(r"^<!-- sessions-snippet: ([\w.-]+) -->\n```\w+\n(.*?)\n```$", DOC, re.M | re.S))


def _env(tmp_path) -> dict[str, str]:
    home = _home(tmp_path)
    return {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "ROLLOUT_LSP_INDEX": str(tmp_path / "index.sqlite3"),
        "CODEX_HOME": home,
        "TZ": "UTC",
        "HOME": str(tmp_path),
    }


def _rollout(tmp_path) -> str:
    return str(tmp_path / "codex" / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{A}.jsonl")


def test_both_pickers_are_in_the_docs():
    assert sorted(SNIPPETS) == ["emacs", "neovim"]
    assert shutil.which("rollout-lsp", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed")
def test_the_neovim_picker_lists_the_sessions_and_opens_the_chosen_one(tmp_path):
    driver = tmp_path / "driver.lua"
    out = tmp_path / "out.txt"
    driver.write_text(
        SNIPPETS["neovim"]
        + f"""
local shown = {{}}
vim.ui.select = function(items, opts, on_choice)
  local chosen
  for _, item in ipairs(items) do
    local line = opts.format_item(item)
    table.insert(shown, line)
    if line:find("Build audit", 1, true) then chosen = item end
  end
  on_choice(chosen)
end
vim.cmd("RolloutSessions --project /w/alpha")
table.insert(shown, "opened " .. vim.api.nvim_buf_get_name(0))
vim.fn.writefile(shown, {str(out)!r})
vim.cmd("qa!")
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {driver}", "-c", "cquit 2"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").splitlines() == [
        "2026-11-20T11:00  Now the docs  /w/alpha  $0.00",
        "2026-11-20T10:00  Read one file  /w/alpha  $0.00",
        "2026-11-20T10:00  Check the tests  /w/alpha  $0.02",
        "2026-11-20T10:00  Build audit  /w/alpha  $0.03",
        f"opened {_rollout(tmp_path)}",
    ]


@pytest.mark.skipif(shutil.which("emacs") is None, reason="Emacs is not installed")
def test_the_emacs_picker_lists_the_sessions_and_opens_the_chosen_one(tmp_path):
    snippet = tmp_path / "sessions.el"
    snippet.write_text(SNIPPETS["emacs"], encoding="utf-8")
    out = tmp_path / "out.txt"
    driver = f"""
(progn
  (require 'cl-lib)
  (let (shown)
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt choices &rest _)
                 (setq shown (mapcar #'car choices))
                 (seq-find (lambda (c) (string-match-p "Release\\\\|release" c)) shown))))
      (rollout-sessions "--project /w/beta"))
    (let ((opened (buffer-file-name)))
      (with-temp-file {json.dumps(str(out))}
        (insert (mapconcat #'identity shown "\\n") "\\nopened " opened)))))
"""
    done = subprocess.run(
        ["emacs", "--batch", "-Q", "-l", str(snippet), "--eval", driver],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    archived = (
        tmp_path
        / "codex"
        / "archived_sessions"
        / "rollout-2026-11-18T09-00-00-01a0a000-0000-7000-8000-0000000000e1.jsonl"
    )
    assert out.read_text(encoding="utf-8").splitlines() == [
        "2026-11-18T09:00  Plan the release  /w/beta  ",
        f"opened {archived}",
    ]
