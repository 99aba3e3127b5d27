"""Argument and patch values of one tool call: the command, the workdir, the other keys, the patch text.

A call's first argument is read key by key: an object literal's keys as written (a
later spread or computed key leaves the keys it may set unknown), or a whole
object value bound to a loop element (see expansions).  A command is a string,
or an argv array shown shell-quoted (``shlex.join``, as the top-level form is);
anything else is not exactly known.  A patch is a string or template, directly or
through one ``const``; template substitutions that do not resolve become holes.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from tree_sitter import Node

from ..jsonl.findings import PATCH_SYNTAX, UNRESOLVED_PATCH_PATH
from .callees import ARGV_TOOLS, COMMAND_TOOLS
from .js_tree import TYPE_OF
from .literals import UNKNOWN, Unknown, string_value
from .notes import NoteSink, Related
from .patch import PatchFile, parse_patch
from .script import Binding, ExecScript
from .values import Constants, Env, unwrap

_HOLE = "\ue000"  # marks an unresolved template substitution inside a patch text


@dataclass(slots=True)
class Arguments:
    """The first argument of a tool call, key by key."""

    values: dict[str, Any]  # key → its exact value or UNKNOWN
    nodes: dict[str, Node] = field(default_factory=dict)  # key → the expression written for it
    open: set[str] = field(default_factory=set)  # keys an unknown spread or computed key may set; "*": any other
    whole: Node | None = None  # the argument expression
    json: bool | None = None  # written as JSON (quoted keys)

    def get(self, key: str) -> Any:
        """The key's exact value, UNKNOWN, or None when it is certainly absent."""
        if key in self.open or (key not in self.values and "*" in self.open):
            return UNKNOWN
        return self.values.get(key)

    def others(self, *skip: str) -> dict[str, Any]:
        """The remaining keys whose values are exactly known, with their values (a key computed at run time is
        in :meth:`computed`, never here as None: null would be a false value)."""
        return {k: v for k, v in self.values.items() if k not in skip and self.get(k) is not UNKNOWN}

    def computed(self, text: Callable[[Node], str], *skip: str) -> dict[str, str]:
        """The remaining keys written but not exactly known, with the expression written for each (``text``
        spells a node); a key a later spread or computed key may replace says so."""
        out = {}
        for key, value in self.values.items():
            if key in skip or self.get(key) is not UNKNOWN:
                continue
            node = self.nodes.get(key)
            expression = text(node) if node is not None else "?"
            out[key] = expression if value is UNKNOWN else f"{expression} (a later spread may replace it)"
        return out


def read_arguments(
    constants: Constants, node: Node | None, env: Env | None = None, only: tuple[str, ...] | None = None
) -> Arguments | None:
    """The call's first argument read key by key; None when there is none.  An argument that is not an
    object known key by key has every key unknown.  ``only``: the values of an object literal's other keys are
    not evaluated (they are left out of ``values``; what is open stays as written)."""
    node = unwrap(node)
    if node is None:
        return None
    if TYPE_OF[node.kind_id] == "object":
        props, open_after = constants.properties(node)
        return Arguments(
            {k: constants.value(v, env) for k, v in props.items() if only is None or k in only},
            props,
            open_after,
            node,
            is_json(constants.script.text(node)),
        )
    value = constants.value(node, env)
    if isinstance(value, dict):
        return Arguments(dict(value), whole=node)
    return Arguments({}, open={"*"}, whole=node)


# An object literal of plain keys and plain values only (``{cmd: "ls -la", workdir: "/w", max_output_tokens: 2000}``,
# most command calls): its keys and its strings are its bytes, so the lean reading of a command (stop 40) takes
# them from one match instead of the tree's pairs, the keys' nodes and the values' evaluation.  A key is a name or
# a double-quoted name; a value a string, a decimal integer, true, false or null.  A string holds no line break or
# control character; a double-quoted one JSON's escapes only, a single-quoted one none (the two forms
# ``string_value`` reads without esprima).  Anything else (comments, other escapes, templates, other values) is
# not matched, and the call is read in full.
_BLANK = rb"[ \t\n\r]*"
_KEY_AND_VALUE = (
    rb'([A-Za-z_$][A-Za-z0-9_$]*|"[A-Za-z_$][A-Za-z0-9_$]*")'
    + _BLANK
    + rb":"
    + _BLANK
    + rb'("[^"\\\x00-\x1f]*(?:(?:\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'  # one way to match: linear
    + rb"""|'[^'\\\x00-\x1f]*'|[0-9]+|true|false|null)"""
)
# one pair and what follows it, matched where the previous one ended (group 3: ``,`` or ``}``): the object is read in
# one pass, pair by pair (stop 44; a whole-object match, then a search for its pairs, read it twice).  Each match is
# anchored, and a blank run is only ever before a key or a delimiter, so a long run costs one pass, never one a blank.
_PLAIN_STEP = re.compile(_BLANK + _KEY_AND_VALUE + _BLANK + rb"([,}])")
_PLAIN_CLOSE = re.compile(_BLANK + rb"\}")  # an empty object's inside, or what follows a last comma


def plain_object(script: ExecScript, node: Node) -> dict[str, bytes] | None:
    """The keys of an object literal written with plain keys and values only, each with its value's bytes
    (a string's with its quotes); None for any other object (then read it with :func:`read_arguments`), one
    that repeats a key or sets ``__proto__``."""
    found = plain_arguments(script, node)
    return found[0] if found is not None else None


def plain_arguments(script: ExecScript, node: Node) -> tuple[dict[str, bytes], bool] | None:
    """:func:`plain_object`'s pairs, and whether the object is written as JSON (what :func:`is_json` tells of its
    text), told from the pairs' bytes: each key double-quoted, each value a double-quoted string (its escapes
    JSON's already), ``true``, ``false``, ``null`` or an integer without a leading zero, no comma last."""
    data, start, end = script.data, node.start_byte, node.end_byte
    if data[start : start + 1] != b"{":
        return None
    pairs: dict[str, bytes] = {}
    json_written = True
    at = start + 1
    step = _PLAIN_STEP.match
    while True:
        match = step(data, at, end)
        if match is None:  # ``{}``, or a comma last (JSON has none): only blanks and the closing brace may be left
            if _PLAIN_CLOSE.fullmatch(data, at, end) is None:
                return None
            json_written = json_written and not pairs
            break
        written, value, after = match.group(1, 2, 3)
        key = written.strip(b'"').decode("ascii")
        if key in pairs or key == "__proto__":
            return None
        pairs[key] = value
        if json_written and (written[:1] != b'"' or value[:1] == b"'" or value[:1] == b"0" and len(value) > 1):
            json_written = False
        at = match.end()
        if after == b"}":
            if at != end:
                return None
            break
    if node.has_error:
        return None
    return pairs, json_written


def plain_string(value: bytes | None) -> str | None:
    """The string a plain value (see :func:`plain_object`) spells, as the full reading evaluates a string's text;
    None for a number, boolean or null."""
    if value is None or value[:1] not in (b'"', b"'"):
        return None
    text = string_value(value.decode("utf-8", "replace"))  # the script's text is UTF-8: never replaced
    return text if isinstance(text, str) else None


def command_of(tool: str, arguments: Arguments | None) -> str | Unknown | None:
    """The command a command tool's arguments give: a string (exec_command, shell_command), an argv array
    shell-quoted (shell, container.exec); UNKNOWN when not exactly known or not of the type the tool takes
    (the tool refuses it), None when the key is absent."""
    if arguments is None:
        return None
    value = arguments.get(COMMAND_TOOLS[tool])
    if value is None or value is UNKNOWN:
        return value
    if tool not in ARGV_TOOLS:
        return value if isinstance(value, str) else UNKNOWN
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return shlex.join(value)
    return UNKNOWN


def command_node(tool: str, arguments: Arguments) -> Node | None:
    """The expression written for the command key (for the computed-command message)."""
    return arguments.nodes.get(COMMAND_TOOLS[tool])


@dataclass(slots=True)
class PatchValue:
    patch: str | None = None  # the text, with unresolved substitutions shown as ${…}
    files: tuple[PatchFile, ...] = ()
    computed_from: str | None = None  # what the patch depends on at run time (None: exactly known)


class PatchReader:
    """Reads the patch argument of an ``apply_patch`` call, reporting its problems through ``note``."""

    def __init__(self, script: ExecScript, constants: Constants, note: NoteSink) -> None:
        self.script = script
        self.constants = constants
        self.note = note

    def read(self, argument: Node | None) -> PatchValue:
        node = self.patch_node(argument)
        if node is None:
            return PatchValue(computed_from="no patch argument")
        literal, via = self.literal(node)
        text, holes = self.text(literal) if literal is not None else (None, [])
        if literal is None or text is None:
            return PatchValue(computed_from=self.script.text(node))
        patch = parse_patch(text)
        related: Related = ()
        if via is not None:
            vs, ve = self.script.span(via.node)
            related = ((vs, ve, f"the patch text is the const {via.name}"),)
        files = self.files(patch.files, holes, related)
        shown = text
        for index, hole in enumerate(holes):
            shown = shown.replace(f"{_HOLE}{index}{_HOLE}", "${" + self.script.text(hole)[2:-1] + "}")
        a_start, a_end = self.script.span(literal)
        exact = (
            TYPE_OF[literal.kind_id] in ("string", "template_string")
            and "\\" not in self.script.text(literal)
            and not holes
        )
        for error in patch.errors:
            where = (
                (a_start + 1 + error.offset, a_start + 1 + error.offset + error.length) if exact else (a_start, a_end)
            )
            self.note(PATCH_SYNTAX, f"patch line {error.line + 1}: {error.message}", *where, related)
        computed_from = ", ".join(self.script.text(h) for h in holes) if holes else None
        return PatchValue(shown, files, computed_from)

    def patch_node(self, argument: Node | None) -> Node | None:
        """The expression that holds the patch: the argument, or its ``input`` key (the JSON variant)."""
        node = unwrap(argument)
        if node is not None and TYPE_OF[node.kind_id] == "object":
            props, _ = self.constants.properties(node)
            node = unwrap(props.get("input"))
        return node

    def literal_of(self, argument: Node | None) -> Node | None:
        """The string or template literal a patch argument's text is written in, if any."""
        node = self.patch_node(argument)
        return self.literal(node)[0] if node is not None else None

    def files(self, files: Iterable[PatchFile], holes: list[Node], related: Related) -> tuple[PatchFile, ...]:
        kept: list[PatchFile] = []
        for f in files:
            bad = [h for i, h in enumerate(holes) if f"{_HOLE}{i}{_HOLE}" in f.path]
            bad_move = [h for i, h in enumerate(holes) if f.move_to and f"{_HOLE}{i}{_HOLE}" in f.move_to]
            for hole in bad + bad_move:
                hs, he = self.script.span(hole)
                self.note(
                    UNRESOLVED_PATCH_PATH,
                    f"patch path {self.script.text(hole)} does not resolve to a const string; the file is not listed",
                    hs,
                    he,
                    related,
                )
            if bad:
                continue
            kept.append(replace(f, move_to=None) if bad_move else f)
        return tuple(kept)

    def literal(self, node: Node) -> tuple[Node | None, Binding | None]:
        """The string or template that holds a patch, directly or through one ``const``."""
        if TYPE_OF[node.kind_id] in ("string", "template_string"):
            return node, None
        if TYPE_OF[node.kind_id] in ("identifier", "shorthand_property_identifier"):
            binding = self.script.resolve(node)
            if binding is not None and binding.kind == "const" and self.script.declared_once(binding):
                init = unwrap(binding.init)
                if init is not None and TYPE_OF[init.kind_id] in ("string", "template_string"):
                    return init, binding
        return None, None

    def text(self, literal: Node) -> tuple[str | None, list[Node]]:
        """A patch text; template substitutions that are not exactly known become numbered holes."""
        if TYPE_OF[literal.kind_id] == "string":
            value = string_value(self.script.text(literal))
            return (None if value is UNKNOWN else value), []
        pieces = self.constants.quasis(literal)
        if pieces is UNKNOWN:
            return None, []
        substitutions = [c for c in literal.named_children if TYPE_OF[c.kind_id] == "template_substitution"]
        out = [pieces[0]]
        holes: list[Node] = []
        for sub, piece in zip(substitutions, pieces[1:]):
            value = self.constants.substitution(sub)
            if value is UNKNOWN:
                out.append(f"{_HOLE}{len(holes)}{_HOLE}")
                holes.append(sub)
            else:
                out.append(value)
            out.append(piece)
        return "".join(out), holes


def is_json(text: str) -> bool:
    """Whether an object literal is written as JSON (its text decodes as JSON)."""
    if text[1:].lstrip()[:1] not in ('"', "}"):  # ``{cmd: …}``: a JSON object's first key is quoted (no decode)
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


__all__ = [
    "Arguments",
    "PatchReader",
    "PatchValue",
    "command_node",
    "command_of",
    "is_json",
    "plain_arguments",
    "plain_object",
    "plain_string",
    "read_arguments",
]
