"""Invocation logs of recording shims (``cli_mocks/calls.jsonl``), and their match with a rollout.

Evaluation harnesses put a recording script on ``PATH`` in place of each tool; it
runs nothing, appends ``{"ts": <seconds>, "tool": "<name>", "argv": […], "exit": <int>}``
to the log and exits with ``exit``.  A grader then scores the run by those lines.
:func:`read_invocation_log` reads a log the way such a grader does, and says
what it would skip or misread; :func:`match_invocations` pairs each invocation
with the rollout command that made it (the command split as a shell splits it),
and lists what is left on either side.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field

from ..jsonl.findings import (
    EXIT_MISMATCH,
    INVOCATION_EMPTY,
    INVOCATION_EXIT,
    INVOCATION_INVALID,
    INVOCATION_ORDER,
    INVOCATION_SHAPE,
    INVOCATION_TOOL,
    MISSING_INVOCATION,
    UNEXPLAINED_INVOCATION,
    Finding,
    Related,
    log_finding_sort_key,
)
from ..jsonl.jsonspans import locate
from ..jsonl.lazy_pattern import lazy
from ..jsonl.lines import first_lines, split_lines
from ..jsonl.positions import PositionEncoding, Range, Span, span_to_range
from ..script.shell_words import CommandLine, SimpleCommand, read_command_line
from ..session.rollout import LocatedCall, RolloutAnalysis

INVOCATION_LOG_NAME = "calls.jsonl"
_PLAIN_NAME = lazy(r"[A-Za-z0-9_+][A-Za-z0-9._+-]*")
_FIELDS = {"ts": "a number (seconds)", "tool": "a string", "argv": "an array of strings", "exit": "an integer"}


@dataclass(frozen=True, slots=True)
class Invocation:
    """One recorded run of a shimmed tool.  ``span`` covers its line."""

    line: int
    ts: float
    tool: str
    argv: tuple[str, ...]
    exit: int
    span: Span

    @property
    def command(self) -> str:
        """The invocation as a shell command line: ``uip ixp projects delete proj-1``."""
        return shlex.join((self.tool, *self.argv))


@dataclass
class InvocationLog:
    lines: list[str]
    invocations: list[Invocation] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range:
        text = self.lines[span.line] if 0 <= span.line < len(self.lines) else ""
        return span_to_range(span, text, encoding)

    @property
    def tools(self) -> list[str]:
        """The tools the log recorded, in the order they first appear."""
        return list(dict.fromkeys(i.tool for i in self.invocations))


_SNIFF_LINES = 20  # the first non-blank line among these tells


def looks_like_invocation_log(path: str, text: str) -> bool:
    """Named ``calls.jsonl``, or whose first record has the fields a shim writes and none of a rollout's."""
    # a 50 MB rollout is not split whole to look at its head
    return head_looks_like_invocation_log(path, first_lines(text, _SNIFF_LINES))


def head_looks_like_invocation_log(path: str, lines: list[str]) -> bool:
    """:func:`looks_like_invocation_log` of a file whose first lines (without their terminators) are ``lines``:
    for a reader that has them split already (``check`` joined them to split them again: 34 ms of its 1.6 s
    on wild's 56 files, whose heads hold 3.7 MB)."""
    if path.replace("\\", "/").rsplit("/", 1)[-1] == INVOCATION_LOG_NAME:
        return True
    for line in lines[:_SNIFF_LINES]:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return False
        return isinstance(value, dict) and "tool" in value and "argv" in value and "payload" not in value
    return False


def read_invocation_log(text: str) -> InvocationLog:
    """The invocations of a log, and findings for every line a grader would skip or misread."""
    log = InvocationLog(split_lines(text))
    previous: Invocation | None = None
    for number, line in enumerate(log.lines):
        if not line.strip():
            continue
        invocation = _read_line(number, line, log.findings)
        if invocation is None:
            continue
        if previous is not None and invocation.ts < previous.ts:
            log.findings.append(
                Finding(
                    INVOCATION_ORDER,
                    f"ts {invocation.ts!r} is earlier than the line before ({previous.ts!r}): "
                    "appends from several processes interleaved, or the log was edited",
                    _field_span(line, number, "ts"),
                    (Related(previous.span, "the later invocation before it"),),
                )
            )
        log.invocations.append(invocation)
        previous = invocation
    if not any(line.strip() for line in log.lines):
        log.findings.append(
            Finding(
                INVOCATION_EMPTY,
                "the log records no invocation: the run called no shimmed tool (or the shims never ran)",
                Span(0, 0, 0),
            )
        )
    log.findings.sort(key=log_finding_sort_key)
    return log


def _read_line(number: int, line: str, findings: list[Finding]) -> Invocation | None:
    whole = Span(number, 0, len(line))
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        findings.append(Finding(INVOCATION_INVALID, "not a JSON object: a grader skips this line", whole))
        return None
    problems = [(name, wanted) for name, wanted in _FIELDS.items() if not _has_type(value.get(name), name)]
    for name, wanted in problems:
        where = _field_span(line, number, name) if name in value else whole
        said = "missing" if name not in value else f"{json.dumps(value[name])[:40]} is not {wanted}"
        findings.append(Finding(INVOCATION_SHAPE, f"field {name!r}: {said}", where))
    if problems:
        return None
    invocation = Invocation(number, float(value["ts"]), value["tool"], tuple(value["argv"]), value["exit"], whole)
    if not 0 <= invocation.exit <= 255:
        findings.append(
            Finding(
                INVOCATION_EXIT,
                f"exit {invocation.exit} is no process exit status (0..255)"
                + (
                    f": a raw wait status? {invocation.exit} is exit code {invocation.exit >> 8}"
                    if invocation.exit > 255 and invocation.exit % 256 == 0
                    else ""
                ),
                _field_span(line, number, "exit"),
            )
        )
    if not _PLAIN_NAME.fullmatch(invocation.tool):
        findings.append(
            Finding(
                INVOCATION_TOOL,
                f"tool {invocation.tool!r} is not a plain executable name",
                _field_span(line, number, "tool"),
            )
        )
    return invocation


def _has_type(value, name: str) -> bool:
    if name == "ts":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if name == "tool":
        return isinstance(value, str) and value != ""
    if name == "argv":
        return isinstance(value, list) and all(isinstance(a, str) for a in value)
    return isinstance(value, int) and not isinstance(value, bool)


def _field_span(line: str, number: int, name: str) -> Span:
    found = locate(line, [(name,)]).get((name,))
    return Span(number, *found) if found else Span(number, 0, len(line))


# -- matching with a rollout -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RolloutCommand:
    """One simple command a rollout call runs: which call, which command line, which of its commands."""

    located: LocatedCall
    line: CommandLine
    command: SimpleCommand

    @property
    def exit_code(self) -> int | None:
        """The exit status the rollout shows for this command: only when it is the only command of its
        line (``a && b`` exits with the status of whichever ran last)."""
        output = self.located.output
        if output is None or self.line.sole is not self.command or self.located.call.expansion:
            return None
        return output.exit_code


@dataclass(frozen=True, slots=True)
class InvocationMatch:
    invocation: Invocation
    command: RolloutCommand
    exact: bool  # False when a word of the command is an expansion ($x) that the invocation's argument filled


@dataclass
class MatchResult:
    matches: list[InvocationMatch] = field(default_factory=list)
    unexplained: list[Invocation] = field(default_factory=list)  # no rollout command made it (a stale log?)
    missing: list[RolloutCommand] = field(default_factory=list)  # runs a recorded tool; the log has no line

    def matches_of_call(self, line: int, index: int) -> list[InvocationMatch]:
        return [m for m in self.matches if m.command.located.line == line and m.command.located.index == index]

    def log_findings(self) -> list[Finding]:
        """What the match says about the log: invocations nothing explains, exit codes that disagree."""
        out = [
            Finding(
                UNEXPLAINED_INVOCATION,
                f"no command of the rollout runs `{i.command}`: a log from "
                "another run, or a command the rollout does not show",
                i.span,
            )
            for i in self.unexplained
        ]
        for match in self.matches:
            shown = match.command.exit_code
            if shown is not None and shown != match.invocation.exit:
                out.append(
                    Finding(
                        EXIT_MISMATCH,
                        f"recorded exit {match.invocation.exit}, but the rollout shows exit code "
                        f"{shown} for `{match.command.line.text}` (line {match.command.located.line + 1})",
                        match.invocation.span,
                    )
                )
        return sorted(out, key=lambda f: (f.span.line, f.code))

    def rollout_findings(self) -> list[Finding]:
        """What the match says about the rollout: commands of recorded tools that left no line in the log."""
        return [
            Finding(
                MISSING_INVOCATION,
                f"`{' '.join(a or '…' for a in c.command.argv)}` runs the recorded "
                f"tool {c.command.program}, but the log has no invocation of it: the shim did not run "
                "or could not write",
                c.located.span,
            )
            for c in self.missing
        ]


def rollout_commands(analysis: RolloutAnalysis) -> list[RolloutCommand]:
    """Every simple command of every command call that can run, in rollout order."""
    out: list[RolloutCommand] = []
    for located in analysis.calls:
        call = located.call
        if call.kind != "command" or call.executed == "no":
            continue
        texts = [call.command] if call.command is not None else list(call.expansion or ())
        for text in texts:
            line = read_command_line(text)
            out.extend(RolloutCommand(located, line, command) for command in line.commands)
    return out


def match_invocations(
    analysis: RolloutAnalysis, log: InvocationLog, commands: list[RolloutCommand] | None = None
) -> MatchResult:
    """Pairs invocations with rollout commands in order: each invocation takes the first command not yet
    taken that runs its tool with its argv (exact words first, then words that are expansions).
    ``commands`` are :func:`rollout_commands` of the analysis when the caller kept them (splitting every
    command is the slow part; the server splits a rollout's once per version, off its event loop)."""
    commands = rollout_commands(analysis) if commands is None else commands
    taken = [False] * len(commands)
    result = MatchResult()
    for invocation in log.invocations:
        found = _first(commands, taken, invocation, exact=True)
        exact = found is not None
        if found is None:
            found = _first(commands, taken, invocation, exact=False)
        if found is None:
            result.unexplained.append(invocation)
            continue
        taken[found] = True
        result.matches.append(InvocationMatch(invocation, commands[found], exact))
    recorded = set(log.tools)
    result.missing = [c for c, t in zip(commands, taken) if not t and c.command.program in recorded]
    return result


def _first(commands: list[RolloutCommand], taken: list[bool], invocation: Invocation, exact: bool) -> int | None:
    for index, candidate in enumerate(commands):
        if taken[index] or candidate.command.program != invocation.tool:
            continue
        argv = candidate.command.argv[1:]
        if len(argv) != len(invocation.argv):
            continue
        if exact and candidate.command.exact and tuple(argv) == invocation.argv:
            return index
        if not exact and all(a is None or a == b for a, b in zip(argv, invocation.argv)):
            return index
    return None


__all__ = [
    "Invocation",
    "InvocationLog",
    "InvocationMatch",
    "MatchResult",
    "RolloutCommand",
    "head_looks_like_invocation_log",
    "looks_like_invocation_log",
    "match_invocations",
    "read_invocation_log",
    "rollout_commands",
]
