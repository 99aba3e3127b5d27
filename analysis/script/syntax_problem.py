"""A syntax problem of an exec script, and esprima-fork's verdict on a script read as an ES module.

Below both :mod:`analysis.script.script` (which reports tree-sitter's errors and asks esprima about a script
tree-sitter could not read) and :mod:`analysis.script.module_syntax` (which decides when esprima is asked)."""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ..jsonl.lazy_pattern import lazy

# esprima-fork recurses about 13 Python frames per level of nesting and turns RecursionError into "nesting
# exceeds the parser resource limit" (at about 80 levels under Python's default limit), where V8 reads well over a
# thousand.  Such a script is parsed again in a thread of its own with a large stack and a recursion limit that
# covers the deepest tree analysed (analysis.script.script.MAX_DEPTH levels); deeper still, esprima gives no verdict
# and tree-sitter's reading stands.
_RESOURCE_LIMIT = "resource limit"
_DEEP_FRAMES = 14 * 8192 + 2000
_DEEP_STACK = 512 * 1024 * 1024  # virtual: only the pages a parse touches are used
_DEEP_LOCK = threading.Lock()  # one deep parse at a time: the recursion limit is the interpreter's
_TOKEN = lazy(r""""(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'|[\w$\\]+|\S""")  # a string is one token


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    start: int  # code points in the script
    end: int
    message: str
    refused: bool = False  # V8 refuses the script as a module: none of it ran


class _EsprimaError(Protocol):
    """What is read of an ``esprima.Error`` (esprima ships no types)."""

    message: str
    index: int | None


@lru_cache(maxsize=64)  # scripts can be long: a few, for a line analysed twice (syntax, executed)
def first_module_error(source: str) -> SyntaxProblem | None:
    """esprima-fork's first error for ``source`` read as a module, at its code-point offset."""
    import esprima  # esprima-fork 5 (ES2026); imported on first use, as tree-sitter reads most scripts alone

    try:
        esprima.parseModule(source)
    except esprima.Error as error:
        if _RESOURCE_LIMIT in error.message:  # too deep for this thread's recursion limit, not a syntax error
            deep = _parse_deep(source)
            if deep is None or _RESOURCE_LIMIT in deep.message:
                return None
            error = deep
        return _problem(source, error)
    except (RecursionError, AssertionError):  # nested beyond its recursion, or esprima's own assertion failed
        return None  # (`${f(}` in a template): tree-sitter's reading stands
    return None


def _problem(source: str, error: _EsprimaError) -> SyntaxProblem:
    description = re.sub(r"^Line \d+: ", "", error.message)
    start = min(max(error.index or 0, 0), len(source))
    while start < len(source) and source[start].isspace():  # esprima may point just after a token
        start += 1
    token = _TOKEN.match(source, start)
    end = token.end() if token else min(start + 1, len(source))
    if start == end and start > 0:  # at the end of the script: point at its last character
        start -= 1
    return SyntaxProblem(
        start,
        end,
        f"not valid module code (exec scripts run as strict ES modules; the script never ran): {description}",
        refused=True,
    )


def _parse_deep(source: str) -> _EsprimaError | None:
    """esprima's error for a script nested too deep for the current thread (None when it parses, or when no
    thread with a large stack can be made): parsed in a fresh thread with a large stack, under a recursion limit
    raised while it runs.  Only on Python 3.12 and later, which bound C recursion apart from the recursion limit:
    before 3.12 the raised limit would also let C code in any other thread (``json.loads`` of a hostile nested
    line, in the server) recurse past its stack while the parse runs, so there tree-sitter's verdict stands."""
    if sys.version_info < (3, 12):
        return None
    import esprima

    outcome: list[_EsprimaError | None] = []

    def parse() -> None:
        try:
            esprima.parseModule(source)
            outcome.append(None)
        except esprima.Error as error:
            outcome.append(error)
        except Exception:
            outcome.append(None)

    with _DEEP_LOCK:
        try:
            previous = threading.stack_size(_DEEP_STACK)
        except (ValueError, RuntimeError):  # a platform that cannot size thread stacks: no verdict
            return None
        try:
            thread = threading.Thread(target=parse, name="esprima-deep", daemon=True)
        finally:
            threading.stack_size(previous)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, _DEEP_FRAMES))
        try:
            thread.start()
            thread.join()
        except RuntimeError:  # no room for such a stack (a 32-bit process): no verdict
            return None
        finally:
            sys.setrecursionlimit(limit)
    return outcome[0] if outcome else None
