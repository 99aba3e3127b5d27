"""Quick fixes, each a versioned edit (it applies only to the document version it was computed for):

- "Redact secret" / "Redact all N secrets": letters and digits past the secret's identifying prefix become
  ``x``; the line stays valid JSON of the same length.
- "Add output record": after an unpaired call, a new output line with the same call_id and timestamp.
- "Wrap in *** Begin Patch … *** End Patch": a patch without its envelope gets it, escaped as its string needs.
"""

from __future__ import annotations

from lsprotocol import types

from analysis.jsonl.findings import SECRET, Finding
from analysis.session.rollout import RolloutAnalysis

from ..convert import to_range
from ..documents import RolloutDocument
from ..fixes import ADD_OUTPUT, REDACT, WRAP_PATCH, Edit, fix_data, output_record, redaction, wrap_patch
from ..store import DocumentAnalysis
from .base import Feature, lsp_method


class ActionFeature(Feature):
    @lsp_method(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]), empty=list)
    async def code_action(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The quick fixes of the findings on the requested lines."""
        result = await self.rollout(params.text_document.uri)
        return self.code_actions(result, params) if result else []

    def code_actions(self, result: DocumentAnalysis, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = result.analysis
        wanted = params.range
        extra = self.server.masker.extra
        actions: list[types.CodeAction] = []
        secrets = [f for f in analysis.findings if f.code == SECRET]
        for finding in analysis.findings:
            if not wanted.start.line <= finding.span.line <= wanted.end.line:
                continue
            data = fix_data(analysis, finding, extra)
            if data is None:
                continue
            edits = self.fix(result, finding, data)
            if not edits:
                continue
            actions.append(types.CodeAction(
                title=_TITLES[data["fix"]], kind=types.CodeActionKind.QuickFix, is_preferred=True,
                diagnostics=_matching(params.context.diagnostics, finding) or None,
                edit=self.workspace_edit(result, edits)))
        if len(secrets) > 1 and any(a.title == _TITLES[REDACT] for a in actions):
            edits = [redaction(analysis, f.span, fix_data(analysis, f, extra)["keep"]) for f in secrets]
            actions.append(types.CodeAction(title=f"Redact all {len(secrets)} secrets in this file",
                                            kind=types.CodeActionKind.QuickFix,
                                            edit=self.workspace_edit(result, edits)))
        return actions

    def fix(self, result: DocumentAnalysis, finding: Finding, data: dict) -> list[Edit]:
        analysis = result.analysis
        if data["fix"] == REDACT:
            return [redaction(analysis, finding.span, data["keep"])]
        if data["fix"] == ADD_OUTPUT:
            edit = output_record(analysis, finding.span.line, self.line_break(result.uri, finding.span.line))
            return [edit] if edit else []
        if data["fix"] == WRAP_PATCH:
            return wrap_patch(analysis, finding) or []
        return []

    def line_break(self, uri: str, line: int) -> str:
        """The line break the document uses after ``line`` (``\\n`` when it has none there)."""
        document = self.server.workspace.get_text_document(uri)
        if isinstance(document, RolloutDocument):
            return document.line_break(line) or "\n"
        return "\n"

    def workspace_edit(self, result: DocumentAnalysis, edits: list[Edit]) -> types.WorkspaceEdit:
        analysis: RolloutAnalysis = result.analysis
        encoding = self.server.encoding
        text_edits = [types.TextEdit(to_range(analysis, e.span, encoding), e.text) for e in edits]
        return self.server.edits.edit(result.uri, result.version, text_edits)


_TITLES = {REDACT: "Redact secret", ADD_OUTPUT: "Add output record",
           WRAP_PATCH: "Wrap in *** Begin Patch … *** End Patch"}


def _matching(diagnostics: list[types.Diagnostic], finding: Finding) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == finding.code and d.range.start.line == finding.span.line][:1]
