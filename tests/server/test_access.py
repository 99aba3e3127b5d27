"""Which files a request that takes a path may read (lsp_server/access.py)."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.access import PathPolicy
from lsp_server.config import Settings


def test_the_rules(tmp_path):
    home = tmp_path / "home"
    workspace = tmp_path / "work"
    sessions = home / ".codex" / "sessions" / "2026" / "07" / "20"
    for folder in (
        sessions,
        workspace / "sub",
        home / ".codex" / "archived_sessions",
        tmp_path / "codex-home" / "sessions",
    ):
        folder.mkdir(parents=True)
    (workspace / "escape").symlink_to(tmp_path)
    policy, settings = PathPolicy(), Settings()

    def refused(path: Path, folders=(workspace.as_uri(),), codex_home=None) -> bool:  # noqa: B008 (once, on purpose)
        return (
            policy.refusal(str(path), folders, settings.is_rollout_path, home=home, codex_home=codex_home) is not None
        )

    assert not refused(workspace / "sub" / "notes.jsonl")  # under a workspace folder
    assert not refused(sessions / "any-name.jsonl")  # under ~/.codex/sessions
    assert not refused(home / ".codex" / "archived_sessions" / "x.jsonl")  # under archived_sessions
    assert not refused(tmp_path / "elsewhere" / "rollout-2026-07-20-x.jsonl")  # named like a rollout
    assert not refused(tmp_path / "codex-home" / "sessions" / "x.jsonl", codex_home=str(tmp_path / "codex-home"))
    assert refused(tmp_path / "codex-home" / "sessions" / "x.jsonl")  # $CODEX_HOME only when it is set
    assert refused(tmp_path / "elsewhere" / "notes.jsonl")
    assert refused(workspace / ".." / "secret.jsonl")  # .. resolved first
    assert refused(workspace / "escape" / "notes.jsonl")  # a link out of the workspace
    assert refused(home / ".codex" / "config.toml")
    assert refused(workspace / "sub" / "notes.jsonl", folders=())  # no workspace folder open
    reason = policy.refusal(str(tmp_path / "notes.jsonl"), [workspace.as_uri()], settings.is_rollout_path, home=home)
    assert reason == (
        f"refused to read {tmp_path / 'notes.jsonl'}: a path is read only when it is under a "
        f"workspace folder ({workspace}), under a Codex sessions folder "
        f"({home / '.codex' / 'sessions'}, {home / '.codex' / 'archived_sessions'}), or when it is a "
        ".jsonl or .jsonl.zst file that matches the rollout file patterns (setting rolloutLsp.files); "
        "a workspace folder that is the filesystem root or the whole home folder counts for nothing"
    )


def test_what_a_client_declares_cannot_open_everything(tmp_path):
    """Issue 23, point 3: `file:///` as a workspace, the home folder as one, `files: ["**/*"]`."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_rsa"
    key.write_text("PRIVATE")
    policy = PathPolicy()
    everything = Settings(files=["**/*"]).is_rollout_path

    def reason(path, folders=(), rollout=Settings().is_rollout_path) -> str | None:  # noqa: B008 (once, on purpose)
        return policy.refusal(str(path), folders, rollout, home=home)

    assert (
        reason("/etc/passwd", ["file:///"])
        == "refused to read /etc/passwd: nothing under the system folder /etc is read"
    )
    assert (
        reason("/etc/passwd", ["file:///etc"])
        == "refused to read /etc/passwd: nothing under the system folder /etc is read"
    )
    assert reason("/proc/self/environ", ["file:///"], everything).endswith(
        "/environ: nothing under the system folder /proc is read"
    )
    assert reason(key, ["file:///"]).startswith(f"refused to read {key}: a path is read only when")
    assert reason(key, [home.as_uri()]).startswith(f"refused to read {key}: a path is read only when")
    assert reason(key, [], everything).startswith(f"refused to read {key}: a path is read only when")
    assert reason(key, [(home / ".ssh").as_uri()]) is None  # a folder the user opened
    assert reason(home / "x" / "rollout-1.jsonl", [], everything) is None


def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "rollout-fifo.jsonl"
    os.mkfifo(fifo)
    policy = PathPolicy()
    assert (
        policy.refusal(str(fifo), [tmp_path.as_uri()], Settings().is_rollout_path)
        == f"refused to read {fifo}: not a regular file"
    )
    assert (
        policy.refusal("/dev/zero", [], lambda p: True)
        == "refused to read /dev/zero: nothing under the system folder /dev is read"
    )
