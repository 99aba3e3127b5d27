"""``rollout-lsp cost``: tokens and exact cost of the indexed sessions, by session, day, project or model
(docs/cost.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..reports.library import BY, cost_report
from ..reports.library.tree import money
from .index import db_option
from .library import load_library


def register(sub) -> None:
    cost = sub.add_parser(
        "cost",
        help="tokens and exact cost (genai-prices) of the indexed sessions, by session, day, project or model",
        description="Each model response counted once (forks' and subagents' inherited history not counted) "
        "and priced alone at its time and service tier with genai-prices; a model without a price is "
        "listed with its tokens, unpriced (docs/cost.md).",
    )
    cost.add_argument("paths", nargs="*", metavar="PATH", help="only the sessions in these folders or files")
    db_option(cost)
    cost.add_argument("--json", action="store_true", help="print the report as JSON (docs/output-format.md)")
    cost.add_argument("--by", choices=BY, default="session", help="group by session (default), day, project, model")
    cost.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        print(f"rollout-lsp cost: {path}: no such file or folder", file=sys.stderr)
    if args.paths and len(missing) == len(args.paths):
        return 2
    library = load_library("cost", args.db, args.paths)
    if library is None:
        return 2
    report = cost_report(library, args.by, tuple(p for p in args.paths if os.path.exists(p)))
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    for group in report["groups"]:
        print(
            f"{money(group['cost'], group['responses']):>12}  {group['tokens']['total']:>12,} tokens  "
            f"{group['responses']:>5} responses  {group['key'] or '(none)'}" + _unpriced(group["cost"])
        )
    total = report["total"]
    print(
        f"{money(total['cost'], total['responses']):>12}  {total['tokens']['total']:>12,} tokens  "
        f"{total['responses']:>5} responses  total ({report['prices_as_of']})"
    )
    return 0


def _unpriced(cost: dict) -> str:
    missing = [f"{m['model'] or '?'}: {m['reason']}" for m in cost["models"] if not m["priced"]]
    return f"  [unpriced: {'; '.join(missing)}]" if missing else ""
