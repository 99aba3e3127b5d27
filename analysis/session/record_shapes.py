"""The pydantic side of :mod:`analysis.session.records`: models built from the record classes' declared fields,
asked only for a record the plain check does not accept, and the ``record-shape`` finding's wording."""

from __future__ import annotations

from typing import Any

from .json_types import json_type as _json_type
from .record_parts import (
    _REQUIRED,
    ACTION,
    ANY,
    ARGV,
    CONTENT,
    FIELD_NAMES,
    LIST,
    OPT_DICT,
    OPT_INT,
    OPT_STR,
    OUTPUT,
    STR,
    ContentItem,
    ItemT,
    LocalShellAction,
    RecordShapeError,
    _Item,
    _rebuild,
)

# -- pydantic, for what the plain check does not accept ----------------------------------------------------
_MODELS: dict[type[_Item], Any] = {}


def _pydantic_model(cls: type[_Item]) -> Any:
    """The pydantic model of ``cls``, built from its declared fields (once, on first need)."""
    model = _MODELS.get(cls)
    if model is None:
        from typing import Literal

        from pydantic import ConfigDict, create_model

        content = _pydantic_model(ContentItem) if cls is not ContentItem else None
        types: dict[Any, Any] = {
            STR: str,
            OPT_STR: str | None,
            OPT_INT: int | None,
            ANY: Any,
            OPT_DICT: dict[str, Any] | None,
            LIST: list[Any],
            ARGV: list[str] | str,
            # content: a model built here, at run time, which no static type names
            CONTENT: list[content] | str,  # type: ignore[valid-type]
            OUTPUT: str | list[content] | dict[str, Any],  # type: ignore[valid-type]
        }
        fields: dict[str, Any] = {}
        for name, kind, default in cls._fields:
            annotation = (
                _pydantic_model(LocalShellAction)
                if kind is ACTION
                else Literal[kind[1]]
                if isinstance(kind, tuple)
                else types[kind]
            )
            fields[name] = (annotation, ... if default is _REQUIRED else [] if default is list else default)
        model = _MODELS[cls] = create_model(cls.__name__, __config__=ConfigDict(extra="allow", frozen=True), **fields)
    return model


def _from_pydantic(cls: type[ItemT], validated: Any) -> ItemT:
    """A pydantic model's values (nested models too) as a ``cls``."""

    def plain(value: Any, kind: Any) -> Any:
        if kind is ACTION:
            return _from_pydantic(LocalShellAction, value)
        if (kind is CONTENT or kind is OUTPUT) and isinstance(value, list):
            return [_from_pydantic(ContentItem, v) for v in value]
        return value

    fields = {name: plain(getattr(validated, name), kind) for name, kind, _ in cls._fields}
    return _rebuild(cls, fields, dict(validated.model_extra or {}))


def _shape_error(error: Any, prefix: tuple) -> RecordShapeError:
    first = error.errors()[0]
    loc = prefix + tuple(first["loc"])
    path = _json_path(loc)
    where = ".".join(str(p) for p in path) or "record"
    what = _json_type(first.get("input"))
    if len(path) < len(loc):  # a union's member names follow the path: no single expected type
        return RecordShapeError(f"{where}: wrong type (got {what})", path)
    return RecordShapeError(f"{where}: {first['msg'].lower()} (got {what})", path)


def _json_path(loc: tuple) -> tuple:
    """The prefix of a pydantic location that names real JSON keys and indices."""
    out: list = []
    for part in loc:
        if isinstance(part, int) or part in FIELD_NAMES:
            out.append(part)
        else:
            break
    return tuple(out)
