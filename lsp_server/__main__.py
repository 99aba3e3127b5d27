"""``rollout-lsp``, the console script: the analysis's commands (:mod:`analysis.cli`) and ``serve``, the
language server.  ``python -m lsp_server serve`` is how editors start the server."""

from __future__ import annotations

import sys
from collections.abc import Sequence

if sys.argv[1:2] == ["serve"]:
    # the server's code cache (code_cache.py) before the command line's imports: the analysis's dataclasses that
    # analysis.cli imports take their generated methods from it too (serve_command.run finds it installed)
    from .serve_command import install_code_cache

    install_code_cache()

from analysis.cli import COMMANDS
from analysis.cli import main as analysis_main

ALL_COMMANDS = {**COMMANDS, "serve": "lsp_server.serve_command"}


def main(argv: Sequence[str] | None = None) -> int:
    return analysis_main(argv, ALL_COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
