"""A syntax problem of an exec script, and esprima-fork's verdict on a script read as an ES module.

Below both :mod:`analysis.script.script` (which reports tree-sitter's errors and asks esprima about a script
tree-sitter could not read) and :mod:`analysis.script.module_syntax` (which decides when esprima is asked)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(r""""(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'|[\w$\\]+|\S""")  # a string is one token


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    start: int  # code points in the script
    end: int
    message: str
    refused: bool = False  # V8 refuses the script as a module: none of it ran


@lru_cache(maxsize=64)  # scripts can be long: a few, for a line analysed twice (syntax, executed)
def first_module_error(source: str) -> SyntaxProblem | None:
    """esprima-fork's first error for ``source`` read as a module, at its code-point offset."""
    import esprima  # esprima-fork 5 (ES2026); imported on first use, as tree-sitter reads most scripts alone

    try:
        esprima.parseModule(source)
    except esprima.Error as error:
        description = re.sub(r"^Line \d+: ", "", error.message)
        start = min(max(error.index or 0, 0), len(source))
        while start < len(source) and source[start].isspace():  # esprima may point just after a token
            start += 1
        token = _TOKEN.match(source, start)
        end = token.end() if token else min(start + 1, len(source))
        if start == end and start > 0:  # at the end of the script: point at its last character
            start -= 1
        return SyntaxProblem(start, end, f"not valid module code (exec scripts run as strict ES modules; "
                                         f"the script never ran): {description}", refused=True)
    except (RecursionError, AssertionError):  # nested beyond its recursion, or esprima's own assertion failed
        return None  # (`${f(}` in a template): tree-sitter's reading stands
    return None
