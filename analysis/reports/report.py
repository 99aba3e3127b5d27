"""What the command line prints: the JSON shapes (documented in docs/output-format.md) and the outline text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..jsonl.display import MESSAGE_LIMIT, NAME_LIMIT, PATH_LIMIT, shown
from ..jsonl.findings import Finding
from ..jsonl.positions import PositionEncoding
from ..session.continuations import CallOutput
from ..session.executed import executed
from ..session.files_changed import ChangedFile, call_touches, changed_files, file_row, session_list
from ..session.finish import finding_json  # re-exported: where it was defined before
from ..session.labels import (
    call_label,
    call_outcome,
    continued_from,
    expansion_labels,
    expansion_outcomes,
    failed_count,
    failures,
    located_outcome,
    record_outcome,
    seconds,
    turn_label,
    turn_status,
)
from ..session.record_analysis import LineAnalysis
from ..session.rollout import LocatedCall, RolloutAnalysis
from ..session.settings import record_settings_changes


def call_json(
    analysis: RolloutAnalysis, located: LocatedCall, encoding: PositionEncoding = PositionEncoding.UTF16
) -> dict[str, Any]:
    call = located.call
    outcome = located_outcome(located)
    return {
        "line": located.line,
        "record": located.record.kind,
        "call_id": located.record.call_id,
        "tool": call.tool,
        "kind": call.kind,
        "outcome": outcome.text if outcome else None,
        "command": call.command,
        "workdir": call.workdir,
        "files": [f.to_json() for f in call.files],
        "computed": call.computed,
        "expansion": list(call.expansion) if call.expansion is not None else None,
        "expansion_tools": list(call.expansion_tools) if call.expansion_tools is not None else None,
        "executed": executed(None, located, outcome).value,  # the editor's word (analysis/session/executed.py)
        "range": analysis.range_of(located.span, encoding).to_json(),
        "output": located.output.to_json() if located.output else None,
        "event": located.event[1].to_json(located.event[0]) if located.event else None,
    }


class CallRecords(Protocol):
    """What :func:`record_json` reads: the call records by line and their outputs (an analysis, or the one
    record the streamed outline has at hand)."""

    @property
    def records(self) -> Sequence[LineAnalysis] | Mapping[int, LineAnalysis]: ...

    def record_output(self, call_line: int) -> CallOutput | None: ...


def record_json(analysis: CallRecords, line: int) -> dict[str, Any]:
    """One call record: what it names and what its output (followed through wait / write_stdin) says."""
    record = analysis.records[line]
    output = analysis.record_output(line)
    return {
        "line": line,
        "call_id": record.call_id,
        "name": record.name,
        "record": record.kind,
        "output": output.to_json() if output else None,
    }


def outline_json(
    path: str, analysis: RolloutAnalysis, encoding: PositionEncoding = PositionEncoding.UTF16
) -> dict[str, Any]:
    return {
        "file": path,
        "turns": [t.to_json() for t in analysis.turns],
        "records": [record_json(analysis, n) for n in analysis.call_records],
        "calls": [call_json(analysis, c, encoding) for c in analysis.calls],
        "files": [t.to_json() for t in call_touches(analysis)],
        "diagnostics": [finding_json(analysis, f, encoding) for f in analysis.findings],
    }


def outline_text(
    path: str, analysis: RolloutAnalysis, findings: list[Finding], encoding: PositionEncoding, head: Sequence[str] = ()
) -> str:
    """The outline for people; ``head`` are lines about the session as a whole (its name, its parent)."""
    out = [path, *head]
    failed = failures(analysis)
    calls_count = len(analysis.calls)
    first = f" (first: line {failed[0][0] + 1}, {failed[0][1]})" if failed else ""
    out.append(f"  session: {calls_count} call{'s' if calls_count != 1 else ''}, {len(failed)} failed{first}")
    turns = {t.line: (n, t) for n, t in enumerate(analysis.turns, 1)}
    by_line: dict[int, list] = {}
    for located in analysis.calls:
        by_line.setdefault(located.line, []).append(located)
    chunks = continued_from(analysis)
    changes = {
        c.line: c for c in record_settings_changes(analysis.records)[1:]
    }  # the first is what the session starts with
    current = None
    for number, record in enumerate(analysis.records):
        if number in turns:
            if current is not None:
                _files_text(out, analysis, current, "    ")
            ordinal, current = turns[number]
            count = failed_count(analysis, current.line, current.end_line)
            marks = [m for m in (turn_status(current), current.timing(), f"{count} failed" if count else None) if m]
            out.append(
                f"  {turn_label(ordinal, number)}: {shown(current.title, 70)}"
                + (f"  [{' · '.join(marks)}]" if marks else "")
            )
        if number in changes:
            change = changes[number]
            folded = f" (and {change.records - 1} more the same)" if change.records > 1 else ""
            out.append(f"    settings changed (line {number + 1}): {shown(change.text(), 100)}{folded}")
        if record.compacted is not None:
            out.append(f"    compacted (line {number + 1}): {shown(record.compacted.sentence(), 140)}")
        if not record.is_call:
            continue
        calls = by_line.get(number, [])
        names = " ".join(shown(n, NAME_LIMIT) for n in (record.name or record.kind, record.call_id) if n)
        out.append(f"    line {number + 1}: {names}{_state(analysis, number, chunks.get(number))}")
        if not calls and record.is_exec:
            out.append("      (no tool call)")
        for i, located in enumerate(calls):
            call = located.call
            branch = "└─" if i == len(calls) - 1 else "├─"
            outcome = call_outcome(analysis, located) if located.record.is_exec else None
            call_marks = "".join(
                f" ({m})"
                for m in (
                    "computed" if call.computed else None,
                    _ran(analysis, located) if located.record.is_exec and outcome is None else None,
                )
                if m
            )
            where = f"  in {shown(call.workdir, PATH_LIMIT)}" if call.workdir else ""
            mark = outcome.mark if outcome else ""
            out.append(f"      {branch} {mark}{shown(call_label(call, limit=10_000), 110)}{where}{call_marks}")
            for label, ended in zip(expansion_labels(call, limit=10_000), expansion_outcomes(analysis, located)):
                mark = ended.mark if ended is not None and ended.failed else ""
                ran = " (ran)" if ended is not None and not ended.failed else ""
                out.append(f"      {'  ' if branch == '└─' else '│ '}   · {mark}{shown(label, 100)}{ran}")
    if current is not None:
        _files_text(out, analysis, current, "    ")
    changed = session_list(analysis)  # none when one turn's list already says it all
    if changed:
        out.append(f"files changed ({len(changed)}):")
        out.extend(_file_row(f, "  ") for f in changed)
    if findings:
        out.append("findings:")
        for f in findings:
            r = analysis.range_of(f.span, encoding)
            out.append(
                f"  {r.start.line + 1}:{r.start.character + 1}: {f.severity.label} {f.code} {shown(f.message, MESSAGE_LIMIT)}"
            )
    return "\n".join(out)


def _files_text(out: list[str], analysis: RolloutAnalysis, turn, indent: str) -> None:
    changed = changed_files(analysis, turn.line, turn.end_line)
    if changed:
        out.append(f"{indent}files changed ({len(changed)}):")
        out.extend(_file_row(f, indent + "  ") for f in changed)


def _file_row(changed: ChangedFile, indent: str) -> str:
    """``  src/a.py: added (lines 171, 216)``; the lines of the calls that touched it (:func:`file_row`)."""
    return f"{indent}{shown(changed.path, PATH_LIMIT)}: {file_row(changed)}"


def _ran(analysis: RolloutAnalysis, located: LocatedCall) -> str | None:
    """``ran`` when a call in a script is known to have run, as the editor says it
    (:func:`~analysis.session.executed.executed`); with what its event says when one reports it."""
    if executed(analysis, located, None).value != "yes":
        return None
    summary = located.event[1].summary() if located.event is not None else None
    return "ran" + (f": {summary}" if summary else "")


def _state(analysis: RolloutAnalysis, line: int, continues: int | None = None) -> str:
    """``  [completed, 0.7 s]``, ``  [exit 1, 0 s]``, ``  [interrupted (exit 130), 10 s, after 1 write_stdin]``,
    ``  [no output]``; a chunk of a continued process says which call it continues."""
    output = analysis.record_output(line)
    outcome = record_outcome(analysis, line)
    if output is None:
        return f"  [{outcome.text}]" if outcome else ""
    facts = [outcome.text if outcome else output.status or "no status"]
    if output.exit_code not in (None, 0) and outcome is None:  # a chunk: its own exit code
        facts.append(f"exit {output.exit_code}")
    if output.wall_time is not None:
        facts.append(seconds(output.wall_time))
    if output.note:
        facts.append(output.note)
    if continues is not None:
        facts.append(f"continues line {continues + 1}")
    return "  [" + ", ".join(facts) + "]"


def arguments_text(arguments: dict) -> str:
    """A call's arguments in one line: ``query: "…"``, ``cell_id: "8", yield_time_ms: 20000``."""
    return ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


__all__ = ["arguments_text", "call_json", "finding_json", "outline_json", "outline_text", "record_json"]
