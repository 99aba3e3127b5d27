"""``rollout-lsp``, the console script: the analysis's commands (:mod:`analysis.cli`) and ``serve``, the
language server.  ``python -m lsp_server serve`` is how editors start the server."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from types import FrameType

if sys.argv[1:2] == ["serve"]:
    # the server's code cache (code_cache.py) before the command line's imports: the analysis's dataclasses that
    # analysis.cli imports take their generated methods from it too (serve_command.run finds it installed)
    from .serve_command import install_code_cache

    install_code_cache()
elif len(sys.argv) > 1 and (__name__ == "__main__" or os.path.basename(sys.argv[0]).startswith("rollout-lsp")):
    # a command run as the program (`python -m lsp_server check`, or the console script, whose wrapper imports
    # this module first): its dataclasses' methods from the command line's code cache rather than compiled from
    # their source (a quarter of a small check's instructions); not when another program imports this module,
    # nor for a bare `rollout-lsp` (its usage, no command: nothing to keep a file for)
    from .code_cache import install_for_commands

    install_for_commands(command=sys.argv[1])

from analysis.cli import COMMANDS
from analysis.cli import main as analysis_main

ALL_COMMANDS = {**COMMANDS, "serve": "lsp_server.serve_command"}


def main(argv: Sequence[str] | None = None) -> int:
    status = analysis_main(argv, ALL_COMMANDS)
    cache = sys.modules.get("lsp_server.code_cache")
    if cache is not None:  # what this command compiled that its cache lacked (once; not after a usage error)
        cache.save_for_commands()
    if argv is None and sys.argv[1:2] == ["check"] and _called_by_the_program(sys._getframe(1)):
        _end_now(status)
    return status


_RUNPY_MAIN = frozenset({"_run_code", "_run_module_as_main"})  # what ``python -m`` runs a module's code in


def _called_by_the_program(caller: FrameType | None) -> bool:
    """Whether ``caller``, the frame that called :func:`main`, is the process's own top level: the console
    script's or ``python -c``'s code, or this module run by ``python -m`` (only runpy's two frames above it).
    Not code run inside another program (``runpy.run_module`` from a script, ``python -m cProfile``, pdb),
    whose own work after ``main`` returns must still run (the review of stop 43: a profile was never written)."""
    if caller is None or caller.f_code.co_name != "<module>":
        return False
    above = caller.f_back
    while above is not None:
        if above.f_globals.get("__name__") != "runpy" or above.f_code.co_name not in _RUNPY_MAIN:
            return False
        above = above.f_back
    return True


def _end_now(status: int) -> None:
    """End the process here with ``status``, skipping Python's finalisation (tearing down every module and
    object the analysis made: about 5 % of a small check's instructions), as a command-line tool may once
    nothing is left for it to do: its output flushed, no exit handler registered (atexit's, or threading's for
    a pool), no other thread running.  Otherwise, or if a flush fails (a closed pipe), it returns and the
    process ends as before, reporting what it reported before."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return
    import atexit

    threading = sys.modules.get("threading")
    pending = getattr(atexit, "_ncallbacks", lambda: 1)()
    if threading is not None:
        pending += threading.active_count() - 1 + len(getattr(threading, "_threading_atexits", ()))
    if pending == 0 and type(status) is int and 0 <= status <= 255:
        os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
