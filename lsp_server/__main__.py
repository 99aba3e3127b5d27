"""``rollout-lsp``, the console script: the analysis's commands (:mod:`analysis.cli`) and ``serve``, the
language server.  ``python -m lsp_server serve`` is how editors start the server."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from analysis.cli import COMMANDS
from analysis.cli import main as analysis_main

ALL_COMMANDS = {**COMMANDS, "serve": "lsp_server.serve_command"}


def main(argv: Sequence[str] | None = None) -> int:
    return analysis_main(argv, ALL_COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
