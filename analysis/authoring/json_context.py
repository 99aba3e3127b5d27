"""Where the cursor is in a line of JSON being typed, read without requiring the line to be valid JSON.

A tolerant scanner (not a parser): it follows strings, brackets, colons and commas, so it gives the path of the
string the cursor is in, whether that string is a key, the record's ``type``, ``payload.type`` and
``payload.name`` wherever they are on the line, and the keys of the outermost object.  Completion
(:mod:`analysis.authoring.completion`) decides what to offer from it; nothing here knows a record type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class JsonContext:
    """Where the cursor is in a (possibly unfinished) JSON line."""

    path: tuple | None = None  # the path of the string the cursor is in (None: not in a string)
    is_key: bool = False
    content_start: int = 0  # the column after the string's opening quote
    content_end: int = 0  # the column of its closing quote (or the end of the line)
    fields: dict[tuple, str] = field(default_factory=dict)  # string values of type, payload.type, payload.name
    keys: set[str] = field(default_factory=set)  # the keys of the outermost object
    key_position: bool = False  # the cursor is outside any string where a key of the outermost object goes


_WANTED = {("type",), ("payload", "type"), ("payload", "name")}


def json_context(line: str, column: int) -> JsonContext:
    """The string around ``column`` and the record's identifying fields, read without requiring valid JSON."""
    context = JsonContext()
    stack: list[list] = []  # [kind, key or index, expecting a key]
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            end = _string_end(line, i + 1)
            is_key = bool(stack) and stack[-1][0] == "{" and stack[-1][2]
            # a key's path is its object's; a value's path ends with its key (or index)
            path = tuple(f[1] for f in (stack[:-1] if is_key else stack))
            if i < column <= end:
                context.path, context.is_key, context.content_start, context.content_end = path, is_key, i + 1, end
            if is_key:
                stack[-1][1] = _decode(line[i + 1 : end])
                if len(stack) == 1 and not i < column <= end:
                    context.keys.add(stack[-1][1])
            elif path in _WANTED:
                context.fields[path] = _decode(line[i + 1 : end])
            i = end + 1
            continue
        if i == column:
            context.key_position = len(stack) == 1 and stack[0][0] == "{" and stack[0][2]
        if c in "{[":
            stack.append([c, 0 if c == "[" else None, c == "{"])
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == ":":
            if stack and stack[-1][0] == "{":
                stack[-1][2] = False
        elif c == ",":
            if stack:
                if stack[-1][0] == "{":
                    stack[-1][2] = True
                else:
                    stack[-1][1] += 1
        i += 1
    if column >= n:
        context.key_position = len(stack) == 1 and stack[0][0] == "{" and stack[0][2]
    return context


def _string_end(line: str, i: int) -> int:
    """The column of the closing quote of a string whose content starts at ``i`` (the line's end if none)."""
    n = len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i
        i += 1
    return n


def _decode(raw: str) -> str:
    try:
        return json.loads(f'"{raw}"')
    except ValueError:
        return raw


__all__ = ["JsonContext", "json_context"]
