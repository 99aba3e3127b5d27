"""Code lenses above exec records (their title is counts and statuses: no transcript text), and folding
ranges for turns (their collapsed text is masked)."""

from __future__ import annotations

import sys
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.jsonl.positions import PositionEncoding
from analysis.session.executed import script_exit_codes
from analysis.session.labels import call_outcome, failures, seconds
from analysis.session.lineage import lineage
from analysis.session.rollout import RolloutAnalysis

from ..calls import summarize
from ..convert import to_range
from ..kinds import ROLLOUT
from ..names import safe_lenses, safe_name
from ..sessions import SHOW_INFO, inherited_folding, session_lenses
from .base import Feature, lsp_command, lsp_method
from .commands import SHOW_SCRIPT

NEXT_FAILURE = "rollout-lsp.nextFailure"
PREVIOUS_FAILURE = "rollout-lsp.previousFailure"


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
        """``[uri, line, character?]``: the first failed call after that position (wrapping around to the
        first), shown with ``window/showDocument`` when the client can be asked; answers ``{"line",
        "character", "outcome", "index", "count", "wrapped"}`` or None when no call failed."""
        return await self._go_to_failure(NEXT_FAILURE, arguments, forward=True)

    @lsp_command(PREVIOUS_FAILURE)
    async def previous_failure(self, *arguments: Any) -> dict | None:
        """``[uri, line, character?]``: the last failed call before that position (wrapping around to the
        last), as ``rollout-lsp.nextFailure`` answers."""
        return await self._go_to_failure(PREVIOUS_FAILURE, arguments, forward=False)

    async def _go_to_failure(self, name: str, arguments: tuple, *, forward: bool) -> dict | None:
        if (
            len(arguments) < 2
            or not isinstance(arguments[0], str)
            or not all(isinstance(a, int) and not isinstance(a, bool) for a in arguments[1:3])
        ):
            raise JsonRpcInvalidParams(f"{name}: expected [document URI, line, character?]")
        uri, line = arguments[0], arguments[1]
        # with no character, a line's stops are all after it for Previous and all before it for Next
        character = arguments[2] if len(arguments) > 2 else (sys.maxsize if forward else -1)
        result = await self.rollout(uri)
        stops = failure_stops(result.analysis, self.server.encoding) if result else []
        found = stop_from(stops, (line, character), forward=forward)
        if found is None:
            return None
        index, wrapped = found
        (at_line, at_character), outcome = stops[index]
        window = self.server.client_capabilities.window if self.server.client_capabilities else None
        if window and window.show_document and window.show_document.support:
            where = types.Range(types.Position(at_line, at_character), types.Position(at_line, at_character))
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True, selection=where)
            )
        if wrapped:  # said, not silent: the user went round the whole list
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=wrap_message(index, len(stops), forward))
            )
        return {
            "line": at_line,
            "character": at_character,
            "outcome": outcome,
            "index": index + 1,
            "count": len(stops),
            "wrapped": wrapped,
        }


def cost_lenses(analysis: RolloutAnalysis) -> list[types.CodeLens]:
    """Above the session line: ``cost: $0.1234 · 12 responses · 2 subagents`` (docs/cost.md)."""
    from analysis.reports.library.document import document_cost  # the price table: at the first lens, not at start

    found = document_cost(analysis)
    ident = lineage(analysis).identity
    if found is None or ident is None or not (found.responses or found.subagents):
        return []
    title = f"cost: {found.text()}"
    at = types.Position(ident.line, 0)
    return [types.CodeLens(types.Range(at, at), types.Command(title=title, command=SHOW_INFO, arguments=[title]))]


Stop = tuple[tuple[int, int], str]  # ((line, character), outcome text)


def failure_stops(analysis: RolloutAnalysis, encoding: PositionEncoding) -> list[Stop]:
    """Where Next and Previous Failed Call stop: once per failed call the session's lens counts
    (``failures``), in the same order.  A failed call in an exec script stops at its own column, so an exec
    record with two failed commands is two stops on one line; a failed record stops at its line's start."""
    failed = failures(analysis)
    by_line: dict[int, int] = {}
    for line, _ in failed:
        by_line[line] = by_line.get(line, 0) + 1
    columns: dict[int, list[int]] = {}
    for line, count in by_line.items():
        starts = [
            to_range(analysis, located.span, encoding).start.character
            for located in analysis.calls_on(line)
            if analysis.records[line].is_exec and (ended := call_outcome(analysis, located)) and ended.failed
        ]
        # the failed calls' columns when they are the ones counted (always, as ``failures`` counts); else one
        # column each from the line's start, so that every counted failure stays a stop of its own
        columns[line] = starts if len(starts) == count else list(range(count))
    stops: list[Stop] = []
    taken: dict[int, int] = {}
    for line, outcome in failed:
        nth = taken.get(line, 0)
        taken[line] = nth + 1
        stops.append(((line, columns[line][nth]), outcome))
    return stops


def stop_from(stops: list[Stop], at: tuple[int, int], *, forward: bool) -> tuple[int, bool] | None:
    """The index of the stop after (``forward``) or before ``at`` (a ``(line, character)``), and whether the
    search went round the end (or the start) of the list to find it."""
    if not stops:
        return None
    if forward:
        ahead = [i for i, (where, _) in enumerate(stops) if where > at]
        if ahead:
            return ahead[0], False
        return 0, True
    behind = [i for i, (where, _) in enumerate(stops) if where < at]
    if behind:
        return behind[-1], False
    return len(stops) - 1, True


def wrap_message(index: int, count: int, forward: bool) -> str:
    """What the server says when Next or Previous Failed Call goes round."""
    if forward:
        return f"Rollout: past the last failed call, back to the first ({index + 1} of {count})."
    return f"Rollout: before the first failed call, back to the last ({index + 1} of {count})."


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


__all__ = [
    "FoldingFeature",
    "LensFeature",
    "NEXT_FAILURE",
    "PREVIOUS_FAILURE",
    "failure_stops",
    "lens_title",
    "stop_from",
]
