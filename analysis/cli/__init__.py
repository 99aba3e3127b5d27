"""The ``rollout-lsp`` command line.  Each subcommand is a module with ``register(sub)`` adding its parser (and
``run`` as its default); :data:`COMMANDS` lists the analysis's own, in the order ``--help`` shows.  ``serve``
(the language server) is added by the console script's entry point, :mod:`lsp_server.__main__`, so that the
analysis never imports the server."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import import_module

from .common import ClosedPipeGuard, current_folder, version

# each subcommand's module, in the order ``--help`` shows them; imported when its parser is built (a command run
# alone does not pay for the others' imports: census's process pool, the index's database, the server)
COMMANDS = {
    name: f"{__name__}.{name}"
    for name in (
        "check",
        "outline",
        "files",
        "census",
        "match",
        "index",
        "search",
        "sessions",
        "cost",
        "archive",
        "blame",
        "export",
    )
}


def tune_gc() -> None:
    """An analysis allocates millions of small objects that live as long as the document: with the
    default thresholds the collector rescans them again and again (a third of the time on large files)."""
    gc.set_threshold(100_000, 50, 100)


@contextmanager
def imports_uncollected() -> Iterator[None]:
    """Imports without the cyclic collector, whose objects it then leaves alone (``gc.freeze``).

    Importing the analysis (and the server's protocol libraries) makes hundreds of thousands of objects that
    live as long as the process: classes, functions, the tree-sitter query, lsprotocol's types.  The collector,
    run every so many allocations meanwhile, walks all those made so far each time (a tenth of the server's
    start); once imported, they are moved out of its reach, as ``gc.freeze``'s documentation suggests for
    objects made at start."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def main(argv: Sequence[str] | None = None, commands: Mapping[str, str] = COMMANDS) -> int:
    """Run the command line; ``commands`` maps each command's name to its module."""
    tune_gc()
    argv = list(sys.argv[1:] if argv is None else argv)
    with imports_uncollected():  # the command's module imports what it runs
        parser = build_parser(argv, commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "stdio", False):  # the language server speaks LSP on standard output itself
        return args.run(args)
    stdout, stderr = sys.stdout, sys.stderr
    # `rollout-lsp check … | head -1` exits as the findings say; text from a rollout is shown safely
    sys.stdout = guard = ClosedPipeGuard(stdout, human=not getattr(args, "json", False))
    sys.stderr = ClosedPipeGuard(stderr)  # messages name files and quote rollouts: for people
    try:
        try:
            status = args.run(args)
        except FileNotFoundError as error:
            if error.filename is not None or current_folder() is not None:
                raise
            status = 2  # os.getcwd() failed: a relative path given in a folder deleted since
        if status == 2 and current_folder() is None:  # a relative path not found, or not even looked for
            print(
                f"rollout-lsp {args.command}: the current folder cannot be read (deleted?), so a relative path "
                "cannot be found from it: give absolute paths, or run it from a folder that exists",
                file=sys.stderr,
            )
        return status
    finally:
        guard.flush()  # here, where a closed pipe is caught, rather than at exit
        sys.stdout, sys.stderr = stdout, stderr


class _Version(argparse.Action):
    """``--version``, reading the installed metadata only when asked (it costs a scan of sys.path)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"rollout-lsp {version()}")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None, commands: Mapping[str, str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser of every command; given ``argv`` that starts with a command's name, of that command alone
    (what it parses is the same)."""
    parser = argparse.ArgumentParser(
        prog="rollout-lsp",
        description="Read what a Codex agent did: tool calls of rollout files.",
        epilog="A PATH or FILE of - reads standard input (plain or zstd-compressed). Exit status: 0 fine, "
        "1 findings (check) or unmatched calls (match), 2 a usage error or a file that cannot be read.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(
        dest="command", title="commands", metavar="COMMAND", help="run `rollout-lsp COMMAND --help` for its options"
    )
    if argv and argv[0] == "--version":  # answered by the top parser alone: no command's imports (start-up)
        names: Sequence[str] = ()
    else:
        names = (argv[0],) if argv and argv[0] in commands else tuple(commands)
    for name in names:
        import_module(commands[name]).register(sub)
    return parser
