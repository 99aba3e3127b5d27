"""Readings of an object kept on it: asked for again, they cost a lookup.

A reading of a rollout or a script often lives in a module above the object's own (the rollout's analysis
cannot import the modules that read it: imports only go down), so it cannot be a ``cached_property`` of the
object's class (:class:`cached_property` is for readings that can be).  :func:`once_per_object` makes such a function compute its value once per object and keep it
in the object's ``__dict__``, under a key named after the function's module and name (no two readings share
one)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, cast, overload

Obj = TypeVar("Obj")  # the object a reading is of
T = TypeVar("T")
P = ParamSpec("P")


class Kept(Protocol[Obj, P, T]):
    """A reading made by :func:`once_per_object`: called like the function, and its value settable."""

    keep: Callable[[Obj, T], None]

    def __call__(self, obj: Obj, /, *args: P.args, **kwargs: P.kwargs) -> T: ...


def once_per_object(function: Callable[Concatenate[Obj, P], T]) -> Kept[Obj, P, T]:
    """``function(obj, …)`` computed on the first call for each ``obj`` (later arguments are used then only)
    and kept on ``obj``; ``function.keep(obj, value)`` sets the value an object's reading is to have."""
    key = f"{function.__module__}.{function.__qualname__}"

    @wraps(function)
    def kept(obj: Obj, /, *args: P.args, **kwargs: P.kwargs) -> T:
        store: dict[str, T] = obj.__dict__
        try:
            return store[key]
        except KeyError:
            pass
        value = store[key] = function(obj, *args, **kwargs)  # outside the except: its errors chain no KeyError
        return value

    def keep(obj: Obj, value: T) -> None:
        obj.__dict__[key] = value

    reading = cast("Kept[Obj, P, T]", kept)
    reading.keep = keep
    return reading


# functools.cached_property without its lock (3.11 takes one per first read)
class cached_property(Generic[Obj, T]):
    """A property computed once per object and kept in its ``__dict__``.  Two threads reading it at once may both
    compute it: the values are equal, so either may stay."""

    def __init__(self, function: Callable[[Obj], T]) -> None:
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> cached_property[Obj, T]: ...

    @overload
    def __get__(self, instance: Obj, owner: type[Any] | None = None) -> T: ...

    def __get__(self, instance: Obj | None, owner: type[Any] | None = None) -> cached_property[Obj, T] | T:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


__all__ = ["cached_property", "once_per_object"]
