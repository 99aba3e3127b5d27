"""Why an exec script failed, when its error is a tool call's own failure: the reason the call it stopped at
is given (:func:`~analysis.session.labels.located_outcome`), so that the call, not only the exec, says
what happened.

Codex ends a script with the error of the tool call that failed in it: ``execution error: Io(Os { code: 267,
kind: NotADirectory, … })`` (a ``shell_command`` whose workdir is no folder, PowerShell on Windows),
```` `powershell.exe -Command …` rejected: blocked by policy ```` (a command the sandbox policy refused),
``apply_patch verification failed: Failed to find expected lines …``.  An exit code the script threw
(``Exit code: 1``) is :func:`~analysis.session.outputs.thrown_exit`'s; a JavaScript exception
(``TypeError: …``) says nothing of a call, and is no reason here.

A reason is short and reads the same when read again (``script_error(script_error(e)) == script_error(e)``):
a streamed reading keeps only the reason of an output's error (analysis/reports/stream/thinning.py).
"""

from __future__ import annotations

import re

from ..jsonl.lazy_pattern import lazy

REASON_LIMIT = 80
_REJECTED = lazy(r"\A(?:`.*` )?rejected: ([^\n]+)", re.DOTALL)
_EXECUTION = lazy(r"\Aexecution error: ([^\n]*)")
_KIND = lazy(r"\bkind: (\w+)")
_PATCH = "apply_patch verification failed"


def script_error(error: str | None) -> str | None:
    """``rejected: blocked by policy``, ``execution error: NotADirectory``, ``apply_patch verification
    failed``: the reason a tool call failed, read from its script's error; None for any other error."""
    if not error:
        return None
    if error.startswith(_PATCH):
        return _PATCH
    m = _EXECUTION.match(error)
    if m:
        kind = _KIND.search(m.group(1))
        detail = kind.group(1) if kind else m.group(1).strip()
        return _cut(f"execution error: {detail}")
    m = _REJECTED.match(error)
    if m:
        return _cut(f"rejected: {m.group(1).strip()}")
    return None


def _cut(text: str) -> str:
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"


__all__ = ["REASON_LIMIT", "script_error"]
