"""``rollout-lsp blame FILE``: the sessions that changed a file, newest first; with ``--lines``, the patch
that added each of its lines."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..jsonl.display import NAME_LIMIT, PATH_LIMIT, shown
from ..reports.blame import Change, LineBlame, attribute_lines, file_history, read_lines, sessions_of, target_of
from ..reports.index import IndexUnavailable, RolloutIndex, default_db_path
from .index import db_option
from .search import shown_path


def register(sub) -> None:
    blame = sub.add_parser(
        "blame",
        help="which indexed sessions changed a file, and which patch added each line",
        description="The sessions that changed FILE (by its path, or by its path in its "
        "repository for sessions of another machine), newest first, from the "
        "index `rollout-lsp index` keeps. Exit 0 when a session changed it, 1 "
        "when none did, 2 on errors. docs/blame.md says what is matched.",
    )
    blame.add_argument("file", metavar="FILE", help="a file of a repository Codex worked in")
    blame.add_argument(
        "--lines",
        action="store_true",
        help="for each line of FILE as it is now, the newest applied patch that added it",
    )
    blame.add_argument("--json", action="store_true", help="JSON: {file, sessions, changes[, lines]}")
    db_option(blame)
    blame.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    target = target_of(args.file)
    lines: list[str] | None = None
    if args.lines:
        try:
            lines = read_lines(target.path)
        except OSError as error:
            print(f"rollout-lsp blame: cannot read {args.file}: {error.strerror or error}", file=sys.stderr)
            return 2
    try:
        with RolloutIndex.open_existing(args.db or default_db_path()) as index:
            history = file_history(index, target)
    except IndexUnavailable as error:
        print(f"rollout-lsp blame: {error}", file=sys.stderr)
        return 2
    blamed = attribute_lines(lines, history) if lines is not None else None
    if args.json:
        out: dict[str, Any] = {
            "file": target.path,
            "repository": target.repo_root,
            "repository_path": target.repo_path,
            "sessions": sessions_of(history),
            "changes": [dict(c.to_json(), id=c.id) for c in history],
        }
        if blamed is not None:
            out["lines"] = [b.to_json() if b else None for b in blamed]
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    elif blamed is not None and lines is not None:
        print_lines(lines, blamed)
    else:
        print_history(target.path, history)
    return 0 if history else 1


def print_history(path: str, history: list[Change]) -> None:
    if not history:
        print(f"{shown_path(path)}: no indexed session changed it")
        return
    sessions = sessions_of(history)
    print(
        f"{shown_path(path)}: changed by {len(sessions)} session{'s' if len(sessions) != 1 else ''} "
        f"({len(history)} change{'s' if len(history) != 1 else ''}), newest first"
    )
    for change in history:
        print(change_line(change))


def change_line(change: Change) -> str:
    """``2026-03-29T20:16:02Z  update  applied  session 019d…  turn 3 (line 40) "fix the parser"
    rollout.jsonl:68:5``: the turn numbered as the Outline, ``outline`` and ``files`` number it."""
    state = {"yes": "applied", "no": "FAILED", "unknown": "applied?"}.get(change.applied, change.applied)
    about = [
        shown(change.when, NAME_LIMIT) if change.when else "(no time)",
        shown(change.action_label, PATH_LIMIT),
        state,
    ]
    if change.session_id:
        about.append(f"session {shown(change.session_id, NAME_LIMIT)}")
    if change.turn_text is not None:
        about.append(f'{change.turn_text} "{shown(change.turn_title or "", 60)}"')
    if change.matched_by == "repository":
        about.append(f"as {shown(change.absolute or change.path, PATH_LIMIT)}")
    return "  ".join(about) + f"  {shown_path(change.rollout)}:{change.line + 1}:{change.start + 1}"


def print_lines(lines: list[str], blamed: list[LineBlame | None]) -> None:
    """One line per line of the file: ``when  session  │ text``, blank columns when nothing added it."""
    width = len(str(len(lines)))
    for number, (text, found) in enumerate(zip(lines, blamed)):
        if found is None:
            about = " " * 30
        else:
            change = found.change
            about = f"{shown(change.when or '', 19)[:19]:19} {shown(change.session_id or '', 8)[:8]:8} "[:30].ljust(30)
        print(f"{number + 1:>{width}} {about}│ {text}")
