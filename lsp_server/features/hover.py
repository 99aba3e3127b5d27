"""Hovers: a call's decoded command or patch with its output; a record's decoded content."""

from __future__ import annotations

import json

from lsprotocol import types

from analysis.jsonl.positions import LineColumns, PositionEncoding, Span
from analysis.script.calls import COMMAND, PATCH
from analysis.session.continuations import CallOutput
from analysis.session.executed import executed, script_exit_codes
from analysis.session.labels import ENCRYPTED_PREFIX, call_outcome, output_chunks, record_outcome, seconds
from analysis.session.message_metadata import delivery_words
from analysis.session.outputs import ToolOutput, readable_text
from analysis.session.record_analysis import LineAnalysis
from analysis.session.rollout import LocatedCall, RolloutAnalysis
from analysis.session.world_state import size

from ..calls import call_at, summarize
from ..convert import to_range
from ..kinds import ROLLOUT
from ..markdown import code_block, escape, first_lines, for_client, hover_markup, inline_code
from ..sessions import uri_path, usage_hover, workspace_paths
from .base import Feature, lsp_method

_MARKS = {"add": "A", "update": "M", "delete": "D"}


class HoverFeature(Feature):
    """Hovers over calls and records."""

    markup = types.MarkupKind.Markdown
    uri: str | None = None
    max_chunks = 8  # chunks of a continued process shown in full; the rest are listed by their lines

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        # Markdown unless the client says it shows only plain text: then the Markdown made plain (plaintext.py)
        self.markup = hover_markup(capabilities)

    @property
    def output_lines(self) -> int:
        return self.server.settings.hover_output_lines

    @lsp_method(types.TEXT_DOCUMENT_HOVER, empty=None, kinds=(ROLLOUT,))
    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """A call's decoded command or patch with its output; else the record's decoded content."""
        result = await self.rollout(params.text_document.uri)
        self.uri = params.text_document.uri  # chunks of a continued process link to their lines
        return (
            self.hover_of(result.analysis, params.position, self.server.encoding, uri_path(params.text_document.uri))
            if result
            else None
        )

    def hover_of(
        self, analysis: RolloutAnalysis, position: types.Position, encoding: PositionEncoding, path: str | None = None
    ) -> types.Hover | None:
        line = position.line
        if not 0 <= line < len(analysis.records):
            return None
        text = analysis.lines[line]
        column = LineColumns(text).from_units(position.character, encoding)
        record = analysis.records[line]
        located = call_at(analysis, line, column)
        if located is not None:
            body = self.call_markdown(analysis, located)
            span = located.span if located.record.is_exec else Span(line, 0, len(text))
        else:
            body = self.record_markdown(analysis, line, record)
            # token counts, a turn's usage and outcome, the session, a spawned agent, settings, compaction
            usage = usage_hover(analysis, line, path, workspace_paths(self.server))
            body = "\n\n".join(p for p in (usage, body) if p)
            span = Span(line, 0, len(text))
        if not body:
            return None
        return types.Hover(for_client(body, self.markup), to_range(analysis, span, encoding))

    # every transcript text is masked before it is quoted or escaped
    def _code(self, text: str, language: str = "") -> str:
        return code_block(self.server.masker(text), language)

    def _inline(self, text: str) -> str:
        return inline_code(self.server.masker(text))

    def _escape(self, text: str) -> str:
        return escape(self.server.masker(text))

    # -- calls ----------------------------------------------------------------------------------
    def call_markdown(self, analysis: RolloutAnalysis, located: LocatedCall) -> str:
        call = located.call
        shown = call.shown_tool if call.namespace and not call.namespace.startswith("mcp__") else call.tool
        ran = executed(analysis, located)  # the same word as the Outline's (analysis/session/executed.py)
        parts = [
            f"**{self._escape(shown or 'computed tool')}** · {self._escape(call.kind)} · executed: {self._escape(ran.text)}"
        ]
        if call.kind == COMMAND and call.command is not None:
            parts.append(self._code(call.command, "sh"))
        elif call.kind == PATCH and not call.computed and call.patch is not None:
            parts.append(self.files_markdown(call.files))
            parts.append(self._code(call.patch, "diff"))
        elif call.computed:
            parts.append(f"computed at run time: {self._inline(call.computed_expression or '')}")
            if call.expansion:
                parts.append("its exact commands, one per element of the array:")
                parts.append(self._code("\n".join(call.expansion), "sh"))
            if call.kind == PATCH and call.files:
                parts.append(self.files_markdown(call.files))
            if located.record.script:
                parts.append("the whole script stands for it:")
                parts.append(self._code(located.record.script, "javascript"))
        elif call.arguments:
            message = call.arguments.get("message")
            if isinstance(message, str) and message.startswith(ENCRYPTED_PREFIX):
                parts.append("its `message` is encrypted: the words the subagent was given are in its own rollout")
            parts.append(self._code(json.dumps(call.arguments, indent=2, ensure_ascii=False), "json"))
        if call.workdir:
            parts.append(f"workdir: {self._inline(call.workdir)}")
        parts.append(self.output_markdown(located, analysis))
        return "\n\n".join(p for p in parts if p)

    def files_markdown(self, files) -> str:
        rows = []
        for f in files:
            mark = "R" if f.move_to else _MARKS.get(f.action, "?")
            target = f" → {self._inline(f.move_to)}" if f.move_to else ""
            rows.append(f"- {mark} {self._inline(f.path)}{target}")
        return "\n".join(rows) if rows else "no file named"

    def output_markdown(self, located: LocatedCall, analysis: RolloutAnalysis | None = None) -> str:
        output = located.output
        if output is None:
            return "no output record" if located.record.call_id else ""
        outcome = call_outcome(analysis, located) if analysis is not None else None
        facts = [self._escape(outcome.text if outcome else output.status or "no status")]
        if output.exit_code is not None and (outcome is None or outcome.exit_code is None):
            facts.append(f"exit {output.exit_code}")
        if output.wall_time is not None:
            facts.append(seconds(output.wall_time))
        if output.note:
            facts.append(self._escape(output.note))
        if analysis is not None and output.continued_by and output.first_line is not None:
            return self.chunks_markdown(analysis, located, output, " · ".join(facts))
        head = f"**output** (line {output.line + 1}): " + " · ".join(facts)
        head += self.event_markdown(located)
        text = self.call_output_text(located, output.output)
        return head + ("\n\n" + self._code(first_lines(text, self.output_lines), "") if text else "")

    def event_markdown(self, located: LocatedCall | None) -> str:
        if located is None or located.event is None:
            return ""
        event_line, event = located.event
        return (
            f"\n\n**{self._escape(event.type)}** (line {event_line + 1}): "
            f"{self._escape(event.summary(files=True) or 'reported')}"
        )

    def chunks_markdown(
        self, analysis: RolloutAnalysis, located: LocatedCall | None, output: CallOutput, facts: str
    ) -> str:
        """A process carried on by ``write_stdin`` (a cell by ``wait``) is one call: the output of every chunk
        in order, each cut at the hover's line limit; past :attr:`max_chunks` chunks, the rest by their lines.
        The status and exit code are the last chunk's (``output``, the located call's)."""
        chunks = output_chunks(analysis, output)
        lines = [line for line, _ in chunks]
        shown = ", ".join(self._line_link(n) for n in lines)
        parts = [f"**output** in {len(lines)} chunks ({shown}): {facts}" + self.event_markdown(located)]
        for number, (line, text) in enumerate(chunks[: self.max_chunks], 1):
            via = "" if number == 1 else f", {self._escape(output.via or 'continued')}"
            parts.append(
                f"chunk {number} ({self._line_link(line)}{via}):"
                + ("\n\n" + self._code(first_lines(text, self.output_lines), "") if text.strip() else " no output")
            )
        if len(lines) > self.max_chunks:
            rest = lines[self.max_chunks :]
            parts.append(f"{len(rest)} more chunks: " + ", ".join(self._line_link(n) for n in rest))
        return "\n\n".join(parts)

    def _line_link(self, line: int) -> str:
        """``line 86``, a link to it when the document's URI is known."""
        if self.uri is None or self.markup != types.MarkupKind.Markdown:
            return f"line {line + 1}"
        return f"[line {line + 1}]({self.uri}#L{line + 1})"

    def call_output_text(self, located: LocatedCall, output: ToolOutput) -> str:
        producers = [c for c in located.record.calls if c.kind == COMMAND or c.tool == "write_stdin"]
        if (
            located.record.is_exec
            and len(producers) == 1
            and len(output.results) == 1
            and producers[0] is located.record.calls[located.index]
        ):  # the call as read (pairing may mark it ran)
            return output.result_output(output.results[0])
        return readable_text(output)

    def script_result_markdown(self, analysis: RolloutAnalysis, line: int, output: CallOutput) -> str:
        """An exec record's result, as a call's output reads: how the script ended, its exit codes (its
        result blocks', or the one its error threw), its time, and the head of what it printed."""
        outcome = record_outcome(analysis, line)
        facts = [self._escape(outcome.text if outcome else output.status or "no status")]
        codes = script_exit_codes(output)
        if codes and not (outcome and outcome.exit_code is not None and codes == [outcome.exit_code]):
            facts.append("exit " + ", ".join(str(c) for c in codes))
        if output.wall_time is not None:
            facts.append(seconds(output.wall_time))
        if output.note:
            facts.append(self._escape(output.note))
        if output.continued_by and output.first_line is not None:
            return self.chunks_markdown(analysis, None, output, " · ".join(facts))
        head = f"**output** (line {output.line + 1}): " + " · ".join(facts)
        text = readable_text(output.output)
        return head + ("\n\n" + self._code(first_lines(text, self.output_lines)) if text.strip() else "")

    # -- records --------------------------------------------------------------------------------
    def record_markdown(self, analysis: RolloutAnalysis, line: int, record: LineAnalysis) -> str:
        if record.is_exec and record.script is not None:
            summary = summarize(analysis.calls_on(line))
            out = analysis.record_output(line)
            head = f"**exec** {self._escape(record.call_id or '')} · {self._escape(summary)}"
            if out is not None:
                head += f" · {self._escape(out.status or '')}" + (f" {self._escape(out.note)}" if out.note else "")
            body = head + "\n\n" + self._code(record.script, "javascript")
            ended = self.script_result_markdown(analysis, line, out) if out is not None else ""
            return body + ("\n\n" + ended if ended else "")
        if record.is_call and record.text is not None:
            return (
                f"**{self._escape(record.name or record.kind)}** {self._escape(record.call_id or '')}\n\n"
                + self._code(_pretty(record.text), "json")
            )
        if record.is_output and record.output is not None:
            result = record.output
            facts = [
                f
                for f in (
                    result.status,
                    f"exit {result.exit_code}" if result.exit_code is not None else None,
                    seconds(result.wall_time) if result.wall_time is not None else None,
                )
                if f
            ]
            call_line = analysis.calls_by_call_id.get(record.call_id or "")
            where = f" of line {call_line + 1}" if call_line is not None else ""
            text = readable_text(result)
            return f"**output**{self._escape(where)} · {self._escape(' · '.join(facts))}\n\n" + self._code(
                first_lines(text, self.output_lines), ""
            )
        if record.turn_item is not None:  # paginated history: the user's or the agent's words, reasoning, a plan
            item = record.turn_item
            head = f"**{self._escape(item.type)}**" + (f" ({self._escape(item.phase)})" if item.phase else "")
            return head + "\n\n" + self._code(first_lines(item.text, self.output_lines), "") if item.text else head
        if record.kind == "world_state" and record.world_state is not None:
            state = record.world_state
            full = "a full snapshot" if state.full else "an update" if state.full is False else "a state"
            keys = ", ".join(sorted(state.keys)) if state.keys else ""
            return (
                f"**world state**: {full}"
                + (f" of {self._escape(keys)}" if keys else "")
                + f" · {self._escape(size(state.state_chars))}"
                + " (bookkeeping Codex keeps for the model; not shown in the outline)"
            )
        if record.text is not None and record.kind == "message":
            role = getattr(record.record.item, "role", "") if record.record else ""
            mark = delivery_words(record.delivery)
            return (
                f"**{self._escape(role)} message**"
                + (f": {self._escape(mark)}" if mark else "")
                + "\n\n"
                + self._code(first_lines(record.text, self.output_lines), "")
            )
        return ""


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text
