"""``rollout-lsp serve``: the language server."""

from __future__ import annotations

import argparse


def register(sub) -> None:
    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--ws", metavar="HOST:PORT", help="listen on a WebSocket instead of stdio")
    serve.add_argument("--allow-remote", action="store_true",
                       help="let --tcp/--ws listen on an address other than loopback (LSP has no authentication)")
    serve.add_argument("--log-level", default="INFO")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from lsp_server.server import run as serve  # imported here: the analysis commands need no pygls

    return serve(tcp=args.tcp, ws=args.ws, log_level=args.log_level, allow_remote=args.allow_remote)
