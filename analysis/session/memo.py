"""The incremental memo of one document (:class:`LineCache`): what re-analysing an edited rollout reuses.

An editor sends a new version of a document after every keystroke; re-analysing it redoes only what the
edit changed.  The memo rests on one invariant and one rule:

- **Same line text ⇒ the same** :class:`~analysis.session.record_analysis.LineAnalysis` **object.**  Line
  analyses are keyed by the line's text, so a line that did not change is found again as the very object the
  previous analysis had; an edited line is a new text, analysed anew.  A ``LineAnalysis`` is frozen, so as
  long as the memo holds it, "the same object" means "read from the same text".
- **A hit is the same objects.**  Whatever is derived from line analyses (the call as it ran, a record's
  unknown type, the output paired with a call, the turns, …) is kept in an entry that names the objects it
  was derived from (its *sources*, the leading fields of the entry).  The entry is reused only when every
  source is the very same object now (:func:`same`: ``is``, never ``==``); the few sources that are plain
  values (an event, a call's events by index) are compared with ``==`` beside it.  Equal but distinct objects
  miss: that costs a recomputation, never a wrong answer.  Entries keyed by ``id()`` keep their source alive
  and check it with ``is``, so an id reused by a new object misses too.

Pruning (:meth:`LineCache.keep_only`) drops the lines no longer in the document (lazily: see its docstring),
the per-object entries whose source no kept line uses, and the output remembered as read last
(:class:`~analysis.session.outputs.LastRead`) when its line went.  The per-linking tables
(:attr:`LineCache.outputs_made` …) are replaced whole by each linking: they hold what the last linking made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeGuard, TypeVar

from ..script.calls import COMMAND, ToolCall
from .continuations import CallOutput, MadeOutput
from .copies import replacer
from .outputs import READ_AGAIN, LastRead
from .record_analysis import LineAnalysis, analyze_line
from .vocabulary import unknown_type_of

if TYPE_CHECKING:
    from .events import ToolEvent
    from .turns import Turn

K = TypeVar("K")
V = TypeVar("V")
E = TypeVar("E", bound=tuple)  # a memo entry

STALE_CHARS = 1 << 20  # stale lines' text a line cache keeps beyond a tenth of its document's, before pruning


def same(entry: E | None, *sources: Any) -> TypeGuard[E]:
    """Whether ``entry`` (a memo entry, its sources first) was derived from these very ``sources``: a hit."""
    if entry is None:
        return False
    for kept, now in zip(entry, sources):
        if kept is not now:
            return False
    return True


@dataclass(frozen=True, slots=True)
class Derived(Generic[K, V]):
    """What :class:`PerObject` keeps for one object: the object itself and the value derived from it."""

    source: K
    value: V


class PerObject(Generic[K, V]):
    """``derive(obj)`` computed once per object, keyed by identity (``id``, checked with ``is``)."""

    __slots__ = ("derive", "by_id")

    def __init__(self, derive: Callable[[K], V]) -> None:
        self.derive = derive
        self.by_id: dict[int, Derived[K, V]] = {}

    def __call__(self, obj: K) -> V:
        found = self.by_id.get(id(obj))
        if found is None or found.source is not obj:
            found = self.by_id[id(obj)] = Derived(obj, self.derive(obj))
        return found.value

    def keep_only(self, alive: set[int]) -> None:
        """Forget the objects whose id is not in ``alive``."""
        self.by_id = {k: v for k, v in self.by_id.items() if k in alive}


class CorrectedOutput(NamedTuple):
    """A top-level call's output corrected by the event reporting it."""

    output: CallOutput
    event: ToolEvent  # compared with ==
    corrected: CallOutput


class PairedCalls(NamedTuple):
    """The calls of one call record, each with its output and its event."""

    record: LineAnalysis
    output: CallOutput | None
    events: dict[int, tuple[int, ToolEvent]] | None  # compared with ==
    calls: list  # of analysis.session.rollout.LocatedCall


class TurnsMade(NamedTuple):
    """The turns of a document and what they were read from."""

    shape: tuple[int, int]  # (line count, last non-blank line), compared with ==
    relevant: list[tuple[int, LineAnalysis]]  # the records turns read, with their lines
    turns: list[Turn]

    def fits(self, shape: tuple[int, int], relevant: list[tuple[int, LineAnalysis]]) -> bool:
        """Whether the turns were read from the same records (the same objects) on the same lines."""
        if self.shape != shape or len(self.relevant) != len(relevant):
            return False
        for (line, record), (now_line, now) in zip(self.relevant, relevant):
            if line != now_line or record is not now:
                return False
        return True


def sole_producer_of(record: LineAnalysis) -> ToolCall | None:
    """The only call of a script that produces a result block (whose exit code a call's output may read
    from the script's only result block), or None."""
    producers = [c for c in record.calls if c.kind == COMMAND or c.tool == "write_stdin"]
    return producers[0] if len(producers) == 1 else None


copy_call = replacer(ToolCall)


def _with_slack(chars: int) -> int:
    return chars + chars // 10 + STALE_CHARS


class LineCache:
    """The memo of one document: line analyses by line text; :meth:`keep_only` drops those no line uses.

    It also keeps what linking derives from one object alone (:attr:`ran`, :attr:`unknown_type`,
    :attr:`sole_producer`), and what the last linking made, for the next one to reuse.
    """

    def __init__(
        self, extra_secrets: tuple[re.Pattern[str], ...] = (), secrets: bool = True, read_again: LastRead = READ_AGAIN
    ) -> None:
        self.extra_secrets = extra_secrets
        self.secrets = secrets  # look for secrets (see analyze_line)
        self._by_text: dict[str, LineAnalysis] = {}
        self._chars = 0  # the length of every line in ``_by_text``: stale lines are pruned by count and by size
        self._document_chars = 0  # the document's length when :meth:`keep_only` last measured it
        # per object, by identity: ``call`` with ``executed: "yes"`` (the same object each time for the same call)
        self.ran: PerObject[ToolCall, ToolCall] = PerObject(_ran_copy)
        self.unknown_type: PerObject[LineAnalysis, str | None] = PerObject(unknown_type_of)
        self.sole_producer: PerObject[LineAnalysis, ToolCall | None] = PerObject(sole_producer_of)
        # the output whose texts were read again from its line last (pruned with the lines)
        self.read_again = read_again
        # what the last linking made, for the next one to reuse (read and replaced by linking only)
        # (call line, output line) → its output (continuations.MadeOutput, made and checked there)
        self.outputs_made: dict[tuple[int, int], MadeOutput] = {}
        self.outputs_corrected: dict[int, CorrectedOutput] = {}  # call line → its output as its event says
        self.calls_paired: dict[int, PairedCalls] = {}  # call line → its located calls
        self.turns_made: TurnsMade | None = None

    def get(self, line: str) -> LineAnalysis:
        """The analysis of ``line``: the same object for the same text while the memo keeps it."""
        found = self._by_text.get(line)
        if found is None:
            found = self._by_text[line] = analyze_line(line, self.extra_secrets, self.secrets)
            self._chars += len(line)
        return found

    def fill(self, lines: list[str], analyses: list[LineAnalysis]) -> None:
        """Takes analyses made elsewhere (by worker processes) for ``lines``."""
        by_text = self._by_text
        for line, analysis in zip(lines, analyses):
            if line not in by_text:
                self._chars += len(line)
            by_text[line] = analysis

    def keep_only(self, lines: Iterable[str]) -> None:
        """Forget the lines not in ``lines``: at once when ``lines`` is not a list, else once they are more
        than a tenth of the cache, or their text more than a tenth of the document's and :data:`STALE_CHARS`
        (an edit leaves a few stale lines behind; pruning after each costs more, but editing a long output
        line again and again must not keep every version of it)."""
        if isinstance(lines, list) and len(self._by_text) <= len(lines) + len(lines) // 10 + 64:
            if self._chars <= _with_slack(self._document_chars):
                return  # nothing added since the document was last measured: no pass over its lines
            self._document_chars = sum(map(len, lines))
            if self._chars <= _with_slack(self._document_chars):
                return
        keep = set(lines)
        self._by_text = {k: v for k, v in self._by_text.items() if k in keep}
        self._chars = self._document_chars = sum(map(len, self._by_text))
        self.read_again.forget(keep)
        self.ran.keep_only({id(call) for record in self._by_text.values() for call in record.calls})
        records = {id(record) for record in self._by_text.values()}
        self.unknown_type.keep_only(records)
        self.sole_producer.keep_only(records)


def _ran_copy(call: ToolCall) -> ToolCall:
    return copy_call(call, executed="yes")


__all__ = [
    "LineCache",
    "PerObject",
    "Derived",
    "MadeOutput",
    "CorrectedOutput",
    "PairedCalls",
    "TurnsMade",
    "same",
    "sole_producer_of",
    "STALE_CHARS",
]
