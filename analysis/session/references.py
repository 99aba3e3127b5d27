"""Forks and segments by reference: a rollout that holds only what happened after the history it inherits.

From Codex 0.147 on, a fork in paginated history does not copy its parent's records.  Its ``session_meta``
carries ``history_base`` (``thread_id``, ``end_ordinal_exclusive``, ``end_byte_offset``): the inherited
history is the parent's rollout up to that byte offset (of its plain text; ``thread_id`` there is the
parent's *rollout* id, the last id in its file name, which for a reverted thread is the ``_<rollout id>``
after the thread's id).  A segmented thread starts a new file with a ``rollout_reference`` record
(``rollout_path``, ``thread_id``, ``rollout_id``, ``segment_id``, ``max_depth``, ``nth_user_message``, …)
naming the previous segment, inherited whole (or, for an old-style fork, up to its ``nth_user_message``).

:func:`references` reads them from one rollout; :func:`resolve` finds the parent's file (its
``rollout_path`` when it exists here inside a Codex sessions folder, else by id in the sessions tree and the
workspace, ``.jsonl`` or ``.jsonl.zst``: analysis.jsonl.access decides what may be read) and what is inherited
of it (lines, turns).  A parent that cannot be found is a ``parent-missing`` finding,
never an error: :func:`parent_findings` makes them, and :mod:`analysis.session.finish` joins them to a file's
findings, the same for every way of reading it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..jsonl.access import ROLLOUT_BY_PATH, Access
from ..jsonl.findings import FILE_LIMIT, PARENT_MISSING, Finding
from ..jsonl.jsonspans import locate
from ..jsonl.lazy_pattern import lazy
from ..jsonl.limits import max_parent_bytes, max_parent_lines
from ..jsonl.lines import split_lines
from ..jsonl.memo import once_per_object
from ..jsonl.positions import Span
from ..jsonl.source import load
from .rollout import RolloutAnalysis
from .turns import scan_turns

HISTORY_BASE, ROLLOUT_REFERENCE = "history_base", "rollout_reference"
_REFERENCE_RECORDS = frozenset({"rollout_reference", "fork_reference"})


@dataclass(frozen=True, slots=True)
class Reference:
    """A record naming the rollout whose history this one continues."""

    line: int  # the session_meta (history_base) or the rollout_reference record
    kind: str  # HISTORY_BASE or ROLLOUT_REFERENCE
    rollout_id: str | None  # the id in the parent's file name
    thread_id: str | None = None
    rollout_path: str | None = None  # where the parent was on the machine that wrote this rollout
    end_byte_offset: int | None = None
    end_ordinal: int | None = None  # end_ordinal_exclusive
    nth_user_message: int | None = None
    segment_id: str | None = None

    @property
    def parent_id(self) -> str | None:
        return self.rollout_id or self.thread_id


@dataclass(frozen=True, slots=True)
class Parent:
    """A reference, resolved: the parent's file and what of it is inherited, or why it was not found."""

    reference: Reference
    path: str | None  # None: not found
    lines: int = 0  # the parent's lines inherited (its first ``lines`` lines)
    turns: int = 0  # turns that start in them
    problem: str | None = None
    refused: str | None = None  # its rollout_path, when the path rule did not let it be read

    def missing(self) -> str:
        """What a reader is told of a parent not found."""
        if self.refused:
            return f"its rollout is not found ({self.refused} is outside the Codex sessions folders: not read)"
        return "its rollout is not found"

    @property
    def fork_line(self) -> int:
        """The parent's last inherited line (where go to definition opens it)."""
        return max(self.lines - 1, 0)

    def label(self) -> str:
        who = self.reference.parent_id or "?"
        if self.path is None:
            return f"inherited from session {who} (not found)"
        return f"inherited from session {who} ({self.turns} turn{'s' if self.turns != 1 else ''})"

    def to_json(self) -> dict[str, Any]:
        ref = self.reference
        return {
            "line": ref.line,
            "kind": ref.kind,
            "rollout_id": ref.rollout_id,
            "thread_id": ref.thread_id,
            "end_byte_offset": ref.end_byte_offset,
            "path": self.path,
            "lines": self.lines,
            "turns": self.turns,
            "problem": self.problem,
        }


@once_per_object
def references(analysis: RolloutAnalysis) -> list[Reference]:
    """The references of a rollout, in line order (computed once per analysis)."""
    return _read(analysis)


def _read(analysis: RolloutAnalysis) -> list[Reference]:
    out: list[Reference] = []
    first_meta = True
    for number, record in enumerate(analysis.records):
        if record.record is None:
            continue
        kind = record.record.envelope.type
        if kind == "session_meta" and record.session is not None:
            if first_meta:
                base = (record.session.model_extra or {}).get("history_base")
                if isinstance(base, dict):
                    out.append(
                        Reference(
                            number,
                            HISTORY_BASE,
                            _text(base.get("thread_id")) or _text(base.get("rollout_id")),
                            _text(base.get("thread_id")),
                            end_byte_offset=_count(base.get("end_byte_offset")),
                            end_ordinal=_count(base.get("end_ordinal_exclusive")),
                        )
                    )
            first_meta = False
        elif kind in _REFERENCE_RECORDS:
            payload = record.record.item if isinstance(record.record.item, dict) else {}
            out.append(
                Reference(
                    number,
                    ROLLOUT_REFERENCE,
                    _text(payload.get("rollout_id")),
                    _text(payload.get("thread_id")),
                    _text(payload.get("rollout_path")),
                    nth_user_message=_count(payload.get("nth_user_message")),
                    segment_id=_text(payload.get("segment_id")),
                )
            )
    return out


_RESOLVED: dict[tuple, tuple[tuple[int, int] | None, Parent]] = {}  # what resolve found, while the file is unchanged
_KEEP = 64


def resolve(reference: Reference, path: str | None, roots: Iterable[str], access: Access | None = None) -> Parent:
    """The parent a reference names, found from the rollout at ``path`` (the sessions tree in ``roots``, then
    the Codex homes' sessions folders), read only where ``access`` allows (by default: ``roots`` are the
    workspace).  An editor asks again after every edit of the child: the parent is read again only when its
    file changed."""
    roots = list(roots)
    access = reader_access(roots, path, access)
    roots += [s for s in access.sessions_folders() if s not in roots]
    key = (reference, path, tuple(roots), access)
    cached = _RESOLVED.get(key)
    if cached is not None and cached[1].path is not None and cached[0] == _stamp(cached[1].path):
        return cached[1]
    parent = _resolve(reference, path, roots, access)
    if len(_RESOLVED) >= _KEEP:
        _RESOLVED.clear()
    _RESOLVED[key] = (_stamp(parent.path) if parent.path else None, parent)
    return parent


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def reader_access(roots: Iterable[str], path: str | None, access: Access | None = None) -> Access:
    """What the reader of the rollout at ``path`` may read: ``access``, else the command line's rule (the
    ``roots`` its caller gives, the rollout's own folder or sessions tree, are its workspace), with the Codex
    home the rollout is in."""
    return (access if access is not None else Access.create(roots)).with_home_of(path)


def _resolve(reference: Reference, path: str | None, roots: list[str], access: Access) -> Parent:
    found = None
    refused = None
    if reference.rollout_path:
        readable = access.readable_file(reference.rollout_path, ROLLOUT_BY_PATH)
        if readable is None and access.refusal(reference.rollout_path, ROLLOUT_BY_PATH) is not None:
            refused = reference.rollout_path
        if readable is not None and (path is None or readable != os.path.realpath(path)):
            found = reference.rollout_path
    for session_id in dict.fromkeys(i for i in (reference.rollout_id, reference.thread_id) if i):
        if found is None:
            found = find_rollout(session_id, roots, exclude=path, access=access)
    if found is None:
        if refused is not None:
            return Parent(
                reference,
                None,
                problem=f"its rollout_path {refused} is outside the Codex sessions folders: not read",
                refused=refused,
            )
        return Parent(reference, None, problem="no rollout of it in this sessions tree")
    loaded = load(found, max_parent_bytes(), max_parent_lines())  # a parent is anyone's: read within limits
    if loaded.error:
        return Parent(reference, None, problem=loaded.error)
    # a parent over a limit is counted up to it, and said (a file-limit finding on the reference)
    limited = next((f.message for f in loaded.findings if f.code == FILE_LIMIT), None)
    text = loaded.text
    if reference.end_byte_offset is not None:
        data = text.encode("utf-8", "surrogateescape")[: reference.end_byte_offset]
        text = data.decode("utf-8", "replace")
        if not text.endswith("\n"):  # an offset inside a line: that line is not inherited
            text = text[: text.rfind("\n") + 1]
    lines = split_lines(text)
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if reference.end_ordinal is not None and reference.end_byte_offset is None:
        lines = _before_ordinal(lines, reference.end_ordinal)
    turns = scan_turns(lines)
    if reference.nth_user_message is not None and reference.end_byte_offset is None:
        kept = turns[: reference.nth_user_message]
        lines = lines[: kept[-1].end_line + 1] if kept and len(kept) < len(turns) else lines
        turns = kept
    return Parent(reference, found, len(lines), len(turns), problem=limited)


def parents(
    analysis: RolloutAnalysis, path: str | None, roots: Iterable[str], access: Access | None = None
) -> list[Parent]:
    """Every reference of a rollout, resolved (computed once per analysis, place and access)."""
    roots = list(roots)
    key = (path, tuple(roots), access)
    cached = analysis.__dict__.get("_parents")
    if cached is None or cached[0] != key:
        cached = analysis.__dict__["_parents"] = (
            key,
            [resolve(r, path, roots, access) for r in references(analysis)],
        )
    return cached[1]


def parent_findings(analysis: RolloutAnalysis, resolved: list[Parent]) -> list[Finding]:
    """A ``parent-missing`` finding on each reference whose parent was not found (a ``file-limit`` one on each
    whose parent was read up to a limit only)."""
    out = []
    for parent in resolved:
        if parent.path is not None and parent.problem is None:
            continue
        ref = parent.reference
        text = analysis.lines[ref.line]
        path = ("payload", "history_base") if ref.kind == HISTORY_BASE else ("type",)
        found = locate(text, [path]).get(path)
        span = Span(ref.line, *found) if found else Span(ref.line, 0, len(text))
        what = "fork" if ref.kind == HISTORY_BASE else "segment"
        if parent.path is not None:
            message = f"the parent rollout of this {what} ({parent.path}) is read up to a limit: {parent.problem}"
            out.append(Finding(FILE_LIMIT, message, span))
            continue
        out.append(
            Finding(
                PARENT_MISSING,
                f"this {what} continues session {ref.parent_id or '?'} ({parent.problem}): "
                "its inherited history cannot be shown",
                span,
            )
        )
    return out


HEAD_LINES = 16  # a rollout's references are in its first lines: its session_meta, a rollout_reference after it


_LETTER_ESCAPE = lazy(r"\\u00[4-7][0-9A-Fa-f]")  # a JSON escape of a letter or "_" (U+0040 to U+007F)


def may_refer(line: str) -> bool:
    """Whether ``line`` can hold a reference (:func:`references`): it names ``history_base`` or a
    ``…_reference`` record type, or escapes a letter or ``_`` (which might spell either).  A head none of
    whose lines may refer has no reference: it need not be analysed to know."""
    return HISTORY_BASE in line or "_reference" in line or "\\u" in line and _LETTER_ESCAPE.search(line) is not None


def head_parents(
    path: str, roots: Iterable[str] | None = None, head: list[str] | None = None, access: Access | None = None
) -> tuple[RolloutAnalysis, list[Parent]]:
    """The references of the rollout at ``path`` read from its first lines alone (for a file read as a stream),
    resolved; with the analysis of those lines (for the findings' ranges).  ``head``: its first lines (at least
    :data:`HEAD_LINES`, or all it has), when the caller has read them already."""
    from ..jsonl.line_stream import Unreadable, read_lines
    from .lineage import search_roots
    from .rollout import analyze_lines

    if head is not None:
        head = head[:HEAD_LINES]
    else:
        head = []
        try:
            for line, _ in read_lines(path):
                head.append(line)
                if len(head) >= HEAD_LINES:
                    break
        except Unreadable:
            head = []
    analysis = analyze_lines(head or [""])
    return analysis, parents(analysis, path, search_roots(path) if roots is None else roots, access)


def find_rollout(
    rollout_id: str, roots: Iterable[str], exclude: str | None = None, access: Access | None = None
) -> str | None:
    """The rollout whose file name ends with ``rollout_id`` (``rollout-<time>-<id>.jsonl``, or
    ``…-<thread id>_<id>.jsonl`` for a reverted thread; ``.jsonl.zst`` when compressed), else any that names it;
    only one ``access`` lets be read (by default: inside ``roots``, too wide ones aside)."""
    # imported here: only a rollout that names another reads the sessions folder (lineage and its datetime are
    # a few milliseconds of every `check`'s start otherwise)
    from .lineage import find_session_file, first_rollout_named

    roots = list(roots)
    access = access if access is not None else Access.create(roots)
    found = first_rollout_named(rollout_id, f"*{rollout_id}", roots, exclude, access)
    return found or find_session_file(rollout_id, roots, exclude, access)


def _before_ordinal(lines: list[str], end: int) -> list[str]:
    """The lines before the first whose ``ordinal`` reaches ``end`` (ordinals can repeat: openai/codex#35746)."""
    import json

    for number, line in enumerate(lines):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        ordinal = value.get("ordinal") if isinstance(value, dict) else None
        if isinstance(ordinal, int) and not isinstance(ordinal, bool) and ordinal >= end:
            return lines[:number]
    return lines


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


__all__ = [
    "HISTORY_BASE",
    "ROLLOUT_REFERENCE",
    "Reference",
    "Parent",
    "references",
    "resolve",
    "parents",
    "parent_findings",
    "head_parents",
    "find_rollout",
    "may_refer",
]
