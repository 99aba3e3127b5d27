"""Whether a call ran, one definition for every view (hover, Outline, lenses): ``yes``, ``no`` or ``unknown``,
with how it is known.

A call ran when Codex made it (a call record), when an event reports it, when it runs whenever its script
runs and the script completed (pairing marks these ``executed: "yes"``), or when it has an exit code of its
own: a call that exited ran, whatever a static reading of its script could say.  It did not run when it is
in dead code, when the script was refused before anything ran, or when the script failed before reaching
it.  Anything else is unknown: a static reading of a script cannot know which calls ran.
"""

from __future__ import annotations

from dataclasses import dataclass

from .continuations import CallOutput
from .labels import DEAD, NEVER_RAN, NOT_RUN, Outcome, call_outcome
from .memo import sole_producer_of
from .outputs import thrown_exit
from .rollout import LocatedCall, RolloutAnalysis


@dataclass(frozen=True, slots=True)
class Executed:
    """``yes``, ``no`` or ``unknown``, and why (``text``: what a hover says after "executed: ")."""

    value: str
    text: str


_UNKNOWN = Executed("unknown", "unknown (read from a script; a static reading cannot know which calls ran)")
_DEAD = Executed("no", "no: it is in dead code")
_NEVER = Executed("no", "no: the script was refused before any of it ran")
_NOT_RUN = Executed("no", "no: the script failed before it")


def executed(analysis: RolloutAnalysis | None, located: LocatedCall, outcome: Outcome | None = None) -> Executed:
    """Whether ``located`` ran and how that is known; ``outcome`` is its :func:`call_outcome` when the caller
    has it already (computed here otherwise, when ``analysis`` is given)."""
    call, record = located.call, located.record
    if outcome is None and analysis is not None:
        outcome = call_outcome(analysis, located)
    if outcome is DEAD or (call.executed == "no" and outcome is not NEVER_RAN):
        return _DEAD
    if outcome is NEVER_RAN:
        return _NEVER
    if outcome is NOT_RUN:
        return _NOT_RUN
    if located.event is not None:
        line, event = located.event
        return Executed("yes", f"yes: {event.type} on line {line + 1} reports it")
    if not record.is_exec:
        return Executed("yes", "yes (a call Codex made)")
    if call.executed == "yes":
        return Executed("yes", "yes (it runs whenever the script runs, and the script completed)")
    code = own_exit_code(located, outcome)
    if code is not None:
        return Executed("yes", f"yes (it exited with code {code})")
    return _UNKNOWN


def own_exit_code(located: LocatedCall, outcome: Outcome | None) -> int | None:
    """The exit code that is the call's own: its outcome's, or its output's when it is the script's only
    command (the only one whose result the output can hold)."""
    if outcome is not None and outcome.exit_code is not None:
        return outcome.exit_code
    output = located.output
    if output is None or output.exit_code is None:
        return None
    if not located.record.is_exec or sole_producer_of(located.record) is located.record.calls[located.index]:
        return output.exit_code
    return None


def script_exit_codes(output: CallOutput) -> list[int]:
    """The exit codes a script's output names, each once, in order: its result blocks', else the exit code
    its error threw (a command's result thrown as the script's error), else the output's own."""
    codes = list(dict.fromkeys(output.output.exit_codes))
    if not codes and output.status == "failed":
        thrown = thrown_exit(output.output.error)
        if thrown is not None:
            codes = [thrown]
    if not codes and output.exit_code is not None:
        codes = [output.exit_code]
    return codes


__all__ = ["Executed", "executed", "own_exit_code", "script_exit_codes"]
