"""``rollout-lsp outline``: the tool calls of one rollout, for people or as JSON."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from typing import TextIO

from ..jsonl.access import CODEX_HOME_HELP, configure_codex_home
from ..jsonl.display import PATH_LIMIT, TITLE_LIMIT, shown
from ..jsonl.line_stream import Unreadable
from ..jsonl.positions import PositionEncoding
from ..jsonl.source import load
from ..reports.report import call_json, outline_text, record_json
from ..reports.stream import stream_rollout
from ..session.agent_tree import in_tree, tree_json, tree_words
from ..session.continuations import CallOutput
from ..session.files_changed import touches_of
from ..session.finish import sorted_findings, with_parent_findings
from ..session.lineage import lineage, search_roots
from ..session.record_analysis import LineAnalysis
from ..session.references import parent_findings, parents
from ..session.thread_names import thread_name
from ..session.usage import session_usage
from .common import analyze, encoding_option


def register(sub) -> None:
    outline = sub.add_parser(
        "outline",
        parents=[encoding_option()],
        help="the tool calls of one rollout",
        description="Prints the sessions, turns, exec scripts and tool calls of one rollout, "
        "with each call's command or patched files and its outcome. Exit 0, or 2 "
        "when the file cannot be read.",
    )
    outline.add_argument(
        "--json", action="store_true", help="one JSON object: file, records, calls, files, diagnostics"
    )
    outline.add_argument("--codex-home", metavar="DIR", help=CODEX_HOME_HELP)
    outline.add_argument("file", metavar="FILE", help="a rollout (.jsonl or .jsonl.zst); - reads standard input")
    outline.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    configure_codex_home(args.codex_home)
    encoding = PositionEncoding(args.position_encoding)
    if args.json:
        return _json(args.file, encoding)
    loaded = load(args.file)
    if loaded.error:
        print(f"rollout-lsp: {loaded.error}", file=sys.stderr)
        return 2
    analysis, findings = analyze(loaded)
    head: list[str] = []
    if args.file != "-":
        resolved = parents(analysis, args.file, search_roots(args.file))
        findings = sorted_findings(findings, parent_findings(analysis, resolved))
        head = [
            f"  {shown(p.label(), PATH_LIMIT)}: "
            + (f"{shown(p.path, PATH_LIMIT)}, lines 1–{p.lines}" if p.path else shown(p.missing(), PATH_LIMIT))
            for p in resolved
        ]
        ident = lineage(analysis).identity
        name = thread_name(args.file, ident)
        if name:
            head.insert(0, f"  thread name: {shown(name, TITLE_LIMIT)}")
        if ident is not None and in_tree(ident):
            head[1 if name else 0 : 1 if name else 0] = [
                f"  {k}: {shown(v, PATH_LIMIT)}" for k, v in tree_words(ident, args.file)
            ]
    print(outline_text(args.file, analysis, findings, encoding, head))
    return 0


def _json(path: str, encoding: PositionEncoding) -> int:
    """The JSON outline, read as a stream: records and calls go to temporary files as they settle, and are
    printed exactly as ``json.dump(…, indent=2)`` prints the whole object."""
    try:
        streamed = stream_rollout(path, encoding, make_sink=lambda: _Spool(encoding), turns=True, sessions=True)
    except Unreadable as problem:
        print(f"rollout-lsp: {problem}", file=sys.stderr)
        return 2
    spool: _Spool = streamed.sink
    turns = streamed.turns or []
    out = sys.stdout
    out.write('{\n  "file": ' + json.dumps(path, ensure_ascii=False) + ",\n")
    out.write('  "turns": ')
    _list(out, _items([t.to_json() for t in turns]))
    out.write(",\n")
    for name, items in (("records", spool.records), ("calls", spool.calls), ("files", spool.files)):
        out.write(f'  "{name}": ')
        _list(out, items)
        out.write(",\n")
    diagnostics = spool.open()
    found = list(streamed.findings)
    if path != "-":
        found = with_parent_findings(path, found, encoding)
    for _, finding in found:
        spool.add(diagnostics, finding)
    out.write('  "diagnostics": ')
    _list(out, diagnostics)
    session = _session(streamed.sessions, path)
    if session is not None:  # a member of a subagent tree (0.158 and later, or a subagent of any version)
        out.write(',\n  "session": ' + json.dumps(session, indent=2, ensure_ascii=False).replace("\n", "\n  "))
    out.write("\n}\n")
    return 0


def _session(analysis, path: str) -> dict | None:
    """The "session" section: the tree labels and the session's usage, for a member of a subagent tree."""
    if analysis is None:
        return None
    ident = lineage(analysis).identity
    if ident is None or not in_tree(ident):
        return None
    return {**tree_json(ident, path if path != "-" else None), "usage": _usage(analysis)}


def _usage(analysis) -> dict:
    usage = session_usage(analysis).to_json()
    usage.pop("turns")  # the streamed reading keeps no turns for it: the outline's "turns" have none either
    return usage


def _items(items: list[dict]) -> TextIO:
    spool = _Spool.open()
    for item in items:
        _Spool.add(spool, item)
    return spool


def _list(out: TextIO, items: TextIO) -> None:
    if not items.tell():
        out.write("[]")
        return
    items.seek(0)
    out.write("[\n")
    shutil.copyfileobj(items, out)
    out.write("\n  ]")


class _Spool:
    """Records and calls as they settle, each as it prints inside the outline, in a temporary file."""

    def __init__(self, encoding: PositionEncoding) -> None:
        self.encoding = encoding
        self.records = self.open()
        self.calls = self.open()
        self.files = self.open()  # the files each call touched, as ``outline_json``'s "files"

    @staticmethod
    def open() -> TextIO:
        # a lone surrogate is written as its JSON escape, which reads back as the same string
        return tempfile.TemporaryFile("w+", encoding="utf-8", errors="backslashreplace")

    @staticmethod
    def add(items: TextIO, item: dict) -> None:
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        items.write(("    " if not items.tell() else ",\n    ") + text)

    def record(self, line: int, record, output) -> None:
        self.add(self.records, record_json(_RecordView(line, record, output), line))

    def call(self, located, ranges) -> None:
        self.add(self.calls, call_json(ranges, located, self.encoding))
        for touch in touches_of(located):
            self.add(self.files, touch.to_json())


class _RecordView:
    """One call record and its output, as :func:`analysis.reports.report.record_json` reads an analysis."""

    def __init__(self, line: int, record: LineAnalysis, output: CallOutput | None) -> None:
        self.records = {line: record}
        self.output = output

    def record_output(self, call_line: int) -> CallOutput | None:
        return self.output
