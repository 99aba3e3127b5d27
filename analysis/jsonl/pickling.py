"""Frozen dataclasses with slots, pickled as their class and a tuple of their fields' values.

``dataclass(frozen=True, slots=True)`` pickles through ``_dataclass_getstate`` and ``_dataclass_setstate``,
written in Python, which look the class's fields up again for every object: on a streamed ``check`` whose
lines are analysed in worker processes, a third of the main process's own work went to unpickling what the
workers sent back.  :func:`pickled_by_fields` gives a class a ``__reduce__`` that reads the fields with one C
call and rebuilds an object by setting its slots (as :func:`analysis.session.copies.replacer` copies one):
the same object, at about a third of the cost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")

_SETTERS: dict[type, tuple[Callable[[Any, Any], None], ...]] = {}


def pickled_by_fields(cls: type[T]) -> type[T]:
    """``cls`` (a frozen dataclass with slots) pickled as its fields' values in order (a class decorator)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: a dataclass with slots is needed")
    names = [f.name for f in dataclasses.fields(cls)]
    values_of = attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),))
    _SETTERS[cls] = tuple(cls.__dict__[name].__set__ for name in names)  # frozen does not stop the descriptors

    def __reduce__(self: Any) -> tuple[Callable[[type[T], tuple[Any, ...]], T], tuple[type[T], tuple[Any, ...]]]:
        if type(self) is not cls:  # a subclass may have fields of its own: not pickled as its base
            raise TypeError(f"{type(self).__name__} inherits {cls.__name__}'s pickling by fields: not pickled")
        return _rebuild, (cls, values_of(self))

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]  # the point: the class's own pickling
    return cls


def _rebuild(cls: type[T], values: tuple[Any, ...]) -> T:
    """An object of ``cls`` whose fields are ``values`` (already as ``__init__`` and ``__post_init__`` left
    them, so neither runs again)."""
    obj = object.__new__(cls)
    for put, value in zip(_SETTERS[cls], values):
        put(obj, value)
    return obj


__all__ = ["pickled_by_fields"]
