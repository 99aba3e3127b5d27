"""Copies of frozen dataclasses with some fields changed, at about half ``dataclasses.replace``'s cost.

``dataclasses.replace`` looks up the class's fields, builds a dict of keyword arguments and runs ``__init__``,
which sets each field through ``object.__setattr__`` (the class is frozen): about 3.3 µs for a
:class:`~analysis.session.record_analysis.LineAnalysis` of 24 fields, paid for every line a streamed ``check``
thins, every call it thins or finds ran, every large output.  :func:`replacer` looks the class up once and
makes a function that copies directly: a new object whose slots are set through their descriptors, the
changed ones again (about 2.3 µs), then the class's ``__post_init__`` when it has one, as ``replace`` runs it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def replacer(cls: type[T]) -> Callable[..., T]:
    """A function ``(obj, **changes)`` that does what ``dataclasses.replace(obj, **changes)`` does for ``cls``
    (a dataclass with slots, every field set by ``__init__``, no ``InitVar``), and no more: ``obj`` must be a
    ``cls`` (not a subclass), and only field names are accepted."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: a dataclass with slots is needed")
    declared = cls.__dataclass_fields__
    # dataclasses has no public way to tell an InitVar among the fields: its private marker is read
    if any(f._field_type is dataclasses._FIELD_INITVAR for f in declared.values()):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: an InitVar must be given to replace: not copied")
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields):
        raise TypeError(f"{cls.__name__}: a field not set by __init__ is not copied as replace would")
    names = [f.name for f in fields]
    values_of = attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),))
    setters = [cls.__dict__[name].__set__ for name in names]  # the slots' descriptors: frozen does not stop them
    setter_of = dict(zip(names, setters))
    post_init = getattr(cls, "__post_init__", None)
    new = object.__new__

    def replace(obj: T, **changes: Any) -> T:
        copy = new(cls)
        for put, value in zip(setters, values_of(obj)):
            put(copy, value)
        for name, value in changes.items():
            put = setter_of.get(name)
            if put is None:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
            put(copy, value)
        if post_init is not None:
            post_init(copy)
        return copy

    replace.__name__ = replace.__qualname__ = f"replace_{cls.__name__}"
    replace.__doc__ = f"``dataclasses.replace`` for a {cls.__name__}."
    return replace


__all__ = ["replacer"]
