"""Reading one file to index (no database here): whether it changed since its row, is a rollout at all, and,
for a ``.jsonl.zst``, decompresses within the limit, measured before it is held whole."""

from __future__ import annotations

import os
import re
from typing import Any

from ...jsonl.limits import DECOMPRESSED_ENV, LINES_ENV, max_decompressed, max_lines
from ...jsonl.line_stream import Unreadable, read_lines
from ...jsonl.source import MAX_BYTES, ZstdReader, open_regular, read_at_most
from ...session.finish import is_rollout_file
from ...session.sniff import looks_like_rollout

# a .jsonl.zst is held whole to be indexed, so one that decompresses to more than max_decompressed() (a zstd
# bomb) is refused, found out in constant memory (analysis.jsonl.limits: DECOMPRESSED_ENV, DEFAULT_MAX_DECOMPRESSED)
_BREAK = re.compile(rb"\r\n|\r|\n")
NOT_A_ROLLOUT_ROW = "not a rollout"  # files.skipped of a JSON Lines file that is not a rollout
SNIFF_CHUNK = 1 << 16  # bytes read at a time to tell a rollout by its first records (_is_rollout)


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


class _Skip(Exception):
    """The file is not indexed, for a reason that holds while its size and modification time do: a JSON Lines
    file that is not a rollout (said, not an error), or a ``.zst`` over the decompressed limit (an error).
    ``reason`` is what ``files.skipped`` keeps; ``remembered``: the row already says so (nothing was read)."""

    def __init__(self, size: int, mtime_ns: int, reason: str, error: str | None, remembered: bool) -> None:
        super().__init__(error or reason)
        self.size, self.mtime_ns, self.reason, self.error, self.remembered = size, mtime_ns, reason, error, remembered


def within_lines(data: bytes) -> tuple[bytes, str | None]:
    """``data`` up to the end of its line :func:`~analysis.jsonl.limits.max_lines`, and, when that cut it,
    what to say (the lines after are not indexed)."""
    limit = max_lines()
    if b"\r" in data:  # a search, not a count: most rollouts hold no carriage return
        breaks = data.count(b"\n") + data.count(b"\r")
    else:
        breaks = _feeds_up_to(data, limit)
    if breaks < limit:  # an upper bound of the line breaks (a "\r\n" counts twice)
        return data, None
    for number, found in enumerate(_BREAK.finditer(data), 1):
        if number == limit:
            end = found.end()
            if end == len(data):
                return data, None
            return data[:end], (f"more than {limit} lines (the limit, {LINES_ENV}): only the first {limit} are indexed")
    return data, None


def _feeds_up_to(data: bytes, limit: int) -> int:
    """How many line feeds ``data`` holds, counted up to ``limit``: found one at a time by ``bytes.find``
    (``memchr``), which skips a line of a rollout (kilobytes) in a fraction of what ``bytes.count`` spends
    on it (it steps through every byte: 2% of the instructions of indexing the wild rollouts)."""
    find = data.find
    count = 0
    at = find(b"\n")
    while at >= 0 and count < limit:
        count += 1
        at = find(b"\n", at + 1)
    return count


def _over_limit(limit: int) -> tuple[str, str]:
    """The ``files.skipped`` value and the message of a ``.zst`` that decompresses to more than ``limit``."""
    return f"decompressed over {limit}", (
        f"it decompresses to more than {limit} bytes (the limit, {DECOMPRESSED_ENV}): skipped, not read whole"
    )


def _decompressed_size(path: str, limit: int) -> int:
    """How many bytes the zstd file ``path`` decompresses to, counted in constant memory (each piece is
    dropped), up to just past ``limit``; raises on truncated or corrupt data."""
    with open_regular(path) as handle:
        reader = ZstdReader(handle)
        piece = bytearray(1 << 20)
        total = 0
        while total <= limit:
            got = reader.readinto(piece)
            if not got:
                break
            total += got
        return total


def _is_rollout(path: str) -> bool:
    """Whether ``path`` is indexed as a rollout: its name matches a rollout pattern (it is read whatever it
    holds), or one of its first records is a rollout record, the rule ``check`` and the server follow."""

    def content() -> bool:  # read only when the name does not decide
        # a small first read: the reader decodes every line of what it read, and the first record decides
        # (a rollout's first line is its session_meta); the lines are the same whatever the size of a read
        lines = read_lines(path, chunk_size=SNIFF_CHUNK)
        try:
            return looks_like_rollout(text for text, _ in lines)
        except Unreadable as error:  # say why as every other unreadable file does: "cannot read PATH: why"
            raise (error.__cause__ or error) from None
        finally:
            lines.close()

    return is_rollout_file(path, content)


def _read(path: str, row: dict[str, Any] | None) -> tuple[int, int, bytes | None]:
    """The file's size, modification time and bytes; no bytes when size and time are as indexed.  Raises
    :class:`_Skip` when the file is not to be indexed (a ``.zst`` is measured, in constant memory, before it
    is held whole)."""
    with open_regular(path) as handle:
        stat = os.fstat(handle.fileno())
        limit = max_decompressed() if path.endswith(".zst") else None
        unchanged = (
            row is not None
            and row["error"] is None
            and row["size"] == stat.st_size
            and row["mtime_ns"] == stat.st_mtime_ns
        )
        skipped = row["skipped"] if row is not None else None
        if unchanged and skipped == NOT_A_ROLLOUT_ROW:
            raise _Skip(stat.st_size, stat.st_mtime_ns, NOT_A_ROLLOUT_ROW, None, remembered=True)
        if unchanged and limit is not None and skipped == _over_limit(limit)[0]:
            raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=True)
        if unchanged and skipped is None:
            return stat.st_size, stat.st_mtime_ns, None
        if limit is not None:
            if _decompressed_size(path, limit) > limit:
                raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=False)
        if not _is_rollout(path):
            raise _Skip(stat.st_size, stat.st_mtime_ns, NOT_A_ROLLOUT_ROW, None, remembered=False)
        if limit is not None:
            data = ZstdReader(handle).read_up_to(limit + 1)
            if len(data) > limit:  # it changed since it was measured
                raise _Skip(stat.st_size, stat.st_mtime_ns, *_over_limit(limit), remembered=False)
            return stat.st_size, stat.st_mtime_ns, data
        data = read_at_most(handle, MAX_BYTES + 1, stat.st_size)  # read(MAX_BYTES + 1) would reserve 2 GiB
        if len(data) > MAX_BYTES:
            raise ValueError("file over 2 GiB")
        # what was read is what is indexed: a file that grows meanwhile is seen as changed next time
        return len(data), stat.st_mtime_ns, data
