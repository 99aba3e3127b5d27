"""The folder the server starts in, which may be gone (Kate starts it in the home folder, or in a project folder
since deleted)."""

from __future__ import annotations

import os
import sys

START_NOTICES: list[str] = []
"""What the server said on stderr before a client could hear it: sent again as window/logMessage once the
client has initialized (features/lifecycle.py)."""


def leave_a_deleted_folder() -> None:
    """When the folder the server was started in no longer exists (Kate starts it in the home folder, or in a
    project folder since deleted), work from the home folder instead (``/`` if there is none), and say so:
    nothing the server reads is relative to that folder (documents and settings come as absolute paths), but
    a child process started there (``rollout-lsp sessions``) would inherit it."""
    try:
        os.getcwd()
        return
    except OSError as error:
        reason = error.strerror or type(error).__name__
    home = os.path.expanduser("~")
    fallback = home if os.path.isabs(home) and os.path.isdir(home) else os.path.abspath(os.sep)
    os.chdir(fallback)
    pwd = os.environ.get("PWD")  # the shell's name for it, when it is the deleted folder
    gone = pwd if pwd and os.path.isabs(pwd) and not os.path.isdir(pwd) else "the folder it was started in"
    message = f"rollout-lsp serve: {gone} cannot be read ({reason}; deleted?): working from {fallback} instead"
    print(message, file=sys.stderr, flush=True)
    START_NOTICES.append(message)
