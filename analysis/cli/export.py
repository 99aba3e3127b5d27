"""``rollout-lsp export``: a rollout as a readable Markdown or HTML document, secrets redacted."""

from __future__ import annotations

import argparse
import os
import sys

from ..jsonl.display import for_people
from ..jsonl.source import load
from ..reports.export import FORMATS, ExportOptions, export
from .common import analyze, non_negative


def register(sub) -> None:
    parser = sub.add_parser(
        "export",
        help="a rollout as a readable Markdown or HTML document",
        description="Write a rollout as a document: each turn with the user's words, every "
        "call with its decoded command or patch, outputs trimmed, usage per turn. "
        "Secrets are redacted unless --no-redact is given.",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="md", help="md (Markdown, the default) or html (one self-contained file)"
    )
    parser.add_argument("--no-redact", action="store_true", help="keep credential-shaped strings as they are")
    parser.add_argument(
        "--output-lines",
        type=non_negative,
        default=20,
        metavar="N",
        help="lines of each output to keep (default 20; 0 keeps none, only how many there were)",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    parser.add_argument("file", metavar="FILE", help="a rollout (.jsonl or .jsonl.zst); - reads standard input")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.output and args.file != "-" and _same_file(args.output, args.file):
        print(f"rollout-lsp: refusing to write {args.output}: it is the rollout being exported", file=sys.stderr)
        return 2
    loaded = load(args.file)
    if loaded.error:
        print(f"rollout-lsp: {loaded.error}", file=sys.stderr)
        return 2
    analysis, _ = analyze(loaded)
    text = export(
        analysis, args.file, args.format, ExportOptions(redact=not args.no_redact, output_lines=args.output_lines)
    )
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(for_people(text))  # a document for people, as on standard output
        except OSError as error:
            print(f"rollout-lsp: cannot write {args.output}: {error.strerror or error}", file=sys.stderr)
            return 2
        return 0
    sys.stdout.write(text)
    return 0


def _same_file(output: str, source: str) -> bool:
    """Whether ``output`` is ``source`` (by path, or the same file through a link)."""
    try:
        return os.path.samefile(output, source)
    except OSError:  # one of them does not exist (yet): compare what the paths resolve to
        return os.path.realpath(output) == os.path.realpath(source)
