"""What ``sessions`` and ``cost`` share: the index brought up to date (with the folders given, else Codex's
folders and every folder indexed before), then the library read from it."""

from __future__ import annotations

import os
import sys

from ..reports.index import IndexUnavailable, RolloutIndex, default_db_path, default_session_dirs
from ..reports.library import Library


def load_library(command: str, db: str | None, paths: list[str]) -> Library | None:
    """The library after updating the index (problems said on standard error), or None when the index cannot be
    opened (said too)."""
    path = db or default_db_path()
    try:
        try:
            return _load(path, paths)
        except IndexUnavailable as error:
            if not error.broken:
                raise
            print(f"rollout-lsp {command}: {error}; rebuilding the index", file=sys.stderr)
            return _load(path, paths, rebuild=True)
    except IndexUnavailable as error:
        print(f"rollout-lsp {command}: {error}", file=sys.stderr)
        return None


def _load(path, paths: list[str], rebuild: bool = False) -> Library:
    with RolloutIndex.open(path, rebuild=rebuild) as index:
        dirs = [p for p in paths if os.path.exists(p)]
        if not paths:
            dirs = [d for d in default_session_dirs() if os.path.isdir(d)]
            dirs += [r for r in index.roots() if r not in dirs]
        index.update(dirs)
        return Library(index.db)
