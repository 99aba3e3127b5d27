"""The base of :mod:`analysis.session.records`: the field types, the record part's base class, the two nested
parts (content items, a local shell call's action) and the ``record-shape`` error, which both the plain reading
(:mod:`.records`) and the pydantic one (:mod:`.record_shapes`) import, so neither imports the other's module at
import time and no cycle exists."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

FIELD_NAMES: set[str] = set()  # every part's declared field names (a JSON key of a record, not a pydantic word)
_REQUIRED = object()
_BAD = object()  # a value the plain check does not accept as it is: pydantic decides
# field types: the JSON each takes as it is
STR, OPT_STR, OPT_INT, ANY, OPT_DICT, LIST, CONTENT, OUTPUT, ARGV, ACTION = (
    "str",
    "str?",
    "int?",
    "any",
    "dict?",
    "list",
    "content",
    "output",
    "argv",
    "action",
)


class _Item:
    """A record part: its declared fields as attributes, the others in :attr:`model_extra` (also readable as
    attributes, as pydantic models with ``extra="allow"`` read them).  Frozen."""

    __slots__ = ("_extra",)  # the extra fields, or None: most records have none, and an empty dict a line adds up
    # (name, type, default): a type above or ("literal", value); a default of ``list`` is a new empty list
    _fields: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()
    _names: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls) -> None:
        cls._names = frozenset(name for name, _, _ in cls._fields)
        FIELD_NAMES.update(cls._names)

    def __init__(self, **values: Any) -> None:
        for name, _, default in self._fields:
            if name in values:
                value = values.pop(name)
            elif default is _REQUIRED:
                raise TypeError(f"{type(self).__name__}: {name} is required")
            else:
                value = [] if default is list else default
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_extra", values or None)

    @property
    def model_extra(self) -> dict[str, Any]:
        """The fields the class does not declare, as read (pydantic's name for them)."""
        return self._extra or {}

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __getattr__(self, name: str) -> Any:  # only for names that are no declared field: the extra ones
        extra = object.__getattribute__(self, "_extra") if name != "_extra" else None
        if extra is not None and name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (
            all(getattr(self, n) == getattr(other, n) for n, _, _ in self._fields)
            and self.model_extra == other.model_extra
        )

    def __hash__(self) -> int:
        return hash((type(self), *(getattr(self, n) for n, _, _ in self._fields)))

    def __repr__(self) -> str:
        shown = [f"{n}={getattr(self, n)!r}" for n, _, _ in self._fields] + [
            f"{k}={v!r}" for k, v in self.model_extra.items()
        ]
        return f"{type(self).__name__}({', '.join(shown)})"

    def __reduce__(self):
        return _rebuild, (type(self), {n: getattr(self, n) for n, _, _ in self._fields}, self.model_extra)

    def model_dump(self) -> dict[str, Any]:
        """Declared fields (nested parts as dicts), then the extra ones, as pydantic dumps a model."""
        out = {n: _dump(getattr(self, n)) for n, _, _ in self._fields}
        out.update((k, _dump(v)) for k, v in self.model_extra.items())
        return out


ItemT = TypeVar("ItemT", bound=_Item)  # a record part's class


def _rebuild(cls: type[ItemT], fields: dict[str, Any], extra: dict[str, Any]) -> ItemT:
    item = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(item, name, value)
    object.__setattr__(item, "_extra", extra or None)
    return item


def _dump(value: Any) -> Any:
    if isinstance(value, _Item):
        return value.model_dump()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


class ContentItem(_Item):
    __slots__ = ("type", "text", "image_url")
    _fields = (("type", STR, _REQUIRED), ("text", OPT_STR, None), ("image_url", OPT_STR, None))


class LocalShellAction(_Item):
    __slots__ = ("type", "command", "working_directory", "timeout_ms")
    _fields = (
        ("type", OPT_STR, None),
        ("command", ARGV, _REQUIRED),
        ("working_directory", OPT_STR, None),
        ("timeout_ms", OPT_INT, None),
    )


class RecordShapeError(Exception):
    """A record whose fields have the wrong types; ``loc`` is the path of the first bad field."""

    def __init__(self, message: str, loc: tuple) -> None:
        super().__init__(message)
        self.loc = loc
