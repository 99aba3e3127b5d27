"""Whether a patch call applied: the one answer that the reviewer's files list
(:mod:`analysis.session.files_changed`) and blame's record of changes (:mod:`analysis.session.changes`) both give.

It is read from the call alone (its event, its output, whether its script reached it), so a streamed reading
says what the whole-file one says.
"""

from __future__ import annotations

from ..script.calls import PATCH
from .labels import located_outcome
from .rollout import LocatedCall


def patch_applied(located: LocatedCall) -> bool | None:
    """True or False when something says, None when nothing does.

    In order: a call its script never reached did not apply; a ``patch_apply_end`` event's ``success`` is
    what Codex did; a failed outcome (a non-zero exit, ``apply_patch verification failed``, a failed event) did
    not apply; a top-level call applied when its output says ``Success.`` or exit 0; a call in a script applied
    when the script ran past it (``executed: yes``)."""
    call = located.call
    if call.executed == "no":
        return False
    event = located.event[1] if located.event is not None else None
    if event is not None and event.kind == PATCH and event.success is not None:
        return event.success
    outcome = located_outcome(located)
    if outcome is not None and outcome.failed:
        return False
    if located.record.is_exec:
        return True if call.executed == "yes" else None
    output = located.output
    if output is not None and (output.exit_code == 0 or output.output.text().lstrip().startswith("Success.")):
        return True
    return None


__all__ = ["patch_applied"]
