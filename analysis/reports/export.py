"""A rollout as a readable document, in Markdown or in one self-contained HTML file.

The document follows the session: a header (id, relatives, folder, version, model, usage), then
each turn with the user's own words, the assistant's messages, and every call record in order:
an exec script's tool calls with their decoded commands, patches as diffs, other tools with their
arguments, and the output trimmed.  A fork's or subagent's inherited history is one note, not a
copy.  Every piece of transcript text passes through secret redaction (the patterns of
:mod:`analysis.jsonl.secrets`) unless the caller turns it off.  HTML is escaped, has no script and loads
nothing: outputs are ``<details>`` elements.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field

from ..jsonl.display import NAME_LIMIT, PATH_LIMIT, TITLE_LIMIT, shown
from ..jsonl.secrets import redact_all
from ..script.calls import COMMAND, PATCH, ToolCall
from ..session.agent_tree import in_tree, tree_words
from ..session.files_changed import ChangedFile, changed_files, file_row, session_list
from ..session.labels import (
    call_label,
    call_outcome,
    failures,
    output_chunks,
    record_outcome,
    seconds,
    turn_label,
)
from ..session.lineage import lineage, search_roots
from ..session.record_analysis import LineAnalysis
from ..session.records import Message, TurnContext
from ..session.references import parents, references
from ..session.rollout import RolloutAnalysis
from ..session.thread_names import thread_name
from ..session.usage import context_sentence, sentence, session_usage, short

FORMATS = ("md", "html")


@dataclass(frozen=True)
class ExportOptions:
    redact: bool = True
    output_lines: int = 20  # an output longer than this is cut, saying how much was left out
    output_chars: int = 4000
    extra_secrets: tuple[re.Pattern[str], ...] = ()


@dataclass
class Entry:
    """One tool call of a call record: a command, a patch, or another tool with its arguments."""

    title: str
    body: str | None = None
    language: str = ""
    note: str | None = None


@dataclass
class CallPart:
    line: int
    name: str
    call_id: str | None
    entries: list[Entry] = field(default_factory=list)
    status: str | None = None
    output: str | None = None
    failed: bool = False  # the call (or a call of its script) failed: the document marks it


@dataclass
class MessagePart:
    line: int
    role: str
    text: str


@dataclass
class TurnPart:
    number: int
    line: int
    user: str | None
    usage: str | None
    parts: list = field(default_factory=list)
    summary: str | None = None  # ``2 failed (first: line 16, exit 1)``
    files: list[str] = field(default_factory=list)  # ``src/a.py: added (lines 171, 216)``
    outcome: str | None = None  # how the turn ended, when not plainly: failed (with its error), interrupted, …


@dataclass
class Document:
    title: str
    facts: list[tuple[str, str]]
    notes: list[str]
    turns: list[TurnPart]
    files: list[str] = field(default_factory=list)  # what the whole session changed


def export(analysis: RolloutAnalysis, path: str, fmt: str, options: ExportOptions = ExportOptions()) -> str:
    """The rollout at ``path`` as a ``md`` or ``html`` document."""
    document = build_document(analysis, path, options)
    return render_markdown(document) if fmt == "md" else render_html(document)


# -- the document ----------------------------------------------------------------------------------


def build_document(analysis: RolloutAnalysis, path: str, options: ExportOptions = ExportOptions()) -> Document:
    clean = (lambda text: redact_all(text, options.extra_secrets)) if options.redact else (lambda text: text)
    facts_of = lineage(analysis)
    ident = facts_of.identity
    usage = session_usage(analysis)
    facts: list[tuple[str, str]] = [("file", path)]
    if ident is not None:
        facts.append(("session", shown(ident.id or "?", NAME_LIMIT)))
        named = thread_name(path, ident)
        if named:
            facts.append(("thread name", clean(shown(named, TITLE_LIMIT))))
        if in_tree(ident):  # the child's own name, its path, its parent's name: each under its own label
            facts += [(k, clean(shown(v, PATH_LIMIT))) for k, v in tree_words(ident, path)]
        elif ident.forked_from:
            facts.append(("forked from", shown(ident.forked_from, NAME_LIMIT)))
        meta = analysis.records[ident.line].session
        if meta is not None:
            facts += [
                (k, clean(shown(v, PATH_LIMIT)))
                for k, v in (("folder", meta.cwd), ("Codex version", meta.cli_version), ("started", meta.timestamp))
                if v
            ]
    model = next(
        (
            r.record.item.model
            for r in analysis.records
            if r.record is not None and isinstance(r.record.item, TurnContext) and r.record.item.model
        ),
        None,
    )
    if model:
        facts.append(("model", model))
    if usage.records:
        facts.append(
            (
                "usage",
                f"{sentence(usage.own, usage.requests)}; {context_sentence(usage.context, usage.window)} at the end",
            )
        )
    failed = failures(analysis)
    facts.append(("calls", f"{len(analysis.calls)}, {_failed(failed) or 'none failed'}"))
    notes = []
    region = facts_of.inherited
    if region is not None:
        notes.append(
            f"Lines {region.start + 1}–{region.end + 1} replay the history of session {region.session_id} "
            f"({region.turns} turn{'s' if region.turns != 1 else ''}); it is not repeated here"
            + (f", and its {usage.inherited.total:,} tokens count for that session." if usage.inherited.total else ".")
        )
    for parent in parents(analysis, path, search_roots(path)) if references(analysis) else ():
        who = parent.reference.parent_id or "?"
        notes.append(
            f"This rollout continues session {who}: its first {parent.lines} lines ({parent.turns} "
            f"turn{'s' if parent.turns != 1 else ''}, in {parent.path}) are inherited and not repeated here."
            if parent.path
            else f"This rollout continues session {who}, whose rollout is not found."
        )
    turns: list[TurnPart] = []
    exported = [
        (i, t.line, t.end_line)
        for i, t in enumerate(analysis.turns, 1)
        if region is None or not region.start <= t.line <= region.end
    ]
    covered: set[int] = set()
    for _, start, end in exported:
        covered.update(range(start, end + 1))
    if region is not None:
        covered.update(range(region.start, region.end + 1))
    segments = [(start, end, index) for index, start, end in exported]
    segments += [(start, end, 0) for start, end in _gaps(covered, len(analysis.records))]
    turns_at = {t.line: t for t in analysis.turns}
    for start, end, index in sorted(segments):
        turn_usage = usage.turn_at(start) if index else None
        part = TurnPart(
            index,
            start,
            None,
            short(turn_usage.usage, turn_usage.context, turn_usage.window)
            if turn_usage is not None and (turn_usage.requests or turn_usage.context is not None)
            else None,
        )
        turn = turns_at.get(start) if index else None
        if turn is not None and turn.status not in (None, "completed"):
            part.outcome = clean(" · ".join(p for p in (turn.outcome, turn.timing()) if p))
        _fill(analysis, part, start, end, options, clean)
        if index:
            turn = analysis.turns[index - 1]
            part.summary = _failed([f for f in failed if start <= f[0] <= end])  # its status is the outcome
            part.files = [clean(_file_row(f)) for f in changed_files(analysis, start, end)]
        if index or part.parts:  # records outside any turn appear only when they hold something
            turns.append(part)
    title = (
        f"Codex session {shown(ident.id, NAME_LIMIT)}" if ident is not None and ident.id else f"Codex rollout {path}"
    )
    # the session's own list, unless one exported turn already lists every file (a one-turn session)
    whole = session_list(analysis) if any(part.files for part in turns) else changed_files(analysis)
    return Document(title, facts, notes, turns, [clean(_file_row(f)) for f in whole])


def _failed(failed: list[tuple[int, str]]) -> str | None:
    """``2 failed (first: line 16, exit 1)``."""
    return f"{len(failed)} failed (first: line {failed[0][0] + 1}, {failed[0][1]})" if failed else None


def _file_row(changed: ChangedFile) -> str:
    """``src/a.py: added (lines 171, 216)`` (:func:`~analysis.session.files_changed.file_row`)."""
    return f"{shown(changed.path, PATH_LIMIT)}: {file_row(changed)}"


def _gaps(covered: set[int], count: int) -> list[tuple[int, int]]:
    """Runs of lines ``0..count-1`` not in ``covered``."""
    out, start = [], None
    for number in range(count + 1):
        if number < count and number not in covered:
            start = number if start is None else start
        elif start is not None:
            out.append((start, number - 1))
            start = None
    return out


def _fill(analysis: RolloutAnalysis, turn: TurnPart, start: int, end: int, options: ExportOptions, clean) -> None:
    region = lineage(analysis).inherited
    for number in range(max(start, 0), min(end, len(analysis.records) - 1) + 1):
        if region is not None and region.start <= number <= region.end:
            continue
        record = analysis.records[number]
        if turn.user is None and turn.number and record.turn_title is not None:
            turn.user = clean(record.turn_title)  # the user's own words
            continue
        item = record.record.item if record.record is not None else None
        if isinstance(item, Message) and item.role == "assistant" and record.text and record.text.strip():
            turn.parts.append(MessagePart(number, "assistant", clean(record.text.strip())))
        elif record.is_call:
            turn.parts.append(_call_part(analysis, number, record, options, clean))


def _call_part(analysis: RolloutAnalysis, line: int, record: LineAnalysis, options: ExportOptions, clean) -> CallPart:
    outcome = record_outcome(analysis, line)
    calls = analysis.calls_on(line)
    name = record.name or record.kind
    part = CallPart(
        line,
        (outcome.mark if outcome else "") + shown(name, NAME_LIMIT),
        record.call_id,
        failed=bool(outcome and outcome.failed),
    )
    for located in calls:
        nested = call_outcome(analysis, located) if record.is_exec else None
        part.failed = part.failed or bool(nested and nested.failed)
        part.entries.append(_entry(located.call, clean, nested.mark if nested else ""))
    if not calls and record.text is not None and not record.is_exec:
        part.entries.append(Entry(record.name or record.kind, clean(_pretty(record.text)), "json"))
    if record.is_exec and not calls:
        part.entries.append(Entry("no tool call", note="the script calls no tool"))
    output = analysis.record_output(line)
    if output is None:
        part.status = outcome.text if outcome else None
        return part
    facts = [
        outcome.text if outcome else output.status,
        seconds(output.wall_time) if output.wall_time is not None else None,
        output.note,
    ]
    part.status = " · ".join(f for f in facts if f) or None
    texts = [text.rstrip("\n") for _, text in output_chunks(analysis, output) if text.strip()]
    text = "\n".join(texts)  # every chunk of a continued process, in order
    part.output = clean(_trim(text, options)) if text.strip() else None
    return part


def _entry(call: ToolCall, clean, mark: str = "") -> Entry:
    """A call as the Outline names it (the shared label, its outcome's mark), with its command, patch or
    arguments as the body."""
    title = mark + clean(call_label(call))
    dead = "never runs: it is in dead code" if call.executed == "no" else None
    where = f"in {call.workdir}" if call.workdir else None
    if call.kind == COMMAND:
        if call.command is not None:
            return Entry(title, clean(call.command), "sh", _join(clean(where) if where else None, dead))
        if call.expansion:
            return Entry(
                title,
                clean("\n".join(call.expansion)),
                "sh",
                _join(f"computed from a list: {call.computed_expression or ''}", dead),
            )
        return Entry(title, clean(call.computed_expression or ""), "js", _join("computed when the script runs", dead))
    if call.kind == PATCH:
        if call.patch is not None and not call.computed:
            return Entry(title, clean(call.patch), "diff", dead)
        return Entry(title, None, "", _join("the patch is computed when the script runs", dead))
    body = json.dumps(call.arguments, indent=2, ensure_ascii=False) if call.arguments else None
    return Entry(
        title,
        clean(body) if body else None,
        "json",
        _join("the tool is computed when the script runs" if call.tool is None else None, dead),
    )


def _trim(text: str, options: ExportOptions) -> str:
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    out = "\n".join(lines[: options.output_lines])
    cut = len(lines) - options.output_lines
    if len(out) > options.output_chars:
        out = out[: options.output_chars]
        return out + f"\n… (output cut at {options.output_chars:,} characters)"
    return out + (f"\n… ({cut} more line{'s' if cut != 1 else ''})" if cut > 0 else "")


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _join(*notes: str | None) -> str | None:
    kept = [n for n in notes if n]
    return "; ".join(kept) if kept else None


# -- Markdown --------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")  # emphasis, code, links, images, HTML, tables, entities
# headings, quotes, lists, rules; an ordered list's number only when a space or the line's end follows (so a
# version such as 0.157.1 stays as it is)
_MD_LINE_START = re.compile(r"^(\s*)(?:([#>+=-])|(\d+)([.)])(?=\s|$))", re.M)


def _md(text: str) -> str:
    """Transcript text as Markdown that shows the same characters: no links, images, HTML or structure."""
    text = _MD_SPECIAL.sub(r"\\\1", text.replace("\r", ""))
    return _MD_LINE_START.sub(
        lambda m: m.group(1) + ("\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), text
    )


def _fence(text: str, language: str = "") -> str:
    longest = max((len(m.group()) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def render_markdown(document: Document) -> str:
    out = [f"# {_md(document.title)}", ""]
    out += [f"- **{_md(label)}**: {_md(value)}" for label, value in document.facts]
    out.append("")
    for note in document.notes:
        out += [f"> {_md(note)}", ""]
    if document.files:
        out += [f"**Files changed** ({len(document.files)}):", ""]
        out += [f"- {_md(row)}" for row in document.files]
        out.append("")
    for turn in document.turns:
        out += [f"## {_heading(turn)}" + (f" · {_md(turn.summary)}" if turn.summary else ""), ""]
        if turn.user is not None:
            out += ["\n".join("> " + _md(line) if line else ">" for line in turn.user.split("\n")), ""]
        if turn.outcome:
            out += [f"**Outcome: {_md(turn.outcome)}**", ""]
        if turn.usage:
            out += [f"*Usage: {_md(turn.usage)}*", ""]
        for part in turn.parts:
            if isinstance(part, MessagePart):
                out += [f"**{part.role}** (line {part.line + 1}):", "", _md(part.text), ""]
                continue
            head = f"### `{part.name}` (line {part.line + 1})" + (f" · {_md(part.status)}" if part.status else "")
            out += [head, ""]
            for entry in part.entries:
                out.append(f"- {_md(entry.title)}" + (f" — *{_md(entry.note)}*" if entry.note else ""))
                if entry.body is not None:
                    out += ["", _indent(_fence(entry.body, entry.language)), ""]
            out.append("")
            if part.output is not None:
                out += ["Output:", "", _fence(part.output, "text"), ""]
        if turn.files:
            out += [f"**Files changed in this turn** ({len(turn.files)}):", ""]
            out += [f"- {_md(row)}" for row in turn.files]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _heading(turn: TurnPart) -> str:
    """``Turn 2 (line 125)``: the ordinal and the line, as the Outline, ``outline`` and ``search`` say it."""
    if turn.number:
        label = turn_label(turn.number, turn.line)
        return label[0].upper() + label[1:]
    return ("Before the first prompt" if turn.line == 0 else "Outside a turn") + f" (line {turn.line + 1})"


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else "" for line in text.split("\n"))


# -- HTML ------------------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; border-top: 1px solid #d0d7de; padding-top: 1rem; }
h3 { font-size: 1rem; margin-bottom: .3rem; } .line { color: #656d76; font-weight: normal; font-size: .85em; }
blockquote { margin: .5rem 0; padding: .3rem 1rem; border-left: 4px solid #0969da; background: #f6f8fa;
  white-space: pre-wrap; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.usage, .note, .status { color: #656d76; font-size: .9em; } .message { white-space: pre-wrap; }
details summary { cursor: pointer; color: #0969da; } dl { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
.failed { color: #cf222e; }
.diff .add { color: #116329; } .diff .del { color: #82071e; }
"""


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def render_html(document: Document) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        # nothing may load: no script, no network, inline style only
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_h(document.title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{_h(document.title)}</h1>",
        "<dl>",
    ]
    out += [f"<dt>{_h(label)}</dt><dd>{_h(value)}</dd>" for label, value in document.facts]
    out.append("</dl>")
    out += [f'<p class="note">{_h(note)}</p>' for note in document.notes]
    if document.files:
        out.append(f"<details><summary>files changed ({len(document.files)})</summary><ul>")
        out += [f"<li>{_h(row)}</li>" for row in document.files]
        out.append("</ul></details>")
    for turn in document.turns:
        summary = f' <span class="failed">{_h(turn.summary)}</span>' if turn.summary else ""
        out.append(f"<section><h2>{_h(_heading(turn))}{summary}</h2>")
        if turn.user is not None:
            out.append(f"<blockquote>{_h(turn.user)}</blockquote>")
        if turn.outcome:
            out.append(f'<p class="outcome"><strong>Outcome: {_h(turn.outcome)}</strong></p>')
        if turn.usage:
            out.append(f'<p class="usage">Usage: {_h(turn.usage)}</p>')
        for part in turn.parts:
            if isinstance(part, MessagePart):
                out.append(
                    f'<p class="message"><strong>{_h(part.role)}</strong> '
                    f'<span class="line">line {part.line + 1}</span><br>{_h(part.text)}</p>'
                )
                continue
            status = (
                f' <span class="{"failed" if part.failed else "status"}">{_h(part.status)}</span>'
                if part.status
                else ""
            )
            out.append(f'<h3><code>{_h(part.name)}</code> <span class="line">line {part.line + 1}</span>{status}</h3>')
            out.append("<ul>")
            for entry in part.entries:
                note = f' <span class="note">— {_h(entry.note)}</span>' if entry.note else ""
                body = _code(entry.body, entry.language) if entry.body is not None else ""
                out.append(f"<li>{_h(entry.title)}{note}{body}</li>")
            out.append("</ul>")
            if part.output is not None:
                out.append(f"<details><summary>output</summary><pre>{_h(part.output)}</pre></details>")
        if turn.files:
            out.append(f"<p>files changed in this turn ({len(turn.files)}):</p><ul>")
            out += [f"<li>{_h(row)}</li>" for row in turn.files]
            out.append("</ul>")
        out.append("</section>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def _code(text: str, language: str) -> str:
    if language != "diff":
        return f'<pre class="{_h(language)}">{_h(text)}</pre>'
    lines = []
    for line in text.split("\n"):
        kind = "add" if line.startswith("+") else "del" if line.startswith("-") else None
        lines.append(f'<span class="{kind}">{_h(line)}</span>' if kind else _h(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


__all__ = ["FORMATS", "ExportOptions", "Document", "build_document", "export", "render_markdown", "render_html"]
