"""``rollout-lsp serve``: the language server."""

from __future__ import annotations

import argparse

from .start_folder import leave_a_deleted_folder

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def register(sub) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Runs the language server: on standard input and output (as editors start "
        "it), or listening on a TCP port or a WebSocket.",
    )
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--tcp", metavar="HOST:PORT", type=host_port, help="listen on TCP instead of stdio")
    transport.add_argument("--ws", metavar="HOST:PORT", type=host_port, help="listen on a WebSocket instead of stdio")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --tcp/--ws listen on an address other than loopback (LSP has no authentication)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --ws, also accept a connection from a web page of ORIGIN (https://host:port); "
        "by default only clients that send no Origin and pages of loopback addresses are",
    )
    serve.add_argument(
        "--max-message-bytes",
        type=_size,
        default=None,
        metavar="N",
        help="refuse a message whose Content-Length is over N bytes and close the connection "
        "(default 268435456, 256 MB)",
    )
    serve.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=LOG_LEVELS,
        metavar="LEVEL",
        help=f"what the server logs on standard error: {', '.join(LOG_LEVELS)} (default WARNING; "
        "INFO adds each session's start)",
    )
    serve.set_defaults(run=run, stdio=True)


def host_port(text: str) -> str:
    """``HOST:PORT``, checked here so that a typo is a usage error, not a traceback."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT with a port from 0 to 65535, not {text!r}")
    return text


def install_code_cache() -> None:
    """The code cache's hooks (once per process), with the cyclic collector off as during the imports after it
    (gc.freeze at their end takes what this made out of its reach too)."""
    import gc

    from . import code_cache

    enabled = gc.isenabled()
    gc.disable()
    try:
        code_cache.install()
    finally:
        if enabled:
            gc.enable()


def run(args: argparse.Namespace) -> int:
    import faulthandler
    import sys

    from analysis.cli import imports_uncollected

    # a crash in native code (a C extension on one of the analysis threads) would end the server without a word:
    # Python's tracebacks of every thread go to stderr, which editors show as the server's log
    faulthandler.enable(file=sys.stderr, all_threads=True)

    with imports_uncollected():  # pygls, lsprotocol and the analysis: most of the server's start
        from . import code_cache

        # before lsprotocol's classes are made: their generated methods come from the cache (code_cache.py)
        code_cache.install()
        from .server import run as serve  # imported here: --help needs no pygls
        from .transport import DEFAULT_MAX_MESSAGE
    code_cache.save()

    leave_a_deleted_folder()
    return serve(
        tcp=args.tcp,
        ws=args.ws,
        log_level=args.log_level,
        allow_remote=args.allow_remote,
        allow_origins=tuple(args.allow_origin),
        max_message=args.max_message_bytes or DEFAULT_MAX_MESSAGE,
    )


def _size(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, not {text!r}")
    return int(text)
