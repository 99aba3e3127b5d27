"""Blame in any file of the workspace: which Codex sessions changed it, and which patch added a line.

For a ``file`` document that is not a rollout (nor an invocation log), inside a workspace folder:

- a code lens at the top, ``changed by 3 Codex sessions · last: 2026-03-01 add a review note``, whose
  command (``rollout-lsp.blameSessions [uri]``) lists the changes (``window/showMessageRequest``) and
  opens the rollout at the chosen call (``window/showDocument``); it answers the list as locations too,
  for clients that show a location list instead (``[uri, {"ask": false}]`` only answers them: VS Code's
  extension shows them in a quick pick);
- a hover on a line a patch added: the session, the turn and the user's request, the hunk, and the
  command the script ran next;
- ``rollout-lsp.blameLine [uri, line]``: the rollout opened at the patch that added a line (go to
  definition belongs to the file's own language server).

The lens and hover requests are registered dynamically for ``file`` documents of the workspace folders
(for these two requests only: such documents are not synced, the file is read from disk as saved), with
patterns that leave ``.jsonl`` files out, so the rollouts' own lenses and hovers are not asked twice.
Everything comes from the session index (``rollout-lsp index``): a file no session touched costs one
indexed lookup, and shows nothing.  ``rolloutLsp.blame: false`` turns it off; ``blameOutsideWorkspace``
extends it to every file.  A file is read only when the path rule lets it be (analysis/jsonl/access.py): inside a
workspace folder that is not ``/`` nor a home folder (anywhere with ``blameOutsideWorkspace``), never under
``/etc``, ``/proc``, ``~/.ssh``, …; the file read is its real path, the one checked.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
import uuid
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from analysis.jsonl.access import WORKSPACE_FILE as READ_WORKSPACE_FILE
from analysis.jsonl.positions import LineColumns

from ..kinds import WORKSPACE_FILE, DocumentKinds
from ..markdown import code_block, escape, for_client, hover_markup, inline_code
from ..names import safe_name
from .base import Feature, lsp_command, lsp_method

if TYPE_CHECKING:  # analysis.reports.blame (the session index, SQLite) is imported at the first blame, not at start
    from analysis.reports.blame import Change, LineBlame

log = logging.getLogger("rollout_lsp")
BLAME_SESSIONS = "rollout-lsp.blameSessions"
BLAME_LINE = "rollout-lsp.blameLine"
LISTED = 12  # changes offered in the message request's buttons
# every name that does not end in "jsonl": rollouts keep their own lenses and hovers (the same requests)
_NOT_JSONL = ("*[!l]", "*[!n]l", "*[!o]nl", "*[!s]onl", "*[!j]sonl", "*[!.]jsonl")
_GLOB_SPECIAL = re.compile(r"([\[\]{}*?])")


class BlameFeature(Feature):
    """Lens and hover from the session index for the workspace's files."""

    show_document = False
    message_actions = False
    dynamic = False
    markup = types.MarkupKind.Markdown

    def __init__(self, server, *, kinds: DocumentKinds) -> None:
        super().__init__(server)
        self.kinds = kinds  # blame answers for workspace files only (lsp_server.kinds decides which)
        self.registered: list[str] = []  # registration ids, to unregister when the setting turns it off
        self._cache: dict[str, tuple[tuple, list[Change], list[LineBlame | None] | None]] = {}
        self._lock = threading.Lock()
        self._reported: str | None = None
        # VS Code sends didChangeConfiguration right after initialized: both sync the registration, and without
        # the lock both would register while the first waits for the client (every lens drawn twice)
        self._registering = asyncio.Lock()

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        window = capabilities.window
        self.show_document = bool(window and window.show_document and window.show_document.support)
        self.message_actions = bool(window and window.show_message)
        self.markup = hover_markup(capabilities)  # Markdown, or plain text made from it (plaintext.py)
        document = capabilities.text_document
        self.dynamic = bool(
            document
            and document.code_lens
            and document.code_lens.dynamic_registration
            and document.hover
            and document.hover.dynamic_registration
        )

    # -- registration -------------------------------------------------------------------------------------
    def selector(self) -> list[types.TextDocumentFilterScheme]:
        """``file`` documents whose name does not end in ``jsonl``, below each workspace folder (or
        anywhere, with ``blameOutsideWorkspace``)."""
        prefixes = (
            [""]
            if self.server.settings.blame_outside_workspace
            else [
                _GLOB_SPECIAL.sub(r"[\1]", folder.replace("\\", "/").rstrip("/")) + "/"
                for folder in self.workspace_folders()
            ]
        )
        return [
            types.TextDocumentFilterScheme(scheme="file", pattern=f"{prefix}**/{name}")
            for prefix in prefixes
            for name in _NOT_JSONL
        ]

    async def sync_registration(self) -> None:
        """Register the lens and hover for the workspace's files when blame is on, else unregister them."""
        if not self.dynamic:
            return
        async with self._registering:
            await self._sync_registration()

    async def _sync_registration(self) -> None:
        wanted = self.server.settings.blame and bool(self.selector())
        if wanted and not self.registered:
            selector = self.selector()
            ids = [str(uuid.uuid4()), str(uuid.uuid4())]
            try:
                await self.server.client_register_capability_async(
                    types.RegistrationParams(
                        registrations=[
                            types.Registration(
                                ids[0],
                                types.TEXT_DOCUMENT_CODE_LENS,
                                types.CodeLensRegistrationOptions(document_selector=selector),
                            ),
                            types.Registration(
                                ids[1],
                                types.TEXT_DOCUMENT_HOVER,
                                types.HoverRegistrationOptions(document_selector=selector),
                            ),
                        ]
                    )
                )
                self.registered = ids
            except Exception as error:  # a client that refuses keeps the rollouts' features
                log.warning("blame: the client did not register lenses for workspace files: %s", error)
        elif not wanted and self.registered:
            ids, self.registered = self.registered, []
            try:
                await self.server.client_unregister_capability_async(
                    types.UnregistrationParams(
                        unregisterations=[
                            types.Unregistration(i, method)
                            for i, method in zip(ids, (types.TEXT_DOCUMENT_CODE_LENS, types.TEXT_DOCUMENT_HOVER))
                        ]
                    )
                )
            except Exception as error:
                log.warning("blame: unregistering failed: %s", error)

    # -- the requests -------------------------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_CODE_LENS, empty=list, kinds=(WORKSPACE_FILE,))
    async def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        """One lens at the top of a workspace file when sessions changed it; nothing otherwise."""
        uri = params.text_document.uri
        history, _ = await self._blame(uri, lines=False)
        if not history:
            return []
        from analysis.reports.blame import sessions_of

        sessions = sessions_of(history)
        last = history[0]
        title = (
            f"changed by {len(sessions)} Codex session{'s' if len(sessions) != 1 else ''} · last: "
            f"{(last.when or '')[:10]} {self._title(last)}"
        ).rstrip()
        start = types.Position(0, 0)
        return [
            types.CodeLens(
                types.Range(start, start), types.Command(title=title, command=BLAME_SESSIONS, arguments=[uri])
            )
        ]

    @lsp_method(types.TEXT_DOCUMENT_HOVER, empty=None, kinds=(WORKSPACE_FILE,))
    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """On a line of a workspace file a patch added: the session, its request, the hunk."""
        uri, line = params.text_document.uri, params.position.line
        history, blamed = await self._blame(uri, lines=True)
        found = blamed[line] if blamed and 0 <= line < len(blamed) else None
        if found is None:
            return None
        text = self._line_text(uri, line)
        end = LineColumns(text).to_units(len(text), self.server.encoding) if text is not None else 0
        return types.Hover(
            for_client(self.hover_text(found), self.markup),
            types.Range(types.Position(line, 0), types.Position(line, end)),
        )

    def hover_text(self, found: LineBlame) -> str:
        change = found.change
        mask = self.server.masker
        state = {"yes": "applied", "unknown": "applied (no event or output says so)"}.get(
            change.applied, change.applied
        )
        link = from_fs_path(change.rollout) or change.rollout
        parts = [
            f"**Codex session** {inline_code(change.session_id or '?')} · {escape(change.when or '')}",
            f"**Request** ({change.turn_text or 'outside any turn'}): " + escape(mask(change.turn_title or "")[:600]),
            f"{escape(change.action_label)} {inline_code(change.path)} · {state} · "
            + (
                f"[open the rollout at the call]({link}#L{change.line + 1})"
                if self.markup == types.MarkupKind.Markdown
                else f"the call: line {change.line + 1} of {inline_code(change.rollout)}"  # a link's text alone says nothing
            ),
        ]
        if 0 <= found.hunk < len(change.hunks):
            hunk = change.hunks[found.hunk]
            body = "\n".join(([hunk.header] if hunk.header else []) + list(hunk.lines[:40]))
            more = len(hunk.lines) - 40
            parts.append(code_block(mask(body) + (f"\n… ({more} more lines)" if more > 0 else ""), "diff"))
        if change.next_command:
            parts.append(f"then ran {inline_code(mask(change.next_command))}")
        return "\n\n".join(parts)

    @lsp_command(BLAME_SESSIONS)
    async def blame_sessions(self, *arguments: Any) -> list[dict] | None:
        """The changes of a file as locations in their rollouts (``[uri]``, newest first); the client is asked
        to pick one, whose rollout is then opened at the call.  ``[uri, {"ask": false}]`` only answers the
        locations: for a client that shows its own list (VS Code's quick pick)."""
        uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
        options = arguments[1] if len(arguments) > 1 and isinstance(arguments[1], dict) else {}
        if uri is None or self.kinds.of(uri) != WORKSPACE_FILE:
            return None
        history, _ = await self._blame(uri, lines=False)
        locations = [
            {
                "uri": from_fs_path(c.rollout),
                "range": {"start": {"line": c.line, "character": c.start}, "end": {"line": c.line, "character": c.end}},
                "title": self._item(c),
                "session": c.session_id,
            }
            for c in history
        ]
        if not history or not self.message_actions or options.get("ask", True) is False:
            return locations
        from analysis.reports.blame import sessions_of

        offered = history[:LISTED]
        titles = [f"{n + 1}. {self._item(c)}" for n, c in enumerate(offered)]
        try:
            chosen = await self.server.window_show_message_request_async(
                types.ShowMessageRequestParams(
                    types.MessageType.Info,
                    f"{len(sessions_of(history))} Codex sessions changed this file; open one:",
                    [types.MessageActionItem(t) for t in titles],
                )
            )
        except Exception as error:
            log.warning("blame: the client did not show the list: %s", error)
            return locations
        if chosen is None or chosen.title not in titles or not self.show_document:
            return locations
        change = offered[titles.index(chosen.title)]
        start = types.Position(change.line, change.start)
        await self.server.window_show_document_async(
            types.ShowDocumentParams(
                uri=from_fs_path(change.rollout), take_focus=True, selection=types.Range(start, start)
            )
        )
        return locations

    @lsp_command(BLAME_LINE)
    async def blame_line(self, *arguments: Any) -> dict | None:
        """The rollout at the patch that added a line (``[uri, line]``, 0-based): what go to definition
        would give, as a command for clients whose definition belongs to the file's own language server.
        The client is asked to show it; the location is answered too."""
        uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
        line = arguments[1] if len(arguments) > 1 and isinstance(arguments[1], int) else None
        if uri is None or line is None:
            return None
        _, blamed = await self._blame(uri, lines=True)
        found = blamed[line] if blamed and 0 <= line < len(blamed) else None
        if found is None:
            return None
        change = found.change
        start, end = types.Position(change.line, change.start), types.Position(change.line, change.end)
        if self.show_document:
            await self.server.window_show_document_async(
                types.ShowDocumentParams(
                    uri=from_fs_path(change.rollout), take_focus=True, selection=types.Range(start, end)
                )
            )
        return {
            "uri": from_fs_path(change.rollout),
            "range": {
                "start": {"line": start.line, "character": start.character},
                "end": {"line": end.line, "character": end.character},
            },
            "title": self._item(change),
        }

    # -- reading ------------------------------------------------------------------------------------------
    def _title(self, change: Change) -> str:
        title = " ".join(self.server.masker(change.turn_title or "").split())
        return safe_name(title if len(title) <= 60 else title[:59] + "…")  # nothing invisible (names.py)

    def _item(self, change: Change) -> str:
        state = "" if change.applied != "no" else " (failed)"
        return f"{(change.when or '')[:16].replace('T', ' ')} · {change.action_label}{state} · {self._title(change)}"

    def _line_text(self, uri: str, line: int) -> str | None:
        from analysis.reports.blame import read_lines

        path = self._readable(uri)
        try:
            lines = read_lines(path) if path else []
        except OSError:
            return None
        return lines[line] if 0 <= line < len(lines) else None

    def _readable(self, uri: str) -> str | None:
        """The real path of the file at ``uri`` when the path rule lets blame read it (a workspace file, or
        anywhere not denied with ``blameOutsideWorkspace``: never ``/etc/passwd``, even for a client whose
        workspace is ``/``); else None, and the file is not looked at."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            return None
        access = self.server.paths.access(self.server, anywhere=self.server.settings.blame_outside_workspace)
        return access.readable_file(path, READ_WORKSPACE_FILE)

    async def _blame(self, uri: str, lines: bool) -> tuple[list[Change], list[LineBlame | None] | None]:
        if self.kinds.of(uri) != WORKSPACE_FILE:
            return [], None
        path = self._readable(uri)
        if path is None:
            return [], None
        return await asyncio.get_running_loop().run_in_executor(None, self._lookup, path, lines)

    def _lookup(self, path: str, lines: bool) -> tuple[list[Change], list[LineBlame | None] | None]:
        """The file's history (and its lines attributed), cached while the file and the index are unchanged."""
        from analysis.reports.blame import attribute_lines, file_history, read_lines, target_of
        from analysis.reports.index import IndexUnavailable, RolloutIndex, default_db_path

        db = default_db_path()
        try:
            stamp = (_stat(path), _stat(str(db)), _stat(str(db) + "-wal"))
        except OSError:
            return [], None
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[0] == stamp and (cached[2] is not None or not lines):
            return cached[1], cached[2]
        if not db.is_file():
            return [], None
        try:
            with RolloutIndex.open_existing(db, timeout=0.5) as index:
                history = file_history(index, target_of(path))
        except IndexUnavailable as error:
            if str(error) != self._reported:
                self._reported = str(error)
                log.warning("blame without the session index: %s", error)
            return [], None
        blamed = None
        if lines and history:
            try:
                blamed = attribute_lines(read_lines(path), history)
            except OSError:
                blamed = None
        with self._lock:
            if len(self._cache) > 256:
                self._cache.clear()
            self._cache[path] = (stamp, history, blamed)
        return history, blamed


def _stat(path: str) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return (-1, -1)
    return info.st_size, info.st_mtime_ns


__all__ = ["BLAME_LINE", "BLAME_SESSIONS", "BlameFeature"]
