"""Which of many regular expressions can match a text, found in one pass: a prefilter before exact scans.

A :class:`PatternSet` compiles loosened copies of Python regular expressions into one RE2 set automaton
(google-re2's ``re2.Set``), which reads a text once, in linear time, and names every pattern that matches
somewhere in it.  Each copy is a *superset* of its original (:func:`loosened`): wherever the Python
expression matches, its copy matches too, so a pattern the set does not name cannot match, and the exact
scan of it can be skipped without changing any result.  The converse does not hold (a named pattern may
still not match): the exact scan decides.

When the set cannot decide (the text is not encodable as UTF-8, RE2 gave up on its memory budget, or
google-re2 is not installed on this platform) :meth:`PatternSet.matches` answers ``None``: scan
everything, as without a prefilter.
"""

from __future__ import annotations

import re

try:
    import re2
except ImportError:  # pragma: no cover - a platform without the wheel: every line takes the exact scan
    re2 = None

# the highest lower bound of a repetition kept: ``[a-f0-9]{64}`` is read as ``[a-f0-9]{24,}``; exact counts
# would multiply the automaton's states for hardly a better verdict, while a bound of 24 keeps words like
# ``task-specific`` out of ``sk-[…]{20,}`` (on the wild rollouts: 67 lines go to the exact scans; 224 with 8)
REPEAT_CAP = 24
_DIGIT_OR_NOT_ASCII = r"0-9\x{80}-\x{10FFFF}"
_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def loosened(source: str, cap: int = REPEAT_CAP) -> str:
    """An RE2 expression matching wherever the Python expression ``source`` matches (and maybe elsewhere).

    Lookarounds and ``\\b`` are dropped (a condition less), ``{m,n}`` becomes ``{min(m, cap),}``, ``\\d``
    (Python's: every Unicode decimal digit) becomes an ASCII digit or any character outside ASCII, whatever
    Unicode version each engine knows.  ``\\s`` is kept only inside a negated class, where RE2's narrower
    ``\\s`` excludes less.  Anything else whose meaning differs between the two engines raises
    :class:`ValueError`, so a new pattern cannot be loosened wrongly in silence."""
    out: list[str] = []
    i = 0
    n = len(source)
    in_class = False
    negated = False
    while i < n:
        c = source[i]
        if c == "\\":
            if i + 1 >= n:
                raise ValueError(f"dangling escape in {source!r}")
            e = source[i + 1]
            if e == "d" and not (
                in_class and negated
            ):  # every digit Python knows, whatever Unicode version RE2's tables have
                out.append(_DIGIT_OR_NOT_ASCII if in_class else f"[{_DIGIT_OR_NOT_ASCII}]")
            elif e == "b" and not in_class:
                pass
            elif e == "s" and in_class and negated:
                out.append(r"\s")
            elif e.isalnum() and e not in "nt":
                raise ValueError(f"escape \\{e} of {source!r} has no loosened form")
            else:
                out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            if c == "[":
                raise ValueError(f"nested class in {source!r}")
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            negated = source.startswith("[^", i)
            out.append("[^" if negated else "[")
            i += 2 if negated else 1
            continue
        if source.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            i = _group_end(source, i)
            continue
        if c == "(" and source.startswith("(?", i) and not source.startswith(("(?:", "(?P<"), i):
            raise ValueError(f"group {source[i : i + 4]!r} of {source!r} has no loosened form")
        if c == "$":
            raise ValueError(f"'$' of {source!r} has no loosened form")  # Python's also matches before a final \n
        if c == "{":
            m = _REPEAT.match(source, i)
            if m is None:
                raise ValueError(f"brace at {i} of {source!r}")
            out.append("{%d,}" % min(int(m.group(1)), cap))
            i = m.end()
            continue
        out.append(c)
        i += 1
    if in_class:
        raise ValueError(f"unclosed class in {source!r}")
    return "".join(out)


def _group_end(source: str, start: int) -> int:
    """The index after the group opening at ``start``."""
    depth = 0
    i = start
    in_class = False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unclosed group in {source!r}")


_NOTHING: frozenset[int] = frozenset()


class PatternSet:
    """Loosened copies of regular expressions, matched together in one pass."""

    def __init__(self, sources: list[str], ignore_case: tuple[bool, ...] = (), max_mem: int = 64 << 20) -> None:
        """``sources`` are Python expressions; ``ignore_case[i]`` makes the i-th one case-insensitive (with
        Unicode simple case folding, a superset of matching ``str.lower()`` of the text).  ``max_mem`` is
        RE2's budget for the compiled set and its automaton's cache."""
        self.sources = [loosened(s) for s in sources]
        self._set = None
        if re2 is None:
            return
        options = re2.Options()
        options.log_errors = False  # a memory bail-out is reported by the missing sentinel, not on stderr
        options.max_mem = max_mem
        pattern_set = re2.Set.SearchSet(options)
        # the sentinel matches every text: a result without it means RE2 could not finish (DFA out of memory,
        # when RE2 clears the matches).  It matches at the text's end only: an empty pattern, which matches at
        # every position, made every state of the automaton a match state, whose ids RE2 adds to the result at
        # each byte (twice the pass's cost: 3.7 against 1.9 ns a byte on the wild rollouts)
        pattern_set.Add(r"\z")  # raises re2.error on a pattern it refuses
        for index, source in enumerate(self.sources):
            folded = index < len(ignore_case) and ignore_case[index]
            pattern_set.Add(("(?i)" if folded else "") + source)
        pattern_set.Compile()
        self._set = pattern_set
        # the compiled set's own Match (bytes in, indexes out): the wrapper's type test and call, on every line,
        # cost a tenth of the pass on short lines
        self._match = pattern_set._set.Match

    @property
    def active(self) -> bool:
        """Whether the set can decide (google-re2 is installed)."""
        return self._set is not None

    def matches(self, text: str, encoded: bytes | None = None) -> frozenset[int] | None:
        """Indexes (into ``sources``) of the patterns whose loosened copy matches ``text``; ``None`` when
        that cannot be told (then every pattern must be tried).  ``encoded``: ``text``'s UTF-8, when the caller
        has it (a line's bytes as read from its file), not made again."""
        if self._set is None:
            return None
        if encoded is None:
            try:
                encoded = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (from a JSON-RPC "\ud800"): RE2 reads UTF-8 only
                return None
        found = self._match(encoded)
        if not found or 0 not in found:
            return None
        if len(found) == 1:
            return _NOTHING
        return frozenset(i - 1 for i in found if i)


__all__ = ["REPEAT_CAP", "PatternSet", "loosened"]
