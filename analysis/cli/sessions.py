"""``rollout-lsp sessions``: every indexed session, newest first, as lines, a tree or JSON (docs/sessions.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..reports.index import parse_since
from ..reports.library import Filters
from ..reports.library.tree import duration, label, money, tree_lines
from .index import db_option
from .library import load_library


def register(sub) -> None:
    sessions = sub.add_parser(
        "sessions",
        help="list every indexed session: project, name, request, duration, cost, subagents and forks",
        description="The sessions of the index (brought up to date first, with PATH, else Codex's folders and "
        "every folder indexed before), newest first: name or first request, project, duration, turns, failed "
        "calls and exact cost; --tree nests forks and subagents under their parent (docs/sessions.md).",
    )
    sessions.add_argument("paths", nargs="*", metavar="PATH", help="only the sessions in these folders or files")
    db_option(sessions)
    sessions.add_argument("--json", action="store_true", help="a JSON list of sessions (docs/output-format.md)")
    sessions.add_argument("--tree", action="store_true", help="projects → days → sessions, children indented")
    sessions.add_argument("--project", metavar="PATH", help="only sessions whose project is PATH or below it")
    sessions.add_argument("--since", metavar="DATE", help="only sessions started at or after DATE (ISO)")
    sessions.add_argument(
        "--older-than", type=float, metavar="DAYS", help="only sessions that ended more than DAYS days ago"
    )
    sessions.set_defaults(run=run)


def filters_from(args: argparse.Namespace) -> Filters:
    """The :class:`Filters` of the options (ValueError: a --since that is not a date)."""
    return Filters(
        project=os.path.abspath(args.project) if args.project else None,
        since=parse_since(args.since) if args.since else None,
        older_than=args.older_than,
        paths=tuple(os.path.abspath(p) for p in args.paths),
    )


def run(args: argparse.Namespace) -> int:
    try:
        filters = filters_from(args)
    except ValueError:
        print(
            f"rollout-lsp sessions: --since {args.since!r} is not a date (2026-03-01 or 2026-03-01T10:00:00Z)",
            file=sys.stderr,
        )
        return 2
    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        print(f"rollout-lsp sessions: {path}: no such file or folder", file=sys.stderr)
    if args.paths and len(missing) == len(args.paths):
        return 2
    library = load_library("sessions", args.db, args.paths)
    if library is None:
        return 2
    found = library.sessions(filters)
    if args.json:
        json.dump(found, sys.stdout, indent=2, ensure_ascii=False)
        print()
    elif args.tree:
        for text in tree_lines(found):
            print(text)
    else:
        for s in found:
            print(
                f"{s['started'] or '?'}  {label(s, 60)}  {s['project'] or '(no project)'}  "
                f"{duration(s['duration_s'])}  {s['turns']} turns  {s['failed_calls']} failed  "
                f"{money(s['cost'], s['responses'])}  {s['rollout']}"
            )
    return 0
