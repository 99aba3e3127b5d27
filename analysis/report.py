"""What the command line prints: the JSON shapes (documented in docs/output-format.md) and the outline text."""

from __future__ import annotations

from typing import Any

from .findings import SCRIPT_SYNTAX, Finding
from .positions import PositionEncoding
from .rollout import LocatedCall, RolloutAnalysis


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
    }


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
        "calls": [call_json(analysis, c, encoding) for c in analysis.calls],
        "diagnostics": [finding_json(analysis, f, encoding) for f in analysis.findings],
    }


def outline_text(path: str, analysis: RolloutAnalysis, findings: list[Finding],
                  encoding: PositionEncoding) -> str:
    out = [path]
    turns = {t.line: t for t in analysis.turns}
    by_line: dict[int, list] = {}
    for located in analysis.calls:
        by_line.setdefault(located.line, []).append(located)
    for number, record in enumerate(analysis.records):
        if number in turns:
            out.append(f"  turn (line {number + 1}): {_one_line(turns[number].title, 70)}")
        if not record.is_call:
            continue
        calls = by_line.get(number, [])
        output = calls[0].output if calls else None
        state = f"  [{output.status}" + (f", {output.wall_time:g} s]" if output.wall_time is not None else "]") \
            if output and output.status else "  [no output]" if output is None and record.call_id else ""
        out.append(f"    line {number + 1}: {record.name} {record.call_id or ''}{state}")
        if not calls and record.is_exec:
            out.append("      (no tool call)")
        # a call of a script V8 refused (script-syntax) is "no" because the script never ran, not dead code
        not_run = "never ran" if any(f.code == SCRIPT_SYNTAX for f in record.findings) else "dead"
        for i, located in enumerate(calls):
            call = located.call
            branch = "└─" if i == len(calls) - 1 else "├─"
            marks = "".join(f" ({m})" for m in (
                not_run if call.executed == "no" else None, "computed" if call.computed else None) if m)
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


def _describe(call) -> str:
    if call.kind == "patch" and call.files:
        return ", ".join(f"{f.action} {f.path}" + (f" → {f.move_to}" if f.move_to else "") for f in call.files)
    if call.kind == "command" and call.command is None and call.computed:
        return f"computed: {call.computed_expression or ''}"
    return call.label


def _one_line(text: str, limit: int) -> str:
    text = text.replace("\r", "").replace("\n", "⏎ ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["call_json", "finding_json", "outline_json", "outline_text"]
