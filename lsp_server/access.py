"""Which files a request may read from disk.

A language server over TCP or WebSocket answers whoever connects, and LSP has no authentication: a
request that takes a path (``rollout/analyzeFile``) must not read the user's other files.  It may read
a file that is

1. under one of the client's workspace folders (or its root), or
2. under a Codex sessions folder (``~/.codex/sessions``, ``~/.codex/archived_sessions``, or the same
   under ``$CODEX_HOME``), or
3. a rollout by name: its path matches the rollout file patterns (the ``files`` setting).

Paths are resolved first (``..`` and symbolic links), so a link cannot lead outside.  Whatever the client
declares, a workspace folder that is the filesystem root, a drive's root or the home folder as a whole
grants nothing (a client declaring ``file:///`` would otherwise read every file); a pattern grants only JSON
Lines files (``*.jsonl``, ``*.jsonl.zst``: ``files: ["**/*"]`` cannot name ``~/.ssh/id_rsa``); nothing under
a system folder (``/etc``, ``/proc``, ``/dev``, ``/sys``, Windows' own folder) is read; and only a regular
file is (not a FIFO, a socket or a device).  docs/security.md describes the trust model.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from pygls.uris import to_fs_path


def sessions_folders(home: Path | None = None, codex_home: str | None = None) -> list[Path]:
    homes = [Path(codex_home)] if codex_home else []
    homes.append((home or Path.home()) / ".codex")
    return [h / name for h in homes for name in ("sessions", "archived_sessions")]


ROLLOUT_SUFFIXES = (".jsonl", ".jsonl.zst")


def system_folders() -> list[Path]:
    """Folders never read, whatever the client declares."""
    folders = [Path(p) for p in ("/etc", "/proc", "/dev", "/sys", "/private/etc", "/private/var/run")]
    for name in ("SystemRoot", "windir"):
        if os.environ.get(name):
            folders.append(Path(os.environ[name]))
    return folders


class PathRefused(Exception):
    """A path no rule lets a request read; the message names the rules."""


class PathPolicy:
    def refusal(
        self,
        path: str,
        folder_uris: Iterable[str],
        is_rollout_path: Callable[[str], bool],
        home: Path | None = None,
        codex_home: str | None = None,
    ) -> str | None:
        """None when ``path`` may be read; else why not, naming the rules."""
        try:
            resolved = Path(path).expanduser().resolve()
        except (OSError, RuntimeError, ValueError) as error:
            return f"cannot resolve {path}: {error}"
        for system in system_folders():
            if _under(resolved, _resolved(system)):
                return f"refused to read {resolved}: nothing under the system folder {system} is read"
        home = home or Path.home()
        too_wide = {_resolved(home)}
        folders = []
        for folder in (Path(p).resolve() for p in (to_fs_path(u) for u in folder_uris) if p):
            if folder.parent == folder or folder in too_wide:  # the root, a drive, the whole home folder
                continue
            folders.append(folder)
        sessions = [p.resolve() for p in sessions_folders(home, codex_home)]
        allowed = (
            any(_under(resolved, folder) for folder in folders + sessions)
            or resolved.name.endswith(ROLLOUT_SUFFIXES)
            and is_rollout_path(str(resolved))
        )
        if not allowed:
            shown = ", ".join(str(f) for f in folders) or "none open"
            return (
                f"refused to read {resolved}: a path is read only when it is under a workspace folder "
                f"({shown}), under a Codex sessions folder ({', '.join(str(s) for s in sessions)}), or when "
                f"it is a .jsonl or .jsonl.zst file that matches the rollout file patterns (setting "
                f"rolloutLsp.files); a workspace folder that is the filesystem root or the whole home "
                f"folder counts for nothing"
            )
        try:
            mode = os.stat(resolved).st_mode
        except OSError:
            return None  # missing: reading it reports that
        if not stat.S_ISREG(mode):
            return f"refused to read {resolved}: not a regular file"
        return None

    def check(self, path: str, folder_uris: Iterable[str], is_rollout_path: Callable[[str], bool]) -> str:
        """The resolved path to read (what was checked, not a link that may change meanwhile); raises
        :class:`PathRefused`."""
        reason = self.refusal(path, folder_uris, is_rollout_path, codex_home=os.environ.get("CODEX_HOME"))
        if reason is not None:
            raise PathRefused(reason)
        return str(Path(path).expanduser().resolve())


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


__all__ = ["PathPolicy", "PathRefused", "sessions_folders"]
