"""Rollouts written the way Codex writes them, for the blame tests: a session, its turns, patches at the top
level and inside exec scripts, their outputs and ``patch_apply_end`` events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from analysis.reports.index import RolloutIndex


def patch_text(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def add(path: str, lines: list[str]) -> str:
    return f"*** Add File: {path}\n" + "".join(f"+{line}\n" for line in lines)


def update(path: str, body: str, move_to: str | None = None) -> str:
    return f"*** Update File: {path}\n" + (f"*** Move to: {move_to}\n" if move_to else "") + body


def delete(path: str) -> str:
    return f"*** Delete File: {path}\n"


@dataclass
class Session:
    """One rollout being written: ``time`` is the day, each record a second later than the last."""

    id: str
    day: str  # 2026-01-01
    cwd: str
    git: dict | None = None
    records: list[dict] = field(default_factory=list)
    second: int = 0

    def __post_init__(self) -> None:
        self.write(
            "session_meta",
            {
                "id": self.id,
                "timestamp": self.stamp(),
                "cwd": self.cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.157.1",
                **({"git": self.git} if self.git else {}),
            },
        )

    def stamp(self) -> str:
        self.second += 1
        return f"{self.day}T10:{self.second // 60:02d}:{self.second % 60:02d}.000Z"

    def write(self, kind: str, payload: dict) -> int:
        self.records.append({"timestamp": self.stamp(), "type": kind, "payload": payload})
        return len(self.records) - 1

    def turn(self, words: str, cwd: str | None = None) -> int:
        line = self.write("turn_context", {"cwd": cwd or self.cwd, "model": "gpt-5.6-sol"})
        self.write(
            "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": words}]}
        )
        return line

    def top_patch(self, call_id: str, patch: str, success: bool, event: bool = False) -> int:
        """A top-level ``apply_patch`` call, its event when asked, and its output."""
        line = self.write(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            },
        )
        if event:
            self.write(
                "event_msg",
                {
                    "type": "patch_apply_end",
                    "call_id": call_id,
                    "success": success,
                    "stdout": "",
                    "stderr": "",
                    "changes": {},
                },
            )
        text = (
            "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\n"
            if success
            else "apply_patch verification failed: Failed to find expected lines"
        )
        self.write("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": text})
        return line

    def script(self, call_id: str, source: str, events: list[dict] = ()) -> int:
        """An exec script, the events of its nested calls, and its output."""
        line = self.write(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "exec",
                "namespace": "functions",
                "input": source,
            },
        )
        for event in events:
            self.write("event_msg", event)
        self.write(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": call_id,
                "output": [{"type": "input_text", "text": "Script completed\nWall time 1.0 seconds\nOutput:\n"}],
            },
        )
        return line

    def text(self, upto: int | None = None) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records[:upto])

    def save(self, folder: Path) -> Path:
        path = folder / f"rollout-{self.day}T10-00-00-{self.id}.jsonl"
        path.write_text(self.text(), encoding="utf-8")
        return path


def patch_event(call_id: str, success: bool, changes: dict[str, str]) -> dict:
    return {
        "type": "patch_apply_end",
        "call_id": call_id,
        "success": success,
        "stdout": "",
        "stderr": "",
        "changes": {path: {"type": action} for path, action in changes.items()},
    }


def apply_patch_call(patch: str) -> str:
    return f"await tools.apply_patch({json.dumps(patch)});\n"


APP_BY_A = [
    "import sys",
    "",
    "",
    "def main():",
    '    greeting = compute_greeting("world")',
    "    print(greeting)",
    "    return 0",
    "",
    "",
    "def compute_greeting(name):",
    '    return f"hello {name}"',
]
APP_NOW = [
    "import sys",
    "",
    "",
    "def main():",
    "    # reviewed on windows",
    '    greeting = compute_greeting("world")',
    "    print(greeting.upper())",
    "    return 0",
    "",
    "",
    "def compute_greeting(name):",
    '    return f"Hello, {name}!"',
    '    log("the failed patch added this")',
]


def sessions(repo: Path) -> dict[str, Session]:
    a = Session("019a0000-0000-7000-8000-00000000000a", "2026-01-01", str(repo), {"branch": "main"})
    a.turn("create the app")
    a.top_patch(
        "call_a1",
        patch_text(
            add("src/app.py", APP_BY_A),
            add("src/old_name.py", ["VALUE = 41", "OTHER = 'x'"]),
            add("src/gone.py", ["print('soon gone')"]),
        ),
        success=True,
    )
    a.turn("log something")
    a.top_patch(
        "call_a2",
        patch_text(update("src/app.py", '@@\n     return f"hello {name}"\n+    log("the failed patch added this")\n')),
        success=False,
    )
    b = Session("019b0000-0000-7000-8000-00000000000b", "2026-02-01", str(repo), {"branch": "main"})
    b.turn("capitalise the greeting", cwd=str(repo / "src"))
    script = (
        apply_patch_call(
            patch_text(
                update(
                    "app.py",
                    '@@\n-def compute_greeting(name):\n-    return f"hello {name}"\n'
                    "+def compute_greeting(name):\n"
                    '+    return f"Hello, {name}!"\n',
                ),
                update("old_name.py", "@@\n-VALUE = 41\n+VALUE = 42\n", move_to="new_name.py"),
                delete("gone.py"),
            )
        )
        + 'const r = await tools.exec_command({cmd: "pytest -q"});\ntext(r);\n'
    )
    b.script(
        "call_b1",
        script,
        [
            patch_event(
                "exec-b1",
                True,
                {
                    str(repo / "src" / "app.py"): "update",
                    str(repo / "src" / "old_name.py"): "update",
                    str(repo / "src" / "gone.py"): "delete",
                },
            )
        ],
    )
    c = Session(
        "019c0000-0000-7000-8000-00000000000c",
        "2026-03-01",
        "C:\\Users\\dev\\repo",
        {"branch": "main", "repository_url": "https://github.com/dev/repo"},
    )
    c.turn("add a review note")
    c.top_patch(
        "call_c1",
        patch_text(
            update(
                "src\\app.py", '@@ def main():\n+    # reviewed on windows\n     greeting = compute_greeting("world")\n'
            )
        ),
        success=True,
        event=True,
    )
    d = Session(
        "019d0000-0000-7000-8000-00000000000d",
        "2026-04-01",
        "/elsewhere/repo",
        {"branch": "main", "repository_url": "https://github.com/someone-else/repo"},
    )
    d.turn("another repository")
    d.top_patch("call_d1", patch_text(update("src/app.py", "@@\n+import os\n")), success=True)
    return {"a": a, "b": b, "c": c, "d": d}


def build_world(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Session]]:
    """The repository (its files as they are now), the sessions' folder, the index of it, the sessions."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:dev/repo.git\n', encoding="utf-8"
    )
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("\n".join(APP_NOW) + "\n", encoding="utf-8")
    (repo / "src" / "new_name.py").write_text("VALUE = 42\nOTHER = 'x'\n", encoding="utf-8")
    folder = tmp_path / "sessions"
    folder.mkdir()
    made = sessions(repo)
    for session in made.values():
        session.save(folder)
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        assert index.update([str(folder)]).errors == []
    return repo, folder, db, made
