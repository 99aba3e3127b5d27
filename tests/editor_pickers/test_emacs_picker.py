"""docs/editors.md's Emacs session picker, run as written (Emacs in batch mode, run by `make e2e-emacs`): it
lists the sessions of a Codex home built here through `rollout-lsp sessions --json` and opens the chosen rollout."""

from __future__ import annotations

import json
import subprocess

from tests.editor_pickers.pickers import SNIPPETS, picker_env


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
        env=picker_env(tmp_path),
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
