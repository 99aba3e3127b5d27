"""From the rollout to the files it changed: a lens on each call that changed a file that exists here,
``open src/app.py``, whose command opens the file at the first line of the change's first hunk.  A session
of another machine (or of another checkout) names files that are not here: the same path below the
session's folder is looked for in the workspace's folders (analysis.session.change_places.local_target).
Only a file the path rule lets be read as a workspace file (analysis/jsonl/access.py: inside a workspace folder
once links are resolved, never under /etc, /proc, ~/.ssh, …) gets a lens or is read: a patch naming
``/etc/passwd``, ``../outside/secret.txt`` or ``link/secret.txt`` through a link out of the workspace shows
nothing, and its file is not even looked at.

A call whose patch did not apply (the Outline's ``not applied on line N``,
:func:`~analysis.session.patch_applied.patch_applied`) keeps its lens, titled ``open src/app.py (not
applied)``: the file is opened where the patch meant to change it, and the title does not say it changed.

A file row of the Outline's ``files changed (N)`` goes to the call that touched the file (a document
symbol can only point into its own document); on that call's line this lens opens the file itself.  Go to
definition on a call line already goes to its output, so opening the file is a command
(``rollout-lsp.openChangedFile [uri, line, call index, file index]``), which works in every editor with
code lenses: it asks the client to show the file (``window/showDocument``) and answers its location.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from analysis.jsonl.access import WORKSPACE_FILE, PathRefused
from analysis.reports.blame import read_lines, same_remote, target_of
from analysis.session.change_places import (
    changed_lines,
    first_hunk_line,
    line_changes,
    local_target,
    path_parts,
    shown_path,
)
from analysis.session.changes import NO, Place, cwd_at, session_place
from analysis.session.rollout import RolloutAnalysis

from ..kinds import ROLLOUT
from ..names import safe_lenses
from .base import Feature, lsp_command, lsp_method

OPEN_CHANGED_FILE = "rollout-lsp.openChangedFile"


class ChangedFileFeature(Feature):
    show_document = False

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        window = capabilities.window
        self.show_document = bool(window and window.show_document and window.show_document.support)

    @lsp_method(types.TEXT_DOCUMENT_CODE_LENS, empty=list, kinds=(ROLLOUT,))
    async def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        """A lens per file a call changed, after the exec records' lenses."""
        result = await self.rollout(params.text_document.uri)
        return self.code_lenses(result.analysis, params.text_document.uri) if result is not None else []

    def code_lenses(self, analysis: RolloutAnalysis, uri: str) -> list[types.CodeLens]:
        """A lens per file a call changed, on the call's line, when the file is on this machine."""
        lenses = []
        lines = changed_lines(analysis)
        if not lines:
            return []
        cwds = cwd_at(analysis)
        access = self.server.paths.access(self.server)
        same = _same_repository(session_place(analysis))
        # a session touches the same few files again and again (164 touches of 65 files on wild's four
        # largest): each (file, cwd) is looked for once per request, each candidate path checked once
        # (a check resolves the path: up to 1 + 3 × folders of them per touch in a workspace)
        found: dict[tuple[str | None, str | None], str | None] = {}
        exists = functools.cache(access.workspace_file)  # for this request only: files may change between requests
        for number in lines:
            seen = set()
            for change in line_changes(analysis, number, cwds):
                key = (change.target, cwds[number])
                if key not in found:
                    found[key] = local_target(change, cwds[number], access.workspace, same, exists)
                target = found[key]
                if target is None or target in seen:
                    continue
                seen.add(target)
                start = types.Position(number, 0)
                lenses.append(
                    types.CodeLens(
                        types.Range(start, start),
                        types.Command(
                            title=f"open {self.server.masker(shown_path(analysis, change))}"
                            + (" (not applied)" if change.applied == NO else ""),
                            command=OPEN_CHANGED_FILE,
                            arguments=[uri, number, change.call_index, change.file_index],
                        ),
                    )
                )
        return safe_lenses(lenses)  # titles as every name: one line, nothing invisible, cut (lsp_server/names.py)

    @lsp_command(OPEN_CHANGED_FILE)
    async def open_changed_file(self, *arguments: Any) -> dict | None:
        """``[uri, line, call index, file index]``: the file that call changed, at the first line of its
        first hunk the file still has (line 1 when none is found), shown with ``window/showDocument``;
        answers ``{"uri", "range", "path"}``, or None and a message when the file is not on this machine."""
        if (
            len(arguments) < 4
            or not isinstance(arguments[0], str)
            or not all(isinstance(a, int) for a in arguments[1:4])
        ):
            return None
        uri, line, call_index, file_index = arguments[:4]
        result = await self.rollout(uri)
        if result is None:
            return None
        cwds = cwd_at(result.analysis)
        change = next(
            (
                c
                for c in line_changes(result.analysis, line, cwds)
                if (c.call_index, c.file_index) == (call_index, file_index)
            ),
            None,
        )
        if change is None:
            return None
        access = self.server.paths.access(self.server)
        same = _same_repository(session_place(result.analysis))
        target = local_target(change, cwds[line], access.workspace, same, access.workspace_file)
        shown = self.server.masker(shown_path(result.analysis, change))
        try:
            lines = read_lines(access.check(target, WORKSPACE_FILE)) if target is not None else None
        except (OSError, PathRefused):
            lines = None
        if lines is None or target is None:
            missing = change.target
            masked = self.server.masker(missing) if missing else None
            if missing and access.refusal(missing, WORKSPACE_FILE) is not None:
                self.say(
                    f"{shown} is not opened: {masked} is outside the workspace folders (not read), and that path "
                    "is not below a workspace folder."
                )
            elif missing:
                self.say(f"{shown} is not on this machine (no file {masked}, nor that path below a workspace folder).")
            else:
                self.say(f"{shown} is not on this machine (the session's folder is not known).")
            return None
        start = types.Position(first_hunk_line(lines, change.hunks), 0)
        file_uri = from_fs_path(target)
        if self.show_document:
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=file_uri, take_focus=True, selection=types.Range(start, start))
            )
        return {
            "uri": file_uri,
            "range": {"start": {"line": start.line, "character": 0}, "end": {"line": start.line, "character": 0}},
            "path": shown,
        }

    def say(self, message: str) -> None:
        try:
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Info, message))
        except Exception:  # no client attached (the feature called directly): nothing to tell
            pass


def _same_repository(place: Place) -> Callable[[str, str], bool]:
    """Whether a file found below a workspace folder is in the session's repository, as ``blame`` tells
    repositories apart: the same remote when both are known (the session's ``git.repository_url``, the
    checkout's ``origin``), else the same folder name (the checkout's root, and the folder of the session's
    path at the same place above the file).  A workspace file of another repository with the same relative
    path is not opened."""
    remote = place.git.get("repository_url") if place.git else None

    def same(candidate: str, target: str) -> bool:
        here = target_of(candidate)
        if not here.repo_root or not here.repo_path:
            return False
        if isinstance(remote, str) and remote and here.repo_url:
            return same_remote(remote, here.repo_url)
        below = len(here.repo_path.split("/"))  # the file's depth in the checkout
        theirs = path_parts(target)
        return len(theirs) > below and theirs[-below - 1].lower() == path_parts(here.repo_root)[-1].lower()

    return same


__all__ = ["ChangedFileFeature", "OPEN_CHANGED_FILE"]
