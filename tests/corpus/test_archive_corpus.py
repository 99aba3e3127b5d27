"""``rollout-lsp archive`` on the real rollouts of ../shared/corpus/wild/, laid out as a Codex home in a temporary
folder (each in the dated folder its name gives): the dry run lists exactly the sessions whose last timestamped
line is older than the cut-off, ``--apply`` moves exactly those, and ``--restore --apply`` gives the tree back."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime, timezone

from tests.helpers import SHARED
from tests.reports.test_archive import cli, snapshot

WILD = SHARED / "corpus" / "wild"
NAME = re.compile(r"rollout-(\d{4})-(\d{2})-(\d{2})T.*\.jsonl$")
CUT = datetime(2026, 4, 1, tzinfo=timezone.utc)


def last_activity(text: str) -> float | None:
    last = None
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        stamp = value.get("timestamp") if isinstance(value, dict) else None
        if isinstance(stamp, str):
            try:
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            if when.tzinfo is not None:
                last = when.timestamp()
    return last


def test_archive_and_restore_real_rollouts(tmp_path):
    home = tmp_path / "home"
    placed = {}
    for source in sorted(WILD.glob("*.jsonl")):
        found = NAME.search(source.name)
        if found is None:
            continue
        name = source.name[found.start() :]
        target = home / "sessions" / found.group(1) / found.group(2) / found.group(3) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        stamp = last_activity(source.read_text(encoding="utf-8", errors="replace"))
        # the copy's time is its last activity (or a day before the cut-off), whatever the corpus copy's own time:
        # a corpus laid out minutes ago would otherwise read as live sessions
        when = stamp if stamp is not None else CUT.timestamp() - 86400
        os.utime(target, (when, when))
        placed[target] = stamp
    assert len(placed) > 40
    days = (datetime.now(timezone.utc) - CUT).total_seconds() / 86400
    old = {p for p, when in placed.items() if (when if when is not None else p.stat().st_mtime) < CUT.timestamp()}
    assert 0 < len(old) < len(placed)
    before = snapshot(tmp_path)
    dry = cli(home, "--older-than", f"{days:.6f}")
    assert dry.returncode == 0, dry.stderr
    listed = [line.strip().rsplit("  ", 1)[0] for line in dry.stdout.splitlines() if line.startswith("  sessions/")]
    assert sorted(listed) == sorted(str(p.relative_to(home)) for p in old)
    assert "kept back" not in dry.stdout  # no fork by reference, segment, link or live file among them
    moved = cli(home, "--older-than", f"{days:.6f}", "--apply")
    assert moved.returncode == 0, moved.stderr
    assert sorted(p.name for p in (home / "archived_sessions").iterdir()) == sorted(p.name for p in old)
    assert all(not p.exists() for p in old)
    assert cli(home, "--restore", "--apply").returncode == 0
    assert snapshot(tmp_path) == before
