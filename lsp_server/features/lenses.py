"""Code lenses above exec records (their title is counts and statuses: no transcript text), and folding
ranges for turns (their collapsed text is masked)."""

from __future__ import annotations

from lsprotocol import types

from analysis.jsonl.positions import PositionEncoding
from analysis.session.rollout import RolloutAnalysis

from .base import Feature, lsp_method
from .blame import BlameFeature
from .commands import SHOW_SCRIPT
from .common import summarize
from .sessions import inherited_folding, session_lenses


class LensFeature(Feature):
    """A lens above each exec record: what its calls did.  Its command is a server command
    (``workspace/executeCommand``), so it works in every editor."""

    @lsp_method(types.TEXT_DOCUMENT_CODE_LENS, empty=list)
    async def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        """One lens per exec record; running it shows the decoded script.  In a workspace file, the
        sessions that changed it (:class:`~lsp_server.features.blame.BlameFeature`)."""
        blame = self.server.feature_of(BlameFeature)
        if blame.handles(params.text_document.uri):
            return await blame.code_lenses(params.text_document.uri)
        result = await self.rollout(params.text_document.uri)
        return self.code_lenses(result.analysis, params.text_document.uri, self.server.encoding) if result else []

    def code_lenses(self, analysis: RolloutAnalysis, uri: str, encoding: PositionEncoding) -> list[types.CodeLens]:
        lenses = session_lenses(analysis)  # the session's totals, an inherited history
        for number, record in enumerate(analysis.records):
            if not record.is_exec:
                continue
            title = lens_title(analysis, number)
            start = types.Position(number, 0)
            lenses.append(types.CodeLens(types.Range(start, start),
                                         types.Command(title=title, command=SHOW_SCRIPT, arguments=[uri, number])))
        return lenses


class FoldingFeature(Feature):
    @lsp_method(types.TEXT_DOCUMENT_FOLDING_RANGE, empty=list)
    async def folding_range(self, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        """Each turn folds."""
        result = await self.rollout(params.text_document.uri)
        return self.folding_ranges(result.analysis) if result else []

    def folding_ranges(self, analysis: RolloutAnalysis) -> list[types.FoldingRange]:
        return inherited_folding(analysis) + [  # a fork's inherited history folds as one
            types.FoldingRange(start_line=t.line, end_line=t.end_line, kind=types.FoldingRangeKind.Region,
                               collapsed_text=self.server.masker(t.title)[:60])
            for t in analysis.turns if t.end_line > t.line]


def lens_title(analysis: RolloutAnalysis, line: int) -> str:
    """``2 commands · 1 patch · exit 0 · 0.3 s``."""
    calls = analysis.calls_on(line)
    parts = [summarize(calls)]
    output_line = analysis.output_of(line)
    output = calls[0].output if calls else None
    if output is None and output_line is not None:
        record_output = analysis.records[output_line].output
        status, codes, wall = (record_output.status, record_output.exit_codes, record_output.wall_time) \
            if record_output else (None, [], None)
    elif output is not None:
        status, codes, wall = output.status, output.output.exit_codes, output.wall_time
    else:
        status, codes, wall = "no output", [], None
    if status and status != "completed":
        parts.append(status)
    if codes:
        parts.append("exit " + ",".join(str(c) for c in dict.fromkeys(codes)))
    if wall is not None:
        parts.append(f"{wall:g} s")
    return " · ".join(parts)


__all__ = ["LensFeature", "FoldingFeature", "lens_title"]
