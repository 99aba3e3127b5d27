"""What the command line prints: the JSON shapes (documented in docs/output-format.md) and the outline text."""

from __future__ import annotations

import json
from typing import Any

from ..jsonl.findings import SCRIPT_SYNTAX, Finding
from ..jsonl.positions import PositionEncoding
from ..session.rollout import LocatedCall, RolloutAnalysis
from ..session.settings import record_settings_changes


def call_json(analysis: RolloutAnalysis, located: LocatedCall,
              encoding: PositionEncoding = PositionEncoding.UTF16) -> dict[str, Any]:
    call = located.call
    return {
        "line": located.line,
        "record": located.record.kind,
        "call_id": located.record.call_id,
        "tool": call.tool,
        "kind": call.kind,
        "command": call.command,
        "workdir": call.workdir,
        "files": [f.to_json() for f in call.files],
        "computed": call.computed,
        "expansion": list(call.expansion) if call.expansion is not None else None,
        "expansion_tools": list(call.expansion_tools) if call.expansion_tools is not None else None,
        "executed": call.executed,
        "range": analysis.range_of(located.span, encoding).to_json(),
        "output": located.output.to_json() if located.output else None,
        "event": located.event[1].to_json(located.event[0]) if located.event else None,
    }


def record_json(analysis: RolloutAnalysis, line: int) -> dict[str, Any]:
    """One call record: what it names and what its output (followed through wait / write_stdin) says."""
    record = analysis.records[line]
    output = analysis.record_output(line)
    return {"line": line, "call_id": record.call_id, "name": record.name, "record": record.kind,
            "output": output.to_json() if output else None}


def finding_json(analysis: RolloutAnalysis, finding: Finding,
                 encoding: PositionEncoding = PositionEncoding.UTF16) -> dict[str, Any]:
    out: dict[str, Any] = {
        "range": analysis.range_of(finding.span, encoding).to_json(),
        "severity": finding.severity.label,
        "code": finding.code,
        "message": finding.message,
    }
    if finding.related:
        out["related"] = [{"range": analysis.range_of(r.span, encoding).to_json(), "message": r.message}
                          for r in finding.related]
    return out


def outline_json(path: str, analysis: RolloutAnalysis,
                 encoding: PositionEncoding = PositionEncoding.UTF16) -> dict[str, Any]:
    return {
        "file": path,
        "turns": [t.to_json() for t in analysis.turns],
        "records": [record_json(analysis, n) for n in analysis.call_records],
        "calls": [call_json(analysis, c, encoding) for c in analysis.calls],
        "diagnostics": [finding_json(analysis, f, encoding) for f in analysis.findings],
    }


def outline_text(path: str, analysis: RolloutAnalysis, findings: list[Finding],
                  encoding: PositionEncoding, head: list[str] = ()) -> str:
    """The outline for people; ``head`` are lines about the session as a whole (its name, its parent)."""
    out = [path, *head]
    turns = {t.line: t for t in analysis.turns}
    by_line: dict[int, list] = {}
    for located in analysis.calls:
        by_line.setdefault(located.line, []).append(located)
    changes = {c.line: c for c in record_settings_changes(analysis.records)[1:]}  # the first is what the session starts with
    for number, record in enumerate(analysis.records):
        if number in turns:
            turn = turns[number]
            ended = " · ".join(p for p in (turn.outcome if turn.status != "completed" else None, turn.timing()) if p)
            out.append(f"  turn (line {number + 1}): {_one_line(turn.title, 70)}" + (f"  [{ended}]" if ended else ""))
        if number in changes:
            change = changes[number]
            folded = f" (and {change.records - 1} more the same)" if change.records > 1 else ""
            out.append(f"    settings changed (line {number + 1}): {_one_line(change.text(), 100)}{folded}")
        if record.compacted is not None:
            out.append(f"    compacted (line {number + 1}): {_one_line(record.compacted.sentence(), 140)}")
        if not record.is_call:
            continue
        calls = by_line.get(number, [])
        names = " ".join(n for n in (record.name or record.kind, record.call_id) if n)
        out.append(f"    line {number + 1}: {names}{_state(analysis, number)}")
        if not calls and record.is_exec:
            out.append("      (no tool call)")
        # a call of a script V8 refused (script-syntax) is "no" because the script never ran, not dead code
        not_run = "never ran" if any(f.code == SCRIPT_SYNTAX for f in record.findings) else "dead"
        for i, located in enumerate(calls):
            call = located.call
            branch = "└─" if i == len(calls) - 1 else "├─"
            marks = "".join(f" ({m})" for m in (
                not_run if call.executed == "no" else None, "computed" if call.computed else None,
                _ran(located) if located.record.is_exec else None) if m)
            where = f"  in {call.workdir}" if call.workdir else ""
            out.append(f"      {branch} {call.tool or '?'}: {_one_line(_describe(call), 100)}{where}{marks}")
            tools = call.expansion_tools if call.expansion_tools and call.tool is None else None
            for n, command in enumerate(call.expansion or ()):
                shown = f"{tools[n]}: {command}" if tools else command
                out.append(f"      {'  ' if branch == '└─' else '│ '}   · {_one_line(shown, 100)}")
    if findings:
        out.append("findings:")
        for f in findings:
            r = analysis.range_of(f.span, encoding)
            out.append(f"  {r.start.line + 1}:{r.start.character + 1}: {f.severity.label} {f.code} {f.message}")
    return "\n".join(out)


def _ran(located: LocatedCall) -> str | None:
    """How a call in a script is known to have run: an event reports it, or the script completed past it."""
    if located.event is not None:
        summary = located.event[1].summary()
        return "ran" + (f": {summary}" if summary else "")
    return "ran" if located.call.executed == "yes" else None


def _state(analysis: RolloutAnalysis, line: int) -> str:
    """``  [completed, exit 0, 0.7 s]``, ``  [failed, 30.4 s, after 2 waits]``, ``  [no output]``."""
    output = analysis.record_output(line)
    if output is None:
        return "  [no output]" if analysis.records[line].call_id else ""
    facts = [output.status or "no status"]
    if output.exit_code is not None and not analysis.records[line].is_exec:
        facts.append(f"exit {output.exit_code}")
    if output.wall_time is not None:
        facts.append(f"{output.wall_time:g} s")
    if output.note:
        facts.append(output.note)
    return "  [" + ", ".join(facts) + "]"


def _describe(call) -> str:
    if call.kind == "patch" and call.files:
        return ", ".join(f"{f.action} {f.path}" + (f" → {f.move_to}" if f.move_to else "") for f in call.files)
    if call.kind == "command" and call.command is None and call.computed:
        return f"computed: {call.computed_expression or ''}"
    if call.kind == "tool" and call.tool not in ("write_stdin",) and call.arguments:
        return arguments_text(call.arguments)
    return call.label


def arguments_text(arguments: dict) -> str:
    """A call's arguments in one line: ``query: "…"``, ``cell_id: "8", yield_time_ms: 20000``."""
    return ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


def _one_line(text: str, limit: int) -> str:
    text = text.replace("\r", "").replace("\n", "⏎ ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["arguments_text", "call_json", "finding_json", "outline_json", "outline_text", "record_json"]
