"""Planning one file's indexing from its bytes and its row (no database here): a file that grew by appending
has only its new lines analysed (and the calls they answer paired again), any other is analysed whole."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from typing import Any

from ...jsonl.lines import BOM, split_lines
from ...jsonl.source import decode
from ...script.calls import PATCH
from ...session.changes import applied, cwd_set_by, session_place
from ...session.record_analysis import analyze_line
from ...session.rollout import RolloutAnalysis, link_records
from .repositories import repository_of
from .rows import _TITLE_LIMIT, CALL_TEXTS, _call_row, _call_texts, _change_rows, _clean, _clean_many, _Work
from .session_rows import plan_session

_BREAKS = re.compile(rb"\r\n|\r|\n")  # the line breaks of analysis.jsonl.lines.split_lines, on bytes


def _plan(
    path: str, row: dict[str, Any] | None, pending: list[dict[str, Any]], size: int, mtime_ns: int, data: bytes
) -> _Work:
    cut = data.rfind(b"\n") + 1  # the stable prefix ends at the last line break
    view = memoryview(data)
    digest = hashlib.sha256()
    append = False
    if row is not None and not path.endswith(".zst") and row["error"] is None and 0 < row["stable_bytes"] <= len(data):
        digest.update(view[: row["stable_bytes"]])
        append = digest.hexdigest() == row["prefix_hash"]
        if not append:
            digest = hashlib.sha256()
    indexed: dict[str, Any] = row or {}  # what was indexed, read only when appending (so there is a row)
    base_bytes = indexed["stable_bytes"] if append else 0
    base_line = indexed["stable_lines"] if append else 0
    offsets = _line_offsets(data, base_bytes)
    stable_lines = base_line + _breaks_before(offsets, cut) if cut > base_bytes else base_line
    digest.update(view[base_bytes : max(cut, base_bytes)])
    work = _Work(
        path,
        row["id"] if row else None,
        append,
        base_line,
        size,
        mtime_ns,
        max(cut, base_bytes),
        stable_lines,
        digest.hexdigest(),
        indexed["session_id"] if append else None,
        indexed["session_time"] if append else None,
        indexed["turn_line"] if append else None,
        indexed["turn_title"] if append else None,
        indexed["turn_number"] if append else None,
        indexed["cwd"] if append else None,
        indexed["repo_root"] if append else None,
        indexed["repo_url"] if append else None,
    )
    lines = _decoded_lines(path, data, base_bytes, offsets) if base_bytes < len(data) else [""]
    analysis = _analyse_lines(lines) if lines != [""] else None  # [""]: no text (nothing new, or a BOM alone)
    if analysis is None:
        return work
    work.lines_analysed = len(analysis.lines) - (1 if analysis.lines[-1] == "" else 0)
    if work.session_id is None:
        work.session_id = _clean(analysis.session_id)
        work.session_time = _clean(next((r.session.timestamp for r in analysis.records if r.session is not None), None))
    if not append:
        place = session_place(analysis)
        work.repo_root, work.repo_url = repository_of(place)
    before = work.turn_number or 0  # the turns of the lines indexed before an append
    turns = [(base_line + t.line, t.title, before + n) for n, t in enumerate(analysis.turns, 1)]
    turn_starts = [t[0] for t in turns]
    calls = []
    for located in analysis.calls:
        line = base_line + located.line
        at = bisect_right(turn_starts, line) - 1
        turn = turns[at] if at >= 0 else (work.turn_line, work.turn_title, work.turn_number)
        calls.append((located, line, turn, _call_texts(analysis, located, work.session_id, work.session_time, turn)))
    cleaned = _clean_many([text for *_, texts in calls for text in texts])  # one secret prefilter pass a file
    last = min(len(analysis.records), stable_lines - base_line) - 1  # the last stable line of these
    patches = [located.line for located in analysis.calls if located.call.kind == PATCH]
    cwds = _cwds_at(analysis, work.cwd, patches + ([last] if last >= 0 else []))
    for n, (located, line, turn, _) in enumerate(calls):
        row_texts = cleaned[n * CALL_TEXTS : (n + 1) * CALL_TEXTS]
        call_row = _call_row(analysis, located, line, offsets[located.line], base_line, offsets, row_texts, turn)
        work.calls.append(call_row)
        if located.call.kind == PATCH:
            turn_line, turn_title, _, timestamp = call_row[-4:]
            work.changes += _change_rows(
                analysis, located, line, cwds[located.line], work, (turn_line, turn_title, timestamp)
            )
    if append:
        _pair_late_outputs(path, data, analysis, base_line, offsets, pending, work)
    plan_session(analysis, work, base_line, stable_lines, row)
    work.cwd = cwds[last] if last >= 0 else work.cwd
    earlier = [t for t in turns if t[0] < stable_lines]
    if earlier:
        work.turn_line, work.turn_title, work.turn_number = (
            earlier[-1][0],
            _clean(earlier[-1][1], _TITLE_LIMIT),
            earlier[-1][2],
        )
    return work


def _cwds_at(analysis: RolloutAnalysis, cwd: str | None, wanted: list[int]) -> dict[int, str | None]:
    """``cwd_at(analysis, cwd)[n]`` (``analysis.session.changes``: ``cwd``, then each ``session_meta`` or
    ``turn_context`` cwd from its line on) for each line ``n`` of ``wanted``, the only lines the index reads it
    at (its patch calls' and its last stable line): each is found by looking back from the line to the last
    record that sets one, the lines of ``wanted`` taken from the last, so that no line is looked at twice.
    ``cwd_at`` built the list of every line's (17,715 on wild) to read a few hundred of it."""
    records = analysis.records
    found: dict[int, str | None] = {}
    at = len(records)  # the lines from ``at`` on have been looked at
    known: str | None = None  # the cwd in effect at line ``at`` (when ``at`` is a line looked at)
    for line in sorted(set(wanted), reverse=True):
        if line >= at:  # at or after the record last found, before the line it was found from
            found[line] = known
            continue
        known = cwd
        for n in range(line, -1, -1):
            set_here = cwd_set_by(records[n])
            if set_here is not None:
                known, at = set_here, n
                break
        else:
            at = 0
        found[line] = known
    return found


def _analyse(text: str) -> RolloutAnalysis:
    """What the index reads of ``text``: :func:`_analyse_lines` of its lines."""
    return _analyse_lines(split_lines(text))


def _analyse_lines(lines: list[str]) -> RolloutAnalysis:
    """What the index reads of the text whose lines are ``lines`` (``split_lines``'): every line analysed and
    linked (calls paired with their outputs and events, turns), as ``analyze_text`` does, without what only
    findings need, since the index reports none: no line is scanned for secrets (what it stores is redacted by
    :func:`~.rows._clean`), and the records of unknown types are not looked for (``link_records`` leaves them
    to its caller).  Each line is analysed on its own, not through a :class:`~analysis.session.memo.LineCache`:
    its memo pays where a document is read again after an edit, but a file is read once here, its lines are
    distinct, and looking each up hashed its whole text (about 1% of the index's CPU)."""
    return link_records(lines, [analyze_line(line, secrets=False) for line in lines])


def _decoded_lines(path: str, data: bytes, base: int, offsets: list[int]) -> list[str]:
    """``split_lines(decode(path, data[base:]).text)``, the lines the index analyses, each decoded from its own
    bytes (``offsets``: :func:`_line_offsets` of ``data`` from ``base``).  The whole text decoded at once and
    split cost about twice as much: a file holding one character beyond ASCII decodes to a wide string, which
    ``str.split`` steps through character by character and each line is narrowed again from.  Since ``\n``
    never occurs inside a UTF-8 sequence, a line decodes alone as it does in the whole text.  Bytes that are
    not UTF-8 (U+FFFD in the text) and carriage returns (other breaks) are read as before, whole."""
    if data.find(b"\r", base) >= 0:
        return split_lines(decode(path, data[base:]).text)
    # str() of a memoryview's slice decodes the file's own bytes in place: a slice of the bytes (``data[a:b]``)
    # copied each line first (a copy of the whole file, line by line, made and freed)
    view = memoryview(data)
    try:
        lines = [str(view[start : end - 1], "utf-8") for start, end in zip(offsets, offsets[1:])]
        lines.append(str(view[offsets[-1] :], "utf-8"))
    except UnicodeDecodeError:
        return split_lines(decode(path, data[base:]).text)
    if lines[0].startswith(BOM):  # decode drops a byte-order mark at the start of the text
        lines[0] = lines[0][1:]
    return lines


def _pair_late_outputs(
    path: str,
    data: bytes,
    tail: RolloutAnalysis,
    base_line: int,
    offsets: list[int],
    pending: list[dict[str, Any]],
    work: _Work,
) -> None:
    """Updates calls indexed earlier whose output (or, for a script that was still running, whose ``wait``)
    is among the new lines: the call's line, its earlier output and those new lines are analysed together,
    so the analysis pairs them exactly as it would in the whole file."""
    waits = [n for n, r in enumerate(tail.records) if r.kind == "function_call" and r.name == "wait"]
    patch_events = {n: r.event for n, r in enumerate(tail.records) if r.event is not None and r.event.kind == PATCH}
    wait_outputs = [n for w in waits for n in tail.outputs_by_call_id.get(tail.records[w].call_id or "", [])]
    by_line: dict[int, dict[str, Any]] = {}
    for call in pending:
        by_line.setdefault(call["line"], call)
    for line, call in by_line.items():
        relevant = list(tail.outputs_by_call_id.get(call["call_id"], []))
        if call["status"] == "running":
            relevant += waits + wait_outputs
        if not relevant:
            continue
        # the patch events before the output tell whether a patch applied (a nested one's id is exec-…)
        relevant += [
            n
            for n, event in patch_events.items()
            if n < max(relevant) and (event.call_id == call["call_id"] or event.nested)
        ]
        texts = [_line_at(path, data, call["line_offset"])]
        where = [(line, call["line_offset"])]
        if call["output_offset"] is not None:
            texts.append(_line_at(path, data, call["output_offset"]))
            where.append((call["output_line"], call["output_offset"]))
        for number in sorted(set(relevant)):
            texts.append(tail.lines[number])
            where.append((base_line + number, offsets[number]))
        work.lines_reread += 1 + (call["output_offset"] is not None)
        stitched = _analyse("\n".join(texts))
        first = stitched.output_of(0)
        for located in stitched.calls_on(0):
            output = located.output
            if output is None:
                continue
            if located.call.kind == PATCH:
                work.applied.append((line, located.index, applied(located)))
            work.paired.append(
                (
                    line,
                    located.index,
                    (
                        output.status,
                        output.exit_code,
                        located.call.executed,
                        where[output.line][0],
                        where[first][1] if first is not None else None,
                    ),
                )
            )


def _line_at(path: str, data: bytes, offset: int) -> str:
    end = _BREAKS.search(data, offset)
    return decode(path, data[offset : end.start() if end else len(data)]).text


def _breaks_before(offsets: list[int], end: int) -> int:
    """How many line breaks lie before ``end`` among the lines that start at ``offsets`` (:func:`_line_offsets`):
    ``end`` is just after a line feed, or the first offset, so that no ``\r\n`` straddles it."""
    return bisect_right(offsets, end) - 1


def _line_offsets(data: bytes, base: int) -> list[int]:
    """Byte offsets (in ``data``) of the lines that start at or after ``base``."""
    if data.find(b"\r", base) >= 0:
        return [base] + [m.end() for m in _BREAKS.finditer(data, base)]
    offsets = [base]
    find = data.find
    at = find(b"\n", base)
    while at >= 0:  # a C search per line: several times faster than the regex's match objects
        offsets.append(at + 1)
        at = find(b"\n", at + 1)
    return offsets
