"""The ``rollout-lsp`` command line.  Each subcommand is a module of this package with ``register(sub)``
adding its parser (and ``run`` as its default); :data:`COMMANDS` lists them in the order ``--help`` shows."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Sequence

from . import census, check, index, match, outline, search, serve

COMMANDS = (check, outline, census, match, index, search, serve)


def tune_gc() -> None:
    """An analysis allocates millions of small objects that live as long as the document: with the
    default thresholds the collector rescans them again and again (a third of the time on large files)."""
    gc.set_threshold(100_000, 50, 100)


def main(argv: Sequence[str] | None = None) -> int:
    tune_gc()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:  # `rollout-lsp outline … | head` is fine
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rollout-lsp",
                                     description="Read what a Codex agent did: tool calls of rollout files.")
    sub = parser.add_subparsers(dest="command")
    for command in COMMANDS:
        command.register(sub)
    return parser
