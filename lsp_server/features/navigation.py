"""Navigation between a call and its output, and the records of a call_id."""

from __future__ import annotations

from lsprotocol import types

from analysis.jsonl.positions import PositionEncoding
from analysis.session.lineage import lineage
from analysis.session.rollout import RolloutAnalysis

from ..convert import line_range
from ..kinds import ROLLOUT
from ..sessions import Workspace, session_definitions, workspace_paths
from .base import Feature, lsp_method


class NavigationFeature(Feature):
    @lsp_method(types.TEXT_DOCUMENT_DEFINITION, empty=list, kinds=(ROLLOUT,))
    async def goto_definition(self, params: types.DefinitionParams) -> list[types.Location]:
        """From a call record to its output record(s); from an output back to its call; to the rollout of a
        parent, forked-from or spawned session."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        return self.definition(
            result.analysis,
            params.text_document.uri,
            params.position.line,
            self.server.encoding,
            workspace_paths(self.server),
        )

    @lsp_method(types.TEXT_DOCUMENT_REFERENCES, empty=list)
    async def find_references(self, params: types.ReferenceParams) -> list[types.Location]:
        """Every record that carries the call_id of this line's record."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        return self.references(
            result.analysis,
            params.text_document.uri,
            params.position.line,
            params.context.include_declaration,
            self.server.encoding,
        )

    def definition(
        self, analysis: RolloutAnalysis, uri: str, line: int, encoding: PositionEncoding, workspace: Workspace = ()
    ) -> list[types.Location]:
        """From a call record to its output record(s); from an output back to its call; to the rollout of a
        parent, forked-from or spawned session."""
        if not 0 <= line < len(analysis.records):
            return []
        others = session_definitions(analysis, uri, line, workspace)
        if others:
            return others
        wanted = [s.child for s in lineage(analysis).spawns if s.child and line in (s.line, s.child_line)]
        if wanted:  # a spawn_agent whose subagent's rollout is nowhere to be found: say so, do not jump
            self.say(
                f"The rollout of subagent session {', '.join(wanted)} was not found (looked in the sessions "
                "folder of this rollout, its own folder and the workspace folders)."
            )
            return []
        record = analysis.records[line]
        call_id = record.call_id or ""
        if record.is_call:
            targets = analysis.outputs_by_call_id.get(call_id, [])
        elif record.is_output and call_id in analysis.calls_by_call_id:
            targets = [analysis.calls_by_call_id[call_id]]
        else:
            targets = []
        return [types.Location(uri, line_range(analysis, t, encoding)) for t in targets]

    def say(self, message: str) -> None:
        """A message the editor shows (why go to definition went nowhere)."""
        try:
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Info, message))
        except Exception:  # no client attached (the feature called directly): nothing to tell
            pass

    def references(
        self, analysis: RolloutAnalysis, uri: str, line: int, include_declaration: bool, encoding: PositionEncoding
    ) -> list[types.Location]:
        """Every record that carries the call_id of this line's record."""
        if not 0 <= line < len(analysis.records):
            return []
        call_id = analysis.records[line].call_id
        if not call_id:
            return []
        call_line = analysis.calls_by_call_id.get(call_id)
        lines = sorted(
            set(analysis.outputs_by_call_id.get(call_id, []))
            | ({call_line} if call_line is not None and include_declaration else set())
        )
        return [types.Location(uri, line_range(analysis, n, encoding)) for n in lines]
