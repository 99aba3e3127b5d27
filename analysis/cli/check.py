"""``rollout-lsp check``: findings as compilers print them; the exit status says how bad the worst is."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from functools import partial
from itertools import chain, islice
from typing import TYPE_CHECKING

from ..jsonl.access import CODEX_HOME_HELP, configure_codex_home
from ..jsonl.display import MESSAGE_LIMIT, shown
from ..jsonl.findings import Finding, Severity
from ..jsonl.limits import capped
from ..jsonl.line_stream import Unreadable, read_raw_lines
from ..jsonl.positions import PositionEncoding
from ..jsonl.source import NOT_A_ROLLOUT, STDIN, find_rollout_files, load
from ..reports.invocations import head_looks_like_invocation_log, looks_like_invocation_log, read_invocation_log
from ..reports.stream import parallel_worth_it, stream_rollout
from ..session.finish import finding_json, is_rollout_file, with_parent_findings
from ..session.profiles import AUTHOR, PROFILES, default_profile, quiet_findings, severity_in
from ..session.references import HEAD_LINES
from .common import analyze, encoding_option, error, jobs_option

if TYPE_CHECKING:
    from concurrent.futures import Future

HEAD = max(20, HEAD_LINES)  # the first lines read before the rest: what tells an invocation log, and references


def register(sub) -> None:
    check = sub.add_parser(
        "check",
        parents=[encoding_option()],
        help="print findings; exit 1 when one is severe enough",
        description="Prints each finding as FILE:LINE:COLUMN: SEVERITY CODE MESSAGE (columns count UTF-16 "
        "units by default). A JSON Lines file that is not a rollout is skipped, as the language "
        "server skips it, unless its name matches a rollout pattern (rollout-*.jsonl, or below "
        ".codex/sessions or .codex/archived_sessions). Exit 0 when no finding reaches --fail-on, 1 when "
        "one does, 2 when a file or folder cannot be read.",
    )
    check.add_argument("--json", action="store_true", help="a JSON list of findings")
    check.add_argument(
        "--fail-on",
        choices=[s.label for s in Severity],
        default="warning",
        help="exit 1 when a finding is at or above this severity (default warning)",
    )
    check.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="reader: what a reader of a finished session cannot act on is a hint (a computed "
        "command that ran or whose commands are known); author: every finding at its own "
        "severity (default: reader under a Codex sessions folder, author elsewhere; "
        "docs/findings.md)",
    )
    jobs_option(check, "processes to analyse the lines of a large file in (default: the number of cores)")
    check.add_argument("--codex-home", metavar="DIR", help=CODEX_HOME_HELP)
    check.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="rollout files, invocation logs (calls.jsonl) or folders (searched for *.jsonl and "
        "*.jsonl.zst); - reads standard input",
    )
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    configure_codex_home(args.codex_home)
    encoding = PositionEncoding(args.position_encoding)
    fail_on = Severity.parse(args.fail_on)
    worst = Severity.HINT + 1
    status = 0
    rows: list[dict] = []
    listing = find_rollout_files(args.paths)
    for problem in listing.problems:
        error(problem)
        status = 2
    for skipped in listing.skipped:  # said, not failed: the user did not name them
        error(skipped)
    for path, outcome in _outcomes(listing.files, encoding, args.jobs, args.profile):
        if isinstance(outcome, str):
            error(outcome)
            status = 2
            continue
        if outcome is None:  # as the server: other JSON Lines files stay quiet
            error(f"{path}: {NOT_A_ROLLOUT}")
            continue
        for code, message, out in outcome:
            severity = Severity.parse(out["severity"])  # in the profile
            worst = min(worst, severity)
            if args.json:
                rows.append({"file": path, **out})
            else:
                start = out["range"]["start"]
                where = f"{path}:{start['line'] + 1}:{start['character'] + 1}"
                print(f"{where}: {severity.label} {code} {shown(message, MESSAGE_LIMIT)}")
    if args.json:
        # one write: json.dump writes each of its many small pieces through the pipe guard
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    if status:
        return status
    return 1 if worst <= fail_on else 0


# What a file gave: its findings as (code, message, JSON form); None when it is not a rollout; the reason when it
# cannot be read.
Outcome = list[tuple[str, str, dict]] | None | str


def _outcomes(
    paths: list[str], encoding: PositionEncoding, jobs: int, profile: str | None
) -> Iterator[tuple[str, Outcome]]:
    """Each file's outcome, in the order of ``paths``.  With more than one job, whole files go to worker
    processes in tasks (analysis.reports.spread), the largest first (so that no worker is left reading a large
    file at the end while the others are idle), while a file large enough to be worth it is read here with its
    lines spread over the same workers."""
    remote = [p for p in paths if p != STDIN and _regular(p)]
    if jobs <= 1 or not any(len(remote) > 1 or parallel_worth_it(p) for p in remote):
        for path in paths:
            yield path, _outcome(path, encoding, None, 1, profile)
        return
    # only for several files or a large one: `check --jobs 1` and a small file do without (start-up)
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from ..reports.spread import file_tasks, pool_options, spread_by_lines  # signal, threading: the pool's

    sizes = {path: _size(path) for path in remote}
    large = set(spread_by_lines(sizes, jobs))
    order = sorted({p for p in remote if p not in large}, key=lambda path: (-sizes[path], path))
    with ProcessPoolExecutor(max_workers=jobs, **pool_options()) as pool:
        work = partial(_outcomes_of, encoding=encoding, profile=profile)
        tasks: dict[str, Future] = {}
        for task in file_tasks(order, sizes, jobs):
            submitted = pool.submit(work, task)
            tasks.update((path, submitted) for path in task)
        done: dict[Future, dict[str, Outcome]] = {}
        for path in paths:
            future = tasks.get(path)
            if future is None:  # standard input, a pipe, or a file spread by lines: read here
                yield path, _outcome(path, encoding, pool if path in large else None, jobs, profile)
                continue
            if future not in done:
                try:
                    done[future] = dict(future.result())
                except BrokenProcessPool:  # a worker died (killed, out of memory): this process reads the file
                    done[future] = {}
            found = done[future]
            yield path, found[path] if path in found else _outcome(path, encoding, None, 1, profile)


def _outcomes_of(paths: list[str], encoding: PositionEncoding, profile: str | None) -> list[tuple[str, Outcome]]:
    """The outcome of each of ``paths`` (one task of a worker process)."""
    return [(path, _outcome(path, encoding, None, 1, profile)) for path in paths]


def _outcome(path: str, encoding: PositionEncoding, pool, jobs: int, profile: str | None) -> Outcome:
    profile = profile or default_profile(None if path == STDIN else os.path.abspath(path))
    try:
        findings = _findings(path, encoding, pool, jobs, profile)
    except Unreadable as problem:
        return str(problem)
    if findings is None:
        return None
    return [(finding.code, finding.message, out) for finding, out in findings]


def _regular(path: str) -> bool:
    """A regular file (another process can open it): not a pipe such as ``<(zcat …)``'s ``/dev/fd/63``, which
    only this process holds.  What cannot be read is left to the reading, which says why."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def _size(path: str) -> int:
    """About how many bytes of lines ``path`` holds (a compressed rollout's, guessed as parallel_worth_it does)."""
    try:
        return os.path.getsize(path) * (5 if path.endswith(".zst") else 1)
    except OSError:
        return 0


def _findings(
    path: str, encoding: PositionEncoding, pool, jobs: int, profile: str = AUTHOR
) -> list[tuple[Finding, dict]] | None:
    """The findings of one file with their JSON form, at their severity in ``profile``; None when it is not
    a rollout.  A rollout is read as a stream (analysis.reports.stream), an invocation log (and standard
    input) whole."""
    if path != STDIN and not looks_like_invocation_log(path, ""):
        lines = read_raw_lines(path)  # the head is read once: to tell an invocation log, then streamed on
        head = list(islice(lines, HEAD))
        texts = [text for text, _, _ in head]
        if not head_looks_like_invocation_log(path, texts):
            streamed = stream_rollout(
                path,
                encoding,
                pool=pool if parallel_worth_it(path) else None,
                jobs=jobs,
                make_sink=_Calls if profile != AUTHOR else None,
                lines=chain(head, lines),
            )
            if not is_rollout_file(path, streamed.is_rollout):
                return None
            found = (
                list(streamed.findings)
                if streamed.sink is None
                else _profiled(streamed.findings, profile, quiet_findings(streamed.sink.calls))
            )
            return with_parent_findings(path, found, encoding, texts)
        lines.close()
    loaded = load(path)
    if loaded.error:
        raise Unreadable(loaded.error)
    if looks_like_invocation_log(path, loaded.text):  # a shim's calls.jsonl: read as a grader reads it
        log = read_invocation_log(loaded.text)
        return [(f, finding_json(log, f, encoding)) for f in loaded.findings + log.findings]
    analysis, findings = analyze(loaded)
    findings = capped(findings)  # analysis.jsonl.limits
    if not is_rollout_file(path, analysis.is_rollout):
        return None
    return _profiled(
        [(f, finding_json(analysis, f, encoding)) for f in findings], profile, quiet_findings(analysis.calls)
    )


def _profiled(findings: Iterable[tuple[Finding, dict]], profile: str, quiet) -> list[tuple[Finding, dict]]:
    """Findings at their severity in ``profile``."""
    out = []
    for finding, row in findings:
        severity = severity_in(profile, finding, quiet)
        out.append((finding, row if severity == finding.severity else {**row, "severity": severity.label}))
    return out


class _Calls:
    """A stream sink that keeps each call with what a profile asks of it (not its records)."""

    def __init__(self) -> None:
        self.calls: list = []

    def record(self, line, record, output) -> None:
        pass

    def call(self, located, ranges) -> None:
        self.calls.append(located)
