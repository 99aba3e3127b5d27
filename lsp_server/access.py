"""Which files the server reads from disk: the server's side of the one path rule (analysis/jsonl/access.py).

A language server over TCP or WebSocket answers whoever connects, LSP has no authentication, and a rollout is
untrusted input: no request and no rollout may make the server read the user's other files.  The rule itself
(workspace folders, Codex sessions folders, the folders never read, the workspace folders that grant nothing)
is :mod:`analysis.jsonl.access`'s; this module makes its :class:`~analysis.jsonl.access.Access` from what the
client declared (its workspace folders, or its root) and the settings (``codexHome``, ``files`` for
``rollout/analyzeFile``, ``blameOutsideWorkspace`` for blame).  docs/security.md describes the trust model.
"""

from __future__ import annotations

import os
from typing import Any

from pygls.uris import to_fs_path

from analysis.jsonl.access import CLIENT_ROLLOUT, Access, PathRefused

RolloutLanguageServer = Any  # the server (not imported: lsp_server.language_server imports this module)


class PathPolicy:
    """The server's :class:`Access`, made again when the workspace or the settings change."""

    def __init__(self) -> None:
        self._made: tuple[tuple, Access] | None = None

    def access(self, server: RolloutLanguageServer, *, anywhere: bool = False, root: bool = True) -> Access:
        """What the server may read for this client: its workspace folders (too wide ones grant nothing; with
        ``root``, its root when it declared no folder), the Codex homes (``codexHome``, ``$CODEX_HOME``,
        ``~/.codex``); ``anywhere``: workspace files anywhere not denied (blame with ``blameOutsideWorkspace``).
        Other sessions are looked for in the declared folders only (``root`` false): a client's root is often
        the folder it was started in."""
        settings = server.settings
        folders = tuple(workspace_folders(server) if root else declared_folders(server))
        key = (
            folders,
            settings.codex_home,
            tuple(settings.files),
            anywhere,
            root,
            os.environ.get("CODEX_HOME"),
            os.path.expanduser("~"),
        )
        if self._made is not None and self._made[0] == key:
            return self._made[1]
        made = Access.create(folders, settings.codex_home, rollout_named=settings.is_rollout_path, anywhere=anywhere)
        self._made = (key, made)
        return made

    def check(self, path: str, server: RolloutLanguageServer) -> str:
        """The real path of a rollout a client asks for by path (``rollout/analyzeFile``); raises
        :class:`PathRefused` naming the rule."""
        return self.access(server).check(os.path.expanduser(path), CLIENT_ROLLOUT)


def workspace_folders(server: RolloutLanguageServer) -> list[str]:
    """The workspace's folders on this machine (its root when the client named no folder)."""
    return declared_folders(server) or [p for p in [to_fs_path(server.workspace.root_uri or "")] if p]


def declared_folders(server: RolloutLanguageServer) -> list[str]:
    """The workspace folders the client declared (not its root), as paths."""
    folders = getattr(server.workspace, "folders", None) or {}
    return [p for p in (to_fs_path(f.uri) for f in folders.values()) if p]


__all__ = ["PathPolicy", "PathRefused", "declared_folders"]
