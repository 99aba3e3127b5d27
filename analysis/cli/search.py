"""``rollout-lsp search``: tool calls across every indexed session, as ``file:line:column: command``."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..jsonl.display import COMMAND_LIMIT, NAME_LIMIT, PATH_LIMIT, shown
from ..jsonl.positions import PositionEncoding
from ..reports.index import Hit, IndexUnavailable, RolloutIndex, default_db_path, parse_since
from ..session.labels import turn_label
from ..session.thread_names import name_of
from .common import current_folder, encoding_option, positive
from .index import db_option

TEXT_LIMIT = COMMAND_LIMIT


def register(sub) -> None:
    search = sub.add_parser(
        "search",
        parents=[encoding_option()],
        help="search the tool calls of every indexed session (see `index`)",
        description="Tool calls whose command, patched files or tool contain QUERY "
        "(case-insensitive), from the index `rollout-lsp index` keeps. "
        "Exit 0 when something is found, 1 when nothing is, 2 on errors.",
    )
    search.add_argument("query", metavar="QUERY", help="text to find in commands, patched files and tool names")
    search.add_argument("--tool", metavar="NAME", help="only calls of this tool (exec_command, apply_patch, …)")
    search.add_argument(
        "--since", metavar="DATE", help="only calls at or after DATE (ISO: 2026-03-01 or 2026-03-01T10:00:00Z)"
    )
    search.add_argument(
        "--failed",
        action="store_true",
        help="only calls that failed: a non-zero exit code, or a failed script without one",
    )
    search.add_argument("--limit", type=positive, default=None, metavar="N", help="at most N hits (1 or more)")
    search.add_argument("--json", action="store_true", help="a JSON list of hits (docs/output-format.md)")
    db_option(search)
    search.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        since = parse_since(args.since) if args.since else None
    except ValueError:
        print(
            f"rollout-lsp search: --since {args.since!r} is not a date (2026-03-01 or 2026-03-01T10:00:00Z)",
            file=sys.stderr,
        )
        return 2
    encoding = PositionEncoding(args.position_encoding)
    try:
        with RolloutIndex.open_existing(args.db or default_db_path()) as index:
            hits = index.search(args.query, tool=args.tool, since=since, failed=args.failed, limit=args.limit)
    except IndexUnavailable as error:
        print(f"rollout-lsp search: {error}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(
            [{**h.to_json(encoding), "thread_name": name_of(h.path, h.session_id)} for h in hits],
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
    else:
        for hit in hits:
            print(hit_line(hit, encoding))
    return 0 if hits else 1


def hit_line(hit: Hit, encoding: PositionEncoding) -> str:
    """``file:line:column: command  [tool, exit N, session S, turn N (line L) "title", time]``, 1-based like
    compilers."""
    about = [shown(hit.tool, NAME_LIMIT) if hit.tool else "computed tool"]
    if hit.executed == "no":
        about.append("dead")
    if hit.exit_code is not None:
        about.append(f"exit {hit.exit_code}")
    elif hit.status and hit.status != "completed":
        about.append(hit.status)
    if hit.session_id:
        named = name_of(hit.path, hit.session_id)
        about.append(f"session {shown(hit.session_id, NAME_LIMIT)}" + (f' "{shown(named, 60)}"' if named else ""))
    if hit.turn_line is not None:  # "turn 2 (line 125)", as outline and export number turns
        turn = turn_label(hit.turn_number, hit.turn_line) if hit.turn_number else f"turn (line {hit.turn_line + 1})"
        about.append(f'{turn} "{shown(hit.turn_title or "", 60)}"')
    if hit.timestamp:
        about.append(shown(hit.timestamp, NAME_LIMIT))
    place = f"{shown_path(hit.path)}:{hit.line + 1}:{hit.start(encoding) + 1}"
    return f"{place}: {shown(hit.text, TEXT_LIMIT)}  [{', '.join(about)}]"


def shown_path(path: str) -> str:
    """Relative to the current folder when below it (as grep prints), else absolute; cut to
    :data:`~analysis.jsonl.display.PATH_LIMIT` characters."""
    folder = current_folder()  # None in a folder deleted since: paths are shown whole
    here = None if folder is None else folder.rstrip(os.sep) + os.sep
    return shown(path[len(here) :] if here is not None and path.startswith(here) else path, PATH_LIMIT)
