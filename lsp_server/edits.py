"""Workspace edits tied to the document version they were computed from.

An edit computed for version 7 and applied to version 8 lands at the wrong offsets: a same-length
redaction would silently overwrite other text.  With ``documentChanges`` the edit names its version and
the client refuses it when the document has changed since.  Clients without ``documentChanges`` get the
plain ``changes`` form (they cannot check a version).
"""

from __future__ import annotations

from lsprotocol import types


class EditBuilder:
    versioned = True

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        self.versioned = bool(edit and edit.document_changes)

    def edit(self, uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        if self.versioned:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                        edits=list(edits),
                    )
                ]
            )
        return types.WorkspaceEdit(changes={uri: list(edits)})
