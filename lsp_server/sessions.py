"""The whole session in the editor: usage per turn and per session, the inherited history of a fork
or subagent folded into one outline node, links to the sessions a rollout came from or spawned,
unknown record types.  The other features call these few functions (analysis: usage, lineage,
vocabulary)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from analysis.jsonl.access import Access
from analysis.jsonl.positions import PositionEncoding
from analysis.session.agent_tree import parent_name
from analysis.session.compaction import compacted_summary
from analysis.session.lineage import find_session_file, lineage, search_roots
from analysis.session.references import Parent, parents, references
from analysis.session.rollout import RolloutAnalysis
from analysis.session.settings import record_settings_changes
from analysis.session.thread_names import thread_name
from analysis.session.usage import (
    context_sentence,
    limits_sentence,
    sentence,
    session_usage,
    short,
    token_count_payload,
    tokens,
)
from analysis.session.vocabulary import unknown_records

from .convert import line_range
from .markdown import escape, inline_code

SHOW_INFO = "rollout-lsp.showInfo"  # the command (features/commands.py) that shows a session's facts


class SessionOutline:
    """What the outline adds for one analysis: details with usage, the inherited node, unknown records."""

    def __init__(
        self,
        analysis: RolloutAnalysis,
        encoding: PositionEncoding,
        path: str | None = None,
        workspace: Workspace = (),
    ) -> None:
        self.analysis = analysis
        self.encoding = encoding
        self.path = path
        self.access = reader(workspace)
        self.parents = session_parents(analysis, path, self.access)
        self.usage = session_usage(analysis)
        self.lineage = lineage(analysis)
        self.inherited = self.lineage.inherited
        self._unknown = {line: name for name, lines in unknown_records(analysis).items() for line in lines}
        self._turns = {t.line: t for t in analysis.turns}
        self._changes = {c.line: c for c in record_settings_changes(analysis.records)[1:]}

    def session_name(self, default: str) -> str:
        ident = self.lineage.identity
        if ident is None or ident.id is None:
            return default
        who = f" ({ident.nickname})" if ident.nickname else ""
        if ident.agent_path:  # the child's own name, then its path in the tree
            who = f" ({ident.nickname}, path {ident.agent_path})" if ident.nickname else f" (path {ident.agent_path})"
        name = thread_name(self.path, ident, _home(self.access))
        return f"{name} · session {ident.id}{who}" if name else f"session {ident.id}{who}"

    def parent_symbols(self) -> list[types.DocumentSymbol]:
        """One node per history this rollout continues by reference (a fork's history_base, a segment's
        rollout_reference): the parent it names and the turns inherited, or that it is not found."""
        out = []
        for parent in self.parents:
            rng = line_range(self.analysis, parent.reference.line, self.encoding)
            detail = f"{Path(parent.path).name} · lines 1–{parent.lines}" if parent.path else parent.missing()
            out.append(
                types.DocumentSymbol(
                    name=parent.label(),
                    kind=types.SymbolKind.Package,
                    range=rng,
                    selection_range=rng,
                    detail=detail,
                    children=[],
                )
            )
        return out

    def session_detail(self) -> str | None:
        usage = self.usage
        if not usage.records:
            return None
        return short(usage.own, usage.context, usage.window)

    def turn_detail(self, line: int) -> str | None:
        turn = self.usage.turn_at(line)
        ended = self._turns.get(line)
        outcome = ended.outcome if ended is not None and ended.status not in (None, "completed") else None
        used = (
            short(turn.usage, turn.context, turn.window)
            if turn is not None and (turn.requests or turn.context is not None)
            else None
        )
        return " · ".join(p for p in (outcome, used) if p) or None

    def settings_symbol(self, line: int) -> types.DocumentSymbol | None:
        """The settings change on ``line``, after the settings the session started with (records that changed
        nothing are folded into the change before them: no row of their own)."""
        change = self._changes.get(line)
        if change is None:
            return None
        rng = line_range(self.analysis, line, self.encoding)
        more = f" · {change.records} records" if change.records > 1 else ""
        return types.DocumentSymbol(
            name=f"settings: {change.text()}",
            kind=types.SymbolKind.Property,
            range=rng,
            selection_range=rng,
            detail=f"changed{more}",
        )

    def in_inherited(self, line: int) -> bool:
        return self.inherited is not None and self.inherited.start <= line <= self.inherited.end

    def inherited_symbol(self) -> types.DocumentSymbol:
        region = self.inherited
        assert region is not None
        start = line_range(self.analysis, region.start, self.encoding)
        end = line_range(self.analysis, region.end, self.encoding)
        rng = types.Range(start.start, end.end)
        detail = f"lines {region.start + 1}–{region.end + 1} · {region.turns} turn{'s' if region.turns != 1 else ''}"
        if self.usage.inherited.total:
            detail += f" · {tokens(self.usage.inherited.total)} tokens, counted for that session"
        return types.DocumentSymbol(
            name=region.label(),
            kind=types.SymbolKind.Package,
            range=rng,
            selection_range=start,
            detail=detail,
            children=[],
        )

    def unknown_symbol(self, line: int) -> types.DocumentSymbol | None:
        name = self._unknown.get(line)
        if name is None:
            return None
        rng = line_range(self.analysis, line, self.encoding)
        return types.DocumentSymbol(
            name=name, kind=types.SymbolKind.Object, range=rng, selection_range=rng, detail="unknown record type"
        )


Workspace = Access | Iterable[str]  # the server's Access (workspace_paths), or bare folders (tests)


def reader(workspace: Workspace) -> Access:
    """What may be read for a rollout: the server's :class:`Access`, or one whose workspace is ``workspace``."""
    return workspace if isinstance(workspace, Access) else Access.create(workspace)


def _home(access: Access) -> str | None:
    return access.codex_homes[0] if access.codex_homes else None


def session_parents(analysis: RolloutAnalysis, path: str | None, workspace: Workspace = ()) -> list[Parent]:
    """The histories a rollout continues by reference, resolved from where it is (none for a rollout without
    a file), read only where the path rule lets them be (analysis/jsonl/access.py)."""
    if not references(analysis):
        return []
    access = reader(workspace)
    folders = list(access.workspace)
    return parents(analysis, path, search_roots(path, folders) if path else folders, access)


def usage_hover(analysis: RolloutAnalysis, line: int, path: str | None = None, workspace: Workspace = ()) -> str | None:
    """Markdown for a ``token_count`` record, the first line of a turn, the session line (``path``: where the
    rollout is, for its thread name and the history it continues), a settings change, a compacted record."""
    usage = session_usage(analysis)
    record = usage.record_at(line)
    if record is not None and record.source == "token_usage_record":
        parts = [
            f"**token usage record**{' (inherited from the parent session)' if record.inherited else ''}"
            + (f" of response {inline_code(record.response_id)}" if record.response_id else ""),
            escape(f"This response: {sentence(record.last)}."),
        ]
        if record.total is not None:
            parts.append(escape(f"Running total of the thread: {sentence(record.total)}."))
        if record.for_other:
            parts.append(
                escape(f"A response of thread {record.thread_id} (copied into this file): it counts for that thread.")
            )
        elif not record.new:
            parts.append(escape("A response already counted: it adds nothing."))
        if record.attribution is not None:
            parts.append(escape(f"Answered by {record.attribution.label()}."))
        return "\n\n".join(parts)
    if record is not None:
        assert record.total is not None  # a token_count record is kept only with the thread's running total
        parts = [
            f"**token count**{' (inherited from the parent session)' if record.inherited else ''}",
            escape(f"This response: {sentence(record.last)}."),
            escape(f"Context: {context_sentence(record.context, record.window)}."),
            escape(f"Running total as Codex wrote it: {sentence(record.total)}."),
        ]
        if not record.new:
            parts.append(
                escape("A repeat of a running total, or a response its token_usage_record counts: it adds nothing.")
            )
        limits = limits_sentence(record.rate_limits)
        if limits:
            parts.append(escape(limits[0].upper() + limits[1:] + "."))
        return "\n\n".join(parts)
    if token_count_payload(analysis, line) is not None:
        limits = limits_sentence(next((r.rate_limits for r in usage.limits if r.line == line), None))
        return "**token count** without usage" + (f"\n\n{escape(limits[0].upper() + limits[1:])}." if limits else "")
    turn = usage.turn_at(line)
    ended = turn_hover(analysis, line)
    if turn is not None and (turn.requests or turn.context is not None):
        used = "**usage of this turn**\n\n" + escape(
            f"{sentence(turn.usage, turn.requests)}; at its end, {context_sentence(turn.context, turn.window)}."
        )
        return "\n\n".join(p for p in (ended, used) if p)
    if ended:
        return ended
    settings = analysis.records[line].settings if 0 <= line < len(analysis.records) else None
    if settings is not None and analysis.records[line].kind == "event_msg":
        change = next((c for c in record_settings_changes(analysis.records) if c.line == line), None)
        what = escape(settings.text()) or "no setting named"
        if change is None:
            return f"**thread settings applied**: {what}\n\nThe same as before: nothing changed."
        return f"**thread settings applied**: {what}\n\nChanged: {escape(', '.join(change.changed))}."
    facts = lineage(analysis)
    if facts.identity is not None and facts.identity.line == line:
        return session_markdown(analysis, path, workspace)
    for parent in session_parents(analysis, path, reader(workspace)):
        if parent.reference.line == line:
            return parent_markdown(parent)
    compacted = compacted_markdown(analysis, line)
    if compacted:
        return compacted
    spawn = next((s for s in facts.spawns if s.line == line), None)
    if spawn is not None:
        what = (
            f"thread {inline_code(spawn.child)} (go to definition opens its rollout)"
            if spawn.child
            else "a thread this rollout does not name"
        )
        return f"**spawns an agent**{' ' + inline_code(spawn.task) if spawn.task else ''}: {what}"
    return None


def turn_hover(analysis: RolloutAnalysis, line: int) -> str | None:
    """How the turn starting on ``line`` ended, and how long it took, when an event says."""
    turn = next((t for t in analysis.turns if t.line == line), None)
    if turn is None or turn.status is None and turn.duration_ms is None:
        return None
    parts = [f"**turn** {escape(turn.outcome or 'still running, or the file was cut')}"]
    if turn.status == "failed" and turn.error_line is not None:
        parts.append(escape(f"Line {turn.error_line + 1} says it failed."))
    if turn.status == "rolled_back" and turn.rolled_back_line is not None:
        parts.append(
            escape(
                f"Taken back by the thread_rolled_back on line {turn.rolled_back_line + 1}: "
                "it is no longer in the thread."
            )
        )
    timing = turn.timing()
    if timing:
        parts.append(escape(f"Took {timing}."))
    return "\n\n".join(parts)


def parent_markdown(parent: Parent) -> str:
    ref = parent.reference
    what = "a fork by reference (history_base)" if ref.kind == "history_base" else "a segment (rollout_reference)"
    head = f"**{escape(parent.label())}**: {escape(what)}"
    if parent.path is None:
        return head + "\n\n" + escape(f"Its parent's rollout is not found ({parent.problem}).")
    return (
        head
        + "\n\n"
        + escape(
            f"Inherited: lines 1–{parent.lines} of {parent.path} "
            f"({parent.turns} turn{'s' if parent.turns != 1 else ''}); they are not in this "
            "file, and their usage counts for that session. Go to definition opens it "
            "where this one forked."
        )
    )


def compacted_markdown(analysis: RolloutAnalysis, line: int) -> str | None:
    summary = compacted_summary(analysis, line)
    if summary is None:
        return None
    return "**compacted**\n\n" + escape(summary.sentence())


def session_markdown(analysis: RolloutAnalysis, path: str | None = None, workspace: Workspace = ()) -> str:
    facts = lineage(analysis)
    ident = facts.identity
    usage = session_usage(analysis)
    workspace = reader(workspace)
    named = thread_name(path, ident, _home(workspace))
    parts = [
        f"**session** {inline_code(ident.id) if ident and ident.id else ''}" + (f" · {escape(named)}" if named else "")
    ]
    if ident is not None:
        if ident.parent:
            who = " ".join(x for x in (ident.nickname, f"({ident.role})" if ident.role else None) if x)
            parts.append(
                f"subagent {escape(who)} of session {inline_code(ident.parent)}"
                + (f", depth {ident.depth}" if ident.depth is not None else "")
            )
            if ident.agent_path:
                parts.append(f"agent path: {inline_code(ident.agent_path)}")
            direct = parent_name(ident, path, workspace.workspace)
            if direct is not None and direct.words():  # the parent's own name, never the child's
                parts.append(f"parent: {escape(direct.words())}")
            if ident.root and ident.root not in (ident.id, ident.parent):
                parts.append(f"root of the tree: session {inline_code(ident.root)}")
        elif ident.forked_from:
            parts.append(f"forked from session {inline_code(ident.forked_from)}")
    if facts.inherited is not None:
        region = facts.inherited
        parts.append(
            escape(
                f"Lines {region.start + 1}–{region.end + 1} replay the history of session "
                f"{region.session_id} ({region.turns} turn{'s' if region.turns != 1 else ''}); their usage counts "
                "for that session."
            )
        )
    for parent in session_parents(analysis, path, reader(workspace)):
        parts.append(parent_markdown(parent))
    if facts.resumes:
        parts.append(
            escape(
                f"Resumed {len(facts.resumes)} time{'s' if len(facts.resumes) != 1 else ''} "
                "(a session_meta line repeats its id; nothing is replayed)."
            )
        )
    if usage.records:
        parts.append(
            escape(
                f"Usage of this session: {sentence(usage.own, usage.requests)}; "
                f"{context_sentence(usage.context, usage.window)} at the end."
            )
        )
        if usage.reported is not None and usage.reported != usage.own:
            parts.append(
                escape(
                    f"Codex's running total, {usage.reported.total:,} tokens, also counts "
                    f"{usage.inherited.total:,} inherited tokens."
                    if usage.inherited.total
                    else f"Codex's last running total is {usage.reported.total:,} tokens (it restarted "
                    "during the session)."
                )
            )
    from analysis.reports.library.document import document_cost  # the price table and the index's rows: on demand

    priced = document_cost(analysis)
    if priced is not None and (priced.responses or priced.subagents):
        parts.append(escape(f"Cost: {priced.text()}, priced with {priced.cost['prices_as_of']} (docs/cost.md)."))
        if priced.subagents:
            parts.append("Subagents: " + ", ".join(inline_code(s) for s in priced.subagents))
    return "\n\n".join(parts)


def session_lenses(analysis: RolloutAnalysis) -> list[types.CodeLens]:
    """Above the session line, its totals; above an inherited history, where it comes from."""
    facts = lineage(analysis)
    usage = session_usage(analysis)
    out = []
    if facts.identity is not None and usage.records:
        title = f"session: {short(usage.own, usage.context, usage.window)}"
        if usage.inherited.total:
            title += f" · {tokens(usage.inherited.total)} inherited, not counted"
        at = types.Position(facts.identity.line, 0)
        out.append(
            types.CodeLens(types.Range(at, at), types.Command(title=title, command=SHOW_INFO, arguments=[title]))
        )
    if facts.inherited is not None:
        at = types.Position(facts.inherited.start, 0)
        title = f"{facts.inherited.label()} · lines {facts.inherited.start + 1}–{facts.inherited.end + 1}"
        out.append(
            types.CodeLens(types.Range(at, at), types.Command(title=title, command=SHOW_INFO, arguments=[title]))
        )
    return out


def inherited_folding(analysis: RolloutAnalysis) -> list[types.FoldingRange]:
    region = lineage(analysis).inherited
    if region is None or region.end <= region.start:
        return []
    return [
        types.FoldingRange(
            start_line=region.start,
            end_line=region.end,
            kind=types.FoldingRangeKind.Region,
            collapsed_text=region.label(),
        )
    ]


def session_definitions(
    analysis: RolloutAnalysis, uri: str, line: int, workspace: Workspace = ()
) -> list[types.Location]:
    """From a ``spawn_agent`` call (or the event naming its thread) to the child's rollout; from the
    session line (``forked_from_id``, ``parent_thread_id``) or a replayed parent ``session_meta`` to the
    parent's; found under the same sessions folder or a workspace folder."""
    ids = lineage(analysis).links_at(line)
    path = uri_path(uri)
    workspace = reader(workspace)
    out = []
    for parent in session_parents(analysis, path, reader(workspace)):
        if parent.reference.line == line and parent.path is not None:
            at = types.Position(parent.fork_line, 0)
            out.append(types.Location(Path(parent.path).resolve().as_uri(), types.Range(at, at)))
            ids = [i for i in ids if i not in (parent.reference.rollout_id, parent.reference.thread_id)]
    if not ids:
        return out
    folders = list(workspace.workspace)
    roots = search_roots(path, folders) if path else folders
    access = workspace.with_home_of(path)
    for session_id in ids:
        found = find_session_file(session_id, roots, exclude=path, access=access)
        if found is not None:
            start = types.Position(0, 0)
            out.append(types.Location(Path(found).resolve().as_uri(), types.Range(start, start)))
    return out


def session_workspace_symbols(analyses: list[tuple[str, RolloutAnalysis]], query: str) -> list[types.WorkspaceSymbol]:
    """Open sessions whose id or agent nickname contains the query."""
    needle = query.lower()
    out = []
    for uri, analysis in analyses:
        ident = lineage(analysis).identity
        if ident is None or ident.id is None:
            continue
        named = thread_name(uri_path(uri), ident)
        if (
            needle in ident.id.lower()
            or (ident.nickname and needle in ident.nickname.lower())
            or (named and needle in named.lower())
        ):
            name = f"session {ident.id}" + (f" ({ident.nickname})" if ident.nickname else "")
            name = f"{named} · {name}" if named else name
            start = types.Position(ident.line, 0)
            container = (
                f"subagent of {ident.parent}"
                if ident.parent
                else f"fork of {ident.forked_from}"
                if ident.forked_from
                else None
            )
            out.append(
                types.WorkspaceSymbol(
                    name=name,
                    kind=types.SymbolKind.Module,
                    location=types.Location(uri, types.Range(start, start)),
                    container_name=container,
                )
            )
    return out


def workspace_paths(server) -> Workspace:
    """Where other sessions' rollouts are looked for and what of them may be read: the server's
    :class:`~analysis.jsonl.access.Access` (its workspace folders, the Codex homes of the settings and the
    environment); for a bare pygls workspace, its folders."""
    paths = getattr(server, "paths", None)
    if paths is not None and getattr(server, "settings", None) is not None:
        return paths.access(server, root=False)
    folders = [to_fs_path(f.uri) for f in getattr(server, "folders", {}).values()]
    return [p for p in folders if p]


def uri_path(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


__all__ = [
    "SessionOutline",
    "session_parents",
    "turn_hover",
    "usage_hover",
    "session_markdown",
    "session_lenses",
    "inherited_folding",
    "session_definitions",
    "session_workspace_symbols",
    "uri_path",
    "workspace_paths",
]
