"""An incremental SQLite index of rollout files: every tool call, searchable across all sessions.

One row per tool call (its decoded command, patched files or tool; tool name, ``executed``, exit code,
session, turn, timestamp, file, line and columns in every position encoding) and an FTS5 trigram index
over the text, so a query is a case-insensitive substring search answered from the index.

Staying fresh cheaply: a file whose size and modification time are those indexed is not opened.  A plain
rollout that grew by appending (its indexed prefix, up to the last line break, hashes the same) has only
its new lines analysed; an output among them that answers a call indexed earlier updates that call's row
(the call's line and its earlier output are re-read from the bytes already in memory and paired by the
analysis itself).  Anything else is re-read whole.

Safety: text is stored redacted (:func:`analysis.jsonl.secrets.redact_all`), never in clear.  Each file is
written in its own ``BEGIN IMMEDIATE`` transaction after checking that its row is still the one the work
was planned from, so two processes indexing at once each leave a consistent index (WAL mode lets readers
go on meanwhile).  A database of another schema version is rebuilt; a corrupt one is rebuilt by the
writer (when it is an SQLite file, empty, or at the default location) and reported by readers.

The package, by seams: :mod:`.schema` (tables and version), :mod:`.database` (the file: opening, WAL,
corruption), :mod:`.rollout_index` (:class:`RolloutIndex`: updating and searching), :mod:`.reading` (whether a
file changed, is a rollout, fits the ``.zst`` limit), :mod:`.planning` (what indexing its bytes changes),
:mod:`.rows` (what its analysis becomes as rows), :mod:`.repositories` (git repository discovery),
:mod:`.workers` (what the ``--jobs`` processes run) and :mod:`.results` (stats, hits, ``--since``).
"""

from .database import IndexUnavailable, default_db_path, default_session_dirs
from .repositories import find_repository_root, repository_key, repository_of
from .results import Hit, IndexStats, call_text, parse_since
from .rollout_index import RolloutIndex
from .schema import SCHEMA_VERSION

__all__ = [
    "Hit",
    "IndexStats",
    "IndexUnavailable",
    "RolloutIndex",
    "call_text",
    "default_db_path",
    "default_session_dirs",
    "find_repository_root",
    "parse_since",
    "repository_key",
    "repository_of",
    "SCHEMA_VERSION",
]
