"""Command lines as a shell reads them: the simple commands a line runs, each with its argv.

bashlex (a port of bash's own parser) splits the line, so quoting, ``&&``,
``;``, pipes, subshells, loops and ``$(…)`` are read as bash reads them.  On
top of that, the wrappers that only start another command are looked through:
``X=1 cmd``, ``env [-i] [X=1…] cmd``, and ``bash -c``/``-lc 'script'`` (and
``sh``, ``zsh``), whose script is read again.  A word with an expansion
(``$x``, ``$(…)``) has no value a static reading can know: it is None.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_MAX_NESTING = 8  # bash -lc "bash -lc '…'" nests; a pathological line stops here


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command a line runs: ``argv[0]`` is the program; an element is None where it is not known."""

    argv: tuple[str | None, ...]

    @property
    def program(self) -> str | None:
        """The executable's name, without its directory (``/usr/bin/curl`` runs ``curl``)."""
        first = self.argv[0] if self.argv else None
        return os.path.basename(first) if first else None

    @property
    def exact(self) -> bool:
        return all(a is not None for a in self.argv)


@dataclass(frozen=True, slots=True)
class CommandLine:
    """What a line runs.  ``parsed`` is False when the shell grammar could not read it (nothing listed)."""

    text: str
    commands: tuple[SimpleCommand, ...]
    parsed: bool = True

    @property
    def sole(self) -> SimpleCommand | None:
        """The one command of a line that runs exactly one: its exit status is the line's."""
        return self.commands[0] if self.parsed and len(self.commands) == 1 else None


def read_command_line(text: str) -> CommandLine:
    """The simple commands ``text`` runs, in the order they appear."""
    commands = _commands_of(text, 0)
    if commands is None:
        return CommandLine(text, (), parsed=False)
    return CommandLine(text, tuple(commands))


_BashNode = Any  # a bashlex.ast.node: bashlex ships no types


def _commands_of(text: str, depth: int) -> list[SimpleCommand] | None:
    if depth > _MAX_NESTING:
        return None
    import bashlex  # on first use: building its grammar tables takes a quarter of a second at import

    try:
        trees = bashlex.parse(text)
    except Exception:  # bashlex raises its own errors (and a few of Python's) on what it cannot read
        return _plain_words(text)
    found: list[SimpleCommand] = []
    for tree in trees:
        for node in _command_nodes(tree):
            found.extend(_unwrap(_argv_of(node), depth))
    return found


def _plain_words(text: str) -> list[SimpleCommand] | None:
    """A line bashlex cannot read is still one command when it holds no shell syntax at all."""
    if any(c in text for c in ";&|<>()`$\n{}*?[]#~"):
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    return [SimpleCommand(tuple(words))] if words else []


def _command_nodes(tree: _BashNode) -> list[_BashNode]:
    """Every ``command`` node below ``tree`` (in pipelines, lists, loops, substitutions), in source order."""
    out: list[_BashNode] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.kind == "command":
            out.append(node)
        children = list(getattr(node, "parts", None) or [])
        children += list(getattr(node, "list", None) or [])
        for attribute in ("command", "output"):
            child = getattr(node, attribute, None)
            if child is not None and hasattr(child, "kind"):
                children.append(child)
        stack.extend(reversed(children))
    return sorted(out, key=lambda n: n.pos[0])


def _argv_of(node: _BashNode) -> list[str | None]:
    argv: list[str | None] = []
    for part in node.parts:
        if part.kind == "assignment" and not argv:
            continue  # X=1 cmd: the assignment is the environment of cmd
        if part.kind == "word":
            exact = not any(
                p.kind in ("parameter", "commandsubstitution", "processsubstitution", "tilde")
                for p in getattr(part, "parts", ()) or ()
            )
            argv.append(part.word if exact else None)
    return argv


def _unwrap(argv: list[str | None], depth: int) -> list[SimpleCommand]:
    """Looks through ``env`` and ``bash -c`` to the command they start."""
    if not argv:
        return []
    program = os.path.basename(argv[0]) if argv[0] else None
    if program == "env":
        rest = argv[1:]
        while rest and rest[0] is not None and (rest[0].startswith("-") or "=" in rest[0]):
            rest = rest[1:]
        return _unwrap(rest, depth) if rest else [SimpleCommand(tuple(argv))]
    if program in _SHELLS:
        script = _shell_script(argv[1:])
        if script is not None:
            inner = _commands_of(script, depth + 1)
            if inner is not None:
                return inner
    return [SimpleCommand(tuple(argv))]


def _shell_script(args: list[str | None]) -> str | None:
    """The script of ``bash -c SCRIPT`` (options such as ``-l``, ``-e`` may be combined: ``-lc``)."""
    for index, arg in enumerate(args):
        if arg is None or not arg.startswith("-") or arg.startswith("--"):
            return None
        if "c" in arg[1:]:
            return args[index + 1] if index + 1 < len(args) else None
    return None


__all__ = ["CommandLine", "SimpleCommand", "read_command_line"]
