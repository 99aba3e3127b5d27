"""Blame over the public rollouts of ../shared/corpus/wild/: every file a real session's patches changed
lists that session, by its absolute path (Windows and POSIX sessions alike) and, for sessions whose
``session_meta`` names their repository, by its path in a local clone of that repository.  The
repositories themselves are not here: this checks the paths and the listing, not lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.jsonl.source import load, rollout_files
from analysis.reports.blame import file_history
from analysis.reports.index import RolloutIndex
from analysis.session.changes import file_changes, relative_key, session_place
from analysis.session.rollout import analyze_text
from tests.helpers import SHARED, run_cli

WILD = SHARED / "corpus" / "wild"
IDAHO = "C:\\Users\\loganf\\Documents\\IDAHO-VAULT\\AGENTS.md"


@pytest.fixture(scope="module")
def wild(tmp_path_factory) -> tuple[Path, list[tuple]]:
    db = tmp_path_factory.mktemp("blame") / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        assert index.update([str(WILD)]).errors == []
    sessions = []
    for path in rollout_files([str(WILD)]):
        analysis = analyze_text(load(path).text)
        changes = file_changes(analysis)
        if changes:
            sessions.append((path, analysis.session_id, session_place(analysis), changes))
    return db, sessions


def test_every_changed_file_lists_its_session(wild):
    db, sessions = wild
    assert len(sessions) >= 15
    checked = 0
    with RolloutIndex.open_existing(db) as index:
        for path, session_id, _place, changes in sessions:
            for change in changes:
                for absolute in (change.absolute, change.move_absolute):
                    if absolute is None:
                        continue
                    history = file_history(index, absolute)
                    assert (session_id, path) in {(c.session_id, c.rollout) for c in history}, (path, absolute)
                    checked += 1
    assert checked >= 390


def test_a_clone_elsewhere_finds_the_sessions_by_repository(wild, tmp_path: Path):
    db, sessions = wild
    mapped = 0
    with RolloutIndex.open_existing(db) as index:
        for path, _session_id, place, changes in sessions:
            url = place.git.get("repository_url") if place.git else None
            change = next((c for c in changes if c.absolute and relative_key(c.absolute, place.cwd or "")), None)
            if not url or change is None:
                continue
            relative = relative_key(change.absolute, place.cwd)
            clone = tmp_path / f"clone{mapped}" / "checkout"  # another folder name: the remote says it is the same
            (clone / ".git").mkdir(parents=True)
            (clone / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {url}\n', encoding="utf-8")
            # a Windows session's path is compared without case: the clone keeps the patch's spelling
            local = clone / Path(*change.absolute.replace("\\", "/")[-len(relative) :].split("/"))
            local.parent.mkdir(parents=True, exist_ok=True)
            local.write_text("", encoding="utf-8")
            history = file_history(index, str(local))
            mine = [c for c in history if c.rollout == path]
            assert mine and all(c.matched_by == "repository" for c in mine), (path, change.absolute)
            mapped += 1
    assert mapped >= 10


def test_cli_blame_of_a_file_of_a_windows_session(wild):
    db, _ = wild
    result = run_cli("blame", IDAHO, "--db", str(db), "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["sessions"] == ["019d46ed-4410-7883-8e83-afd2f6be9fe2", "019d3c86-a9b5-7911-b12a-438429ed8068"]
    assert [(c["timestamp"], c["action"], c["applied"], c["line"]) for c in out["changes"]] == [
        ("2026-04-01T04:17:40.992Z", "update", "no", 720),
        ("2026-04-01T04:05:50.543Z", "update", "yes", 631),
        ("2026-03-30T02:17:15.766Z", "update", "yes", 68),
    ]
