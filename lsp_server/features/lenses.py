"""Code lenses above exec records (their title is counts and statuses: no transcript text), and folding
ranges for turns (their collapsed text is masked)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.jsonl.positions import PositionEncoding
from analysis.reports.library.document import document_cost
from analysis.session.executed import script_exit_codes
from analysis.session.labels import failures, seconds
from analysis.session.lineage import lineage
from analysis.session.rollout import RolloutAnalysis

from ..calls import summarize
from ..kinds import ROLLOUT
from ..names import safe_lenses, safe_name
from ..sessions import SHOW_INFO, inherited_folding, session_lenses
from .base import Feature, lsp_command, lsp_method
from .commands import SHOW_SCRIPT

NEXT_FAILURE = "rollout-lsp.nextFailure"


class LensFeature(Feature):
    """A lens above each exec record: what its calls did.  Its command is a server command
    (``workspace/executeCommand``), so it works in every editor."""

    @lsp_method(types.TEXT_DOCUMENT_CODE_LENS, empty=list, kinds=(ROLLOUT,))
    async def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        """One lens per exec record; running it shows the decoded script."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        return self.code_lenses(result.analysis, params.text_document.uri, self.server.encoding)

    def code_lenses(self, analysis: RolloutAnalysis, uri: str, encoding: PositionEncoding) -> list[types.CodeLens]:
        lenses = session_lenses(analysis)  # the session's totals, an inherited history
        lenses += cost_lenses(analysis)  # its exact cost and subagents
        for number, record in enumerate(analysis.records):
            if not record.is_exec:
                continue
            title = lens_title(analysis, number)
            start = types.Position(number, 0)
            lenses.append(
                types.CodeLens(
                    types.Range(start, start), types.Command(title=title, command=SHOW_SCRIPT, arguments=[uri, number])
                )
            )
        failed = failures(analysis)
        if failed:  # the session lens names the first failure; running it goes there
            start = types.Position(0, 0)
            title = (
                f"{len(failed)} failed call{'s' if len(failed) != 1 else ''} · first: line {failed[0][0] + 1}, "
                f"{failed[0][1]}"
            )
            lenses.append(
                types.CodeLens(
                    types.Range(start, start), types.Command(title=title, command=NEXT_FAILURE, arguments=[uri, -1])
                )
            )
        return safe_lenses(lenses)  # titles on one line, nothing invisible (lsp_server/names.py)

    @lsp_command(NEXT_FAILURE)
    async def next_failure(self, *arguments: Any) -> dict | None:
        """``[uri, line]``: the first failed call after ``line`` (wrapping around), shown with
        ``window/showDocument`` when the client can be asked; answers ``{"line", "outcome"}`` or None."""
        if len(arguments) < 2 or not isinstance(arguments[0], str) or not isinstance(arguments[1], int):
            raise JsonRpcInvalidParams(f"{NEXT_FAILURE}: expected [document URI, line]")
        uri, after = arguments[0], arguments[1]
        result = await self.rollout(uri)
        found = next_failure_after(result.analysis, after) if result else None
        if found is None:
            return None
        line, outcome = found
        window = self.server.client_capabilities.window if self.server.client_capabilities else None
        if window and window.show_document and window.show_document.support:
            where = types.Range(types.Position(line, 0), types.Position(line, 0))
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True, selection=where)
            )
        return {"line": line, "outcome": outcome}


def cost_lenses(analysis: RolloutAnalysis) -> list[types.CodeLens]:
    """Above the session line: ``cost: $0.1234 · 12 responses · 2 subagents`` (docs/cost.md)."""
    found = document_cost(analysis)
    ident = lineage(analysis).identity
    if found is None or ident is None or not (found.responses or found.subagents):
        return []
    title = f"cost: {found.text()}"
    at = types.Position(ident.line, 0)
    return [types.CodeLens(types.Range(at, at), types.Command(title=title, command=SHOW_INFO, arguments=[title]))]


def next_failure_after(analysis: RolloutAnalysis, line: int) -> tuple[int, str] | None:
    """The first failed call on a line after ``line``, else the first of all (wrapping around)."""
    failed = failures(analysis)
    return next((f for f in failed if f[0] > line), failed[0] if failed else None)


class FoldingFeature(Feature):
    @lsp_method(types.TEXT_DOCUMENT_FOLDING_RANGE, empty=list)
    async def folding_range(self, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        """Each turn folds."""
        result = await self.rollout(params.text_document.uri)
        return self.folding_ranges(result.analysis) if result else []

    def folding_ranges(self, analysis: RolloutAnalysis) -> list[types.FoldingRange]:
        return (
            inherited_folding(analysis)
            + [  # a fork's inherited history folds as one
                types.FoldingRange(
                    start_line=t.line,
                    end_line=t.end_line,
                    kind=types.FoldingRangeKind.Region,
                    collapsed_text=safe_name(self.server.masker(t.title)[:60]),  # one line, nothing invisible
                )
                for t in analysis.turns
                if t.end_line > t.line
            ]
        )


def lens_title(analysis: RolloutAnalysis, line: int) -> str:
    """``2 commands · 1 patch · exit 0 · 0.3 s``."""
    calls = analysis.calls_on(line)
    parts = [summarize(calls)]
    output_line = analysis.output_of(line)
    output = calls[0].output if calls else None
    if output is None and output_line is not None:
        record_output = analysis.records[output_line].output
        status, codes, wall = (
            (record_output.status, record_output.exit_codes, record_output.wall_time)
            if record_output
            else (None, [], None)
        )
    elif output is not None:  # the exit codes the hover names: the thrown one of a failed script too
        status, codes, wall = output.status, script_exit_codes(output), output.wall_time
    else:
        status, codes, wall = "no output", [], None
    if status and status != "completed":
        parts.append(status)
    if codes:
        parts.append("exit " + ",".join(str(c) for c in dict.fromkeys(codes)))
    if wall is not None:
        parts.append(seconds(wall))
    return " · ".join(parts)


__all__ = ["LensFeature", "FoldingFeature", "NEXT_FAILURE", "lens_title", "next_failure_after"]
