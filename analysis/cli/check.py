"""``rollout-lsp check``: findings as compilers print them; the exit status says how bad the worst is."""

from __future__ import annotations

import argparse
import json
import sys

from ..findings import Severity
from ..invocations import looks_like_invocation_log, read_invocation_log
from ..positions import PositionEncoding
from ..report import finding_json
from ..source import NOT_A_ROLLOUT, find_rollout_files, is_rollout_path, load
from .common import analyze, encoding_option, error


def register(sub) -> None:
    check = sub.add_parser(
        "check", parents=[encoding_option()], help="print findings; exit 1 when one is severe enough",
        description="Prints each finding as FILE:LINE:COLUMN: SEVERITY CODE MESSAGE (columns count UTF-16 "
                    "units by default). A JSON Lines file that is not a rollout is skipped, as the language "
                    "server skips it, unless its name matches a rollout pattern (rollout-*.jsonl, or below "
                    ".codex/sessions or .codex/archived_sessions). Exit 0 when no finding reaches --fail-on, 1 when "
                    "one does, 2 when a file or folder cannot be read.")
    check.add_argument("--json", action="store_true", help="a JSON list of findings")
    check.add_argument("--fail-on", choices=[s.label for s in Severity], default="warning",
                       help="exit 1 when a finding is at or above this severity (default warning)")
    check.add_argument("paths", nargs="+", metavar="PATH",
                       help="rollout files, invocation logs (calls.jsonl) or folders (searched for *.jsonl and "
                            "*.jsonl.zst); - reads standard input")
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    fail_on = Severity.parse(args.fail_on)
    worst = Severity.HINT + 1
    status = 0
    rows: list[dict] = []
    listing = find_rollout_files(args.paths)
    for problem in listing.problems:
        error(problem)
        status = 2
    for path in listing.files:
        loaded = load(path)
        if loaded.error:
            error(loaded.error)
            status = 2
            continue
        if looks_like_invocation_log(path, loaded.text):  # a shim's calls.jsonl: read as a grader reads it
            analysis = read_invocation_log(loaded.text)
            findings = loaded.findings + analysis.findings
        else:
            analysis, findings = analyze(loaded)
            if not (is_rollout_path(path) or analysis.is_rollout):  # as the server: other JSON Lines stay quiet
                error(f"{path}: {NOT_A_ROLLOUT}")
                continue
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
