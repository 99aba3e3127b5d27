"""Copies of frozen dataclasses with some fields changed, at about half ``dataclasses.replace``'s cost.

``dataclasses.replace`` looks up the class's fields, builds a dict of keyword arguments and runs ``__init__``,
which sets each field through ``object.__setattr__`` (the class is frozen): about 3.3 µs for a
:class:`~analysis.session.record_analysis.LineAnalysis` of 24 fields, paid for every line a streamed ``check``
thins, every call it thins or finds ran, every large output.  :func:`replacer` looks the class up once and
makes a function that copies directly, in one of two ways:

- a class of its own slots only (most): through an unfrozen *twin* with the same slots, whose generated
  ``__init__`` stores every field; the changed ones are set again, then the copy is given the real class
  (:func:`_through_twin`, stop 43: half the descriptor copy's cost);
- a subclass, whose slots are not all its fields: a new object whose slots are set through their descriptors,
  the changed ones again (:func:`_by_descriptors`).

Either way the class's ``__post_init__`` runs after, when it has one, as ``replace`` runs it.
"""

from __future__ import annotations

import dataclasses
import functools
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
    post_init = getattr(cls, "__post_init__", None)
    slots = tuple(cls.__dict__["__slots__"])
    if cls.__bases__ == (object,) and slots == tuple(names):
        replace = _through_twin(cls, names, post_init)
    else:
        replace = _by_descriptors(cls, names, post_init)
    replace.__name__ = replace.__qualname__ = f"replace_{cls.__name__}"
    replace.__doc__ = f"``dataclasses.replace`` for a {cls.__name__}."
    return replace


def _through_twin(cls: type[T], names: list[str], post_init: Callable[[Any], None] | None) -> Callable[..., T]:
    """The copy made through a twin of ``cls``: a dataclass with the same slots, not frozen, whose ``__init__``
    (written by :mod:`dataclasses`) stores each field by name, a specialised instruction each; the object made is
    then given the class ``cls`` (Python checks that the layouts are the same: ``thinning._Unfrozen`` does the
    same since stop 42).  Setting each slot through its descriptor is a call a field (stop 43: a ToolCall's copy
    cost twice as much, ~29,000 instructions against ~14,500, for every call that ran and every output a stream
    thins).  Reading the fields by name too would need code written for the class (``exec``, which the analysis
    does not run: tests/reports/test_purity.py), so they are read by ``attrgetter`` as before."""
    values_of = attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),))
    known = frozenset(names)
    new = object.__new__
    # the twin and its __init__, made at the first copy: not at import, nor for a class never copied; kept as
    # one pair in one store, so that threads making their first copies at once (the server's analyses run on
    # worker threads) each read a whole pair, never a list another thread is filling (the review of stop 43)
    made: list[Any] = [None]
    shape: Any = (cls, tuple(names))  # the twin's key (Any: mypy does not take a type[T] as hashable)

    def replace(obj: T, **changes: Any) -> T:
        pair = made[0]
        if pair is None:
            pair = made[0] = _twin(*shape)
        twin, init = pair
        copy = new(twin)
        init(copy, *values_of(obj))  # __init__ called on an object made by object.__new__: no type call
        for name, value in changes.items():
            if name not in known:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
            setattr(copy, name, value)
        copy.__class__ = cls
        if post_init is not None:
            post_init(copy)
        return copy

    return replace


@functools.cache
def _twin(cls: Any, names: tuple[str, ...]) -> tuple[Any, Callable[..., None]]:
    """The twin of ``cls`` and its ``__init__``, one a class (a dataclass costs ~3 M instructions to make, and
    several modules copy the same class)."""
    twin: Any = dataclasses.make_dataclass(f"_Unfrozen{cls.__name__}", names, slots=True, eq=False, repr=False)
    return twin, twin.__init__


def _by_descriptors(cls: type[T], names: list[str], post_init: Callable[[Any], None] | None) -> Callable[..., T]:
    """The copy made by setting each slot through its descriptor (a subclass: its slots are not all its fields)."""
    values_of = attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),))
    # the slots' descriptors, a base's too: frozen does not stop them
    setters = [getattr(cls, name).__set__ for name in names]
    setter_of = dict(zip(names, setters))
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

    return replace


__all__ = ["replacer"]
