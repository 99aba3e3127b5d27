"""The JSON shapes the command line prints (documented in docs/output-format.md)."""

from __future__ import annotations

from typing import Any

from .findings import Finding
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
