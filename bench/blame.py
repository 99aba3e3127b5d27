"""``rollout-lsp blame`` on a large history: an index of generated sessions, then one file's lookup.

    python bench/blame.py                    # 10,000 sessions; prints the times
    python bench/blame.py --sessions 500     # a smaller history
    python bench/blame.py --keep DIR         # keep the sessions and the index in DIR (built once, reused)

Each session works in the same repository: a turn, then one to three patches (top-level or inside an exec
script) that add or update files among 2,000, one of them "hot" (changed by about one session in twenty).
Timed: the history of the hot file, its lines attributed, and the lookup of a file no session touched (what
the editor pays when it opens any file), each the median of several runs with the database opened each time
as the language server does.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analysis.reports.blame import attribute_lines, file_history, target_of  # noqa: E402
from analysis.reports.index import RolloutIndex  # noqa: E402

FILES = 2000
HOT = "src/hot.py"
WORDS = ("alpha", "beta", "gamma", "delta", "value", "count", "index", "name", "path", "total")


def session_text(number: int, repo: str, rng: random.Random) -> str:
    day = f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}"
    sid = f"019f{number:04x}-0000-7000-8000-{number:012x}"
    records = [
        (
            "session_meta",
            {
                "id": sid,
                "timestamp": f"{day}T09:00:00.000Z",
                "cwd": repo,
                "git": {"branch": "main", "repository_url": "https://example.com/team/repo"},
            },
        ),
        ("turn_context", {"cwd": repo, "model": "gpt-5.6-sol"}),
        (
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"change {number}"}]},
        ),
    ]
    for call in range(rng.randint(1, 3)):
        path = HOT if rng.random() < 0.02 else f"src/m{rng.randrange(FILES)}.py"
        added = [
            f"    {rng.choice(WORDS)}_{number}_{call}_{i} = {rng.randrange(1000)}" for i in range(rng.randint(2, 12))
        ]
        body = f"*** Add File: {path}\n" if rng.random() < 0.3 else f"*** Update File: {path}\n@@ def f():\n"
        patch = "*** Begin Patch\n" + body + "".join(f"+{line}\n" for line in added) + "*** End Patch\n"
        call_id = f"call_{number}_{call}"
        if rng.random() < 0.5:
            item = {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            }
            output = {
                "type": "custom_tool_call_output",
                "call_id": call_id,
                "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\n",
            }
        else:
            item = {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "exec",
                "namespace": "functions",
                "input": f"await tools.apply_patch({json.dumps(patch)});\n"
                'text(await tools.exec_command({cmd: "pytest -q"}));\n',
            }
            output = {
                "type": "custom_tool_call_output",
                "call_id": call_id,
                "output": [{"type": "input_text", "text": "Script completed\nWall time 1.0 seconds\nOutput:\n"}],
            }
        records += [("response_item", item), ("response_item", output)]
    return "".join(
        json.dumps({"timestamp": f"{day}T09:00:{n % 60:02d}.000Z", "type": kind, "payload": payload}) + "\n"
        for n, (kind, payload) in enumerate(records)
    )


def build(work: Path, sessions: int) -> tuple[Path, Path]:
    repo = work / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / "src").mkdir(exist_ok=True)
    folder = work / "sessions"
    db = work / "index.sqlite3"
    if not folder.exists():
        folder.mkdir()
        rng = random.Random(26)
        for number in range(sessions):
            (folder / f"rollout-{number:05d}.jsonl").write_text(session_text(number, str(repo), rng), encoding="utf-8")
    started = time.perf_counter()
    with RolloutIndex.open(db) as index:
        stats = index.update([str(folder)])
        changes = index.db.execute("SELECT count(*) FROM changes").fetchone()[0]
    print(
        f"indexed {stats.files} sessions ({stats.full} read) in {time.perf_counter() - started:.1f} s: "
        f"{changes} file changes"
    )
    return repo, db


def hot_file(repo: Path, db: Path) -> list[str]:
    """The hot file as the sessions left it: every line any of its patches added."""
    with RolloutIndex.open_existing(db) as index:
        history = file_history(index, str(repo / HOT))
    lines = [line for change in reversed(history) for hunk in change.hunks for line in hunk.added]
    (repo / HOT).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def timed(function, runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="a folder for the sessions and the index, reused when present")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        repo, db = build(work, args.sessions)
        lines = hot_file(repo, db)
        hot = str(repo / HOT)
        untouched = str(repo / "src" / "never_touched.py")

        def history(path: str):
            with RolloutIndex.open_existing(db) as index:
                return file_history(index, target_of(path))

        found = history(hot)
        print(f"{HOT}: {len(found)} changes by {len({c.session_id for c in found})} sessions, {len(lines)} lines")
        print(f"  history of the hot file:          {timed(lambda: history(hot)):7.2f} ms")
        print(f"  history and every line attributed: {timed(lambda: attribute_lines(lines, history(hot))):7.2f} ms")
        print(f"  a file no session touched:        {timed(lambda: history(untouched)):7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
