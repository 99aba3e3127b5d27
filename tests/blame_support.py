"""Rollouts written the way Codex writes them, for the blame tests: a session, its turns, patches at the top
level and inside exec scripts, their outputs and ``patch_apply_end`` events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


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
        self.write("session_meta", {"id": self.id, "timestamp": self.stamp(), "cwd": self.cwd,
                                    "originator": "codex_cli_rs", "cli_version": "0.157.1",
                                    **({"git": self.git} if self.git else {})})

    def stamp(self) -> str:
        self.second += 1
        return f"{self.day}T10:{self.second // 60:02d}:{self.second % 60:02d}.000Z"

    def write(self, kind: str, payload: dict) -> int:
        self.records.append({"timestamp": self.stamp(), "type": kind, "payload": payload})
        return len(self.records) - 1

    def turn(self, words: str, cwd: str | None = None) -> int:
        line = self.write("turn_context", {"cwd": cwd or self.cwd, "model": "gpt-5.6-sol"})
        self.write("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": words}]})
        return line

    def top_patch(self, call_id: str, patch: str, success: bool, event: bool = False) -> int:
        """A top-level ``apply_patch`` call, its event when asked, and its output."""
        line = self.write("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                            "name": "apply_patch", "input": patch})
        if event:
            self.write("event_msg", {"type": "patch_apply_end", "call_id": call_id, "success": success,
                                     "stdout": "", "stderr": "", "changes": {}})
        text = ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\n"
                if success else "apply_patch verification failed: Failed to find expected lines")
        self.write("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": text})
        return line

    def script(self, call_id: str, source: str, events: list[dict] = ()) -> int:
        """An exec script, the events of its nested calls, and its output."""
        line = self.write("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                            "name": "exec", "namespace": "functions", "input": source})
        for event in events:
            self.write("event_msg", event)
        self.write("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": [
            {"type": "input_text", "text": "Script completed\nWall time 1.0 seconds\nOutput:\n"}]})
        return line

    def text(self, upto: int | None = None) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records[:upto])

    def save(self, folder: Path) -> Path:
        path = folder / f"rollout-{self.day}T10-00-00-{self.id}.jsonl"
        path.write_text(self.text(), encoding="utf-8")
        return path


def patch_event(call_id: str, success: bool, changes: dict[str, str]) -> dict:
    return {"type": "patch_apply_end", "call_id": call_id, "success": success, "stdout": "", "stderr": "",
            "changes": {path: {"type": action} for path, action in changes.items()}}


def apply_patch_call(patch: str) -> str:
    return f"await tools.apply_patch({json.dumps(patch)});\n"
