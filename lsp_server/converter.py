"""The protocol's one cattrs converter, with lsprotocol's forward references resolved class by class (issue 35).

lsprotocol's ``register_hooks`` first resolves the annotations of all its 554 attrs classes
(``attrs.resolve_types``, a ``typing.get_type_hints`` each: 12-16 CPU-ms of the server's start), so that cattrs
generates each class's functions from concrete types.  A server's first answers use a few dozen of those
classes.  Here the converter is made with that pass skipped, and a class is resolved, with the same arguments,
just before cattrs first looks up a hook for it (or for a type naming it, as ``Optional[Foo]`` or a union whose
members cattrs tells apart by their fields): what cattrs generates is the same, it is only resolved later.
Resolving one class reads only its own and its bases' annotations, so the order changes nothing.

What it relies on, checked before use (else the converter is made as lsprotocol makes it, all at once):
lsprotocol's private flag ``_hooks._resolved_forward_references`` (set here only while this converter is made, so
that any other converter made later resolves as before) and ``types.ALL_TYPES_MAP``.  Pinned by
``tests/server/test_converter.py``: every class's generated functions and fields' types equal the eager
converter's, and a lsprotocol without the flag gets the eager converter.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs
from lsprotocol import _hooks, types
from pygls.protocol import default_converter


def lazily_resolved_converter() -> Any:
    """pygls's default converter, its lsprotocol classes resolved at their first hook (module docstring)."""
    found = getattr(types, "ALL_TYPES_MAP", None)
    if getattr(_hooks, "_resolved_forward_references", None) is not False or not isinstance(found, dict):
        return default_converter()  # resolved already in this process, or a lsprotocol this was not written for
    _hooks._resolved_forward_references = True
    try:
        converter = default_converter()
    finally:
        _hooks._resolved_forward_references = False
    everything: dict[str, Any] = found

    def resolve(target: Any, seen: set[int]) -> None:
        if id(target) in seen:
            return
        seen.add(id(target))
        if isinstance(target, type):
            # the classes lsprotocol's own pass resolves: attrs classes of the map under their own name
            cls: type = target
            if attrs.has(cls) and id(everything.get(cls.__name__)) == id(cls):  # id: `is` would narrow cls
                attrs.resolve_types(cls, everything, {})
            return
        for argument in typing.get_args(target):
            resolve(argument, seen)

    def resolve_first(target: Any) -> bool:
        # a predicate that never matches: it is asked before the hooks registered earlier (lsprotocol's), once
        # per type (cattrs caches what it dispatched), and resolves what that type names before they see it
        resolve(target, set())
        return False

    converter.register_unstructure_hook_factory(resolve_first, _never)
    converter.register_structure_hook_factory(resolve_first, _never)
    return converter


def _never(target: Any) -> Any:  # pragma: no cover - its predicate never matches
    raise AssertionError(target)
