"""Which files a request may read from disk.

A language server over TCP or WebSocket answers whoever connects, and LSP has no authentication: a
request that takes a path (``rollout/analyzeFile``) must not read the user's other files.  It may read
a file that is

1. under one of the client's workspace folders (or its root), or
2. under a Codex sessions folder (``~/.codex/sessions``, ``~/.codex/archived_sessions``, or the same
   under ``$CODEX_HOME``), or
3. a rollout by name: its path matches the rollout file patterns (the ``files`` setting).

Paths are resolved first (``..`` and symbolic links), so a link cannot lead outside.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from pygls.uris import to_fs_path


def sessions_folders(home: Path | None = None, codex_home: str | None = None) -> list[Path]:
    homes = [Path(codex_home)] if codex_home else []
    homes.append((home or Path.home()) / ".codex")
    return [h / name for h in homes for name in ("sessions", "archived_sessions")]


class PathRefused(Exception):
    """A path no rule lets a request read; the message names the rules."""


class PathPolicy:
    def refusal(self, path: str, folder_uris: Iterable[str], is_rollout_path: Callable[[str], bool],
                home: Path | None = None, codex_home: str | None = None) -> str | None:
        """None when ``path`` may be read; else why not, naming the rules."""
        try:
            resolved = Path(path).expanduser().resolve()
        except (OSError, RuntimeError, ValueError) as error:
            return f"cannot resolve {path}: {error}"
        folders = [Path(p).resolve() for p in (to_fs_path(u) for u in folder_uris) if p]
        sessions = [p.resolve() for p in sessions_folders(home, codex_home)]
        if any(_under(resolved, folder) for folder in folders + sessions):
            return None
        if is_rollout_path(str(resolved)):
            return None
        shown = ", ".join(str(f) for f in folders) or "none open"
        return (f"refused to read {resolved}: a path is read only when it is under a workspace folder "
                f"({shown}), under a Codex sessions folder ({', '.join(str(s) for s in sessions)}), or when "
                f"it matches the rollout file patterns (setting rolloutLsp.files)")

    def check(self, path: str, folder_uris: Iterable[str], is_rollout_path: Callable[[str], bool]) -> None:
        reason = self.refusal(path, folder_uris, is_rollout_path, codex_home=os.environ.get("CODEX_HOME"))
        if reason is not None:
            raise PathRefused(reason)


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


__all__ = ["PathPolicy", "PathRefused", "sessions_folders"]
