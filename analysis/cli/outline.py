"""``rollout-lsp outline``: the tool calls of one rollout, for people or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from ..positions import PositionEncoding
from ..report import finding_json, outline_json, outline_text
from ..source import load
from .common import analyze, encoding_option


def register(sub) -> None:
    outline = sub.add_parser("outline", parents=[encoding_option()], help="the tool calls of one rollout",
                             description="Prints the sessions, turns, exec scripts and tool calls of one rollout, "
                                         "with each call's command or patched files and its outcome. Exit 0, or 2 "
                                         "when the file cannot be read.")
    outline.add_argument("--json", action="store_true", help="one JSON object: file, calls, diagnostics")
    outline.add_argument("file", metavar="FILE", help="a rollout (.jsonl or .jsonl.zst); - reads standard input")
    outline.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    loaded = load(args.file)
    if loaded.error:
        print(f"rollout-lsp: {loaded.error}", file=sys.stderr)
        return 2
    analysis, findings = analyze(loaded)
    if args.json:
        out = outline_json(args.file, analysis, encoding)
        out["diagnostics"] = [finding_json(analysis, f, encoding) for f in findings]
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    print(outline_text(args.file, analysis, findings, encoding))
    return 0


