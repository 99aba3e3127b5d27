"""Which files a request that takes a path may read (lsp_server/access.py)."""

from __future__ import annotations

from pathlib import Path

from lsp_server.access import PathPolicy
from lsp_server.config import Settings


def test_the_rules(tmp_path):
    home = tmp_path / "home"
    workspace = tmp_path / "work"
    sessions = home / ".codex" / "sessions" / "2026" / "07" / "20"
    for folder in (sessions, workspace / "sub", home / ".codex" / "archived_sessions", tmp_path / "codex-home" / "sessions"):
        folder.mkdir(parents=True)
    (workspace / "escape").symlink_to(tmp_path)
    policy, settings = PathPolicy(), Settings()

    def refused(path: Path, folders=(workspace.as_uri(),), codex_home=None) -> bool:
        return policy.refusal(str(path), folders, settings.is_rollout_path, home=home, codex_home=codex_home) \
            is not None

    assert not refused(workspace / "sub" / "notes.jsonl")                      # under a workspace folder
    assert not refused(sessions / "any-name.jsonl")                             # under ~/.codex/sessions
    assert not refused(home / ".codex" / "archived_sessions" / "x.jsonl")        # under archived_sessions
    assert not refused(tmp_path / "elsewhere" / "rollout-2026-07-20-x.jsonl")   # named like a rollout
    assert not refused(tmp_path / "codex-home" / "sessions" / "x.jsonl", codex_home=str(tmp_path / "codex-home"))
    assert refused(tmp_path / "codex-home" / "sessions" / "x.jsonl")             # $CODEX_HOME only when it is set
    assert refused(tmp_path / "elsewhere" / "notes.jsonl")
    assert refused(workspace / ".." / "secret.jsonl")                            # .. resolved first
    assert refused(workspace / "escape" / "notes.jsonl")                         # a link out of the workspace
    assert refused(home / ".codex" / "config.toml")
    assert refused(workspace / "sub" / "notes.jsonl", folders=())                # no workspace folder open
    reason = policy.refusal("/etc/passwd", [workspace.as_uri()], settings.is_rollout_path, home=home)
    assert reason == (f"refused to read /etc/passwd: a path is read only when it is under a workspace folder "
                      f"({workspace}), under a Codex sessions folder ({home / '.codex' / 'sessions'}, "
                      f"{home / '.codex' / 'archived_sessions'}), or when it matches the rollout file patterns "
                      "(setting rolloutLsp.files)")
