"""Hovers: a call's decoded command or patch with its output; a record's decoded content."""

from __future__ import annotations

import json

from lsprotocol import types

from analysis.calls import COMMAND, PATCH
from analysis.outputs import ToolOutput
from analysis.positions import LineColumns, PositionEncoding, Span
from analysis.record_analysis import LineAnalysis
from analysis.rollout import LocatedCall, RolloutAnalysis

from ..convert import to_range
from ..markdown import code_block, escape, first_lines, inline_code

_EXECUTED = {"yes": "yes (a call Codex made)", "unknown": "unknown (read from a script; a static reading "
             "cannot know which calls ran)", "no": "no: it is in dead code"}
_MARKS = {"add": "A", "update": "M", "delete": "D"}


class HoverFeature:
    def __init__(self, output_lines: int = 20) -> None:
        self.output_lines = output_lines

    def hover(self, analysis: RolloutAnalysis, position: types.Position,
              encoding: PositionEncoding) -> types.Hover | None:
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
            span = Span(line, 0, len(text))
        if not body:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, body), to_range(analysis, span, encoding))

    # -- calls ----------------------------------------------------------------------------------
    def call_markdown(self, analysis: RolloutAnalysis, located: LocatedCall) -> str:
        call = located.call
        parts = [f"**{escape(call.tool or 'computed tool')}** · {escape(call.kind)} · executed: "
                 f"{escape(executed_text(located))}"]
        if call.kind == COMMAND and call.command is not None:
            parts.append(code_block(call.command, "sh"))
        elif call.kind == PATCH and not call.computed and call.patch is not None:
            parts.append(self.files_markdown(call.files))
            parts.append(code_block(call.patch, "diff"))
        elif call.computed:
            parts.append(f"computed at run time: {inline_code(call.computed_expression or '')}")
            if call.expansion:
                parts.append("its exact commands, one per element of the array:")
                parts.append(code_block("\n".join(call.expansion), "sh"))
            if call.kind == PATCH and call.files:
                parts.append(self.files_markdown(call.files))
            if located.record.script:
                parts.append("the whole script stands for it:")
                parts.append(code_block(located.record.script, "js"))
        elif call.arguments:
            parts.append(code_block(json.dumps(call.arguments, indent=2, ensure_ascii=False), "json"))
        if call.workdir:
            parts.append(f"workdir: {inline_code(call.workdir)}")
        parts.append(self.output_markdown(located))
        return "\n\n".join(p for p in parts if p)

    def files_markdown(self, files) -> str:
        rows = []
        for f in files:
            mark = "R" if f.move_to else _MARKS.get(f.action, "?")
            target = f" → {inline_code(f.move_to)}" if f.move_to else ""
            rows.append(f"- {mark} {inline_code(f.path)}{target}")
        return "\n".join(rows) if rows else "no file named"

    def output_markdown(self, located: LocatedCall) -> str:
        output = located.output
        if output is None:
            return "no output record" if located.record.call_id else ""
        facts = [escape(output.status or "no status")]
        if output.exit_code is not None:
            facts.append(f"exit {output.exit_code}")
        if output.wall_time is not None:
            facts.append(f"{output.wall_time:g} s")
        if output.note:
            facts.append(escape(output.note))
        head = f"**output** (line {output.line + 1}): " + " · ".join(facts)
        if located.event is not None:
            event_line, event = located.event
            head += f"\n\n**{escape(event.type)}** (line {event_line + 1}): {escape(event.summary(files=True) or 'reported')}"
        text = self.call_output_text(located, output.output)
        return head + ("\n\n" + code_block(first_lines(text, self.output_lines), "text") if text else "")

    def call_output_text(self, located: LocatedCall, output: ToolOutput) -> str:
        producers = [c for c in located.record.calls if c.kind == COMMAND or c.tool == "write_stdin"]
        if located.record.is_exec and len(producers) == 1 and len(output.results) == 1 and \
                producers[0] is located.call:
            return output.result_output(output.results[0])
        return readable_output(output)

    # -- records --------------------------------------------------------------------------------
    def record_markdown(self, analysis: RolloutAnalysis, line: int, record: LineAnalysis) -> str:
        if record.is_exec and record.script is not None:
            summary = summarize(analysis.calls_on(line))
            out = analysis.record_output(line)
            head = f"**exec** {escape(record.call_id or '')} · {escape(summary)}"
            if out is not None:
                head += f" · {escape(out.status or '')}" + (f" {escape(out.note)}" if out.note else "")
            return head + "\n\n" + code_block(record.script, "js")
        if record.is_call and record.text is not None:
            return f"**{escape(record.name or record.kind)}** {escape(record.call_id or '')}\n\n" + \
                code_block(_pretty(record.text), "json")
        if record.is_output and record.output is not None:
            out = record.output
            facts = [f for f in (out.status, f"exit {out.exit_code}" if out.exit_code is not None else None,
                                 f"{out.wall_time:g} s" if out.wall_time is not None else None) if f]
            call_line = analysis.calls_by_call_id.get(record.call_id or "")
            where = f" of line {call_line + 1}" if call_line is not None else ""
            text = readable_output(out)
            return f"**output**{escape(where)} · {escape(' · '.join(facts))}\n\n" + \
                code_block(first_lines(text, self.output_lines), "text")
        if record.text is not None and record.kind == "message":
            role = getattr(record.record.item, "role", "") if record.record else ""
            return f"**{escape(role)} message**\n\n" + code_block(first_lines(record.text, self.output_lines), "text")
        return ""


def executed_text(located: LocatedCall) -> str:
    """Whether a call ran, and how that is known."""
    call = located.call
    if located.event is not None:
        return f"yes: {located.event[1].type} on line {located.event[0] + 1} reports it"
    if call.executed == "yes" and located.record.is_exec:
        return "yes (it runs whenever the script runs, and the script completed)"
    return _EXECUTED[call.executed]


def readable_output(output: ToolOutput) -> str:
    """An output's texts, with exec_command result blocks shown as their exit code and decoded output."""
    by_index = {r.index: r for r in output.results}
    parts = []
    for index, text in enumerate(output.texts):
        result = by_index.get(index)
        if result is None:
            parts.append(text)
            continue
        head = f"[exit {result.exit_code}]" if result.exit_code is not None else \
            f"[running, session {result.session_id}]" if result.session_id is not None else "[result]"
        parts.append(f"{head}\n{output.result_output(result).rstrip()}")
    if output.error:
        parts.append("Script error: " + output.error)
    return "\n".join(parts)


def call_at(analysis: RolloutAnalysis, line: int, column: int) -> LocatedCall | None:
    """The narrowest call whose span holds the column."""
    inside = [c for c in analysis.calls_on(line) if c.call.start <= column < c.call.end]
    return min(inside, key=lambda c: c.call.end - c.call.start) if inside else None


def summarize(calls: list[LocatedCall]) -> str:
    """``2 commands · 1 patch · 1 tool``, or ``no tool call``."""
    counts = {COMMAND: 0, PATCH: 0, "tool": 0}
    for located in calls:
        counts[located.call.kind] = counts.get(located.call.kind, 0) + 1
    words = [(counts[COMMAND], "command"), (counts[PATCH], "patch"), (counts["tool"], "tool")]
    parts = [f"{n} {w}{'es' if w == 'patch' and n != 1 else 's' if n != 1 else ''}" for n, w in words if n]
    return " · ".join(parts) if parts else "no tool call"


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text
