"""Which indexed responses count, and for which thread: each response once over the whole index.

- a ``token_usage_record`` counts once per ``(thread_id, response_id)``, for the thread it names; of its copies
  the one in that thread's own file is kept (a record copied into a child's history is the parent's);
- a ``token_count`` counts for its file's session when its running total was not seen before in the file (a
  re-emitted line adds nothing) and no ``token_usage_record`` of the file reports the same response (the same
  input, cached, output and reasoning tokens, each record matched once);
- a line of a history a fork or subagent replayed counts never (it is the parent's, read in the parent's file).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

_COLUMNS = (
    "r.file_id",
    "r.line",
    "r.thread_id",
    "r.response_id",
    "r.source",
    "r.total_key",
    "r.model",
    "r.service_tier",
    "r.provider",
    "r.timestamp",
    "r.input",
    "r.cached",
    "r.output",
    "r.reasoning",
    "r.cache_write",
    "r.inherited",
    "f.session_id",
)


@dataclass(frozen=True, slots=True)
class Response:
    """One counted response: the file it was read from, the thread it is of, its tokens and what prices it."""

    file_id: int
    line: int
    thread_id: str | None
    response_id: str | None
    source: str
    model: str | None
    service_tier: str | None
    provider: str | None
    timestamp: str | None
    input: int
    cached: int
    output: int
    reasoning: int
    cache_write: int

    @property
    def total(self) -> int:
        return self.input + self.output

    @property
    def day(self) -> str | None:
        return self.timestamp[:10] if self.timestamp else None


def counted_responses(db: sqlite3.Connection) -> list[Response]:
    """Every response of the index that counts, in file and line order."""
    rows = db.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM responses r JOIN files f ON f.id = r.file_id "
        "WHERE f.skipped IS NULL AND f.error IS NULL ORDER BY r.file_id, r.line"
    ).fetchall()
    return count_rows(rows)


def count_rows(rows: list[tuple]) -> list[Response]:
    """The responses of ``rows`` (the ``responses`` table's columns, then the file's session id; in file and line
    order) that count."""
    chosen: dict[tuple, tuple] = {}  # (thread, response) → the record row that counts
    reports: dict[tuple[int, str], int] = {}  # (file, usage) → records of the file reporting that usage
    for row in rows:
        if row[4] != "record":
            continue
        file_id, line, thread, response, _, key = row[:6]
        reports[(file_id, key)] = reports.get((file_id, key), 0) + 1
        identity = (thread, response) if response else (thread, f"{file_id}:{line}")
        best = chosen.get(identity)
        own = thread is not None and thread == row[16]
        if best is None or (own and not (best[2] == best[16])):
            chosen[identity] = row
    keep = {(r[0], r[1]) for r in chosen.values() if not (r[15] and r[2] == r[16])}  # no replayed own copy
    seen: set[tuple[int, str]] = set()
    out = []
    for row in rows:
        file_id, line, thread, response, source, key = row[:6]
        if source == "record":
            if (file_id, line) not in keep:
                continue
        else:
            if (file_id, key) in seen:
                continue
            seen.add((file_id, key))
            if row[15]:  # replayed history: the parent's
                continue
            usage = "/".join(str(n) for n in row[10:14])
            if reports.get((file_id, usage)):
                reports[(file_id, usage)] -= 1
                continue
        out.append(Response(file_id, line, thread, response, source, *row[6:15]))
    return out
