"""Code actions (redact secrets) and commands (the decoded script, a call's command)."""

from __future__ import annotations

from lsprotocol import types

from analysis.positions import LineColumns, PositionEncoding, Span
from analysis.rollout import RolloutAnalysis
from analysis.secrets import SecretMatch, find_secrets, redacted_text

from ..convert import to_range
from .hover import call_at

DECODED_SCRIPT = "rollout-lsp.decodedScript"
CALL_COMMAND = "rollout-lsp.callCommand"


class ActionFeature:
    def code_actions(self, analysis: RolloutAnalysis, uri: str, params: types.CodeActionParams,
                     encoding: PositionEncoding) -> list[types.CodeAction]:
        actions = []
        secrets = [f for f in analysis.findings if f.code == "secret"]
        wanted = params.range
        for finding in secrets:
            if not wanted.start.line <= finding.span.line <= wanted.end.line:
                continue
            edit = self.redaction(analysis, finding.span, encoding)
            diagnostic = next((d for d in params.context.diagnostics if d.code == "secret" and
                               d.range.start.line == finding.span.line), None)
            actions.append(types.CodeAction(
                title="Redact secret", kind=types.CodeActionKind.QuickFix, is_preferred=True,
                diagnostics=[diagnostic] if diagnostic else None,
                edit=types.WorkspaceEdit(changes={uri: [edit]})))
        if len(secrets) > 1 and actions:
            edits = [self.redaction(analysis, f.span, encoding) for f in secrets]
            actions.append(types.CodeAction(title=f"Redact all {len(secrets)} secrets in this file",
                                            kind=types.CodeActionKind.QuickFix,
                                            edit=types.WorkspaceEdit(changes={uri: edits})))
        return actions

    def redaction(self, analysis: RolloutAnalysis, span: Span, encoding: PositionEncoding) -> types.TextEdit:
        line = analysis.lines[span.line]
        match = SecretMatch("", span.start, span.end, _kept_prefix(line, span))
        return types.TextEdit(to_range(analysis, span, encoding), redacted_text(line, match))

    def decoded_script(self, analysis: RolloutAnalysis, line: int) -> dict | None:
        if not 0 <= line < len(analysis.records):
            return None
        record = analysis.records[line]
        if record.script is None:
            return None
        return {"script": record.script, "language": "javascript", "call_id": record.call_id, "line": line}

    def call_command(self, analysis: RolloutAnalysis, line: int, character: int,
                     encoding: PositionEncoding) -> dict | None:
        if not 0 <= line < len(analysis.records):
            return None
        column = LineColumns(analysis.lines[line]).from_units(character, encoding)
        located = call_at(analysis, line, column) or next(iter(analysis.calls_on(line)), None)
        if located is None:
            return None
        call = located.call
        return {"tool": call.tool, "kind": call.kind, "command": call.command, "workdir": call.workdir,
                "computed": call.computed, "expansion": list(call.expansion) if call.expansion else None,
                "patch": call.patch}


def _kept_prefix(line: str, span: Span) -> int:
    """How much of the secret stays readable: its identifying prefix, as the analysis found it."""
    for match in find_secrets(line):
        if match.start == span.start and match.end == span.end:
            return match.keep
    return 0
