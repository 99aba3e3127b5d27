"""Tool outputs: the exec status header, exec_command result blocks, exit codes.

An output body is a string or a list of ``input_text``/``input_image`` items.
Code-mode ``exec`` outputs start with a status header
(``Script completed\\nWall time 0.4 seconds\\nOutput:\\n``), then every ``text()``
item, and on failure a ``Script error:`` item.

A large output does not keep its decoded text items: the document's line holds the same text (JSON-escaped),
so the output keeps a reference to that line and reads it again when its texts are asked for (a hover, an
export).  Small outputs keep theirs: reading them again would cost more than they take.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from ..jsonl.decoding import loads
from ..jsonl.lines import bom_as_space
from ..jsonl.pickling import pickled_by_fields
from .records import parse_record

_HEADER = re.compile(
    r"Script (completed|failed|terminated|running with cell ID (\S+))\r?\n"
    r"Wall time ([0-9]+(?:\.[0-9]+)?) seconds\r?\n(?:Output:\r?\n)?"
)
_EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code) (-?[0-9]{1,10})\b", re.MULTILINE)
_WALL_LINE = re.compile(r"^Wall time:? ([0-9]+(?:\.[0-9]+)?) seconds", re.MULTILINE)
FAILED_PREFIXES = ("apply_patch verification failed", "Script error:")
# a write_stdin whose writing failed (``write_stdin failed: stdin is closed for this session``): it says only
# that writing failed, not that the process ended (analysis.session.continuations)
WRITE_FAILED, WRITE_FAILED_PREFIX = "write_failed", "write_stdin failed:"
_RUNNING_WORDS = "Process running with session ID"
_RUNNING_LINE = re.compile(r"^%s ([0-9]{1,20})" % _RUNNING_WORDS, re.MULTILINE)
_STATUS_HEADER = re.compile(r"Script (?:completed|failed|terminated|running with cell ID)")
# an output whose text items add up to more characters than this keeps none of them, only its line: in bench's
# 50 MB rollout the outputs above it hold 99.7% of all output text (39 of its 50 MB), and reading one again for a
# hover costs about a millisecond per 100 KB of line.  Below it the texts cost about what the output object does.
KEPT_TEXT = 256
# ... unless they are less than this share of their line (the rest an image's data URL, say): then keeping them
# costs little next to the line, and reading them again would mean decoding all of it
KEPT_SHARE = 8


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ExecResult:
    """A text item that is an ``exec_command``/``write_stdin`` result object (``texts[index]``)."""

    exit_code: int | None
    index: int
    session_id: int | None = None


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What one output record says."""

    status: str | None  # completed, failed, running, terminated, write_failed; None when not known
    wall_time: float | None
    # the text items after the status header; None when they are not kept but read again from ``line``
    kept_texts: tuple[str, ...] | None
    results: tuple[ExecResult, ...] = field(default=())
    error: str | None = None
    cell_id: str | None = None
    exit_code: int | None = None  # from a top-level call's output
    images: int = 0
    session_id: str | None = None  # a top-level command that left its process running (for write_stdin)
    # the output record's line when ``kept_texts`` is None: the string the analysis read (the key of its line
    # cache, the document's own string when it was read), never a copy; equal lines make equal outputs
    line: str | None = field(default=None, repr=False)

    @property
    def texts(self) -> tuple[str, ...]:
        """The text items after the status header (read again from the record's line when not kept; the last
        output read again is remembered, as a pointer resting on a call asks for its hover again and again)."""
        if self.kept_texts is not None:
            return self.kept_texts
        if self.line is None:
            return ()
        return READ_AGAIN.texts_of(self.line)

    @property
    def exit_codes(self) -> list[int]:
        if self.exit_code is not None:
            return [self.exit_code]
        return [r.exit_code for r in self.results if r.exit_code is not None]

    def text(self) -> str:
        return "\n".join(self.texts)

    def result_output(self, result: ExecResult) -> str:
        """The ``output`` of a result block, decoded when asked (it is not kept twice)."""
        return _result_output(self.texts[result.index])


def readable_text(output: ToolOutput) -> str:
    """An output's texts for people: exec_command result blocks as their exit code and decoded output."""
    by_index = {r.index: r for r in output.results}
    parts = []
    for index, text in enumerate(output.texts):  # asked once: an output that keeps no texts reads them again
        result = by_index.get(index)
        if result is None:
            parts.append(text)
            continue
        head = (
            f"[exit {result.exit_code}]"
            if result.exit_code is not None
            else f"[running, session {result.session_id}]"
            if result.session_id is not None
            else "[result]"
        )
        parts.append(f"{head}\n{_result_output(text).rstrip()}")
    if output.error:
        parts.append("Script error: " + output.error)
    return "\n".join(parts)


def _result_output(text: str) -> str:
    value = json.loads(text)
    return str(value.get("output"))


def read_output(body: Any, line: str | None = None) -> ToolOutput:
    """An output body, read as an exec output when it starts with a status header.  With the record's
    ``line``, an output whose texts are large (and at least an eighth of their line) keeps that line in their
    place."""
    return read_exec_output(body, line) if _is_exec(body) else read_call_output(body, line)


def _output(line: str | None, status: str | None, wall: float | None, texts: tuple[str, ...], *rest: Any) -> ToolOutput:
    """``ToolOutput(status, wall, texts, *rest)`` (``rest``: every field up to the line), or, with the record's
    ``line`` when the texts are large (and at least an eighth of their line), the output keeping that line in
    their place: made once, not made and copied (stop 41: the copy cost as much as making the output)."""
    if line is not None:
        total = sum(map(len, texts))
        if total > KEPT_TEXT and total * KEPT_SHARE >= len(line):
            results, error, cell, exit_code, images, session = rest
            return ToolOutput(status, wall, None, results, error, cell, exit_code, images, session, line)
    return ToolOutput(status, wall, texts, *rest)


def _is_exec(body: Any) -> bool:
    """Whether an output body starts with a code-mode status header."""
    first = (
        body
        if isinstance(body, str)
        else next((getattr(i, "text", None) for i in body if getattr(i, "text", None) is not None), None)
        if isinstance(body, list)
        else None
    )
    return first is not None and _STATUS_HEADER.match(first) is not None


class LastRead:
    """The output whose texts were read again from its line last, and those texts: a pointer resting on a call
    asks for its hover again and again.  One per process (:data:`READ_AGAIN`): an output knows its line, not
    the document or memo that made it; each :class:`~analysis.session.memo.LineCache` holds it and lets it go
    when it prunes the output's line."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        # (the line the texts were read from, the texts): replaced whole, never mutated, so a reader on another
        # thread sees a line with its own texts; the line is the very string, compared with ``is``
        self.last: tuple[str | None, tuple[str, ...]] = (None, ())

    @property
    def line(self) -> str | None:
        return self.last[0]

    def texts_of(self, line: str) -> tuple[str, ...]:
        """The texts of the output record on ``line``, read again unless ``line`` is the one read last."""
        read, texts = self.last
        if read is not line:
            texts = _texts_of_line(line)
            self.last = (line, texts)
        return texts

    def forget(self, keep: Collection[str] = ()) -> None:
        """Let go of the output remembered last unless its line is in ``keep`` (a document's lines after an
        edit: a line edited away, or a closed document's, must not stay in memory for it)."""
        read = self.last[0]
        if read is not None and read not in keep:
            self.last = (None, ())


READ_AGAIN = LastRead()


def forget_read_again(keep: Collection[str] = ()) -> None:
    """:meth:`LastRead.forget` of :data:`READ_AGAIN` (lsp_server.store calls it when a document closes)."""
    READ_AGAIN.forget(keep)


def _texts_of_line(line: str) -> tuple[str, ...]:
    """The texts of the output record on ``line``, exactly as the first reading found them (the same record
    reader, the same output reader, without re-reading the exit codes)."""
    text = bom_as_space(line)
    try:
        body = _output_of(text)
    except RecursionError:
        body = _on_a_fresh_stack(_output_of, text)
    if _is_exec(body):
        return tuple(_exec_texts(body)[0])
    return read_call_output(body).kept_texts or ()


def _output_of(text: str) -> Any:
    return parse_record(json.loads(text)).item.output


def _on_a_fresh_stack(function: Callable[[str], Any], text: str) -> Any:
    """``function(text)`` in a new thread.  The C JSON decoder counts nesting against the recursion limit, and
    a hover asks from deeper in the stack than the first reading ran: a line nested almost to the limit, which
    the first reading read, is read again from the bottom of a stack, as shallow as the first reading's."""
    found: list = []

    def read() -> None:
        try:
            found.append(function(text))
        except (RecursionError, ValueError):  # no output to show rather than a traceback on stderr
            pass

    worker = threading.Thread(target=read, name="rollout-reread")
    worker.start()
    worker.join()
    return found[0] if found else None


def _items(body: Any) -> tuple[list[str], int]:
    if isinstance(body, str):
        return [body], 0
    if isinstance(body, dict):  # an old {content, success} body
        content = body.get("content")
        return _items(content) if content is not None else ([json.dumps(body)], 0)
    texts: list[str] = []
    images = 0
    for item in body or []:
        text = getattr(item, "text", None)
        if text is not None:
            texts.append(text)
        elif getattr(item, "type", None) == "input_image":
            images += 1
    return texts, images


def read_exec_output(body: Any, line: str | None = None) -> ToolOutput:
    """The output of a code-mode ``exec`` (or ``wait``) call (with its record's ``line``: see :func:`read_output`)."""
    texts, images, status, wall, cell, error = _exec_texts(body)
    # which texts may be result objects told here, before a call for each (most texts of a long output are)
    found = [_exec_result(t, i) for i, t in enumerate(texts) if t.startswith("{") and '"output"' in t]
    results = tuple([r for r in found if r is not None]) if found else ()
    return _output(line, status, wall, tuple(texts), results, error, cell, None, images, None)


def _exec_texts(body: Any) -> tuple[list[str], int, str | None, float | None, str | None, str | None]:
    """An exec output's text items without its status header and error, its image count, and what the
    header and the error say: (texts, images, status, wall time, cell id, error)."""
    texts, images = _items(body)
    status = wall = cell = None
    if texts:
        m = _HEADER.match(texts[0])
        if m:
            status = "running" if m.group(1).startswith("running") else m.group(1)
            cell = m.group(2)
            wall = float(m.group(3))
            rest = texts[0][m.end() :]
            texts = ([rest] if rest else []) + texts[1:]
    error = None
    if texts and texts[-1].startswith("Script error:"):
        error = texts[-1][len("Script error:") :].strip()
        texts = texts[:-1]
        status = "failed"  # the script threw: whatever the header said, it did not complete
    return texts, images, status, wall, cell, error


# a command tool's result thrown as the script's error (``shell_command`` with a non-zero exit, as Windows
# sessions show it): ``Script error:\nExit code: 1\nWall time: 0.4 seconds\nOutput:\n…``
_THROWN = re.compile(r"Exit code: (-?\d+)\r?\nWall time: ")


def thrown_exit(error: str | None) -> int | None:
    """The exit code of a command whose result the script threw as its error; None for any other error."""
    m = _THROWN.match(error) if error else None
    return int(m.group(1)) if m else None


def thrown_error(code: int) -> str:
    """The shortest error text :func:`thrown_exit` reads as ``code`` (what a thinned output keeps)."""
    return f"Exit code: {code}\nWall time: "


def read_call_output(body: Any, line: str | None = None) -> ToolOutput:
    """The output of a top-level call: ``exec_command``, ``shell``, ``local_shell_call``, ``apply_patch``, …
    (with its record's ``line``: see :func:`read_output`)

    ``failed`` when it says so (``apply_patch verification failed``); the exit code from the text
    (``Exit code: 1``, ``Process exited with code 130``) or from a JSON output's ``metadata.exit_code``."""
    texts, images = _items(body)
    text = "\n".join(texts)
    exit_code = wall = session = None
    status = "failed" if text.startswith(FAILED_PREFIXES) else "completed"
    if text.startswith(WRITE_FAILED_PREFIX):
        failure = text.split("\n", 1)[0].strip()[:500]  # kept as its error: a streamed reading keeps it too
        return _output(line, WRITE_FAILED, None, tuple(texts), (), failure, None, None, images, None)
    try:
        value = json.loads(text) if text.startswith("{") else None
    except ValueError:
        value = None
    if isinstance(value, dict) and "output" in value:
        found_meta = value.get("metadata")
        meta: dict[str, Any] = found_meta if isinstance(found_meta, dict) else {}
        exit_code = _int(meta.get("exit_code", value.get("exit_code")))
        wall = _float(meta.get("duration_seconds", value.get("wall_time_seconds")))
        texts = [str(value["output"])]
    else:
        head, starts = _head_and_starts(text)  # the lines before ``Output:``: a command's own output may say anything
        if starts is not None:  # the first three lines: each expression tried at their starts only
            m = _at_a_start(_EXIT_LINE, head, starts)
            exit_code = int(m.group(1)) if m else None
            m = _at_a_start(_WALL_LINE, head, starts)
            wall = float(m.group(1)) if m else None
            running = _at_a_start(_RUNNING_LINE, head, starts) if exit_code is None else None
        else:
            # each expression is tried only on a head holding its words: a ``^`` in MULTILINE mode has no literal
            # for ``re`` to look for, so it steps through every character (a list's text, one long line, is
            # often all of its head: three such searches were a third of reading the wild rollouts' outputs)
            m = _EXIT_LINE.search(head) if "Exit code:" in head or "Process exited with code" in head else None
            exit_code = int(m.group(1)) if m else None
            m = _WALL_LINE.search(head) if "Wall time" in head else None
            wall = float(m.group(1)) if m else None
            running = _RUNNING_LINE.search(head) if exit_code is None and _RUNNING_WORDS in head else None
        if running:
            status = "running"
            session = running.group(1)
    return _output(line, status, wall, tuple(texts), (), None, None, exit_code, images, session)


def _head(text: str) -> str:
    """The header of a command output: its lines before the ``Output:`` line (the first three without one)."""
    return _head_and_starts(text)[0]


def _head_and_starts(text: str) -> tuple[str, tuple[int, ...] | None]:
    """:func:`_head`, and, when it is the first three lines, where they start."""
    at = text.find("Output:")
    while at > 0 and text[at - 1] != "\n":
        at = text.find("Output:", at + 1)
    if at >= 0:
        return text[:at], None
    # no ``Output:`` line: the header is at most three lines, whose starts are the only places its expressions can
    # match (stop 41: a tool's result in one long line, a JSON list, was searched through four times over; now
    # each expression is tried at three places, and the text is not split)
    starts = [0]
    while len(starts) < 3:
        found = text.find("\n", starts[-1])
        if found < 0:
            return text, tuple(starts)
        starts.append(found + 1)
    found = text.find("\n", starts[-1])
    return (text if found < 0 else text[:found]), tuple(starts)


def _at_a_start(pattern: re.Pattern[str], head: str, starts: tuple[int, ...]) -> re.Match[str] | None:
    """``pattern.search(head)`` for a ``^``-anchored MULTILINE pattern and a head whose lines start at ``starts``."""
    for start in starts:
        m = pattern.match(head, start)
        if m is not None:
            return m
    return None


def _exec_result(text: str, index: int) -> ExecResult | None:
    """The result object of ``text`` (one that starts with ``{`` and holds ``"output"``), or None."""
    try:
        # the C scanner without json.loads' three Python frames and two whitespace matches (the same value or
        # the same refusal): a long exec output holds a result object in each of its texts
        value = loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or "output" not in value or "wall_time_seconds" not in value:
        return None
    return ExecResult(_int(value.get("exit_code")), index, _int(value.get("session_id")))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
