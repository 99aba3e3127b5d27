"""What a file's analysis becomes as rows: the :class:`_Work` one file's indexing writes, and the row of a
call and of each file a patch changed, every text redacted and storable."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...jsonl.display import storable
from ...jsonl.secrets import NO_SECRET_CHARS, redact_all, redact_each
from ...session.changes import call_changes, path_key
from ...session.rollout import RolloutAnalysis
from .repositories import repository_key
from .results import call_text

_TITLE_LIMIT = 500


@dataclass
class _Work:
    """What indexing one file changes, computed before the write transaction."""

    path: str
    file_id: int | None
    append: bool
    first_line: int  # rows from this line on are replaced
    size: int
    mtime_ns: int
    stable_bytes: int
    stable_lines: int
    prefix_hash: str
    session_id: str | None
    session_time: str | None
    turn_line: int | None
    turn_title: str | None
    turn_number: int | None = None
    cwd: str | None = None
    repo_root: str | None = None
    repo_url: str | None = None
    calls: list[tuple] = field(default_factory=list)
    paired: list[tuple[int, int, tuple]] = field(default_factory=list)  # (line, call index, new output fields)
    changes: list[tuple] = field(default_factory=list)  # rows of the changes table
    applied: list[tuple[int, int, str]] = field(default_factory=list)  # (line, call index, applied) of late outputs
    lines_analysed: int = 0
    lines_reread: int = 0
    session: dict | None = None  # the files columns of the sessions library (index.session_rows)
    responses: list[tuple] = field(default_factory=list)  # rows of the responses table
    links: list[tuple[str, str | None]] = field(default_factory=list)  # (kind, target) rows of the links table


def _integer(value: int | None) -> int | None:
    """``value`` when SQLite can store it (64 bits); an exit code beyond that is no exit code."""
    return value if value is None or -(1 << 63) <= value < (1 << 63) else None


def _clean(text: str | None, limit: int | None = None) -> str | None:
    if text is None:
        return None
    if not text.strip(NO_SECRET_CHARS):  # a timestamp, an id, a number: ASCII, no secret (one a line)
        return text[:limit] if limit is not None and len(text) > limit else text
    text = storable(redact_all(text))
    return text[:limit] if limit is not None and len(text) > limit else text


def _clean_many(texts: list[str | None]) -> list[str | None]:
    """:func:`_clean` of each text (no limit), their secrets looked for in one pass (a file's calls: every
    text of every call, :func:`_call_texts`).  A text of ASCII is storable as it is (``storable``'s own first
    test, made here without a call for each of the ten texts of a call)."""
    cleaned = iter(redact_each([t for t in texts if t is not None]))
    return [None if t is None else c if (c := next(cleaned)).isascii() else storable(c) for t in texts]


def units(text: str, start: int, end: int) -> tuple[int, int, int, int]:
    """The code-point columns ``start`` and ``end`` of ``text`` in UTF-8 and in UTF-16 units (what
    :meth:`~analysis.jsonl.positions.LineColumns.to_units` gives, a lone surrogate one unit of UTF-16 and three
    bytes of UTF-8), counted by encoding the text before them: a line's tables, built in Python per call, cost
    more than encoding in C the few characters up to a call's span."""
    length = len(text)
    start = max(0, min(start, length))
    end = max(0, min(end, length))
    if text.isascii():
        return start, end, start, end
    before, inside = text[:start], text[start:end] if start <= end else None
    utf8 = len(before.encode("utf-8", "surrogatepass"))
    utf16 = len(before.encode("utf-16-le", "surrogatepass")) // 2
    if inside is None:  # an empty span given backwards: each end on its own
        ahead = text[:end]
        return (
            utf8,
            len(ahead.encode("utf-8", "surrogatepass")),
            utf16,
            len(ahead.encode("utf-16-le", "surrogatepass")) // 2,
        )
    return (
        utf8,
        utf8 + len(inside.encode("utf-8", "surrogatepass")),
        utf16,
        utf16 + len(inside.encode("utf-16-le", "surrogatepass")) // 2,
    )


def _first_output_offset(analysis: RolloutAnalysis, located, offsets: list[int]) -> int | None:
    """The byte offset of the output record answering the call's own ``call_id`` (not a later ``wait``'s)."""
    if located.output is None:
        return None
    first = analysis.output_of(located.line)
    return offsets[first] if first is not None else offsets[located.output.line]


def _change_rows(
    analysis: RolloutAnalysis, located, line: int, cwd: str | None, work: _Work, turn_and_time: tuple
) -> list[tuple]:
    rows = []
    for change in call_changes(analysis, located, cwd):
        texts = [change.absolute, change.move_absolute, change.path, change.move_to, change.next_command]
        for hunk in change.hunks:
            texts += [hunk.header, *hunk.lines]
        cleaned = _clean_many(texts)
        absolute, move_absolute, path, move_to, next_command = cleaned[:5]
        at = 5
        hunks = []
        for hunk in change.hunks:
            hunks.append([cleaned[at], cleaned[at + 1 : at + 1 + len(hunk.lines)]])
            at += 1 + len(hunk.lines)
        repo = work.repo_root
        rows.append(
            (
                line,
                change.call_index,
                change.file_index,
                change.action,
                path,
                move_to,
                absolute,
                move_absolute,
                path_key(absolute) if absolute else None,
                path_key(move_absolute) if move_absolute else None,
                repository_key(absolute, repo),
                repository_key(move_absolute, repo),
                change.applied,
                int(change.nested),
                json.dumps(hunks, ensure_ascii=False),
                next_command,
                work.session_id,
                *turn_and_time,
            )
        )
    return rows


CALL_TEXTS = 10  # the texts of a call's row (:func:`_call_texts`), cleaned together with the file's others


def _call_texts(
    analysis: RolloutAnalysis,
    located,
    session_id: str | None,
    session_time: str | None,
    turn: tuple[int | None, str | None, int | None],
) -> list[str | None]:
    """The :data:`CALL_TEXTS` texts of the call's row, as the rollout has them: :func:`_call_row` is given
    them cleaned (:func:`_clean_many` of every call of the file at once: one secret prefilter pass for the
    file, where one a call was a round trip to RE2 for each of wild's 2,585 calls)."""
    call = located.call
    record = located.record.record
    timestamp = record.envelope.timestamp if record is not None else None
    output = located.output
    changed = "\n".join(f.path + (f"\n{f.move_to}" if f.move_to else "") for f in call.files)
    return [
        located.record.name,
        located.record.call_id,
        call.tool,
        call_text(call),
        call.workdir,
        changed,
        output.status if output else None,
        session_id,
        turn[1],
        timestamp or session_time,
    ]


def _call_row(
    analysis: RolloutAnalysis,
    located,
    line: int,
    line_offset: int,
    base_line: int,
    offsets: list[int],
    cleaned: list[str | None],
    turn: tuple[int | None, str | None, int | None],
) -> tuple:
    """The call's row, ``cleaned`` its :func:`_call_texts` cleaned."""
    call = located.call
    span = located.span
    utf8_start, utf8_end, utf16_start, utf16_end = units(analysis.lines[located.line], span.start, span.end)
    output = located.output
    name, call_id, tool, shown, workdir, files, status, session, title, time = cleaned
    if title is not None and len(title) > _TITLE_LIMIT:
        title = title[:_TITLE_LIMIT]
    return (
        line,
        located.index,
        line_offset,
        utf8_start,
        utf8_end,
        utf16_start,
        utf16_end,
        span.start,
        span.end,
        name,
        call_id,
        tool,
        call.kind,
        shown,
        workdir,
        files or None,
        call.executed,
        status,
        _integer(output.exit_code) if output else None,
        base_line + output.line if output else None,
        _first_output_offset(analysis, located, offsets),
        session,
        turn[0],
        title,
        turn[2],
        time,
    )
