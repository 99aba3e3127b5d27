"""Document kinds: what a document is, decided in one place.

- ``rollout``: a document the client syncs that is not an invocation log.  It is a rollout when its path or
  language says so, or when its first records are a rollout's (the store looks); a document of this kind that
  turns out not to be a rollout gets no answer (:meth:`~lsp_server.features.base.Feature.rollout` is None).
- ``invocation-log``: a recording shim's ``cli_mocks/calls.jsonl`` (the ``invocationLogs`` patterns),
  linked to the rollout of its run (:mod:`lsp_server.invocation_links`).
- ``workspace-file``: a file of the workspace that the client does not sync, asked for blame's lens and hover
  (:mod:`lsp_server.features.blame`): not a ``.jsonl`` file, a rollout by its path, nor an invocation log.

The kind of an open document is decided once, when it opens, and again when the settings change (they say
which paths are rollouts and logs); a document that is not open (a workspace file) is decided at each request.
The server registers a method several features answer once and hands it to the features of the document's
kind (:func:`lsp_server.features.base.register`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

if TYPE_CHECKING:
    from .language_server import RolloutLanguageServer

ROLLOUT = "rollout"
INVOCATION_LOG = "invocation-log"
WORKSPACE_FILE = "workspace-file"
KINDS = (ROLLOUT, INVOCATION_LOG, WORKSPACE_FILE)


class DocumentKinds:
    """Decides the kind of each document (the one place that does)."""

    def __init__(self, server: RolloutLanguageServer) -> None:
        self.server = server
        self._open: dict[str, str] = {}  # open document URI → its kind

    def of(self, uri: str) -> str:
        """The kind of ``uri``."""
        kind = self._open.get(uri)
        return kind if kind is not None else self._decide(uri)

    def opened(self, uri: str) -> str:
        """A document opened: decide its kind."""
        kind = self._open[uri] = self._decide(uri)
        return kind

    def closed(self, uri: str) -> None:
        self._open.pop(uri, None)

    def settings_changed(self) -> None:
        """The settings say which paths are rollouts and logs: decide every open document's kind again."""
        for uri in list(self._open):
            self._open[uri] = self._decide(uri)

    def _decide(self, uri: str) -> str:
        settings = self.server.settings
        if settings.is_invocation_log_path(uri):
            return INVOCATION_LOG
        if self._workspace_file(uri):
            return WORKSPACE_FILE
        return ROLLOUT

    def _workspace_file(self, uri: str) -> bool:
        """A workspace file blame answers for: not a ``.jsonl`` file, a rollout, an invocation log, nor a
        document the client syncs (it sends the documents its selector gives to the rollout features; blame's
        are only asked for lenses and hovers)."""
        settings = self.server.settings
        if not settings.blame or not uri.startswith("file:") or uri.endswith((".jsonl", ".jsonl.zst")):
            return False
        if settings.is_rollout_path(uri):
            return False
        if uri in self.server.workspace.text_documents:  # synced: the client gives it to the rollout features
            return False
        path = to_fs_path(uri)
        if not path:
            return False
        return settings.blame_outside_workspace or any(
            _below(path, folder) for folder in workspace_folders(self.server)
        )


def workspace_folders(server: RolloutLanguageServer) -> list[str]:
    """The workspace's folders on this machine (its root when the client named no folder)."""
    workspace = server.workspace
    uris = [f.uri for f in workspace.folders.values()] if workspace.folders else []
    if not uris and workspace.root_uri:
        uris = [workspace.root_uri]
    return [p for p in (to_fs_path(u) for u in uris) if p]


def _below(path: str, folder: str) -> bool:
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, ValueError):
        return False


__all__ = ["DocumentKinds", "INVOCATION_LOG", "KINDS", "ROLLOUT", "WORKSPACE_FILE", "workspace_folders"]
