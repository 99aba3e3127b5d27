"""``rollout-lsp check``: findings as compilers print them; the exit status says how bad the worst is."""

from __future__ import annotations

import argparse
import json
import sys

from ..findings import Severity
from ..invocations import looks_like_invocation_log, read_invocation_log
from ..positions import PositionEncoding
from ..report import finding_json
from ..source import load, rollout_files
from .common import analyze, encoding_option


def register(sub) -> None:
    check = sub.add_parser("check", parents=[encoding_option()],
                           help="print findings; exit 1 when one is severe enough")
    check.add_argument("--json", action="store_true", help="a JSON list of findings")
    check.add_argument("--fail-on", choices=[s.label for s in Severity], default="warning",
                       help="exit 1 when a finding is at or above this severity (default warning)")
    check.add_argument("paths", nargs="+", metavar="PATH", help="rollout files, invocation logs (calls.jsonl) or folders")
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    fail_on = Severity.parse(args.fail_on)
    worst = Severity.HINT + 1
    status = 0
    rows: list[dict] = []
    files = rollout_files(args.paths)
    if not files:
        print(f"rollout-lsp: no rollout files in {' '.join(args.paths)}", file=sys.stderr)
        return 2
    for path in files:
        loaded = load(path)
        if loaded.error:
            status = 2
            if args.json:
                rows.append({"file": path, "range": None, "severity": "error", "code": "invalid-json",
                             "message": loaded.error})
            else:
                print(f"{path}:1:1: error invalid-json {loaded.error}")
            continue
        if looks_like_invocation_log(path, loaded.text):  # a shim's calls.jsonl: read as a grader reads it
            analysis = read_invocation_log(loaded.text)
            findings = loaded.findings + analysis.findings
        else:
            analysis, findings = analyze(loaded)
        for finding in findings:
            worst = min(worst, finding.severity)
            if args.json:
                rows.append({"file": path, **finding_json(analysis, finding, encoding)})
            else:
                r = analysis.range_of(finding.span, encoding)
                print(f"{path}:{r.start.line + 1}:{r.start.character + 1}: "
                      f"{finding.severity.label} {finding.code} {finding.message}")
    if args.json:
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False)
        print()
    if status:
        return status
    return 1 if worst <= fail_on else 0


