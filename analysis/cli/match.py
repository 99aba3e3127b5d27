"""``rollout-lsp match``: each invocation a recording shim logged, with the rollout command that made it."""

from __future__ import annotations

import argparse
import json
import sys

from ..jsonl.display import COMMAND_LIMIT, MESSAGE_LIMIT, NAME_LIMIT, shown
from ..jsonl.findings import EXIT_MISMATCH, Finding, log_finding_sort_key
from ..jsonl.positions import PositionEncoding
from ..jsonl.source import load
from ..reports.invocations import (
    InvocationLog,
    MatchResult,
    RolloutCommand,
    looks_like_invocation_log,
    match_invocations,
    read_invocation_log,
)
from ..reports.report import finding_json
from ..session.rollout import RolloutAnalysis
from .common import analyze, encoding_option


def register(sub) -> None:
    match = sub.add_parser(
        "match",
        parents=[encoding_option()],
        help="pair a shim's invocation log (calls.jsonl) with the rollout of the same run",
        description="Prints each invocation with the rollout line and call that made it, then what is unmatched "
        "on either side. Exit 0 when every invocation is explained, every command of a recorded tool "
        "left an invocation and no exit code disagrees; 1 otherwise; 2 when a file cannot be read.",
    )
    match.add_argument("--json", action="store_true", help="one JSON object: matches, unexplained, missing, findings")
    match.add_argument("rollout", metavar="ROLLOUT", help="the rollout (.jsonl or .jsonl.zst)")
    match.add_argument("log", metavar="CALLS", help="the invocation log (cli_mocks/calls.jsonl)")
    match.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    rollout_file, log_file = load(args.rollout), load(args.log)
    for loaded in (rollout_file, log_file):
        if loaded.error:
            print(f"rollout-lsp: {loaded.error}", file=sys.stderr)
            return 2
    if looks_like_invocation_log(args.rollout, rollout_file.text) and not looks_like_invocation_log(
        args.log, log_file.text
    ):
        print(
            f"rollout-lsp: {args.rollout} is an invocation log, not a rollout: the rollout comes first "
            "(rollout-lsp match ROLLOUT CALLS)",
            file=sys.stderr,
        )
        return 2
    analysis, _ = analyze(rollout_file)
    log = read_invocation_log(log_file.text)
    result = match_invocations(analysis, log)
    log_findings = sorted(log.findings + result.log_findings(), key=log_finding_sort_key)
    rollout_findings = result.rollout_findings()
    if args.json:
        out = _json(args, analysis, log, result, log_findings, rollout_findings, encoding)
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(_text(args, analysis, log, result, log_findings, rollout_findings, encoding))
    clean = not result.unexplained and not result.missing and not any(f.code == EXIT_MISMATCH for f in log_findings)
    return 0 if clean else 1


def _where(command: RolloutCommand) -> str:
    tool = shown(command.located.call.tool or "", NAME_LIMIT)
    return f"line {command.located.line + 1}, {tool}: {shown(command.line.text, COMMAND_LIMIT)}"


def _text(
    args,
    analysis: RolloutAnalysis,
    log: InvocationLog,
    result: MatchResult,
    log_findings: list[Finding],
    rollout_findings: list[Finding],
    encoding: PositionEncoding,
) -> str:
    out = [f"{args.log} ↔ {args.rollout}"]
    for m in result.matches:
        exact = "" if m.exact else "  (an argument filled an expansion)"
        out.append(
            f"  {args.log}:{m.invocation.line + 1}: {shown(m.invocation.command, COMMAND_LIMIT)}  (exit {m.invocation.exit})"
        )
        out.append(f"    ← {args.rollout}:{_where(m.command)}{exact}")
    if result.unexplained:
        out.append("invocations no rollout command explains:")
        out.extend(f"  {args.log}:{i.line + 1}: {shown(i.command, COMMAND_LIMIT)}" for i in result.unexplained)
    if result.missing:
        out.append("commands of recorded tools with no invocation:")
        out.extend(
            f"  {args.rollout}:{c.located.line + 1}: {shown(' '.join(a or '…' for a in c.command.argv), COMMAND_LIMIT)}"
            for c in result.missing
        )
    findings = [(args.log, log, f) for f in log_findings] + [(args.rollout, analysis, f) for f in rollout_findings]
    if findings:
        out.append("findings:")
        for path, document, f in findings:
            r = document.range_of(f.span, encoding)
            out.append(
                f"  {path}:{r.start.line + 1}:{r.start.character + 1}: {f.severity.label} {f.code} {shown(f.message, MESSAGE_LIMIT)}"
            )
    return "\n".join(out)


def _invocation_json(invocation) -> dict:
    return {
        "line": invocation.line,
        "ts": invocation.ts,
        "tool": invocation.tool,
        "argv": list(invocation.argv),
        "exit": invocation.exit,
    }


def _command_json(command: RolloutCommand) -> dict:
    located = command.located
    return {
        "line": located.line,
        "call_index": located.index,
        "call_id": located.record.call_id,
        "tool": located.call.tool,
        "command": command.line.text,
        "argv": list(command.command.argv),
        "exit_code": command.exit_code,
    }


def _json(args, analysis, log, result, log_findings, rollout_findings, encoding) -> dict:
    return {
        "rollout": args.rollout,
        "log": args.log,
        "matches": [
            {"invocation": _invocation_json(m.invocation), "command": _command_json(m.command), "exact": m.exact}
            for m in result.matches
        ],
        "unexplained": [_invocation_json(i) for i in result.unexplained],
        "missing": [_command_json(c) for c in result.missing],
        "findings": [{"file": args.log, **finding_json(log, f, encoding)} for f in log_findings]
        + [{"file": args.rollout, **finding_json(analysis, f, encoding)} for f in rollout_findings],
    }
