"""``rollout-lsp index``: bring the session index (analysis/reports/index/) up to date with rollout folders."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from ..jsonl.source import NOT_A_ROLLOUT
from ..reports.index import IndexUnavailable, RolloutIndex, default_db_path, default_session_dirs
from .common import jobs_option

PARENT_ENV = "ROLLOUT_LSP_PARENT_PID"  # analysis.reports.spread.PARENT_ENV, named here to import spread only if set


def register(sub) -> None:
    index = sub.add_parser(
        "index",
        help="index the tool calls of rollout folders for `search` and workspace symbols",
        description="Index every tool call of the rollouts (*.jsonl, *.jsonl.zst) below DIR "
        "(default: ~/.codex/sessions, ~/.codex/archived_sessions and every folder "
        "indexed before). Only files that changed are read again; a file that "
        "grew has only its new lines read. A JSON Lines file that is not a rollout "
        "is skipped, as `check` skips it, unless its name matches a rollout pattern "
        "(rollout-*.jsonl); a .jsonl.zst that decompresses to more than 256 MiB "
        "($ROLLOUT_LSP_MAX_DECOMPRESSED bytes) is reported and skipped, and a file of more than 200,000 "
        "lines ($ROLLOUT_LSP_MAX_LINES) is indexed up to that line and reported (exit 1). A database that "
        "cannot be written, or that is not a rollout-lsp index, is an error (exit 2) and left as it is; only "
        "a corrupt rollout-lsp index is rebuilt, the old file kept beside it as PATH.corrupt-TIME-PID.",
    )
    index.add_argument("dirs", nargs="*", metavar="DIR", help="folders (or files) of rollouts")
    db_option(index)
    index.add_argument("--rebuild", action="store_true", help="start from an empty index")
    index.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for another process writing the index (default 30)",
    )
    index.add_argument("--json", action="store_true", help="print what was done as JSON")
    jobs_option(index, "processes to read and analyse the files that changed in (default: the number of cores)")
    index.set_defaults(run=run)


def _index(path, dirs: list[str], timeout: float, rebuild: bool, jobs: int = 1):
    with RolloutIndex.open(path, timeout=timeout, rebuild=rebuild) as index:
        if index.kept is not None:
            print(
                f"rollout-lsp index: {path} was corrupt: rebuilt; the old file is kept as {index.kept}", file=sys.stderr
            )
        if not dirs:  # Codex's folders and every folder indexed before
            dirs = [d for d in default_session_dirs() if os.path.isdir(d)]
            dirs += [r for r in index.roots() if r not in dirs]
        stats = index.update(dirs, jobs)
        return dirs, stats, *index.count()


def db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="the index database (default: $ROLLOUT_LSP_INDEX, else "
        "$XDG_CACHE_HOME/codex-rollout-lsp/index.sqlite3, ~/.cache when unset)",
    )


def run(args: argparse.Namespace) -> int:
    missing = [d for d in args.dirs if not os.path.exists(d)]
    for path in missing:
        print(f"rollout-lsp index: {path}: no such file or folder", file=sys.stderr)
    if args.dirs and len(missing) == len(args.dirs):
        return 2
    if os.environ.get(PARENT_ENV):  # the server's background index dies with the server
        # spread (and the stream package it imports) only then: a run from the command line uses neither (4 ms)
        from ..reports.spread import die_with_parent_from_environment

        die_with_parent_from_environment()
    # what is loaded by now (modules, parser) lives as long as the process: frozen, the collector no longer walks
    # it, during the run or at exit (about 0.03 CPU-s of a run's start; nothing frozen is garbage)
    gc.freeze()
    path = args.db or default_db_path()
    try:  # the index alone decides what may be rebuilt (analysis.reports.index.database): nothing is retried here
        dirs, stats, files, calls = _index(path, args.dirs, args.timeout, args.rebuild, args.jobs)
    except IndexUnavailable as error:
        print(f"rollout-lsp index: {error}", file=sys.stderr)
        return 2
    for skipped in stats.not_rollouts:  # said, not failed, as `check` says it
        print(f"rollout-lsp index: {skipped}: {NOT_A_ROLLOUT}", file=sys.stderr)
    for problem in stats.errors:
        print(f"rollout-lsp index: {problem}", file=sys.stderr)
    if args.json:
        json.dump(
            {"database": str(path), "folders": dirs, **stats.to_json(), "indexed_files": files, "indexed_calls": calls},
            sys.stdout,
            indent=2,
        )
        print()
    else:
        print(
            f"{stats.files} rollouts: {stats.full} read whole, {stats.appended} appended to, "
            f"{stats.unchanged} unchanged, {stats.removed} removed; {stats.lines_analysed} lines analysed, "
            f"{stats.calls_added} calls added, {stats.calls_paired} paired with a later output "
            f"in {stats.seconds:.3f} s"
        )
        print(f"{path}: {files} files, {calls} calls")
    return 1 if stats.errors else 0
