"""The outline: session, turns, call records, and each record's tool calls."""

from __future__ import annotations

import os
from collections.abc import Callable

from lsprotocol import types

from analysis.jsonl.positions import PositionEncoding, Span
from analysis.script.calls import COMMAND, PATCH
from analysis.session.executed import executed
from analysis.session.files_changed import ChangedFile, changed_files, file_row, session_list
from analysis.session.labels import (
    call_label,
    call_outcome,
    continued_from,
    expansion_labels,
    expansion_outcomes,
    failures,
    key_argument,
    record_outcome,
    seconds,
    turn_label,
)
from analysis.session.lineage import find_session_file, lineage, search_roots
from analysis.session.memo import same
from analysis.session.rollout import LocatedCall, RolloutAnalysis

from ..calls import summarize
from ..convert import line_range, to_range
from ..indexed_symbols import IndexedSymbols
from ..kinds import ROLLOUT
from ..names import safe_symbols, safe_workspace_symbols
from ..sessions import SessionOutline, reader, session_workspace_symbols, uri_path, workspace_paths
from ..wire import CONVERTER, Encoded, Fragment, dumps, encode_tree
from .base import Feature, lsp_method

_KINDS = {COMMAND: types.SymbolKind.Event, PATCH: types.SymbolKind.File, "tool": types.SymbolKind.Method}


def call_name(call, mask: Callable[[str], str] = str) -> str:
    """A one-line name for a tool call: its tool and what identifies it (the shared label), masked."""
    return call_label(call, mask)


NAME_LIMIT = 48  # an exec row's first call; a turn's request is cut at TURN_LIMIT
TURN_LIMIT = 60


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def exec_name(calls: list[LocatedCall], mask: Callable[[str], str] = str) -> str:
    """``exec · git status +3``: an exec record by its first command or patch (its files by their names;
    else its first call), cut short, and how many other calls it makes."""
    if not calls:
        return "exec"
    first = next((c.call for c in calls if c.call.kind in (COMMAND, PATCH)), calls[0].call)
    if first.kind == PATCH and first.files:  # the files by their names: a long path would be cut to its root
        key: str | None = ", ".join(f"{f.action} {os.path.basename(f.path) or f.path}" for f in first.files)
    else:
        key = key_argument(first) if first.kind == COMMAND else None
    text = " ".join(mask(key).split()) if key else call_label(first, mask)
    more = f" +{len(calls) - 1}" if len(calls) > 1 else ""
    return f"exec · {_short(text, NAME_LIMIT)}{more}"


def turn_mark(turn) -> str:
    """``[failed] ``, ``[interrupted] ``, ``[rolled back] `` before a turn that did not complete, as exec rows
    are marked."""
    status = getattr(turn, "status", None)
    if status in ("failed", "interrupted", "rolled_back"):
        return f"[{status.replace('_', ' ')}] "
    return ""


class SymbolFeature(Feature):
    """The outline of a rollout, and the calls of every open rollout as workspace symbols.  Names show
    transcript text: secrets in them are masked."""

    def __init__(self, server) -> None:
        super().__init__(server)
        self.converter = CONVERTER  # the outline is unstructured once, then sent as it is
        self.indexed = IndexedSymbols()
        self._fragments: dict = {}  # (line, id(record)) → (record, what it shows, its encoded symbol)
        self._found: dict[tuple, str] = {}  # (subagent session id, where it is looked for) → its rollout, once found
        self._missing: dict[int, str] = {}  # the outline being built: spawn line → the child id not found

    @lsp_method(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list, kinds=(ROLLOUT,))
    async def document_symbol(self, params: types.DocumentSymbolParams):
        """The outline: session, turns, call records and their calls (encoded once per analysis)."""
        result = await self.rollout(params.text_document.uri)
        if result is None:
            return []
        if result.symbols is None:  # an outline is asked for again and again: encode it once per version
            name = self.server.workspace.get_text_document(params.text_document.uri).filename or "rollout"
            result.symbols = Encoded(
                self.outline_parts(result.analysis, self.server.encoding, name, uri_path(params.text_document.uri))
            )
        return result.symbols

    @lsp_method(types.WORKSPACE_SYMBOL, empty=list)
    async def workspace_symbol(self, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        """Calls of open rollouts whose command, patched files or tool contain the query."""
        store = self.server.store
        analyses = []
        for uri in store.uris:
            result = await store.get(uri)
            if result is not None and result.is_rollout:
                analyses.append((uri, result.analysis))
        found = self.workspace_symbols(analyses, params.query, self.server.encoding)
        # every other session, from the index `rollout-lsp index` keeps (open documents take precedence)
        indexed = await self.indexed.workspace_symbols(
            params.query, store.uris, self.server.encoding, 1000 - len(found), self.server.masker
        )
        return safe_workspace_symbols(found + indexed)  # names as the CLI shows them (lsp_server/names.py)

    def outline_parts(
        self, analysis: RolloutAnalysis, encoding: PositionEncoding, name: str = "rollout", path: str | None = None
    ) -> list[bytes]:
        """The outline as compact JSON, in pieces to be joined.  Each call record's symbol is encoded once and
        reused by the next versions while its line, its text, its output's status and its calls' ``executed``
        stay the same: after an edit only the records it changed are built again."""
        pieces: list[bytes] = []
        self._missing = self.missing_subagents(analysis, path)
        encode_tree(self._outline(analysis, encoding, name, self._cached_record, path), pieces)
        return pieces

    def document_symbols(
        self, analysis: RolloutAnalysis, encoding: PositionEncoding, name: str = "rollout", path: str | None = None
    ) -> list[types.DocumentSymbol]:
        """The outline as lsprotocol symbols (what :meth:`outline_parts` encodes)."""
        self._missing = self.missing_subagents(analysis, path)
        return self._outline(analysis, encoding, name, self.record_symbol, path)

    def missing_subagents(self, analysis: RolloutAnalysis, path: str | None) -> dict[int, str]:
        """The ``spawn_agent`` lines whose subagent's rollout is not found where go to definition looks (a
        document that is no file, ``path`` None, is not looked around).  A rollout once found is remembered."""
        if path is None:
            return {}
        spawns = [(s.line, s.child) for s in lineage(analysis).spawns if s.child]
        if not spawns:
            return {}
        access = reader(workspace_paths(self.server)).with_home_of(path)
        roots = search_roots(path, list(access.workspace))
        out: dict[int, str] = {}
        for line, child in spawns:
            key = (child, tuple(roots), access)
            known = self._found.get(key)
            if known is None or not os.path.isfile(known):
                found = find_session_file(child, roots, exclude=path, access=access)
                if found is None:
                    out[line] = child
                    continue
                self._found[key] = found
        return out

    def _outline(
        self, analysis: RolloutAnalysis, encoding: PositionEncoding, name: str, record_symbol, path: str | None = None
    ) -> list:
        last = len(analysis.lines) - 1
        whole = to_range(analysis, Span(last, 0, len(analysis.lines[last])), encoding)
        whole = types.Range(types.Position(0, 0), whole.end)
        # usage, inherited history (copied, or by reference), thread name, unknown records
        session = SessionOutline(analysis, encoding, path, workspace_paths(self.server))
        failed = failures(analysis)
        # each symbol's children are a list of ours (lsprotocol types them as an optional Sequence)
        root_children: list[types.DocumentSymbol] = []
        root = types.DocumentSymbol(
            name=session.session_name(name),
            detail=_joined(session.session_detail(), _failed_text(failed)),
            kind=types.SymbolKind.Module,
            range=whole,
            selection_range=line_range(analysis, 0, encoding),
            children=root_children,
        )
        root_children.extend(session.parent_symbols())
        turns = {t.line: (n, t) for n, t in enumerate(analysis.turns, 1)}
        children = root_children  # the children of the turn the records are in (the root's before the first)
        fresh: dict = {}
        turn_files: list[tuple[list[types.DocumentSymbol], types.DocumentSymbol]] = []
        for number, record in enumerate(analysis.records):
            if session.in_inherited(number):  # a replayed history is one node, not a copy of its turns
                if session.inherited is not None and number == session.inherited.start:
                    root_children.append(session.inherited_symbol())
                continue
            unknown = session.unknown_symbol(number)
            if unknown is not None:
                children.append(unknown)
            if number in turns:
                ordinal, turn = turns[number]
                title = " ".join(self.server.masker(turn.title).split())
                end = line_range(analysis, turn.end_line, encoding).end
                in_turn = [f for f in failed if turn.line <= f[0] <= turn.end_line]
                children = []
                parent = types.DocumentSymbol(
                    name=f"{turn_mark(turn)}{turn_label(ordinal, number)}: {_short(title, TURN_LIMIT)}",
                    kind=types.SymbolKind.Namespace,
                    detail=_joined(_failed_text(in_turn), session.turn_detail(number)),  # its outcome and usage
                    range=types.Range(types.Position(number, 0), end),
                    selection_range=line_range(analysis, number, encoding),
                    children=children,
                )
                root_children.append(parent)
                files = self.files_symbol(analysis, encoding, turn.line, turn.end_line)
                if files is not None:
                    turn_files.append((children, files))
            settings = session.settings_symbol(number) if record.settings is not None else None
            if settings is not None:
                children.append(settings)
            if record.is_call:
                children.append(record_symbol(analysis, number, encoding, fresh))
        for turn_children, files in turn_files:  # what a turn changed, after its calls
            turn_children.append(files)
        # the session's own list, unless one turn shown already lists every file (a one-turn session)
        files = self.files_symbol(analysis, encoding, whole=session_list(analysis) if turn_files else None)
        if files is not None:
            root_children.append(files)
        if record_symbol == self._cached_record:
            self._fragments = fresh  # only the records of this version stay cached
        safe_symbols([root])  # names on one line, cut, nothing invisible (a record's were made safe when built)
        return [root]

    def files_symbol(
        self,
        analysis: RolloutAnalysis,
        encoding: PositionEncoding,
        first: int = 0,
        last: int | None = None,
        whole: list[ChangedFile] | None = None,
    ) -> types.DocumentSymbol | None:
        """``files changed (3)``: each file the calls between two lines touched (or the files ``whole``),
        going to the first call that touched it, with a row per call when several did."""
        changed = whole if whole is not None else changed_files(analysis, first, last)
        if not changed:
            return None
        mask = self.server.masker
        rows = []
        for item in changed:
            calls = list(
                dict.fromkeys((t.line, t.verb if t.applied is not False else "not applied") for t in item.touches)
            )
            rng = line_range(analysis, item.touches[0].line, encoding)
            children = (
                [
                    types.DocumentSymbol(
                        name=f"{verb} on line {n + 1}",
                        kind=types.SymbolKind.Event,
                        range=line_range(analysis, n, encoding),
                        selection_range=line_range(analysis, n, encoding),
                    )
                    for n, verb in calls
                ]
                if len(calls) > 1
                else None
            )
            detail = file_row(item)  # as files, outline and export say it
            rows.append(
                types.DocumentSymbol(
                    name=mask(item.path) or "?",
                    kind=types.SymbolKind.File,
                    range=rng,
                    selection_range=rng,
                    detail=detail,
                    children=children,
                )
            )
        start = line_range(analysis, changed[0].touches[0].line, encoding)
        return types.DocumentSymbol(
            name=f"files changed ({len(changed)})",
            kind=types.SymbolKind.Package,
            range=start,
            selection_range=start,
            children=rows,
        )

    def _cached_record(self, analysis: RolloutAnalysis, line: int, encoding: PositionEncoding, fresh: dict) -> Fragment:
        """The encoded symbol of a call record, from the cache when nothing it shows has changed."""
        record = analysis.records[line]
        output = analysis.record_output(line)
        outcome = record_outcome(analysis, line)
        key = (
            encoding,
            self.server.masker.extra,
            self._missing.get(line),
            None if output is None else (output.status, output.note, output.wall_time, output.exit_code),
            outcome,
            continued_from(analysis).get(line),
            tuple((c.call.executed, call_outcome(analysis, c)) for c in analysis.calls_on(line)),
        )
        cached = self._fragments.get((line, id(record)))
        if cached is None or not same(cached, record) or cached[1] != key:
            symbol = self.converter.unstructure(self.record_symbol(analysis, line, encoding))
            cached = (record, key, Fragment(dumps(symbol)))
        fresh[(line, id(record))] = cached
        return cached[2]

    def record_symbol(
        self, analysis: RolloutAnalysis, line: int, encoding: PositionEncoding, fresh: dict | None = None
    ) -> types.DocumentSymbol:
        """A call record's row: the outcome's mark and the call's label (an exec record: ``exec`` and its
        calls as children), with its call id, time and continuations as detail."""
        record = analysis.records[line]
        calls = analysis.calls_on(line)
        rng = line_range(analysis, line, encoding)
        output = analysis.record_output(line)
        outcome = record_outcome(analysis, line)
        continues = continued_from(analysis).get(line)
        facts = [summarize(calls) if record.is_exec else record.call_id or ""]
        if output is not None:
            if outcome is None and output.status not in (None, "completed"):
                facts.append(output.status)  # a chunk still running
            if output.wall_time is not None:
                facts.append(seconds(output.wall_time))
            if output.note:
                facts.append(output.note)  # "after 2 waits"
        if continues is not None:
            facts.append(f"continues line {continues + 1}")
        missing = self._missing.get(line)
        if missing is not None:
            facts.insert(0, f"rollout of subagent {missing} not found")
        mark = (outcome.mark if outcome else "") + ("[no rollout] " if missing is not None else "")
        if record.is_exec:
            name = mark + exec_name(calls, self.server.masker)
            children = [self.call_symbol(analysis, c, encoding) for c in calls]
        else:
            name = mark + (call_name(calls[0].call, self.server.masker) if calls else record.name or record.kind)
            children = self.expansion_symbols(analysis, calls[0], rng, encoding) if calls else []
        symbol = types.DocumentSymbol(
            name=name or "call",
            kind=types.SymbolKind.Function,
            range=rng,
            selection_range=rng,
            detail=" · ".join(f for f in facts if f),
            children=children,
        )
        safe_symbols([symbol])
        return symbol

    def call_symbol(
        self, analysis: RolloutAnalysis, located: LocatedCall, encoding: PositionEncoding
    ) -> types.DocumentSymbol:
        call = located.call
        outcome = call_outcome(analysis, located)
        ran = executed(analysis, located, outcome).value  # the hover's word (analysis/session/executed.py)
        facts = [
            outcome.text if outcome else None,
            "computed" if call.computed else None,
            "ran" if outcome is None and ran == "yes" else None,
        ]
        rng = to_range(analysis, located.span, encoding)
        return types.DocumentSymbol(
            name=(outcome.mark if outcome else "") + call_name(call, self.server.masker),
            kind=_KINDS.get(call.kind, types.SymbolKind.Method),
            range=rng,
            selection_range=rng,
            detail=" · ".join(f for f in facts if f) or None,
            tags=[types.SymbolTag.Deprecated] if ran == "no" else None,
            children=self.expansion_symbols(analysis, located, rng, encoding),
        )

    def expansion_symbols(
        self, analysis: RolloutAnalysis, located: LocatedCall, rng: types.Range, encoding: PositionEncoding
    ) -> list[types.DocumentSymbol]:
        """Each exact command of a known expansion, as a row under its call, with how it ended where an
        event says."""
        labels = expansion_labels(located.call, self.server.masker)
        if not labels:
            return []
        outcomes = expansion_outcomes(analysis, located)
        # each row at its element in the list, where the list writes them one by one (so an Outline sorted by
        # position keeps the list's order); else at the call
        spans = located.call.expansion_spans or ()
        ranges = (
            [to_range(analysis, Span(located.line, start, end), encoding) for start, end in spans]
            if len(spans) == len(labels)
            else [rng] * len(labels)
        )
        return [
            types.DocumentSymbol(
                name=(o.mark if o is not None and o.failed else "") + label,
                kind=types.SymbolKind.Event,
                range=where,
                selection_range=where,
                detail=f"element {n + 1} of the list" + (f" · {o.text}" if o else ""),
            )
            for n, (label, o, where) in enumerate(zip(labels, outcomes, ranges))
        ]

    def workspace_symbols(
        self, analyses: list[tuple[str, RolloutAnalysis]], query: str, encoding: PositionEncoding
    ) -> list[types.WorkspaceSymbol]:
        """Calls of open rollouts whose command, patched files or tool contain the query."""
        needle = query.lower()
        out: list[types.WorkspaceSymbol] = session_workspace_symbols(analyses, query)  # sessions by id, nickname
        for uri, analysis in analyses:
            for located in analysis.calls:
                call = located.call
                haystack = " ".join(
                    [
                        call.command or "",
                        call.tool or "",
                        *(f.path for f in call.files),
                        *(f.move_to or "" for f in call.files),
                        *(call.expansion or ()),
                    ]
                ).lower()
                if needle in haystack:
                    outcome = call_outcome(analysis, located)
                    out.append(
                        types.WorkspaceSymbol(
                            name=(outcome.mark if outcome else "") + call_name(call, self.server.masker),
                            kind=_KINDS.get(call.kind, types.SymbolKind.Method),
                            location=types.Location(uri, to_range(analysis, located.span, encoding)),
                            container_name=f"line {located.line + 1} {located.record.call_id or ''}".strip(),
                        )
                    )
                    if len(out) >= 1000:
                        return out
        return out


def _joined(*parts: str | None) -> str | None:
    return " · ".join(p for p in parts if p) or None


def _failed_text(failed: list[tuple[int, str]]) -> str | None:
    """``2 failed (first: line 16, exit 1)``."""
    if not failed:
        return None
    return f"{len(failed)} failed (first: line {failed[0][0] + 1}, {failed[0][1]})"
