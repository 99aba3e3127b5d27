"""``rollout-lsp files``: the files each session changed, per turn, with the calls that touched them."""

from __future__ import annotations

import argparse
import json
import sys

from ..jsonl.display import NAME_LIMIT, PATH_LIMIT, shown
from ..jsonl.source import NOT_A_ROLLOUT, find_rollout_files, load
from ..session.files_changed import ChangedFile, changed_files, file_row
from ..session.finish import is_rollout_file
from ..session.labels import turn_label
from ..session.rollout import RolloutAnalysis
from .common import analyze, error


def register(sub) -> None:
    parser = sub.add_parser(
        "files",
        help="the files each session changed",
        description="Prints, for each rollout, the files its patches touched (at the top "
        "level, inside exec scripts, and as patch_apply_end events report them), "
        "per turn, each with what was done to it in all (added, updated, deleted, "
        "moved, not applied) and the lines of the calls that touched it. Exit 0, "
        "or 2 when a file or folder cannot be read.",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="a JSON list: per rollout its file, session, files, each turn's files "
        "(turns) and those of calls before the first turn (outside_turns)",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="ROLLOUT",
        help="rollout files or folders of them (searched for *.jsonl and *.jsonl.zst); - reads standard input",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    listing = find_rollout_files(args.paths)
    status = 0
    for problem in listing.problems:
        error(problem)
        status = 2
    sessions = []
    for path in listing.files:
        loaded = load(path)
        if loaded.error:
            error(loaded.error)
            status = 2
            continue
        analysis, _ = analyze(loaded)
        if not is_rollout_file(path, analysis.is_rollout):
            error(f"{path}: {NOT_A_ROLLOUT}")
            continue
        sessions.append(session_files(path, analysis))
    if args.json:
        json.dump(sessions, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        for session in sessions:
            print(files_text(session))
    return status


def session_files(path: str, analysis: RolloutAnalysis) -> dict:
    """What one session changed, as ``files --json`` prints it."""
    turns = []
    for number, turn in enumerate(analysis.turns, 1):
        changed = changed_files(analysis, turn.line, turn.end_line)
        if changed:
            turns.append({"turn": number, "line": turn.line, "title": turn.title, "files": _listed(changed)})
    before = changed_files(analysis, 0, analysis.turns[0].line - 1) if analysis.turns else changed_files(analysis)
    return {
        "file": path,
        "session": analysis.session_id,
        "files": _listed(changed_files(analysis)),
        "turns": turns,
        "outside_turns": _listed(before),
    }


def _listed(changed: list[ChangedFile]) -> list[dict]:
    """The files as JSON, each with its row's words (``row``: what ``files`` prints after the path)."""
    return [{**f.to_json(), "row": file_row(f)} for f in changed]


def files_text(session: dict) -> str:
    """``FILE (session ID): 3 files changed``, then each turn's files, one a line."""
    changed = sum(f["final"] != "not applied" for f in session["files"])
    failed = len(session["files"]) - changed
    head = session["file"] + (f" (session {shown(session['session'], NAME_LIMIT)})" if session["session"] else "")
    out = [
        f"{head}: {changed} file{'s' if changed != 1 else ''} changed" + (f", {failed} not applied" if failed else "")
    ]
    if session["outside_turns"]:  # a rollout whose calls come before any turn (a fixture, an old format)
        out.append("  before the first turn:")
        out.extend(f"    {_row(f)}" for f in session["outside_turns"])
    for turn in session["turns"]:
        title = " ".join(turn["title"].split())
        out.append(f"  {turn_label(turn['turn'], turn['line'])}: {shown(title, 70)}")
        out.extend(f"    {_row(f)}" for f in turn["files"])
    return "\n".join(out)


def _row(changed: dict) -> str:
    """``src/a.py: added (lines 171, 216)``, ``src/b.py: updated (line 228; not applied: lines 213, 222)``
    (:func:`~analysis.session.files_changed.file_row`)."""
    return f"{shown(changed['path'], PATH_LIMIT)}: {changed['row']}"


__all__ = ["files_text", "register", "run", "session_files"]
