"""Reading a rollout one line at a time (plain, zstd-compressed, or standard input), in constant memory.

The lines, and the ``invalid-json`` findings for bytes that are not UTF-8, are exactly those
:func:`analysis.jsonl.source.load` and :func:`analysis.jsonl.lines.split_lines` give for the whole file: a BOM
at the start is dropped, only ``\\r\\n``, ``\\r`` and ``\\n`` end a line, a final terminator yields a
last empty line, and a byte that is not UTF-8 becomes U+FFFD.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from itertools import repeat
from typing import cast

from .findings import INVALID_JSON, Finding
from .limits import DECOMPRESSED_ENV, PARENT_BYTES_ENV, max_decompressed, max_lines, over_bytes, over_lines
from .lines import BOM
from .positions import Span
from .source import STDIN, ZSTD_MAGIC, Capped, capped_binary, long_line, max_line, open_regular

_BAD_BYTE = re.compile("[\udc80-\udcff]")
_BREAK = re.compile(rb"\r\n|\r|\n")
_BOM_BYTES = BOM.encode()
READ_BUFFER = 1 << 20


class Unreadable(Exception):
    """The file could not be read (``message`` is what :func:`analysis.jsonl.source.load` would say)."""


def reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


@contextmanager
def opened(path: str) -> Iterator[str]:
    """A path that can be read more than once: standard input is copied to a temporary file first
    (on disk, not in memory); any other path is itself."""
    if path != STDIN:
        yield path
        return
    with tempfile.NamedTemporaryFile(prefix="rollout-lsp-stdin-", suffix=".jsonl", delete=False) as spool:
        try:
            shutil.copyfileobj(sys.stdin.buffer, spool, READ_BUFFER)
        except Exception as error:
            os.unlink(spool.name)
            raise Unreadable(f"cannot read standard input: {reason(error)}") from error
    try:
        yield spool.name
    finally:
        os.unlink(spool.name)


def _binary(path: str, sniff: bool, max_bytes: int | None = None) -> io.BufferedReader:
    """The file's bytes, decompressed when it is zstd (by its name, or by its first bytes when ``sniff``),
    through a :class:`Capped` reader (its ``raw``) at the limit (:func:`analysis.jsonl.source.capped_binary`)."""
    handle = open_regular(path)
    compressed = path.endswith(".zst") or sniff and handle.peek(4)[:4] == ZSTD_MAGIC
    return capped_binary(handle, compressed, max_bytes)  # a truncated file is an error


def read_lines(
    path: str,
    name: str | None = None,
    sniff: bool = False,
    chunk_size: int = READ_BUFFER,
    max_bytes: int | None = None,
    raw: bool = False,
) -> Generator[tuple[str, Finding | None], None, None]:
    """Each line of ``path`` (its text, and the finding for a byte that is not UTF-8, on its line).

    ``name`` is how errors name the file (``standard input``); ``sniff`` reads a zstd file whatever its
    name (as standard input is read).  Raises :class:`Unreadable`.

    Bytes are read up to ``chunk_size`` at a time; the whole lines in them are split as bytes and each is
    decoded strictly, and only a line that fails (a byte that is not UTF-8 in it) is decoded again with
    ``surrogateescape`` and cleaned by :func:`_clean`.  Since ``\\r`` and ``\\n`` never occur inside a UTF-8
    sequence, a line decodes alone exactly as it does inside the whole file.

    Bounded (analysis.jsonl.limits): after :func:`~analysis.jsonl.limits.max_lines` lines, or the bytes of a
    ``.zst`` past :func:`~analysis.jsonl.limits.max_decompressed` (``max_bytes``: of any file), the last line
    given is an empty one with a ``file-limit`` finding, and nothing more is read.  ``raw``: the lines decoded
    strictly in one go are given with their bytes as a third item (:func:`read_raw_lines` gives every line so)."""
    name = name or path
    try:
        binary = _binary(path, sniff, max_bytes)
    except Exception as error:
        raise Unreadable(f"cannot read {name}: {reason(error)}") from error
    try:
        with binary:
            capped = cast(Capped, binary.raw)
            yield from _bounded(_lines(binary.read1, chunk_size, max_line(), raw), capped, max_bytes)
    except Exception as error:  # any I/O or decompression failure is reported, never raised
        raise Unreadable(f"cannot read {name}: {reason(error)}") from error


RawLine = tuple[str, "Finding | None", "bytes | None"]  # a line, its bad-byte finding, its bytes (or None)


def read_raw_lines(path: str, name: str | None = None, sniff: bool = False) -> Generator[RawLine, None, None]:
    """:func:`read_lines` with each line's UTF-8 bytes as the file holds them, or None when they are not its text
    encoded (a byte that is not UTF-8, a BOM dropped, a line over the limit): the secret prefilter's RE2 reads
    UTF-8, and encoding every line again cost 3% of ``check`` of the wild rollouts (their Chinese text most)."""
    for line in read_lines(path, name, sniff, raw=True):
        yield line if len(line) == 3 else (line[0], line[1], None)


def _bounded(
    lines: Iterator[tuple[str, Finding | None]], capped: Capped, max_bytes: int | None
) -> Iterator[tuple[str, Finding | None]]:
    """``lines`` up to the limits: the line after the last allowed, or the line the byte limit cut, is given
    as an empty line with a ``file-limit`` finding, and ends them."""
    most = max_lines()
    held: tuple[str, Finding | None] | None = None  # the last line: the byte limit may have cut it
    number = -1
    for number, line in enumerate(lines):
        if number == most:
            # the empty line after the last terminator (a raw line has its bytes, b"", beside it)
            if line[0] == "" and line[1] is None and next(lines, None) is None:
                yield from (*([held] if held is not None else []), line)
                return
            if held is not None:
                yield held
            yield "", over_lines(number, most)
            return
        if held is not None:
            yield held
        held = line
    if held is None:
        return
    if capped.over:
        limit = max_bytes if max_bytes is not None else max_decompressed()
        yield "", over_bytes(number, limit, DECOMPRESSED_ENV if max_bytes is None else PARENT_BYTES_ENV)
    else:
        yield held


def _lines(
    read: Callable[[int], bytes], chunk_size: int, limit: int, raw: bool = False
) -> Iterator[tuple[str, Finding | None]]:
    number = 0
    parts: list[bytes] = []  # the bytes read of the line not ended yet
    held = 0  # their length
    counted: _Characters | None = None  # the characters of ``parts``, counted once they may be over the limit
    skipping: _Characters | None = None  # a line over the limit, read through and dropped: its characters so far
    after_cr = False  # the last byte read ended a line with \r: a \n first in the next bytes is part of it
    while True:
        data = read(chunk_size)
        if not data:
            break
        if after_cr:
            after_cr = False
            if data[0] == 0x0A:
                data = data[1:]
        if skipping is not None:
            end = _first_break(data)
            if end < 0:
                skipping.add(data)
                continue
            skipping.add(data[:end], final=True)
            yield "", long_line(number, skipping.chars, limit)
            number += 1
            skipping = None
            if data[end] == 0x0D and end + 1 < len(data) and data[end + 1] == 0x0A:
                end += 1
            elif data[end] == 0x0D and end + 1 == len(data):
                after_cr = True
            data = data[end + 1 :]
        cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
        if cut:
            if parts:
                parts.append(data[:cut])
                region = b"".join(parts)
                parts, held, counted = [], 0, None
            else:
                region = data if cut == len(data) else data[:cut]
            after_cr = cut == len(data) and data[cut - 1] == 0x0D
            number = yield from _region(region, number, limit, False, raw)
            data = data[cut:]
        if data:
            parts.append(data)
            held += len(data)
            if counted is not None:
                counted.add(data)
            elif held > limit:  # over the limit in bytes, perhaps in characters: count them from now on
                counted = _Characters()
                for part in parts:
                    counted.add(part)
            if counted is not None and counted.chars > limit:
                skipping, counted, parts, held = counted, None, [], 0
    if skipping is not None:
        skipping.add(b"", final=True)
        yield "", long_line(number, skipping.chars, limit)
    else:
        yield from _region(b"".join(parts), number, limit, True, raw)


def _region(
    region: bytes, number: int, limit: int, last: bool, raw: bool = False
) -> Generator[tuple[str, Finding | None], None, int]:
    """The lines of ``region`` (whole lines, each with its terminator; ``last``: the file's last line, without
    one), from line ``number`` on; returns the number of the line after them.  Each line is decoded on its own
    (a line of ASCII stays a compact string whatever its neighbours hold)."""
    parts = _split_lf(region) if b"\r" not in region else _BREAK.split(region)
    if not last:
        parts.pop()  # the empty bytes after the region's last terminator: the next line starts in later bytes
    if len(region) <= limit and (number or not region.startswith(_BOM_BYTES)):
        try:
            lines = [part.decode() for part in parts]
        except UnicodeDecodeError:
            pass  # a byte that is not UTF-8: each line as below
        else:
            # the common case: nothing to clean, nothing over the limit (``raw``: each line's bytes beside it)
            yield from zip(lines, repeat(None), parts) if raw else zip(lines, repeat(None))
            return number + len(lines)
    for part in parts:
        try:
            line, clean = part.decode(), True
        except UnicodeDecodeError:
            line, clean = part.decode("utf-8", "surrogateescape"), False
        if len(line) > limit:
            yield "", long_line(number, len(line), limit)
        else:
            if number == 0 and line.startswith(BOM):
                line = line[1:]
            yield (line, None) if clean else _clean(line, number)
        number += 1
    return number


def _split_lf(region: bytes) -> list[bytes]:
    """``region.split(b"\\n")``, found a line at a time by ``bytes.find`` (``memchr``): ``bytes.split`` steps
    through every byte (5 instructions a byte, 2.7% of ``check`` of the wild rollouts, whose lines are
    kilobytes long); ``find`` skips a long line in a fraction of that.  A line costs the loop a few hundred
    instructions more than it costs ``split``, so once the lines found average under 128 bytes (a region of
    short lines) the rest is split by ``bytes.split``."""
    parts: list[bytes] = []
    append = parts.append
    find = region.find
    start = 0
    for _ in range((len(region) >> 7) + 1):
        end = find(b"\n", start)
        if end < 0:
            append(region[start:])
            return parts
        append(region[start:end])
        start = end + 1
    parts += region[start:].split(b"\n")
    return parts


def _first_break(data: bytes) -> int:
    """Where the first line terminator of ``data`` is, or -1."""
    lf, cr = data.find(b"\n"), data.find(b"\r")
    return lf if cr < 0 else cr if lf < 0 else min(lf, cr)


class _Characters:
    """How many characters bytes decode to (each byte that is not UTF-8 one), however they are cut."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.chars = 0

    def add(self, data: bytes, final: bool = False) -> None:
        self.chars += len(self._decoder.decode(data, final))


def _clean(line: str, number: int) -> tuple[str, Finding | None]:
    if line.isascii():
        return line, None
    m = _BAD_BYTE.search(line)
    if m is None:
        return line, None
    byte = ord(m.group()) - 0xDC00
    finding = Finding(INVALID_JSON, f"not UTF-8: byte 0x{byte:02x}", Span(number, m.start(), m.start() + 1))
    return _BAD_BYTE.sub("\ufffd", line), finding


__all__ = ["RawLine", "Unreadable", "opened", "read_lines", "read_raw_lines", "reason"]
