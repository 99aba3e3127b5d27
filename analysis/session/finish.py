"""What is done to a file's findings once its lines are analysed, the same for every way of reading it.

Whichever path analysed the lines (the whole file, the stream, the server's incremental analysis, the index),
the file is finished the same way, here:

- **is it a rollout?** (:func:`is_rollout_file`): a file whose name matches a rollout pattern is one whatever
  it holds; any other is one when a record among its first :data:`HEAD_RECORDS` lines has a rollout record's
  type (other JSON Lines files stay quiet);
- **its findings in order** (:func:`sorted_findings`, by :func:`analysis.jsonl.findings.finding_sort_key`);
- **``parent-missing``** (:func:`missing_parents`, :func:`head_parent_findings`, :func:`with_parent_findings`):
  a fork or segment whose parent rollout is not found, which only the file's place tells (so it is added after
  the analysis of its lines, never by it);
- **a finding's JSON form** (:func:`finding_json`), as ``check --json`` prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..jsonl.access import Access
from ..jsonl.findings import Finding, finding_sort_key
from ..jsonl.positions import PositionEncoding, Range, Span
from ..jsonl.source import is_rollout_path
from .references import HEAD_LINES, head_parents, may_refer, parent_findings, parents, references
from .sniff import SAMPLE

if TYPE_CHECKING:
    from .rollout import RolloutAnalysis

HEAD_RECORDS = SAMPLE  # a rollout record among a file's first lines this many makes it a rollout

_T = TypeVar("_T")


class Ranges(Protocol):
    """What gives a span its range in the editor's units (an analysis, or the stream's window)."""

    def range_of(self, span: Span, encoding: PositionEncoding = PositionEncoding.UTF16) -> Range: ...


# -- is it a rollout? ----------------------------------------------------------------------------------------


def is_rollout_file(
    path: str, content: bool | Callable[[], bool], named: Callable[[str], bool] = is_rollout_path
) -> bool:
    """Whether the file at ``path`` is read as a rollout: its name matches a rollout pattern (``named``: the
    server's configured patterns, by URI), or ``content`` (what its first records say: a bool, or a callable
    asked only when the name does not decide) is true."""
    if named(path):
        return True
    return content() if callable(content) else bool(content)


def known_in_head(first_known: int | None) -> bool:
    """Whether the line of a file's first rollout record (None: there is none) is among its first lines, the
    rule of :attr:`analysis.session.rollout.RolloutAnalysis.is_rollout` for a file read as a stream."""
    return first_known is not None and first_known < HEAD_RECORDS


# -- in order ------------------------------------------------------------------------------------------------


def sorted_findings(*groups: Iterable[Finding]) -> list[Finding]:
    """The findings of ``groups`` together, in the one order findings are listed in."""
    return sorted((f for group in groups for f in group), key=finding_sort_key)


def sorted_pairs(*groups: Iterable[tuple[Finding, _T]]) -> list[tuple[Finding, _T]]:
    """Findings each with something of its own (its JSON form, its ranges), together, in the same order."""
    return sorted((item for group in groups for item in group), key=lambda item: finding_sort_key(item[0]))


# -- parent-missing ------------------------------------------------------------------------------------------


def missing_parents(
    analysis: RolloutAnalysis, path: str | None, workspace: Iterable[str] | Access = ()
) -> list[Finding]:
    """The ``parent-missing`` findings of a rollout analysed whole: a fork or segment whose parent's rollout is
    found neither in the sessions tree ``path`` is in nor in the ``workspace`` folders (only there for a
    rollout without a file).  ``workspace``: the folders, or the reader's whole
    :class:`~analysis.jsonl.access.Access` (the server's: its Codex homes too)."""
    from .lineage import search_roots

    if not references(analysis):
        return []
    access: Access | None = None
    if isinstance(workspace, Access):
        access, folders = workspace, list(workspace.workspace)
    else:
        folders = list(workspace)
    return parent_findings(analysis, parents(analysis, path, search_roots(path, folders) if path else folders, access))


def head_parent_findings(path: str, head: list[str] | None = None) -> tuple[RolloutAnalysis | None, list[Finding]]:
    """The ``parent-missing`` findings of the rollout at ``path`` read from its first lines alone (a file read
    as a stream), with the analysis of those lines (for their ranges); no analysis when ``head`` (its first
    lines, at least :data:`analysis.session.references.HEAD_LINES` or all it has) shows no reference."""
    if head is not None and not any(may_refer(line) for line in head[:HEAD_LINES]):
        return None, []  # no reference, so no parent to miss
    head_analysis, resolved = head_parents(path, head=head)
    return head_analysis, parent_findings(head_analysis, resolved)


def with_parent_findings(
    path: str, findings: list[tuple[Finding, dict]], encoding: PositionEncoding, head: list[str] | None = None
) -> list[tuple[Finding, dict]]:
    """``findings`` (with their JSON form) and a ``parent-missing`` finding for each fork or segment whose parent
    rollout is not found, in order.  ``head``: the file's first lines, when they have been read already."""
    head_analysis, extra = head_parent_findings(path, head)
    if not extra:
        return findings
    assert head_analysis is not None
    return sorted_pairs(findings, [(f, finding_json(head_analysis, f, encoding)) for f in extra])


# -- JSON ----------------------------------------------------------------------------------------------------


def finding_json(
    ranges: Ranges, finding: Finding, encoding: PositionEncoding = PositionEncoding.UTF16
) -> dict[str, Any]:
    """A finding as ``check --json`` prints it (and the server's diagnostics carry it): its range, severity,
    code, message and related places."""
    out: dict[str, Any] = {
        "range": ranges.range_of(finding.span, encoding).to_json(),
        "severity": finding.severity.label,
        "code": finding.code,
        "message": finding.message,
    }
    if finding.related:
        out["related"] = [
            {"range": ranges.range_of(r.span, encoding).to_json(), "message": r.message} for r in finding.related
        ]
    return out


__all__ = [
    "HEAD_RECORDS",
    "Ranges",
    "finding_json",
    "finding_sort_key",
    "head_parent_findings",
    "is_rollout_file",
    "known_in_head",
    "missing_parents",
    "sorted_findings",
    "sorted_pairs",
    "with_parent_findings",
]
