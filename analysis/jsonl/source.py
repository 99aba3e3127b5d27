"""Reading rollout files from disk: plain or zstd-compressed, with bad bytes reported, never fatal."""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, BinaryIO, cast

from .findings import INVALID_JSON, Finding
from .lazy_pattern import lazy
from .limits import (
    DECOMPRESSED_ENV,
    LINES_ENV,
    PARENT_BYTES_ENV,
    PARENT_LINES_ENV,
    max_decompressed,
    max_lines,
    over_bytes,
    over_lines,
)
from .lines import split_lines, strip_bom
from .positions import Span

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_BYTES = 2 * 1024**3  # a decompressed rollout larger than this is refused, not read
STDIN = "-"  # a path that names standard input
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# files treated as rollouts whatever their content (the server's default `rolloutLsp.files`); any other
# JSON Lines file is a rollout only when its content is (RolloutAnalysis.is_rollout)
ROLLOUT_PATTERNS = ("**/rollout-*.jsonl", "**/.codex/{sessions,archived_sessions}/**/*.jsonl")
NOT_A_ROLLOUT = (
    "skipped: not a Codex rollout (no rollout record in its first 50 lines, and its name matches "
    "no rollout pattern such as rollout-*.jsonl)"
)
_BAD_BYTE = lazy("[\udc80-\udcff]")


@dataclass
class LoadedFile:
    path: str
    text: str = ""
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # the file could not be read at all


@dataclass
class FileList:
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line per named folder that is unreadable or empty
    skipped: list[str] = field(default_factory=list)  # one line per FIFO, socket or device found in a folder


def rollout_files(paths: list[str]) -> list[str]:
    """Files named, and ``*.jsonl`` / ``*.jsonl.zst`` files below folders named, sorted."""
    return find_rollout_files(paths).files


def find_rollout_files(paths: list[str]) -> FileList:
    """Files named (``-`` is standard input; a missing file is reported when it is loaded), and ``*.jsonl`` /
    ``*.jsonl.zst`` files below folders named, sorted per folder; a folder that cannot be listed or holds no
    such file is a problem."""
    out = FileList()
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            found: list[str] = []
            errors: list[OSError] = []
            for folder, _, names in os.walk(path, onerror=errors.append, followlinks=False):
                for name in names:
                    if not (name.endswith(".jsonl") or name.endswith(".jsonl.zst")):
                        continue
                    full = os.path.join(folder, name)
                    kind = special_kind(full)  # reading a FIFO blocks forever, /dev/zero never ends
                    if kind is not None:
                        out.skipped.append(f"skipped {full}: {kind}, not a regular file")
                    else:
                        found.append(full)
            out.problems.extend(f"cannot read {e.filename}: {_reason(e)}" for e in errors)
            if not found and not errors and not out.skipped:
                out.problems.append(f"no .jsonl or .jsonl.zst files in {path}")
            out.files.extend(sorted(found))
        else:
            out.files.append(path)
    return out


def is_rollout_path(path: str, patterns: tuple[str, ...] | list[str] = ROLLOUT_PATTERNS) -> bool:
    """Whether ``path`` (``.zst`` aside) matches a rollout file pattern."""
    path = path.replace("\\", "/")
    path = path[:-4] if path.endswith(".zst") else path
    return any(glob_regex(p).search(path) for p in patterns)


@lru_cache(maxsize=64)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob (``**``, ``*``, ``?``, ``{a,b}``) as a regex matching the end of a path."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{":
            close = pattern.find("}", i)
            if close > i:
                out.append("(?:" + "|".join(re.escape(a) for a in pattern[i + 1 : close].split(",")) + ")")
                i = close + 1
                continue
            out.append(re.escape(c))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("(?:^|/)" + "".join(out) + "$")


LIMIT_ENV = "ROLLOUT_LSP_MAX_LINE"
DEFAULT_MAX_LINE = 128 * 1024 * 1024  # characters; the largest line of the real corpora is 222 thousand
_SKIP_PIECE = 1 << 20


def max_line() -> int:
    """The longest line read (characters): ``$ROLLOUT_LSP_MAX_LINE``, else :data:`DEFAULT_MAX_LINE`."""
    value = os.environ.get(LIMIT_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_MAX_LINE


def raw_lines(text: io.TextIOWrapper, limit: int) -> Iterator[tuple[str, int]]:
    """Each line with its terminator, as iterating ``text`` gives it, but never more than ``limit``
    characters at once: a longer line is read through in pieces and dropped, and given as its terminator
    alone with its length (a zstd bomb's 4 GB line is never held)."""
    pending: str | None = None

    def next_piece(size: int) -> str:
        nonlocal pending
        if pending is not None:
            piece, pending = pending, None
            return piece
        return text.readline(size)

    def completes_crlf(piece: str) -> str:
        """``piece`` ends with ``\r`` where a size limit cut: its ``\n`` may be the next piece."""
        nonlocal pending
        following = next_piece(limit + 1)
        if following == "\n":
            return piece + "\n"
        pending = following or None
        return piece

    while True:
        raw = next_piece(limit + 1)
        if not raw:
            return
        if len(raw) <= limit:
            yield raw, 0
            continue
        if raw.endswith("\r"):
            raw = completes_crlf(raw)
        if raw.endswith(("\n", "\r")) and len(raw.rstrip("\r\n")) <= limit:
            yield raw, 0
            continue
        size = len(raw.rstrip("\r\n"))
        ending = raw[len(raw.rstrip("\r\n")) :]
        while not ending:
            piece = next_piece(_SKIP_PIECE)
            if not piece:
                break
            if piece.endswith("\r"):
                piece = completes_crlf(piece)
            body = piece.rstrip("\r\n")
            size += len(body)
            ending = piece[len(body) :]
        yield ending, size


def long_line(number: int, size: int, limit: int) -> Finding:
    """The finding for line ``number``, of ``size`` characters, skipped."""
    return Finding(
        INVALID_JSON,
        f"a line of {size} characters, over the limit of {limit} ({LIMIT_ENV}): skipped, not read",
        Span(number, 0, 0),
    )


def load(path: str, max_bytes: int | None = None, most_lines: int | None = None) -> LoadedFile:
    """The text of ``path`` (``-``: standard input), never raising: an unreadable file is ``error``.  A
    compressed file, or one larger than the line limit, is read line by line, so that a line over the limit
    (:func:`max_line`) is skipped with a finding instead of read (its text is an empty line).

    Bounded (analysis.jsonl.limits): no more than :func:`~analysis.jsonl.limits.max_lines` lines are read, nor,
    of a ``.zst``, more than :func:`~analysis.jsonl.limits.max_decompressed` bytes; ``max_bytes`` and
    ``most_lines`` bound the bytes and lines of any file (a parent rollout's: their own variables).  Past a limit the text ends with an empty line that holds a
    ``file-limit`` finding."""
    try:
        if path != STDIN and (path.endswith(".zst") or os.path.getsize(path) > min(max_line(), max_bytes or MAX_BYTES)):
            return _load_lines(path, max_bytes, most_lines)
        data, cut = _read_bytes(path)
    except Exception as error:  # any I/O or decompression failure is reported, never raised
        name = "standard input" if path == STDIN else path
        return LoadedFile(path, error=f"cannot read {name}: {_reason(error)}")
    loaded = decode(path, data)
    if cut:  # standard input's zstd bomb: the text up to its last whole line
        loaded.text = loaded.text[: loaded.text.rfind("\n") + 1]
        loaded.findings.append(over_bytes(loaded.text.count("\n"), max_decompressed()))
    return within_lines(loaded, most_lines)


def within_lines(loaded: LoadedFile, most_lines: int | None = None) -> LoadedFile:
    """``loaded`` cut after :func:`~analysis.jsonl.limits.max_lines` lines, with a ``file-limit`` finding."""
    limit = max_lines() if most_lines is None else most_lines
    text = loaded.text
    if text.count("\n") + text.count("\r") < limit:  # fewer breaks than the limit: fewer lines than it + 1
        return loaded
    lines = split_lines(text)
    if len(lines) <= limit or len(lines) == limit + 1 and lines[-1] == "":
        return loaded
    kept = "".join(line + "\n" for line in lines[:limit])
    loaded.text = kept
    variable = LINES_ENV if most_lines is None else PARENT_LINES_ENV
    loaded.findings = [f for f in loaded.findings if f.span.line < limit] + [over_lines(limit, limit, variable)]
    return loaded


class Capped(io.RawIOBase):
    """The first ``limit`` bytes of ``source``; ``over`` tells, once they have been read, whether there was
    more (one byte past them is read to know)."""

    def __init__(self, source: io.RawIOBase | io.BufferedIOBase | BinaryIO, limit: int) -> None:
        self._source, self._left, self.over = source, limit, False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._source.close()
        super().close()

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        if self._left <= 0:
            self.over = self.over or bool(self._source.read(1))
            return 0
        data = self._source.read(min(len(view), self._left))
        if not data:
            return 0
        view[: len(data)] = data
        self._left -= len(data)
        return len(data)


def capped_binary(handle: io.BufferedReader, compressed: bool, max_bytes: int | None = None) -> io.BufferedReader:
    """The bytes of ``handle`` (decompressed when ``compressed``), read through a :class:`Capped` reader (its
    ``raw``) that stops at ``max_bytes``, or at :func:`~analysis.jsonl.limits.max_decompressed` for a
    compressed file (a plain one is only bounded by ``max_bytes``)."""
    source: io.RawIOBase | io.BufferedReader = ZstdReader(handle) if compressed else handle
    limit = max_bytes if max_bytes is not None else max_decompressed() if compressed else MAX_BYTES
    return io.BufferedReader(Capped(source, min(limit, MAX_BYTES)), 1 << 20)


def _load_lines(path: str, max_bytes: int | None = None, most_lines: int | None = None) -> LoadedFile:
    limit = max_line()
    variable = LINES_ENV if most_lines is None else PARENT_LINES_ENV
    most_lines = max_lines() if most_lines is None else most_lines
    pieces: list[str] = []
    findings: list[Finding] = []
    bytes_variable = DECOMPRESSED_ENV if max_bytes is None else PARENT_BYTES_ENV
    with open_regular(path) as handle:
        binary = capped_binary(handle, path.endswith(".zst"), max_bytes)
        capped = cast(Capped, binary.raw)
        with io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="") as text:
            for number, (raw, skipped) in enumerate(raw_lines(text, limit)):
                if number == most_lines:  # a line after the last one allowed
                    findings.append(over_lines(number, most_lines, variable))
                    break
                if skipped:
                    findings.append(long_line(number, skipped, limit))
                body = raw.rstrip("\r\n")
                # every terminator as \n: a skipped line's own must not join a \r before it into one \r\n
                pieces.append(body + "\n" if len(body) < len(raw) else body)
            if capped.over:  # the last piece is a line the limit cut: it is not read
                if pieces and not pieces[-1].endswith("\n"):
                    pieces.pop()
                limit_bytes = max_bytes if max_bytes is not None else max_decompressed()
                findings = [f for f in findings if f.span.line < len(pieces)]
                findings.append(over_bytes(len(pieces), limit_bytes, bytes_variable))
    loaded = decode_text(path, "".join(pieces))
    loaded.findings = sorted(findings + loaded.findings, key=lambda f: f.span.line)
    return loaded


def decode(path: str, data: bytes) -> LoadedFile:
    """Text of ``data``; bytes that are not UTF-8 become U+FFFD and an ``invalid-json`` finding."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return decode_text(path, data.decode("utf-8", "surrogateescape"))
    return LoadedFile(path, strip_bom(text))  # strict UTF-8 holds no escaped byte: nothing to look for


def decode_text(path: str, text: str) -> LoadedFile:
    """``text`` decoded with ``surrogateescape``: each escaped byte becomes U+FFFD and a finding."""
    loaded = LoadedFile(path)
    text = strip_bom(text)
    if _BAD_BYTE.search(text):
        for number, line in enumerate(split_lines(text)):
            m = _BAD_BYTE.search(line)
            if m:
                byte = ord(m.group()) - 0xDC00
                loaded.findings.append(
                    Finding(INVALID_JSON, f"not UTF-8: byte 0x{byte:02x}", Span(number, m.start(), m.start() + 1))
                )
        text = _BAD_BYTE.sub("\ufffd", text)
    loaded.text = text
    return loaded


def _read_bytes(path: str) -> tuple[bytes, bool]:
    """The bytes of ``path`` (never a ``.zst``: :func:`load` reads those by lines), and whether standard input's
    zstd was cut at :func:`~analysis.jsonl.limits.max_decompressed`."""
    if path == STDIN:
        data = read_at_most(sys.stdin.buffer, MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ValueError("standard input over 2 GiB")
        if not data.startswith(ZSTD_MAGIC):
            return data, False
        limit = max_decompressed()
        out = ZstdReader(io.BytesIO(data)).read_up_to(limit + 1)
        return out[:limit], len(out) > limit
    with open_regular(path) as handle:
        return handle.read(), False  # no larger than the line limit (load reads a larger file by lines)


def read_at_most(handle: BinaryIO, limit: int, expected: int = 0) -> bytes:
    """Up to ``limit`` bytes of ``handle``, read a piece at a time (``read(limit)`` would reserve them all).

    ``expected``: how many bytes the handle should hold (a regular file's size), read as the first piece, one
    byte more to see the end: a file that is as big as it was is then read in one piece, which is the result
    itself, where pieces of 1 MiB were joined into a copy of the whole file."""
    pieces: list[bytes] = []
    total = 0
    first = min(expected + 1, limit) if expected > 1 << 20 else 0
    while total < limit:
        piece = handle.read(first or min(1 << 20, limit - total))
        first = 0
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return b"".join(pieces)


def open_regular(path: str) -> io.BufferedReader:
    """``path`` opened for reading, unless it is a device or a socket (a FIFO named on the command line,
    ``<(zstdcat f)``, is read: its user meant it; a folder scan skips FIFOs too, see :func:`find_rollout_files`)."""
    # "rb" with a buffer size: a BufferedReader (typeshed says BinaryIO for a size that is not a literal)
    handle = cast(io.BufferedReader, open(path, "rb", buffering=1 << 20))
    kind = os.fstat(handle.fileno()).st_mode
    if stat.S_ISCHR(kind) or stat.S_ISBLK(kind) or stat.S_ISSOCK(kind):
        handle.close()
        raise ValueError(f"not a regular file ({_KINDS.get(stat.S_IFMT(kind), 'a special file')})")
    return handle


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def special_kind(path: str) -> str | None:
    """What ``path`` is when it is not a regular file (``a FIFO``, ``a socket``, ``a character device``);
    None for a regular file or one that cannot be examined (reading it says why)."""
    try:
        kind = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(kind):
        return None
    return _KINDS.get(stat.S_IFMT(kind), "not a regular file")


# compressed bytes decompressed at once: a zstd block of 4 bytes (an RLE block) can make 128 KiB, so 512
# bytes make at most 16 MiB, whatever the file (zstandard's decompressor object returns all it can make)
ZSTD_FEED = 512


class ZstdReader(io.RawIOBase):
    """The decompressed bytes of a Zstandard stream, frame after frame, in constant memory.  Unlike
    ``zstandard``'s stream reader, a stream that ends inside a frame (a truncated file) is an error, never a
    shorter rollout; corrupt data raises ``zstandard.ZstdError``."""

    def __init__(self, source: BinaryIO) -> None:
        import zstandard

        self._zstd = zstandard.ZstdDecompressor()
        self._source = source
        self._frame = self._zstd.decompressobj()
        self._started = False  # bytes of the current frame have been read
        self._pending = b""
        self._at = 0  # bytes of _pending already handed out

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._source.close()
        super().close()

    def read_up_to(self, limit: int) -> bytes:
        """Everything, or the first ``limit`` bytes: a bomb stops there."""
        out = bytearray()
        piece = bytearray(1 << 20)
        while len(out) < limit:
            got = self.readinto(piece)
            if not got:
                break
            out += piece[:got]
        return bytes(out[:limit])

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        while self._at >= len(self._pending):
            data = self._source.read(ZSTD_FEED)
            if not data:
                if self._started and not self._frame.eof:
                    raise ValueError("truncated zstd data: the file ends inside a frame")
                return 0
            self._pending, self._at = self._feed(data), 0
        size = min(len(view), len(self._pending) - self._at)
        view[:size] = self._pending[self._at : self._at + size]
        self._at += size
        return size

    def _feed(self, data: bytes) -> bytes:
        out = []
        while data:
            if self._frame.eof:  # the next frame of a concatenated stream
                self._frame = self._zstd.decompressobj()
            self._started = True
            out.append(self._frame.decompress(data))
            data = self._frame.unused_data if self._frame.eof else b""
        return b"".join(out)


def decompressed_if_zstd(data: bytes) -> bytes:
    """``data``, decompressed when it is a Zstandard frame (standard input may be either)."""
    return _decompressed(data) if data.startswith(ZSTD_MAGIC) else data


def _decompressed(data: bytes) -> bytes:
    limit = max_decompressed()
    out = ZstdReader(io.BytesIO(data)).read_up_to(limit + 1)
    if len(out) > limit:
        raise ValueError(f"it decompresses to more than {limit} bytes (the limit, {DECOMPRESSED_ENV})")
    return out


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
