"""Regular expressions compiled on first use (issue 35: a command's start compiled about a hundred at import,
many of which that command never uses).

``_NAME = lazy(r"...")`` stands where ``_NAME = re.compile(r"...")`` stood, for a module-level pattern used
only through its methods (``search``, ``match``, ``sub``…).  The first attribute asked of it compiles the
pattern (``re.compile``, so its cache too) and keeps the compiled pattern's methods on the object itself: later
calls find them as plain attributes, at the cost of a compiled pattern's own method lookup.  It is not a
``re.Pattern``: do not hand it to ``re.sub(pattern, …)`` or ``isinstance``; ``pattern`` is known without
compiling."""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class LazyPattern:
    """A pattern and its flags, compiled when a method of it is first asked for."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like look for these: not the pattern's
            raise AttributeError(name)
        compiled = self.__dict__.get("compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self._flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
            self.compiled = compiled
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``pattern`` compiled at its first use; typed as the compiled pattern it stands for."""
    return cast("re.Pattern[AnyStr]", LazyPattern(pattern, flags))
