"""Quick fixes, each a versioned edit (it applies only to the document version it was computed for):

- "Redact sk-…4f2 (line 3)" / "Redact all N secrets in this file": letters and digits past the secret's
  identifying prefix become ``x``; the line stays valid JSON of the same length.
- "Add output record for call_1 (line 9)": after an unpaired call, a new output line with the same call_id and
  timestamp.
- "Wrap patch in *** Begin Patch … *** End Patch (line 4)": a patch without its envelope gets it, escaped as its
  string needs.

Each title names its target: a client that asks for the actions of every diagnostic of a line (Neovim does)
shows one entry per fix, each distinguishable, and each fix once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from lsprotocol import types

from analysis.jsonl.findings import SECRET, Finding
from analysis.session.rollout import RolloutAnalysis

from ..convert import to_range
from ..documents import RolloutDocument
from ..fixes import ADD_OUTPUT, REDACT, WRAP_PATCH, Edit, fix_data, kept_prefix, output_record, redaction, wrap_patch
from ..store import DocumentAnalysis
from .base import Feature, lsp_method


class ActionFeature(Feature):
    @lsp_method(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
        empty=list,
    )
    async def code_action(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The quick fixes of the findings on the requested lines."""
        result = await self.rollout(params.text_document.uri)
        return self.code_actions(result, params) if result else []

    def code_actions(self, result: DocumentAnalysis, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = result.analysis
        wanted = params.range
        extra = self.server.masker.extra
        actions: list[types.CodeAction] = []
        seen: set[tuple] = set()
        secrets = [f for f in analysis.findings if f.code == SECRET]
        redacts = False
        for finding in analysis.findings:
            if not wanted.start.line <= finding.span.line <= wanted.end.line:
                continue
            data = fix_data(analysis, finding, extra)
            if data is None:
                continue
            edits = self.fix(result, finding, data)
            key = tuple(edits)
            if not edits or key in seen:  # two findings with one fix (a secret matched twice) give one action
                continue
            seen.add(key)
            redacts = redacts or data["fix"] == REDACT
            actions.append(
                types.CodeAction(
                    title=fix_title(analysis, finding, data),
                    kind=types.CodeActionKind.QuickFix,
                    is_preferred=True,
                    diagnostics=_matching(params.context.diagnostics, finding) or None,
                    edit=self.workspace_edit(result, edits),
                )
            )
        if len(secrets) > 1 and redacts:
            edits = [
                redaction(analysis, f.span, kept_prefix(analysis.lines[f.span.line], f.span, extra)) for f in secrets
            ]
            actions.append(
                types.CodeAction(
                    title=f"Redact all {len(secrets)} secrets in this file",
                    kind=types.CodeActionKind.QuickFix,
                    edit=self.workspace_edit(result, edits),
                )
            )
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


def fix_title(analysis: RolloutAnalysis, finding: Finding, data: dict) -> str:
    """What the fix does and to what: ``Redact sk-…4f2 (line 3)``, ``Add output record for call_1 (line 9)``."""
    line = finding.span.line
    where = f"(line {line + 1})"
    if data["fix"] == REDACT:
        return f"Redact {secret_label(analysis.lines[line], finding, data['keep'])} {where}"
    if data["fix"] == ADD_OUTPUT:
        return f"Add output record for {data['callId']} {where}"
    return f"Wrap patch in *** Begin Patch … *** End Patch {where}"


def secret_label(line: str, finding: Finding, keep: int) -> str:
    """The secret as a title may show it: the prefix that names its kind (which redaction keeps too) and,
    for a long secret, its last three characters; never more than a sixth of what is hidden."""
    text = line[finding.span.start : finding.span.end]
    head = _decoded(text[:keep]).split("\n")[0].rstrip(" :=\"'")
    hidden = _decoded(text[keep:]).rstrip()
    tail = hidden[-3:] if len(hidden) >= 18 else ""
    return f"{head}…{tail}" if head or tail else "secret"


def _decoded(raw: str) -> str:
    """Raw characters of a JSON string as the text they stand for (the raw ones when a cut escape does not
    decode)."""
    try:
        return json.loads(f'"{raw}"')
    except ValueError:
        return raw


def _matching(diagnostics: Sequence[types.Diagnostic], finding: Finding) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == finding.code and d.range.start.line == finding.span.line][:1]
