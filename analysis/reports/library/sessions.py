"""The sessions library: one entry per indexed rollout, with its project, name, first request, times, turns, calls,
files changed, tokens, exact cost and its links to other sessions (docs/sessions.md, docs/output-format.md)."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from ...session.thread_names import name_of
from .grouped import model_sums
from .pricing import PRICES_AS_OF
from .responses import Response, counted_responses

LIVE_SECONDS = 5 * 60  # a file modified this recently, whose last turn has not ended, is still being written
ARCHIVED = "archived_sessions"

_FILE_COLUMNS = (
    "id",
    "path",
    "size",
    "mtime_ns",
    "session_id",
    "session_time",
    "turn_number",
    "cwd",
    "repo_root",
    "root_id",
    "forked_from",
    "parent_thread",
    "agent_path",
    "nickname",
    "started",
    "ended",
    "open_turn",
    "request",
    "model",
)


@dataclass
class Filters:
    """What ``sessions`` keeps: a project (its folder or below), a start date, an age, folders or files."""

    project: str | None = None
    since: str | None = None  # an ISO prefix (results.parse_since)
    older_than: float | None = None  # days since the session ended
    paths: tuple[str, ...] = ()

    def keeps(self, session: dict[str, Any], now: float) -> bool:
        if self.project is not None and not _below(session["project"], self.project):
            return False
        if self.since is not None and (session["started"] or "") < self.since:
            return False
        if self.older_than is not None:
            ended = _epoch(session["ended"])
            if ended is None or now - ended < self.older_than * 86400:
                return False
        return not self.paths or any(_below(session["rollout"], p) for p in self.paths)


def _below(path: str | None, folder: str) -> bool:
    if path is None:
        return False
    folder = os.path.abspath(folder).rstrip(os.sep)
    return path == folder or path.startswith(folder + os.sep)


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()


def number(value: Decimal | None) -> float | None:
    """A price as a JSON number (rounded to a millionth of a dollar, well under any list price's step)."""
    return None if value is None else float(round(value, 6))


def cost_of(responses: list[Response]) -> dict[str, Any]:
    """``{usd, priced, models, prices_as_of}`` of ``responses``: the exact sum of each one's price (priced in
    groups, :mod:`.grouped`); ``usd`` null when any is unpriced (its tokens still listed under its model)."""
    models: dict[str | None, dict[str, Any]] = {}
    for r in responses:
        entry = models.get(r.model)
        if entry is None:
            entry = models[r.model] = {"model": r.model, "responses": 0, "tokens": _zero()}
        entry["responses"] += 1
        _add(entry["tokens"], r)
    sums, total = model_sums(
        [
            (r.model, r.provider, r.service_tier, r.timestamp, (r.input, r.cached, r.output, r.cache_write))
            for r in responses
        ]
    )
    listed = []
    for entry in sorted(models.values(), key=lambda e: e["model"] or ""):
        found = sums[entry["model"]]
        listed.append(
            {
                "model": entry["model"],
                "priced_as": found.priced_as,
                "responses": entry["responses"],
                "tokens": entry["tokens"],
                "usd": number(found.usd),
                "reason": found.reason,
                "priced": found.usd is not None,
            }
        )
    return {"usd": number(total), "priced": total is not None, "models": listed, "prices_as_of": PRICES_AS_OF}


def _zero() -> dict[str, int]:
    return {"input": 0, "cached_input": 0, "output": 0, "reasoning_output": 0, "total": 0}


def _add(tokens: dict[str, int], r: Response) -> None:
    tokens["input"] += r.input
    tokens["cached_input"] += r.cached
    tokens["output"] += r.output
    tokens["reasoning_output"] += r.reasoning
    tokens["total"] += r.total


def tokens_of(responses: list[Response]) -> dict[str, int]:
    tokens = _zero()
    for r in responses:
        _add(tokens, r)
    return tokens


class Library:
    """The indexed sessions and their counted responses, read from the index's database in one go."""

    def __init__(self, db: sqlite3.Connection) -> None:
        rows = db.execute(
            f"SELECT {', '.join(_FILE_COLUMNS)} FROM files WHERE skipped IS NULL AND error IS NULL "
            "AND session_id IS NOT NULL"
        ).fetchall()
        self.files = [dict(zip(_FILE_COLUMNS, r)) for r in rows]
        self.calls = {
            file_id: (calls, failed)
            for file_id, calls, failed in db.execute(
                "SELECT file_id, count(*), sum((exit_code IS NOT NULL AND exit_code != 0) OR "
                "(exit_code IS NULL AND status IN ('failed', 'terminated'))) FROM calls GROUP BY file_id"
            )
        }
        self.changed = dict(
            db.execute("SELECT file_id, count(DISTINCT coalesce(path_key, path)) FROM changes GROUP BY file_id")
        )
        self.links = db.execute(
            "SELECT l.file_id, l.kind, l.target, f.session_id FROM links l JOIN files f ON f.id = l.file_id"
        ).fetchall()
        self.responses = counted_responses(db)
        self.by_file: dict[int, list[Response]] = {}
        by_thread_file: dict[str, int] = {}
        for f in sorted(self.files, key=lambda f: f["path"]):
            by_thread_file.setdefault(f["session_id"], f["id"])
        file_ids = {f["id"]: f for f in self.files}
        for r in self.responses:
            owner = r.file_id
            if file_ids.get(owner, {}).get("session_id") != r.thread_id:  # a copied record: its thread's file
                owner = by_thread_file.get(r.thread_id or "", -1)
            self.by_file.setdefault(owner, []).append(r)

    def sessions(self, filters: Filters | None = None, now: float | None = None) -> list[dict[str, Any]]:
        """The sessions ``filters`` keeps, newest first (by start)."""
        now = time.time() if now is None else now
        children: dict[str, list[str]] = {}
        referenced: dict[str, list[tuple[int, str]]] = {}  # a session or rollout id → (file, id) that need it
        for f in self.files:
            for origin in (f["parent_thread"], f["forked_from"]):
                if origin and origin != f["session_id"]:
                    children.setdefault(origin, []).append(f["session_id"])
        for file_id, kind, target, source in self.links:
            if kind == "spawned":
                children.setdefault(source, []).append(target)
            else:
                referenced.setdefault(target, []).append((file_id, source))
        out = []
        for f in self.files:
            entry = self._entry(f, now, children, referenced)
            if filters is None or filters.keeps(entry, now):
                out.append(entry)
        out.sort(key=lambda s: (s["started"] or "", s["rollout"]), reverse=True)
        return out

    def _entry(
        self,
        f: dict[str, Any],
        now: float,
        children: dict[str, list[str]],
        referenced: dict[str, list[tuple[int, str]]],
    ) -> dict[str, Any]:
        sid = f["session_id"]
        responses = self.by_file.get(f["id"], [])
        started = f["started"] or f["session_time"]
        begin, end = _epoch(started), _epoch(f["ended"])
        calls, failed = self.calls.get(f["id"], (0, 0))
        parent = f["forked_from"]
        if parent is None:
            parent = next((t for i, k, t, _ in self.links if i == f["id"] and k == "history_base"), None)
        own_stem = os.path.basename(f["path"]).split(".jsonl")[0]
        return {
            "id": sid,
            "rollout": f["path"],
            "project": f["repo_root"] or f["cwd"],
            "name": name_of(f["path"], sid),
            "request": f["request"],
            "started": started,
            "ended": f["ended"],
            "duration_s": round(end - begin, 3) if begin is not None and end is not None else None,
            "turns": f["turn_number"] or 0,
            "calls": calls,
            "failed_calls": failed or 0,
            "files_changed": self.changed.get(f["id"], 0),
            "bytes": f["size"],
            "archived": ARCHIVED in f["path"].split(os.sep),
            "live": bool(f["open_turn"]) and now - f["mtime_ns"] / 1e9 < LIVE_SECONDS,
            "model": f["model"],
            "responses": len(responses),
            "tokens": tokens_of(responses),
            "cost": cost_of(responses),
            "parent": parent,
            "root": f["root_id"] if f["root_id"] != sid or f["parent_thread"] else None,
            "parent_thread": f["parent_thread"],
            "agent_path": f["agent_path"],
            "nickname": f["nickname"],
            "children": sorted(set(children.get(sid, [])) - {sid}),
            "referenced_by": sorted(
                {
                    source
                    for target, needing in referenced.items()
                    if target == sid or own_stem.endswith(target)
                    for file_id, source in needing
                    if file_id != f["id"]
                }
            ),
        }
