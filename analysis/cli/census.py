"""``rollout-lsp census``: counts over a corpus of rollouts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from ..session_census import SessionCensus
from ..source import load, rollout_files
from .common import analyze


def register(sub) -> None:
    census = sub.add_parser("census", help="counts over a corpus of rollouts")
    census.add_argument("--json", action="store_true")
    census.add_argument("paths", nargs="+", metavar="PATH")
    census.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    counts: Counter = Counter()
    by_tool: Counter = Counter()
    by_code: Counter = Counter()
    unreadable = 0
    sessions = SessionCensus()  # token totals, unknown record types
    for path in rollout_files(args.paths):
        loaded = load(path)
        if loaded.error:
            unreadable += 1
            continue
        analysis, findings = analyze(loaded)
        counts["rollouts"] += 1
        counts["lines"] += len(analysis.lines)
        for record in analysis.records:
            if record.is_exec:
                counts["exec scripts"] += 1
                if any(f.code == "script-syntax" for f in record.findings):
                    counts["scripts that do not parse"] += 1
        for located in analysis.calls:
            call = located.call
            by_tool[call.tool or "(computed)"] += 1
            if call.kind == "command" and (call.computed or call.command is not None):
                counts["computed commands" if call.computed else "literal commands"] += 1
                if call.expansion:
                    counts["computed commands with a known expansion"] += 1
            if call.json_arguments is True and located.record.is_exec:
                counts["JSON arguments"] += 1
            elif call.json_arguments is False:
                counts["JS-literal arguments"] += 1
        by_code.update(f.code for f in findings)
        sessions.add(analysis)
    seconds = time.perf_counter() - started
    result = {"counts": dict(counts), "calls_by_tool": dict(by_tool.most_common()),
              "findings_by_code": dict(by_code.most_common()), **sessions.to_json(), "unreadable_files": unreadable,
              "seconds": round(seconds, 3)}
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    for key in ("rollouts", "lines", "exec scripts", "scripts that do not parse", "literal commands",
                "computed commands", "computed commands with a known expansion", "JSON arguments",
                "JS-literal arguments"):
        print(f"{key:44} {counts.get(key, 0)}")
    print("calls by tool:")
    for tool, n in by_tool.most_common():
        print(f"  {tool:42} {n}")
    print("findings by code:")
    for code, n in by_code.most_common():
        print(f"  {code:42} {n}")
    for text in sessions.text():
        print(text)
    if unreadable:
        print(f"{'unreadable files':44} {unreadable}")
    print(f"{'seconds':44} {seconds:.3f}")
    return 0


