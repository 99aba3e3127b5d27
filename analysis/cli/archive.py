"""``rollout-lsp archive``: move old sessions to the Codex home's ``archived_sessions/`` (dry run unless ``--apply``),
journaled, and put them back with ``--restore`` (docs/archive.md)."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import nullcontext

from ..reports.archive import archive, restore
from ..reports.archive_journal import ArchiveBusy, exclusive
from ..reports.archive_plan import LIVE_MINUTES, codex_home
from .index import db_option


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days (0 or more)")
    return value


def register(sub) -> None:
    command = sub.add_parser(
        "archive",
        help="move old sessions to archived_sessions/ (a dry run unless --apply); --restore puts them back",
        description="Move the rollouts of the Codex home's sessions/ folder whose last activity is older than DAYS "
        "into its archived_sessions/ folder, as Codex's own archive does (same file name), by rename, each move "
        "journaled in <codex home>/rollout-lsp-archive.journal. Without --apply it only prints what it would move "
        "and what it keeps back (live sessions, files a staying session reads, symbolic links…) and why. "
        "Nothing is ever deleted; `--restore --apply` puts every file back at its exact old path.",
    )
    command.add_argument("--older-than", type=_days, metavar="DAYS", help="sessions whose last activity is older")
    command.add_argument(
        "--project", metavar="PATH", help="only sessions of this project (the repository root of their cwd, or the cwd)"
    )
    command.add_argument("--restore", action="store_true", help="put back every file the journal says was archived")
    command.add_argument("--apply", action="store_true", help="move the files (default: only say what would move)")
    command.add_argument("--codex-home", metavar="DIR", help="the Codex home (default: $CODEX_HOME, else ~/.codex)")
    command.add_argument(
        "--live-minutes",
        type=_days,
        default=LIVE_MINUTES,
        metavar="N",
        help=f"a session modified within N minutes whose last turn has not ended is live (default {LIVE_MINUTES})",
    )
    db_option(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    home = codex_home(args.codex_home)
    if not os.path.isdir(home):
        print(f"rollout-lsp archive: {home}: no such Codex home", file=sys.stderr)
        return 2
    if args.restore and (args.older_than is not None or args.project is not None):
        print(
            "rollout-lsp archive: --restore puts back every archived file: no --older-than or --project",
            file=sys.stderr,
        )
        return 2
    if not args.restore and args.older_than is None:
        print("rollout-lsp archive: --older-than DAYS is needed (or --restore)", file=sys.stderr)
        return 2
    try:
        with exclusive(home) if args.apply else nullcontext():
            if args.restore:
                return restore(home, args.apply, sys.stdout, db=args.db)
            return archive(
                home, args.older_than, args.project, args.apply, sys.stdout, db=args.db, live_minutes=args.live_minutes
            )
    except ArchiveBusy as error:
        print(f"rollout-lsp archive: {error}", file=sys.stderr)
        return 2
