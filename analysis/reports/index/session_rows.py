"""What the sessions library (``rollout-lsp sessions`` and ``cost``) keeps of a file in the index: the session's
own facts (its lineage, first request, start and end, model in force, whether its last turn is open), one row per
model response's usage and the links to other sessions.  Computed from the file's analysis in :func:`plan_session`
(beside the calls, in the worker that plans the file) and written by :func:`write_session`.

A response's usage is read as the issue asks: a ``token_usage_record`` is one row for the thread its
``thread_id`` names (a record copied into a child's file keeps the parent's thread, and the query counts each
``(thread_id, response_id)`` once over the whole index), with the model and service tier of its ``attribution``;
a ``token_count`` is one row whose key is its running total (the query counts a total once per file and drops a
``token_count`` whose usage a ``token_usage_record`` of the file reports), with the model and tier in force.
Rows in the history a fork or subagent replayed are kept, marked ``inherited``, and never counted."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...jsonl.secrets import NO_SECRET_CHARS
from ...session.lineage import lineage
from ...session.references import references
from ...session.rollout import RolloutAnalysis
from ...session.usage import _FIELDS, TOKEN_COUNT, USAGE_RECORD, TokenUsage, token_count_payload, usage_record_payload
from .rows import _TITLE_LIMIT, _clean, _Work
from .schema import SESSION_COLUMNS

RESPONSE_COLUMNS = (
    "file_id",
    "line",
    "thread_id",
    "response_id",
    "source",
    "total_key",
    "model",
    "service_tier",
    "provider",
    "timestamp",
    "input",
    "cached",
    "output",
    "reasoning",
    "cache_write",
    "inherited",
)
_INSERT_RESPONSE = (
    f"INSERT INTO responses({', '.join(RESPONSE_COLUMNS)}) VALUES ({', '.join('?' * len(RESPONSE_COLUMNS))})"
)
_ENDS = frozenset({"task_complete", "turn_complete", "turn_aborted"})
_STARTS = frozenset({"task_started", "turn_started"})


def _payload(record: Any) -> dict | None:
    """A record's payload as a dict (typed items dumped), else None."""
    item = record.item
    if isinstance(item, dict):
        return item
    payload = record.envelope.payload
    return payload if isinstance(payload, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _key(usage: TokenUsage) -> str:
    return f"{usage.input}/{usage.cached}/{usage.output}/{usage.reasoning}"


def plan_session(analysis: RolloutAnalysis, work: _Work, base_line: int, stable_lines: int, row: Any) -> None:
    """Fills ``work.session`` (the files columns of :data:`SESSION_COLUMNS`), ``work.responses`` and
    ``work.links`` from the analysis of the lines from ``base_line`` (an append carries the session's facts over
    from ``row``, the file's indexed row)."""
    state = dict(zip(SESSION_COLUMNS, (row.get(c) for c in SESSION_COLUMNS))) if work.append and row else {}
    state = {c: state.get(c) for c in SESSION_COLUMNS}
    found = lineage(analysis)
    ident = found.identity
    replay = found.inherited
    if not work.append and ident is not None:
        meta = analysis.records[ident.line].session
        extra = (meta.model_extra or {}) if meta is not None else {}
        state["root_id"] = _clean(_text(extra.get("session_id")) or ident.id)
        state["forked_from"] = _clean(ident.forked_from)
        state["parent_thread"] = _clean(ident.parent)
        state["agent_path"] = _clean(ident.agent_path)
        state["nickname"] = _clean(ident.nickname)
        state["provider"] = _clean(_text(getattr(meta, "model_provider", None)) or _text(extra.get("model_provider")))
    own_id = work.session_id
    # the replayed history's lines (an empty range when there is none)
    replay_first, replay_last = (replay.start, replay.end) if replay is not None else (1, 0)
    # the loop below is the planning's own work for every line (17,715 of wild's): names looked up once, a
    # timestamp taken as it is when _clean would keep it (the usual ASCII one, no function call), and only a
    # token_count event (or a payload that is not a dict, which token_count_payload may still read) asked for
    # its usage row
    records = analysis.records
    for number in range(min(len(records), stable_lines - base_line)):
        line = records[number]
        record = line.record
        if record is None:
            continue
        inherited = replay_first <= number <= replay_last
        envelope = record.envelope
        timestamp = envelope.timestamp
        if timestamp is not None and (type(timestamp) is not str or timestamp.strip(NO_SECRET_CHARS)):
            timestamp = _clean(timestamp)
        if timestamp and not inherited:
            state["started"] = state["started"] or timestamp
            if state["ended"] is None or timestamp > state["ended"]:
                state["ended"] = timestamp
        kind = envelope.type
        if kind == "event_msg":
            payload = _payload(record)
            event = payload.get("type") if payload is not None else None
            settings = (
                payload.get("thread_settings") if payload is not None and event == "thread_settings_applied" else None
            )
            if isinstance(settings, dict):
                state["model"] = _clean(_text(settings.get("model"))) or state["model"]
                state["service_tier"] = _clean(_text(settings.get("service_tier"))) or state["service_tier"]
                state["provider"] = _clean(_text(settings.get("model_provider_id"))) or state["provider"]
            elif event in _STARTS and not inherited:
                state["open_turn"] = 1
            elif event in _ENDS and not inherited:
                state["open_turn"] = 0
            if line.prompt and not inherited and state["request"] is None and not _inherited_message(record):
                state["request"] = _clean(line.prompt, _TITLE_LIMIT)
            if event == TOKEN_COUNT or payload is None:
                _count_row(analysis, number, base_line + number, own_id, state, timestamp, inherited, work, payload)
            continue
        if kind == "turn_context":
            if line.settings is not None and line.settings.model:
                state["model"] = _clean(line.settings.model)
            payload = _payload(record)
            if payload is not None and _text(payload.get("service_tier")):
                state["service_tier"] = _clean(payload["service_tier"])
        if line.prompt and not inherited and state["request"] is None and not _inherited_message(record):
            state["request"] = _clean(line.prompt, _TITLE_LIMIT)
        if kind == USAGE_RECORD:
            _record_row(analysis, number, base_line + number, own_id, state, timestamp, inherited, work)
    if not work.append:
        if state["open_turn"] is None and analysis.turns:
            last = analysis.turns[-1]
            state["open_turn"] = int(last.status is None and last.ended_line is None)
        for spawn in found.spawns:
            if spawn.child and spawn.line < stable_lines:
                work.links.append(("spawned", _clean(spawn.child)))
        for reference in references(analysis):
            if reference.parent_id and reference.line < stable_lines:
                work.links.append((reference.kind, _clean(reference.parent_id)))
    else:
        for spawn in found.spawns:
            if spawn.child and base_line + spawn.line < stable_lines:
                work.links.append(("spawned", _clean(spawn.child)))
    work.session = state


def _inherited_message(record: Any) -> bool:
    """A subagent's copy of its parent's prompt (``metadata.inherited_user_message``): not its own request."""
    metadata = record.envelope.metadata
    return isinstance(metadata, dict) and bool(metadata.get("inherited_user_message"))


def _record_row(
    analysis: RolloutAnalysis,
    number: int,
    absolute: int,
    own_id: str | None,
    state: dict,
    timestamp: str | None,
    inherited: bool,
    work: _Work,
) -> None:
    payload = usage_record_payload(analysis, number)
    if payload is None:
        return
    usage = TokenUsage.from_json(payload.get("usage"))
    if usage is None:
        return
    thread = _clean(_text(payload.get("thread_id"))) or own_id
    found = payload.get("attribution")
    attribution: dict = found if isinstance(found, dict) else {}
    completed = payload.get("completed_at_ms")
    if isinstance(completed, int) and not isinstance(completed, bool) and completed > 0:
        from datetime import datetime, timezone

        try:
            moment = datetime.fromtimestamp(completed / 1000, tz=timezone.utc)
            timestamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        except (OverflowError, OSError, ValueError):
            pass
    work.responses.append(
        (
            absolute,
            thread,
            _clean(_text(payload.get("response_id"))),
            "record",
            _key(usage),
            _clean(_text(attribution.get("model"))) or state["model"],
            _clean(_text(attribution.get("service_tier"))) or state["service_tier"],
            _clean(_text(attribution.get("model_provider"))) or state["provider"],
            timestamp,
            usage.input,
            usage.cached,
            usage.output,
            usage.reasoning,
            usage.cache_write,
            int(inherited or (thread is not None and own_id is not None and thread != own_id)),
        )
    )


def _count_row(
    analysis: RolloutAnalysis,
    number: int,
    absolute: int,
    own_id: str | None,
    state: dict,
    timestamp: str | None,
    inherited: bool,
    work: _Work,
    payload: dict | None = None,
) -> None:
    """The row of a ``token_count`` event: ``payload``, the event's, or None to read it as
    :func:`token_count_payload` does."""
    if payload is None:
        payload = token_count_payload(analysis, number)
    info = payload.get("info") if payload is not None else None
    if not isinstance(info, dict):
        return
    usage = _usage(info.get("last_token_usage"))
    total = _usage(info.get("total_token_usage"))
    if usage is None or total is None:
        return
    work.responses.append(
        (
            absolute,
            own_id,
            None,
            "count",
            f"{total[0]}/{total[1]}/{total[2]}/{total[3]}/{total[4]}",
            state["model"],
            state["service_tier"],
            state["provider"],
            timestamp,
            usage[0],
            usage[1],
            usage[2],
            usage[3],
            usage[5],
            int(inherited),
        )
    )


def _usage(value: Any) -> tuple[int, int, int, int, int, int] | None:
    """The fields of ``TokenUsage.from_json(value)`` (input, cached, output, reasoning, total, cache_write), or
    None as it gives None.  A usage whose six counts are plain ints (every one Codex writes) is read here
    without the frozen dataclass built and dropped (two a ``token_count``, 7,000 of them in wild); any other
    value is read by ``from_json`` itself."""
    if type(value) is dict:
        get = value.get
        numbers = [get(name, 0) for name in _FIELDS]
        read, cached, written, reasoning, total, cache_write = numbers
        if type(read) is type(cached) is type(written) is type(reasoning) is type(total) is type(cache_write) is int:
            return (read, cached, written, reasoning, total or read + written, cache_write)
    usage = TokenUsage.from_json(value)
    if usage is None:
        return None
    return (usage.input, usage.cached, usage.output, usage.reasoning, usage.total, usage.cache_write)


def write_session(db: sqlite3.Connection, file_id: int | None, work: _Work) -> None:
    """Writes what :func:`plan_session` planned for the file ``file_id`` (rows from ``work.first_line`` on
    replaced)."""
    if work.session is None:
        return
    db.execute(
        f"UPDATE files SET {', '.join(c + ' = ?' for c in SESSION_COLUMNS)} WHERE id = ?",
        (*(work.session[c] for c in SESSION_COLUMNS), file_id),
    )
    if work.append:
        db.execute("DELETE FROM responses WHERE file_id = ? AND line >= ?", (file_id, work.first_line))
    else:
        db.execute("DELETE FROM responses WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM links WHERE file_id = ?", (file_id,))
    db.executemany(_INSERT_RESPONSE, [(file_id, *r) for r in work.responses])
    db.executemany(
        "INSERT OR IGNORE INTO links(file_id, kind, target) VALUES (?, ?, ?)",
        [(file_id, kind, target) for kind, target in work.links],
    )
