"""What the index gives back: the :class:`IndexStats` of an update, the :class:`Hit` of a search (and how a
row of a query becomes one), the text a call is searched by, and a ``--since`` date as compared."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ...jsonl.positions import PositionEncoding
from ...script.calls import COMMAND, PATCH, ToolCall
from ...session.labels import patch_actions


@dataclass
class IndexStats:
    """What one :meth:`RolloutIndex.update` did."""

    files: int = 0  # rollout files found (JSON Lines files that are not rollouts aside)
    unchanged: int = 0  # size and modification time as indexed: not opened
    full: int = 0  # new, rewritten, shrunk or compressed files read whole
    appended: int = 0  # files that grew by appending: only their new lines analysed
    removed: int = 0  # indexed files that are gone
    lines_analysed: int = 0  # lines read through the analysis
    lines_reread: int = 0  # earlier lines analysed again to pair them with a late output
    calls_added: int = 0
    calls_paired: int = 0  # earlier calls updated with an output appended later
    errors: list[str] = field(default_factory=list)
    not_rollouts: list[str] = field(default_factory=list)  # JSON Lines files skipped: not rollouts
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is slow, and a query may build thousands
class Hit:
    """One indexed tool call."""

    path: str
    line: int  # 0-based
    columns: dict[str, tuple[int, int]]  # start and end column by position encoding
    tool: str | None
    kind: str
    text: str
    workdir: str | None
    files: tuple[str, ...]
    executed: str
    status: str | None
    exit_code: int | None
    output_line: int | None
    call_id: str | None
    record: str | None
    session_id: str | None
    turn_line: int | None
    turn_title: str | None
    turn_number: int | None  # the turn's ordinal in its file, from 1
    timestamp: str | None

    def start(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> int:
        return self.columns[encoding.value][0]

    def end(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> int:
        return self.columns[encoding.value][1]

    def to_json(self, encoding: PositionEncoding = PositionEncoding.UTF16) -> dict[str, Any]:
        start, end = self.columns[encoding.value]
        return {
            "file": self.path,
            "line": self.line,
            "range": {"start": {"line": self.line, "character": start}, "end": {"line": self.line, "character": end}},
            "tool": self.tool,
            "kind": self.kind,
            "text": self.text,
            "workdir": self.workdir,
            "files": list(self.files),
            "executed": self.executed,
            "status": self.status,
            "exit_code": self.exit_code,
            "output_line": self.output_line,
            "call_id": self.call_id,
            "record": self.record,
            "session_id": self.session_id,
            "turn": {"number": self.turn_number, "line": self.turn_line, "title": self.turn_title}
            if self.turn_line is not None
            else None,
            "timestamp": self.timestamp,
        }


def call_text(call: ToolCall) -> str:
    """What a call is searched and shown by: its command (or each command of an expansion), its patched
    files, or its tool."""
    if call.kind == COMMAND:
        if call.command is not None:
            return call.command
        if call.expansion:
            return "\n".join(call.expansion)
        return f"computed: {call.computed_expression or call.tool or ''}".rstrip()
    if call.kind == PATCH and call.files:
        return patch_actions(call.files)  # "delete a.py, add a.py", as every view names a patch
    return call.label


def parse_since(value: str) -> str:
    """A ``--since`` date as the ISO prefix timestamps are compared with (UTC); ValueError when unreadable."""
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        datetime.strptime(text, "%Y-%m-%d")
        return text
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    # rollout timestamps are ISO text ("…T10:00:00.123Z"), compared as strings: a fraction is kept, trailing
    # zeros and all, so that "…:00.5" sorts after "…:00.123Z" and before "…:00.500Z"
    fraction = f"{moment.microsecond:06d}".rstrip("0")
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "")


_HIT_COLUMNS = (
    "f.path",
    "c.line",
    "c.start8",
    "c.end8",
    "c.start16",
    "c.end16",
    "c.start32",
    "c.end32",
    "c.tool",
    "c.kind",
    "c.text",
    "c.workdir",
    "c.files",
    "c.executed",
    "c.status",
    "c.exit_code",
    "c.output_line",
    "c.call_id",
    "c.record",
    "c.session_id",
    "c.turn_line",
    "c.turn_title",
    "c.turn_number",
    "c.timestamp",
)


def _hit(row: tuple) -> Hit:
    """A :class:`Hit` from a row of :data:`_HIT_COLUMNS` (positional: a query may build thousands)."""
    (path, line, start8, end8, start16, end16, start32, end32, tool, kind, text, workdir, files, *rest) = row
    return Hit(
        path,
        line,
        {"utf-8": (start8, end8), "utf-16": (start16, end16), "utf-32": (start32, end32)},
        tool,
        kind,
        text,
        workdir,
        tuple(files.split("\n")) if files else (),
        *rest,
    )
