"""``rollout-lsp census``: counts over a corpus of rollouts, on every core or on a Dask cluster."""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..jsonl.display import NAME_LIMIT, shown
from ..jsonl.source import STDIN, find_rollout_files
from ..reports.census import COUNT_KEYS, census_of_file, run_census
from .common import error, jobs_option


def register(sub) -> None:
    census = sub.add_parser(
        "census",
        help="counts over a corpus of rollouts",
        description="Counts exec scripts, commands, calls by tool and findings by code over "
        "rollout files and folders (searched recursively for *.jsonl and "
        "*.jsonl.zst). Exit 0, or 2 when a path is missing or unreadable or a "
        "folder holds no such file.",
    )
    census.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    jobs_option(census, "processes to spread files (and the lines of a large file) over (default: the number of cores)")
    census.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (tcp://host:8786) instead of local processes; "
        "needs the `dask` extra and the files at the same paths on every worker",
    )
    census.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="rollout files or folders; - reads standard input. A JSON Lines file that is not a "
        "rollout is skipped (one line on standard error), as the language server skips it, "
        "unless its name matches a rollout pattern",
    )
    census.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    listing = find_rollout_files(args.paths)
    for problem in listing.problems:
        error(problem)
    for skipped in listing.skipped:
        error(skipped)
    files = [f for f in listing.files if f != STDIN]
    census = run_census(files, args.jobs, args.dask_scheduler)
    if STDIN in listing.files:  # standard input is this process's: read here, never in a worker
        census.add(census_of_file(STDIN))
    for problem in census.problems:
        error(problem)
    status = 2 if listing.problems or census.unreadable else 0
    seconds = time.perf_counter() - started
    result = {**census.to_json(), "seconds": round(seconds, 3)}
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return status
    for key in COUNT_KEYS:
        print(f"{key:44} {census.counts.get(key, 0)}")
    print("calls by tool:")
    for tool, n in result["calls_by_tool"].items():
        print(f"  {shown(tool, NAME_LIMIT):42} {n}")
    print("findings by code:")
    for code, n in result["findings_by_code"].items():
        print(f"  {code:42} {n}")
    for text in census.sessions.text():  # token totals, unknown record types (analysis.reports.session_census)
        print(text)
    if census.unreadable:
        print(f"{'unreadable files':44} {len(census.unreadable)}")
    if census.skipped:
        print(f"{'skipped files (not rollouts)':44} {len(census.skipped)}")
    print(f"{'seconds':44} {seconds:.3f}")
    return status
