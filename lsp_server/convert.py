"""Analysis spans and findings as lsprotocol types."""

from __future__ import annotations

from collections.abc import Mapping

from lsprotocol import types

from analysis.jsonl.findings import DEAD_BRANCH, INVALID_JSON, RECORD_SHAPE, SECRET, UNPAIRED_CALL, Finding, Severity
from analysis.jsonl.positions import PositionEncoding, Span
from analysis.session.rollout import RolloutAnalysis

from .findings_doc import section_url
from .fixes import fix_data
from .masking import Masker

SOURCE = "rollout-lsp"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def docs_url(code: str) -> str | None:
    """The finding's section of findings.md: the published copy if pyproject.toml names one, else the copy
    installed with the server (lsp_server/findings_doc.py)."""
    return section_url(code)


def to_range(analysis: RolloutAnalysis, span: Span, encoding: PositionEncoding) -> types.Range:
    r = analysis.range_of(span, encoding)
    return types.Range(types.Position(r.start.line, r.start.character), types.Position(r.end.line, r.end.character))


def line_range(analysis: RolloutAnalysis, line: int, encoding: PositionEncoding) -> types.Range:
    text = analysis.lines[line] if 0 <= line < len(analysis.lines) else ""
    return to_range(analysis, Span(line, 0, len(text)), encoding)


def to_diagnostic(
    analysis: RolloutAnalysis,
    finding: Finding,
    uri: str,
    encoding: PositionEncoding,
    severity_names: Mapping[str, str],
    masker: Masker | None = None,
    version: int | None = None,
    profiled: Severity | None = None,
) -> types.Diagnostic | None:
    """The diagnostic of a finding, with the configured severity; None when its code is turned off.

    Its messages are masked; its ``data`` carries what its quick fix needs and the document
    version it was computed for.  ``profiled`` is its severity in the findings profile (a severity set for
    its code wins); a hint does not link its call's output.
    """
    mask = masker = masker or Masker()
    name = severity_names.get(finding.code)
    if name == "off":
        return None
    severity = Severity.parse(name) if name else profiled if profiled is not None else finding.severity
    related = [
        types.DiagnosticRelatedInformation(types.Location(uri, to_range(analysis, r.span, encoding)), mask(r.message))
        for r in finding.related
    ]
    output = output_of_call_record(analysis, finding)
    if output is not None and not (profiled is not None and severity == Severity.HINT):
        related.append(
            types.DiagnosticRelatedInformation(
                types.Location(uri, line_range(analysis, output, encoding)),
                f"the output of this call (line {output + 1})",
            )
        )
    href = docs_url(finding.code)
    return types.Diagnostic(
        range=to_range(analysis, finding.span, encoding),
        message=mask(finding.message),
        severity=_SEVERITY[severity],
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == DEAD_BRANCH else None,
        related_information=related or None,
        data=_data(analysis, finding, masker, version),
    )


def _data(analysis: RolloutAnalysis, finding: Finding, masker: Masker, version: int | None) -> dict | None:
    data = fix_data(analysis, finding, masker.extra)
    if data is None:
        return None
    return {**data, "version": version}


def output_of_call_record(analysis: RolloutAnalysis, finding: Finding) -> int | None:
    """The output line a finding on a call record points at as related information, if any."""
    line = finding.span.line
    if finding.code in (UNPAIRED_CALL, SECRET, INVALID_JSON, RECORD_SHAPE):
        return None
    if not 0 <= line < len(analysis.records) or not analysis.records[line].is_call:
        return None
    return analysis.output_of(line)
