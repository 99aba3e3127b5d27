"""Which files the product reads: one rule for every path it opens (docs/security.md, "What is read").

A rollout is untrusted input: a path it names (a patched file, a parent's ``rollout_path``) or an id it gives
(a parent's, a subagent's) must not make the product read, or probe, the user's other files.  The user's
settings, the command line's arguments and the workspace folders an editor declares are trusted.  A file is
read only when its real path (``..`` and symbolic links resolved) is

- inside a workspace folder (:data:`WORKSPACE_FILE`: a changed file's lens, blame), or
- a rollout (``*.jsonl``, ``*.jsonl.zst``) inside the ``sessions`` or ``archived_sessions`` folder of a Codex
  home: the one configured (``rolloutLsp.codexHome``, ``--codex-home``), ``$CODEX_HOME``, ``~/.codex``, and
  the Codex home the rollout being read is itself in.  A parent named by path (:data:`ROLLOUT_BY_PATH`) is
  read only there; a parent or subagent found by id (:data:`ROLLOUT_BY_ID`) there or in a workspace folder;

and never, whatever the workspace: under a system folder (:data:`SYSTEM_FOLDERS`), in a private folder of
any user (:data:`PRIVATE_FOLDERS`: ``~/.ssh``, ``~/.gnupg``, ``~/.aws``, …) or a credentials file
(:data:`PRIVATE_FILES`).  A workspace folder that is the filesystem root, a drive's root, a home folder (or a
folder holding home folders) or a denied folder grants nothing.  A relative path names no place and is
refused.  A path under a denied folder is refused before the disk is touched; any other is resolved
(``os.path.realpath``), and only a granted regular file is read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

ROLLOUT_SUFFIXES = (".jsonl", ".jsonl.zst")
SESSIONS_FOLDERS = ("sessions", "archived_sessions")
INDEX_NAME = "session_index.jsonl"  # a Codex home's thread names (analysis.session.thread_names)
SYSTEM_FOLDERS = (
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/run",
    "/var/run",
    "/private/etc",
    "/private/var/run",
    "/private/var/db",
)
# folders of secrets, matched as path components anywhere (any user's home, a workspace's copy)
PRIVATE_FOLDERS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".gcloud",
    ".config/gcloud",
    ".config/gh",
    ".config/op",
    "Library/Keychains",
)
PRIVATE_FILES = (".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".codex/auth.json")
HOMES_FOLDERS = ("/home", "/Users")  # whose children are users' home folders
CODEX_HOME_ENV = "ROLLOUT_LSP_CODEX_HOME"  # set by the command line's --codex-home (inherited by workers)
CODEX_HOME_HELP = (
    "a Codex home whose sessions and archived_sessions folders parents and segments are read from, besides "
    "$CODEX_HOME and ~/.codex (docs/security.md)"
)

# what a path is read for: each kind grants its own places
ROLLOUT_BY_PATH = "rollout-by-path"  # a parent's or segment's rollout_path, as a rollout names it
ROLLOUT_BY_ID = "rollout-by-id"  # a rollout found by the id in its file name
WORKSPACE_FILE = "workspace-file"  # a file a session changed (the lens), a file blamed
CLIENT_ROLLOUT = "client-rollout"  # a rollout an editor asks for by path (rollout/analyzeFile)
CODEX_INDEX = "codex-index"  # a Codex home's session_index.jsonl
KINDS = (ROLLOUT_BY_PATH, ROLLOUT_BY_ID, WORKSPACE_FILE, CLIENT_ROLLOUT, CODEX_INDEX)


class PathRefused(Exception):
    """A path the rule does not let the product read; the message says why."""


def configure_codex_home(path: str | None) -> None:
    """The command line's ``--codex-home``: a Codex home for this process and the workers it starts."""
    if path:
        os.environ[CODEX_HOME_ENV] = os.path.abspath(os.path.expanduser(path))


@dataclass(frozen=True)
class Access:
    """The places one reader may read: its workspace folders and Codex homes (real paths)."""

    workspace: tuple[str, ...] = ()
    codex_homes: tuple[str, ...] = ()
    rollout_named: Callable[[str], bool] | None = field(default=None, compare=False)  # the server's ``files``
    anywhere: bool = False  # WORKSPACE_FILE anywhere not denied (the server's blameOutsideWorkspace)
    dropped: tuple[str, ...] = ()  # workspace folders that grant nothing (too wide, or denied)

    @classmethod
    def create(
        cls,
        workspace: Iterable[str] = (),
        codex_home: str | None = None,
        *,
        home: str | None = None,
        rollout_named: Callable[[str], bool] | None = None,
        anywhere: bool = False,
    ) -> Access:
        """``workspace`` folders (absolute; too wide ones dropped) and the Codex homes: ``codex_home`` (the
        setting, the option), ``$ROLLOUT_LSP_CODEX_HOME``, ``$CODEX_HOME`` and ``~/.codex``."""
        home = home or os.path.expanduser("~")
        given = (codex_home, os.environ.get(CODEX_HOME_ENV), os.environ.get("CODEX_HOME"), os.path.join(home, ".codex"))
        homes = [_real(os.path.expanduser(h)) for h in given if h and os.path.isabs(os.path.expanduser(h))]
        kept: list[str] = []
        dropped: list[str] = []
        for folder in workspace:
            if not folder or not os.path.isabs(folder):
                continue
            real = _real(folder)
            (dropped if too_wide(real, home) or denied(real) else kept).append(real)
        return cls(_unique(kept), _unique(homes), rollout_named, anywhere, _unique(dropped))

    @classmethod
    def for_cli(cls, named: Iterable[str], codex_home: str | None = None) -> Access:
        """The command line's: its workspace is the folder of each file named (a folder named is one), minus
        the too wide ones; its Codex homes the usual ones (``--codex-home`` first)."""
        folders = []
        for path in named:
            if path and path != "-":
                absolute = os.path.abspath(path)
                folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
        return cls.create(folders, codex_home)

    def with_home_of(self, rollout: str | None) -> Access:
        """With the Codex home the rollout at ``rollout`` is in (the folder above its ``sessions`` folder)."""
        found = codex_home_of(rollout) if rollout else None
        if found is None or found in self.codex_homes:
            return self
        return replace(self, codex_homes=(*self.codex_homes, found))

    def sessions_folders(self) -> list[str]:
        """The ``sessions`` and ``archived_sessions`` folders of the Codex homes."""
        return [os.path.join(h, name) for h in self.codex_homes for name in SESSIONS_FOLDERS]

    @cached_property
    def _sessions(self) -> tuple[str, ...]:
        return tuple(_real(s) for s in self.sessions_folders())

    def searchable(self, root: str) -> bool:
        """Whether a folder may be searched for rollouts by id: inside a workspace folder or a sessions folder
        (never a folder above them: no search of the whole disk)."""
        if not root or not os.path.isabs(root) or denied(os.path.normpath(root)):
            return False
        real = _real(root)
        return not denied(real) and any(_under(real, f) for f in (*self.workspace, *self._sessions))

    def refusal(self, path: str, kind: str) -> str | None:
        """None when ``path`` may be read for ``kind`` (or does not exist there); else why not."""
        if not isinstance(path, str) or not path or "\0" in path:
            return "refused to read it: not a path"
        if not os.path.isabs(path):
            return f"refused to read {path}: a relative path names no place on this machine"
        lexical = os.path.normpath(path)
        why = denied(lexical)
        if why is None:
            try:
                real = os.path.realpath(path)
            except (OSError, ValueError) as error:
                return f"refused to read {lexical}: cannot resolve it ({error})"
            why = denied(real)
            lexical = real
        if why is not None:
            return f"refused to read {lexical}: {why}"
        if not self._granted(real, kind):
            return f"refused to read {real}: {self.rule(kind)}"
        try:
            mode = os.stat(real).st_mode
        except OSError:
            return None  # missing: reading it says so
        if not stat.S_ISREG(mode):
            return f"refused to read {real}: not a regular file"
        return None

    def check(self, path: str, kind: str) -> str:
        """The real path to read (what was checked, not a link that may change meanwhile); raises
        :class:`PathRefused`."""
        why = self.refusal(path, kind)
        if why is not None:
            raise PathRefused(why)
        return os.path.realpath(path)

    def readable_file(self, path: str, kind: str) -> str | None:
        """The real path when ``path`` may be read for ``kind`` and is a regular file; else None (a refused
        path is not even looked at)."""
        if self.refusal(path, kind) is not None:
            return None
        real = os.path.realpath(path)
        return real if os.path.isfile(real) else None

    def workspace_file(self, path: str) -> bool:
        """Whether ``path`` is a regular file that may be read as a workspace file."""
        return self.readable_file(path, WORKSPACE_FILE) is not None

    def _granted(self, real: str, kind: str) -> bool:
        rollout = real.endswith(ROLLOUT_SUFFIXES)
        in_sessions = rollout and any(_under(real, s) for s in self._sessions)
        in_workspace = any(_under(real, w) for w in self.workspace)
        if kind == ROLLOUT_BY_PATH:
            return in_sessions
        if kind == ROLLOUT_BY_ID:
            return in_sessions or rollout and in_workspace
        if kind == WORKSPACE_FILE:
            return in_workspace or self.anywhere
        if kind == CLIENT_ROLLOUT:
            named = self.rollout_named is not None and rollout and self.rollout_named(real)
            return in_workspace or in_sessions or bool(named)
        if kind == CODEX_INDEX:
            return os.path.basename(real) == INDEX_NAME and os.path.dirname(real) in self.codex_homes
        raise ValueError(f"unknown kind of read: {kind}")

    def rule(self, kind: str) -> str:
        """The rule a refused path broke, in words."""
        sessions = ", ".join(self.sessions_folders()) or "none"
        folders = ", ".join(self.workspace) or "none open"
        if kind == ROLLOUT_BY_PATH:
            return f"a rollout named by path is read only inside the Codex sessions folders ({sessions})"
        if kind == ROLLOUT_BY_ID:
            return (
                f"a rollout is looked up only in the Codex sessions folders ({sessions}) and the workspace ({folders})"
            )
        if kind == WORKSPACE_FILE:
            return f"only the workspace's files are read ({folders})"
        if kind == CODEX_INDEX:
            return "only a Codex home's session_index.jsonl is read"
        return (
            f"a path is read only when it is under a workspace folder ({folders}), under a Codex sessions "
            f"folder ({sessions}) for a rollout, or a .jsonl or .jsonl.zst file that matches the rollout file patterns "
            "(setting rolloutLsp.files); a workspace folder that is the filesystem root or the whole home folder counts "
            "for nothing"
        )


def denied(path: str) -> str | None:
    """Why nothing at ``path`` (absolute, normalised) is read whatever the workspace; None when it may be."""
    for folder in system_folders():
        if _under(path, folder):
            return f"nothing under the system folder {folder} is read"
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for private in PRIVATE_FOLDERS:
        wanted = private.split("/")
        for start in range(len(parts) - len(wanted) + 1):
            if parts[start : start + len(wanted)] == wanted:
                return f"nothing in a {private} folder is read"
    for private in PRIVATE_FILES:
        wanted = private.split("/")
        if parts[-len(wanted) :] == wanted:
            return f"a {private} file is never read"
    return None


def system_folders() -> list[str]:
    """Folders never read, whatever the workspace (Windows' own folder too)."""
    folders = list(SYSTEM_FOLDERS)
    for name in ("SystemRoot", "windir"):
        value = os.environ.get(name)
        if value:
            folders.append(os.path.normpath(value))
    return folders


def too_wide(real: str, home: str | None = None) -> bool:
    """Whether a workspace folder grants nothing: the filesystem root, a drive's root, the home folder or a
    folder above it, any user's home folder (in ``/home``, ``/Users``) or those folders themselves."""
    if os.path.dirname(real) == real:
        return True
    home_real = _real(home or os.path.expanduser("~"))
    if _under(home_real, real):
        return True
    return real in HOMES_FOLDERS or os.path.dirname(real) in HOMES_FOLDERS


def codex_home_of(path: str) -> str | None:
    """The Codex home a file is in: the folder holding the ``sessions`` (or ``archived_sessions``) folder
    above its real path, else None."""
    folder = os.path.dirname(_real(path))
    while True:
        parent = os.path.dirname(folder)
        if os.path.basename(folder) in SESSIONS_FOLDERS:
            return parent
        if parent == folder:
            return None
        folder = parent


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


def _under(path: str, folder: str) -> bool:
    if path == folder:
        return True
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return path.startswith(prefix)


def _unique(paths: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))


__all__ = [
    "Access",
    "CLIENT_ROLLOUT",
    "CODEX_HOME_ENV",
    "CODEX_HOME_HELP",
    "CODEX_INDEX",
    "PRIVATE_FILES",
    "PRIVATE_FOLDERS",
    "PathRefused",
    "ROLLOUT_BY_ID",
    "ROLLOUT_BY_PATH",
    "ROLLOUT_SUFFIXES",
    "SYSTEM_FOLDERS",
    "WORKSPACE_FILE",
    "codex_home_of",
    "configure_codex_home",
    "denied",
    "too_wide",
]
