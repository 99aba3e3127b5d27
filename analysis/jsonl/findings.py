"""Findings: what the analysis reports about a rollout, with a code and a place."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .pickling import pickled_by_fields
from .positions import Span


class Severity(IntEnum):
    """Ordered as LSP numbers them: a lower value is more severe."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]


INVALID_JSON = "invalid-json"
RECORD_SHAPE = "record-shape"
SCRIPT_SYNTAX = "script-syntax"
DEAD_BRANCH = "dead-branch"
COMPUTED_COMMAND = "computed-command"
EXPANDED_COMMAND = "expanded-command"
UNRESOLVED_PATCH_PATH = "unresolved-patch-path"
PATCH_SYNTAX = "patch-syntax"
UNPAIRED_CALL = "unpaired-call"
SECRET = "secret"
DYNAMIC_CODE = "dynamic-code"
# invocation logs of recording shims (analysis/invocations.py)
INVOCATION_INVALID = "invocation-invalid"
INVOCATION_SHAPE = "invocation-shape"
INVOCATION_EXIT = "invocation-exit"
INVOCATION_TOOL = "invocation-tool"
INVOCATION_ORDER = "invocation-order"
INVOCATION_EMPTY = "invocation-empty"
UNEXPLAINED_INVOCATION = "unexplained-invocation"
MISSING_INVOCATION = "missing-invocation"
EXIT_MISMATCH = "exit-mismatch"
UNKNOWN_RECORD = "unknown-record"
UNMATCHED_EVENT = "unmatched-event"
EVENT_CONTRADICTS = "event-contradicts"
TURN_FAILED = "turn-failed"
PARENT_MISSING = "parent-missing"
FILE_LIMIT = "file-limit"  # a limit of analysis/jsonl/limits.py was reached: part of the file is not read

DEFAULT_SEVERITY: dict[str, Severity] = {
    INVALID_JSON: Severity.ERROR,
    RECORD_SHAPE: Severity.ERROR,
    SCRIPT_SYNTAX: Severity.ERROR,
    DEAD_BRANCH: Severity.WARNING,
    COMPUTED_COMMAND: Severity.WARNING,
    EXPANDED_COMMAND: Severity.INFORMATION,
    UNRESOLVED_PATCH_PATH: Severity.WARNING,
    PATCH_SYNTAX: Severity.ERROR,
    UNPAIRED_CALL: Severity.HINT,
    SECRET: Severity.WARNING,
    DYNAMIC_CODE: Severity.WARNING,
    INVOCATION_INVALID: Severity.ERROR,
    INVOCATION_SHAPE: Severity.ERROR,
    INVOCATION_EXIT: Severity.WARNING,
    INVOCATION_TOOL: Severity.WARNING,
    INVOCATION_ORDER: Severity.WARNING,
    INVOCATION_EMPTY: Severity.INFORMATION,
    UNEXPLAINED_INVOCATION: Severity.WARNING,
    MISSING_INVOCATION: Severity.WARNING,
    EXIT_MISMATCH: Severity.WARNING,
    UNKNOWN_RECORD: Severity.INFORMATION,
    UNMATCHED_EVENT: Severity.INFORMATION,
    EVENT_CONTRADICTS: Severity.WARNING,
    TURN_FAILED: Severity.INFORMATION,
    PARENT_MISSING: Severity.INFORMATION,
    FILE_LIMIT: Severity.WARNING,
}
CODES = tuple(DEFAULT_SEVERITY)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a finding (the ``const`` a path resolved through, an output)."""

    span: Span
    message: str


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    message: str
    span: Span
    related: tuple[Related, ...] = field(default=())

    @property
    def severity(self) -> Severity:
        return DEFAULT_SEVERITY[self.code]

    def moved_to(self, line: int) -> Finding:
        """The same finding on another line (line analyses are computed at line 0)."""
        if self.span.line == line:
            return self
        return Finding(
            self.code,
            self.message,
            Span(line, self.span.start, self.span.end),
            tuple(Related(Span(line, r.span.start, r.span.end), r.message) for r in self.related),
        )


def finding_sort_key(finding: Finding) -> tuple[int, int, int, str]:
    """The order of a rollout's findings everywhere they are listed (the whole-file analysis, the stream,
    ``check``, the server): by place, then code."""
    span = finding.span
    return span.line, span.start, span.end, finding.code


def log_finding_sort_key(finding: Finding) -> tuple[int, int, str]:
    """The order of an invocation log's findings: by where they start, then code (not by where they end)."""
    span = finding.span
    return span.line, span.start, finding.code
