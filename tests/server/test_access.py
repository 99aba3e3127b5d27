"""The one path rule (analysis/jsonl/access.py) as the server applies it (lsp_server/access.py): which files a
request or a rollout can make it read.  A fake HOME and CODEX_HOME in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.jsonl.access import (
    CLIENT_ROLLOUT,
    ROLLOUT_BY_ID,
    ROLLOUT_BY_PATH,
    WORKSPACE_FILE,
    Access,
    PathRefused,
    codex_home_of,
    too_wide,
)
from lsp_server.config import Settings


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "users" / "me"
    (home / ".codex" / "sessions" / "2026" / "07" / "20").mkdir(parents=True)
    (home / ".codex" / "archived_sessions").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("ROLLOUT_LSP_CODEX_HOME", raising=False)
    return home


def test_the_rules(tmp_path, home):
    workspace = tmp_path / "work"
    sessions = home / ".codex" / "sessions" / "2026" / "07" / "20"
    (workspace / "sub").mkdir(parents=True)
    (tmp_path / "codex-home" / "sessions").mkdir(parents=True)
    (workspace / "escape").symlink_to(tmp_path)
    named = Settings().is_rollout_path

    def refused(path: Path, folders=(str(workspace),), codex_home=None, kind=CLIENT_ROLLOUT) -> bool:
        access = Access.create(folders, codex_home, home=str(home), rollout_named=named)
        return access.refusal(str(path), kind) is not None

    assert not refused(workspace / "sub" / "notes.jsonl")  # under a workspace folder
    assert not refused(sessions / "any-name.jsonl")  # under ~/.codex/sessions
    assert not refused(home / ".codex" / "archived_sessions" / "x.jsonl")  # under archived_sessions
    assert not refused(tmp_path / "elsewhere" / "rollout-2026-07-20-x.jsonl")  # named like a rollout
    assert not refused(tmp_path / "codex-home" / "sessions" / "x.jsonl", codex_home=str(tmp_path / "codex-home"))
    assert refused(tmp_path / "codex-home" / "sessions" / "x.jsonl", kind=ROLLOUT_BY_PATH)  # not configured
    assert refused(tmp_path / "elsewhere" / "notes.jsonl")
    assert refused(workspace / ".." / "secret.jsonl")  # .. resolved first
    assert refused(workspace / "escape" / "notes.jsonl")  # a link out of the workspace
    assert refused(home / ".codex" / "config.toml")  # not a rollout, though in the Codex home
    assert refused(workspace / "sub" / "notes.jsonl", folders=())  # no workspace folder open
    assert refused(Path("sub/notes.jsonl"))  # a relative path names no place
    # the kinds: a parent by path only in a sessions folder; by id there or in the workspace
    assert not refused(sessions / "rollout-x.jsonl", kind=ROLLOUT_BY_PATH)
    assert refused(workspace / "sub" / "rollout-x.jsonl", kind=ROLLOUT_BY_PATH)
    assert not refused(workspace / "sub" / "rollout-x.jsonl", kind=ROLLOUT_BY_ID)
    assert refused(workspace / "sub" / "notes.txt", kind=ROLLOUT_BY_ID)
    assert not refused(workspace / "sub" / "notes.txt", kind=WORKSPACE_FILE)
    assert refused(sessions / "rollout-x.jsonl", kind=WORKSPACE_FILE)  # the sessions are not the workspace
    reason = Access.create([str(workspace)], home=str(home), rollout_named=named).refusal(
        str(tmp_path / "notes.jsonl"), CLIENT_ROLLOUT
    )
    codex = home / ".codex"
    assert reason == (
        f"refused to read {tmp_path / 'notes.jsonl'}: a path is read only when it is under a workspace folder "
        f"({workspace}), under a Codex sessions folder ({codex / 'sessions'}, "
        f"{codex / 'archived_sessions'}) for a rollout, or a .jsonl or .jsonl.zst file that matches the rollout file patterns "
        "(setting rolloutLsp.files); a workspace folder that is the filesystem root or the whole home folder counts for "
        "nothing"
    )
    with pytest.raises(PathRefused):
        Access.create([str(workspace)], home=str(home)).check(str(tmp_path / "notes.txt"), WORKSPACE_FILE)


def test_what_a_client_declares_cannot_open_everything(tmp_path, home):
    """Issue 23, point 3 and issue 31, point 1: `file:///` as a workspace, the home folder as one, `~/.ssh` as
    one, `files: ["**/*"]`: none opens a private key."""
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_rsa"
    key.write_text("PRIVATE")
    everything = Settings(files=["**/*"]).is_rollout_path

    def reason(path, folders=(), rollout=Settings().is_rollout_path, kind=CLIENT_ROLLOUT) -> str | None:  # noqa: B008
        return Access.create(folders, home=str(home), rollout_named=rollout).refusal(str(path), kind)

    assert reason("/etc/passwd", ["/"]) == "refused to read /etc/passwd: nothing under the system folder /etc is read"
    assert (
        reason("/etc/passwd", ["/etc"]) == "refused to read /etc/passwd: nothing under the system folder /etc is read"
    )
    assert reason("/etc/passwd", ["/"], kind=WORKSPACE_FILE).endswith("nothing under the system folder /etc is read")
    assert reason("/proc/self/environ", ["/"], everything) == (
        "refused to read /proc/self/environ: nothing under the system folder /proc is read"
    )
    assert reason(key, ["/"]) == f"refused to read {key}: nothing in a .ssh folder is read"
    assert reason(key, [str(home)]) == f"refused to read {key}: nothing in a .ssh folder is read"
    assert reason(key, [], everything) == f"refused to read {key}: nothing in a .ssh folder is read"
    # `~/.ssh` opened as a workspace grants nothing (issue 23 allowed it: a folder the user opened)
    assert reason(key, [str(home / ".ssh")]) == f"refused to read {key}: nothing in a .ssh folder is read"
    assert reason(key, [str(home / ".ssh")], kind=WORKSPACE_FILE) is not None
    assert reason(home / "x" / "rollout-1.jsonl", [], everything) is None
    # what a too wide workspace folder leaves: nothing outside the Codex homes
    assert reason(tmp_path / "notes.txt", ["/"], kind=WORKSPACE_FILE).startswith("refused to read")
    assert reason(home / "notes.txt", [str(home)], kind=WORKSPACE_FILE).startswith("refused to read")
    assert reason(home / "notes.txt", [str(home.parent)], kind=WORKSPACE_FILE).startswith("refused to read")
    assert reason(home / "project" / "a.txt", [str(home / "project")], kind=WORKSPACE_FILE) is None


def test_too_wide_workspace_folders(tmp_path, home):
    assert too_wide("/", str(home))
    assert too_wide(str(home), str(home))
    assert too_wide(str(home.parent), str(home))  # an ancestor of the home folder
    assert too_wide("/home", str(home)) and too_wide("/home/someone", str(home)) and too_wide("/Users/x", str(home))
    assert not too_wide(str(home / "project"), str(home))
    assert not too_wide("/home/someone/project", str(home))
    access = Access.create(["/", str(home), str(home / "project"), "relative/folder"], home=str(home))
    assert access.workspace == (str(home / "project"),)
    assert access.dropped == ("/", str(home))


def test_the_codex_homes(tmp_path, home, monkeypatch):
    """Configured (setting, option), $ROLLOUT_LSP_CODEX_HOME, $CODEX_HOME, ~/.codex, and the rollout's own."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "env-home"))
    monkeypatch.setenv("ROLLOUT_LSP_CODEX_HOME", str(tmp_path / "option-home"))
    access = Access.create([], str(tmp_path / "setting-home"), home=str(home))
    assert access.codex_homes == tuple(
        str(p) for p in (tmp_path / "setting-home", tmp_path / "option-home", tmp_path / "env-home", home / ".codex")
    )
    own = tmp_path / "copy" / "sessions" / "2026" / "rollout-a.jsonl"
    assert codex_home_of(str(own)) == str(tmp_path / "copy")
    assert access.with_home_of(str(own)).codex_homes[-1] == str(tmp_path / "copy")
    assert codex_home_of(str(tmp_path / "a.jsonl")) is None


def test_only_regular_files_are_read(tmp_path, home):
    fifo = tmp_path / "rollout-fifo.jsonl"
    os.mkfifo(fifo)
    access = Access.create([str(tmp_path)], home=str(home), rollout_named=lambda p: True)
    assert access.refusal(str(fifo), CLIENT_ROLLOUT) == f"refused to read {fifo}: not a regular file"
    assert access.readable_file(str(fifo), WORKSPACE_FILE) is None
    assert access.refusal("/dev/zero", CLIENT_ROLLOUT) == (
        "refused to read /dev/zero: nothing under the system folder /dev is read"
    )
