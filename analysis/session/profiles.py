"""Findings profiles: which findings a reader of a finished session sees, and how loud, against all of them
for the author of a fixture or a script (docs/findings.md, "Profiles").

``author`` shows every finding at its own severity.  ``reader`` lowers what a reader cannot act on: a
``computed-command`` whose call has a known expansion, or that ran (an event reports it, or its output
completed), is a hint, as is every ``expanded-command``; and a hint does not link the call's output as
related information (the Outline and the hover already show it).  A severity set per code in the
settings wins over both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..jsonl.findings import COMPUTED_COMMAND, EXPANDED_COMMAND, Finding, Severity
from .rollout import LocatedCall

READER, AUTHOR = "reader", "author"
PROFILES = (READER, AUTHOR)
# a rollout Codex wrote where it writes them (not a fixture, not a copy kept with a project)
_SESSIONS = re.compile(r"(^|/)\.codex/(sessions|archived_sessions)/")


def default_profile(path: str | None) -> str:
    """``reader`` for a rollout under a Codex sessions folder, ``author`` elsewhere (fixtures, examples)."""
    return READER if path and _SESSIONS.search(path.replace("\\", "/")) else AUTHOR


def quiet_call(located: LocatedCall) -> bool:
    """Whether a call's computed command is nothing a reader needs to act on: its exact commands are known,
    or it ran and its output says how."""
    output = located.output
    return (
        located.call.expansion is not None
        or located.event is not None
        or output is not None
        and output.status == "completed"
    )


def severity_in(profile: str, finding: Finding, quiet: Callable[[Finding], bool]) -> Severity:
    """The severity a finding is shown at in ``profile``; ``quiet`` says whether its call is a quiet one."""
    if profile != READER:
        return finding.severity
    if finding.code == EXPANDED_COMMAND or finding.code == COMPUTED_COMMAND and quiet(finding):
        return Severity.HINT
    return finding.severity


def quiet_findings(calls: Iterable[LocatedCall]) -> Callable[[Finding], bool]:
    """``quiet`` for :func:`severity_in`: whether the narrowest call holding a finding is quiet."""
    by_line: dict[int, list[LocatedCall]] = {}
    for located in calls:
        by_line.setdefault(located.line, []).append(located)

    def quiet(finding: Finding) -> bool:
        span = finding.span
        holding = [c for c in by_line.get(span.line, ()) if c.call.start <= span.start and span.end <= c.call.end]
        if not holding:
            return False
        return quiet_call(min(holding, key=lambda c: c.call.end - c.call.start))

    return quiet


__all__ = ["AUTHOR", "PROFILES", "READER", "default_profile", "quiet_call", "quiet_findings", "severity_in"]
