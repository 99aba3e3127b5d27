"""The server's cache of the code attrs, cattrs and dataclasses generate, so that a start does not compile it
again (issue 35).

``import lsprotocol.types`` makes 569 attrs classes; attrs writes the source of each one's ``__init__``,
``__eq__``, … and compiles it, and that compiling was about half of the import's CPU (0.2 s of a 0.4 s server
start). cattrs compiles the structure and unstructure functions of each message type the same way, and
``dataclasses`` the methods of the analysis's dataclasses (with ``exec``, 30-45 ms). The source
is the same at every start, so, as Python keeps a module's compiled code in a ``.pyc``, this keeps the code
objects ``compile`` made (``marshal``) in one file beside the server's own bytecode, and a later start takes
each from there instead of compiling it.

What makes it safe:

- An entry is found by a SHA-256 of its source, its file name and the compiler flags, so only the very source
  compiled the same way gets its code; the file as a whole belongs to one Python (its cache tag and version) and
  one attrs, cattrs and lsprotocol (each one's installed version and the size and time of its generating
  module), and any other file is ignored.
- The file carries a SHA-256 of its content; a missing, short, corrupt or foreign file is read as empty, never
  an error: the start compiles as without a cache, then writes the file again.
- It is written where Python writes the server's ``.pyc`` files (``__pycache__`` of this package, or under
  ``sys.pycache_prefix``), and not at all when Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``,
  ``-B``): the same trust as the ``.pyc`` files beside it. Never a place a rollout or the workspace names.
- Written to a temporary file in the same folder, then renamed over the old one: servers starting together
  each read a whole file, old or new, and the last to finish leaves its whole file.

The hooks replace attrs' ``attr._make._compile_and_eval`` (private: attrs is pinned, and
``tests/server/test_code_cache.py`` fails if the hook no longer sees every class) and the name ``compile`` in
the cattrs modules that generate code and the name ``exec`` in ``dataclasses`` (shadowing the builtin there),
each compiling with the flags the original call would have inherited from its module's ``from __future__``
imports.
"""

from __future__ import annotations
import __future__ as future_features

import atexit
import hashlib
import marshal
import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

FORMAT = b"rollout-lsp code cache 2\n"
# a session leaves about 1,500 entries, the same at every start; should some generated source ever differ from
# one start to the next, the file keeps only what the last start used and made instead of growing without end
MAX_ENTRIES = 5000
MAX_BYTES = 64 << 20  # the cache of this server's classes is about 2 MB; anything far larger is not ours
_DIGEST = 32
# the generating modules whose source, if edited in place (same version), must not meet an older cache
_WATCHED = ("attr._make", "cattrs.gen", "cattrs.gen.typeddicts", "lsprotocol.types")
_DISTRIBUTIONS = (("attr", "attrs"), ("cattrs", "cattrs"), ("lsprotocol", "lsprotocol"))


def future_flags(module: ModuleType) -> int:
    """The compiler flags a ``compile()`` called in ``module`` inherits: one per ``from __future__`` import
    (each binds the feature's name in the module)."""
    flags = 0
    for value in vars(module).values():
        if isinstance(value, future_features._Feature):
            flags |= value.compiler_flag
    return flags


class CodeCache:
    """The code objects of one file, those read and those compiled since, and the hooks that use them."""

    def __init__(self, path: Path | None, key: tuple[object, ...]) -> None:
        self.path = path
        self.key = key
        self.read: dict[bytes, CodeType] = {}
        self.compiled: dict[bytes, CodeType] = {}
        self.hits = 0
        self.used: set[bytes] = set()
        self._lock = threading.Lock()

    def code(self, source: str, filename: str, flags: int) -> CodeType:
        """What ``compile(source, filename, "exec", flags, dont_inherit=True)`` returns, from the cache if there."""
        digest = hashlib.sha256(
            b"%d\0%s\0%s" % (flags, filename.encode("utf-8", "surrogatepass"), source.encode("utf-8", "surrogatepass"))
        ).digest()
        code = self.read.get(digest) or self.compiled.get(digest)
        if code is not None:
            self.hits += 1
            self.used.add(digest)
            return code
        code = compile(source, filename, "exec", flags, True)
        self.compiled[digest] = code
        return code

    def load(self) -> None:
        """Read the file; whatever is wrong with it (absent, short, corrupt, of another version) reads as empty."""
        if self.path is None:
            return
        try:
            data = _read_regular_file(self.path)
            self.read = parse(data, self.key) if data is not None else {}
        except Exception:  # a start never fails on this file (a MemoryError, a marshal error of another Python)
            self.read = {}

    def save(self) -> bool:
        """Write the file again if this process compiled code it did not hold (atomically); False if it could not
        (no place, no bytecode written, a read-only folder, a full disk: the next start compiles, as before)."""
        with self._lock:
            if self.path is None or not self.compiled or sys.dont_write_bytecode:
                return False
            # a copy: another thread (the warm-up's, the event loop's) may compile more meanwhile, kept for later
            new = dict(self.compiled)
            entries = {**self.read, **new}
            if len(entries) > MAX_ENTRIES:
                entries = {**{d: c for d, c in self.read.items() if d in self.used}, **new}
            data = serialise(self.key, entries)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with open(descriptor, "wb") as file:
                    file.write(data)
                os.replace(temporary, self.path)
            except OSError:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                return False
            self.read = entries
            for digest in new:
                del self.compiled[digest]
            return True


def _read_regular_file(path: Path) -> bytes | None:
    """The bytes of the file at ``path`` if it is a regular file of this user's (or root's) of at most
    ``MAX_BYTES``; None otherwise. Opened without blocking or following a last symbolic link, so that a FIFO or a
    link to a device put there cannot hang or exhaust the start."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    with open(descriptor, "rb") as file:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid not in _owners() or status.st_size > MAX_BYTES:
            return None
        data = file.read(MAX_BYTES + 1)
    return data if len(data) <= MAX_BYTES else None


def _owners() -> tuple[int, ...]:
    """Whose cache file is read: this user's or root's (where Windows has no owners, anyone's: its st_uid is 0)."""
    return (os.geteuid(), 0) if hasattr(os, "geteuid") else (0,)


def _key_digest(key: tuple[object, ...]) -> bytes:
    return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()


def serialise(key: tuple[object, ...], entries: dict[bytes, CodeType]) -> bytes:
    payload = marshal.dumps((key, entries))  # type: ignore[arg-type]  # a tuple of str, int, tuple and None
    return FORMAT + _key_digest(key) + hashlib.sha256(payload).digest() + payload


def parse(data: bytes, key: tuple[object, ...]) -> dict[bytes, CodeType]:
    """The entries of a cache file's bytes, or none unless the file is whole and of this ``key``: the key's digest
    is compared before anything is unmarshalled (another Python's code objects are never read)."""
    start = len(FORMAT) + 2 * _DIGEST
    if not data.startswith(FORMAT) or data[len(FORMAT) : len(FORMAT) + _DIGEST] != _key_digest(key):
        return {}
    if hashlib.sha256(data[start:]).digest() != data[len(FORMAT) + _DIGEST : start]:
        return {}
    try:
        found_key, entries = marshal.loads(data[start:])
    except (EOFError, ValueError, TypeError):
        return {}
    if found_key != key or not isinstance(entries, dict):
        return {}
    return {d: c for d, c in entries.items() if isinstance(d, bytes) and isinstance(c, CodeType)}


def cache_key() -> tuple[object, ...]:
    """This Python, and the installed version and generating modules of attrs, cattrs and lsprotocol."""
    versions = tuple(_distribution_version(module, name) for module, name in _DISTRIBUTIONS)
    watched = []
    for name in _WATCHED:
        spec_file = _module_file(name)
        try:
            stat = os.stat(spec_file) if spec_file else None
        except OSError:
            stat = None
        watched.append((name, (stat.st_size, stat.st_mtime_ns) if stat else None))
    return (sys.version, sys.implementation.cache_tag, versions, tuple(watched))


def _module_file(name: str) -> str | None:
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None)
    import importlib.util

    spec = importlib.util.find_spec(name)
    return spec.origin if spec is not None else None


def _distribution_version(module: str, distribution: str) -> str | None:
    """The version in the name of the ``NAME-VERSION.dist-info`` folder beside the package (without
    ``importlib.metadata``, which the server's start does not import)."""
    origin = _module_file(module)
    if origin is None:
        return None
    folder = Path(origin).parent.parent
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    prefix = distribution + "-"
    found = [n[len(prefix) : -len(".dist-info")] for n in names if n.startswith(prefix) and n.endswith(".dist-info")]
    return found[0] if len(found) == 1 else None


def cache_path(name: str = "generated-code") -> Path | None:
    """Where Python puts this package's bytecode, one file per Python: its cache tag and a digest of its version,
    so two Pythons of one tag (3.11.7 and 3.11.9 in one folder, a release candidate and its release) do not
    overwrite each other's file at every start; None where Python keeps no bytecode."""
    import importlib.util

    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    beside = Path(importlib.util.cache_from_source(__file__))  # raises only without a cache tag, checked above
    version = hashlib.sha256(sys.version.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return beside.with_name(f"{name}.{tag}.{version}.bin")


_installed: CodeCache | None = None


def install(at: Path | None = None) -> CodeCache | None:
    """Read the cache (at ``at``, else beside this package's bytecode) and hook attrs and cattrs to it (once per
    process); None if either hook no longer fits the installed attrs or cattrs (then they compile as before)."""
    global _installed
    if _installed is not None:
        return _installed
    import dataclasses

    import attr._make
    import cattrs.gen
    import cattrs.gen.typeddicts

    if not attrs_hook_fits(attr._make) or not all(
        calls_builtin(m, "compile") for m in (cattrs.gen, cattrs.gen.typeddicts)
    ):
        return None
    cache = CodeCache(at or cache_path(), cache_key())
    cache.load()
    attr_flags = future_flags(attr._make)

    def compile_and_eval(script: str, globs: dict[str, Any] | None, locs: Any = None, filename: str = "") -> None:
        eval(cache.code(script, filename, attr_flags), globs, locs)

    attr._make._compile_and_eval = compile_and_eval
    for module in (cattrs.gen, cattrs.gen.typeddicts):
        module.compile = _cached_compile(cache, future_flags(module))  # type: ignore[attr-defined]
    # the analysis's and pygls' dataclasses (about 460 generated functions, 30-45 ms to compile), the same way;
    # optional: a Python whose dataclasses no longer call exec() by name is simply not hooked
    if calls_builtin(dataclasses, "exec"):
        dataclasses.exec = _cached_exec(cache, future_flags(dataclasses))  # type: ignore[attr-defined]
    _installed = cache
    # what the session compiled after the warm-up's save (the first answers of other requests) is kept at exit
    atexit.register(cache.save)
    return cache


_commands: CodeCache | None = None


def install_for_commands(at: Path | None = None, command: str = "") -> CodeCache | None:
    """The command line's cache (``check``, ``outline``, …): the generated methods of the analysis's dataclasses
    alone, hooked as the server's are, in a file of each command's own (``dataclass-code-check.*.bin``, about 300
    entries) so that a command reads none of the server's protocol classes, imports no attrs, and reads no other
    command's entries.  Compiling those methods from
    their source was a quarter of the instructions of ``check`` of a small file.  Once per process; None where
    ``dataclasses`` no longer calls ``exec`` by name or the server's cache already hooks it.  Not saved at exit:
    the caller saves (:func:`save_for_commands`), so that a command can end without Python's finalisation."""
    global _commands
    if _commands is not None:
        return _commands
    import dataclasses

    if not calls_builtin(dataclasses, "exec"):
        return None
    # a name of letters alone, as every command's is; anything else (an option, a typo with a digit) shares one file
    plain = command.isascii() and command.isalpha() and command.islower() and len(command) <= 16
    name = f"dataclass-code-{command}" if plain else "dataclass-code"
    cache = CodeCache(at or cache_path(name), command_cache_key(dataclasses))
    cache.load()
    dataclasses.exec = _cached_exec(cache, future_flags(dataclasses))  # type: ignore[attr-defined]
    _commands = cache
    return cache


def command_cache_key(dataclasses: ModuleType) -> tuple[object, ...]:
    """This Python and its ``dataclasses`` module (size and time, should it be edited in place)."""
    try:
        found = os.stat(dataclasses.__file__ or "")
        watched = (found.st_size, found.st_mtime_ns)
    except (OSError, TypeError):
        watched = None
    return (sys.version, sys.implementation.cache_tag, ("dataclasses", watched))


def save_for_commands() -> None:
    """Write what this command compiled that the command line's cache did not hold (nothing once it is whole)."""
    if _commands is not None:
        _commands.save()


def attrs_hook_fits(module: ModuleType) -> bool:
    """attrs compiles each class's generated methods by calling ``_compile_and_eval(script, globs, locs,
    filename)`` (attrs 22.2–26.1 at least)."""
    function = getattr(module, "_compile_and_eval", None)
    caller = getattr(module, "_linecache_and_compile", None)
    code = getattr(function, "__code__", None)
    return (
        code is not None
        and code.co_varnames[:4] == ("script", "globs", "locs", "filename")
        and "_compile_and_eval" in getattr(getattr(caller, "__code__", None), "co_names", ())
    )


def calls_builtin(module: ModuleType, name: str) -> bool:
    """Whether ``module``'s functions (or its classes' methods) call the builtin ``name`` by that name, so that a
    module global of that name (the hook) takes its place; and that no such global is there yet."""
    if name in vars(module):
        return False
    for value in vars(module).values():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        for function in vars(value).values() if isinstance(value, type) else (value,):
            if name in getattr(getattr(function, "__code__", None), "co_names", ()):
                return True
    return False


def _cached_exec(cache: CodeCache, inherited: int) -> Callable[..., Any]:
    """``exec`` as called in a module whose ``from __future__`` imports give ``inherited``: ``exec(source,
    globals, locals)`` of a string compiles it as ``"<string>"`` with those flags."""

    def exec_cached(source: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(source, str) and len(args) == 2 and args[0] is not None and not kwargs:
            exec(cache.code(source, "<string>", inherited), *args)  # dataclasses' call: exec(text, globals, ns)
            return
        # any other call, uncached, as the builtin called in the module: text (str or bytes) compiled with the
        # module's flags, not this one's; without globals, the caller's namespaces (not this frame's)
        if not isinstance(source, CodeType):
            source = compile(source, "<string>", "exec", inherited, True)
        if len(args) > 2:
            raise TypeError(f"exec expected at most 3 arguments, got {1 + len(args)}")
        globals_ = args[0] if args else kwargs.pop("globals", None)
        locals_ = args[1] if len(args) > 1 else kwargs.pop("locals", None)
        if globals_ is None:
            frame = sys._getframe(1)
            globals_ = frame.f_globals
            locals_ = frame.f_locals if locals_ is None else locals_
        exec(source, globals_, locals_, **kwargs)

    return exec_cached


def _cached_compile(cache: CodeCache, inherited: int) -> Callable[..., Any]:
    """``compile`` as called in a module whose ``from __future__`` imports give ``inherited``."""

    def compile_cached(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        if mode == "exec" and not args and not kwargs and isinstance(source, str) and isinstance(filename, str):
            return cache.code(source, filename, inherited)
        # any other call, uncached, with the flags the module's own call would have had
        flags = kwargs.pop("flags", args[0] if args else 0)
        dont_inherit = kwargs.pop("dont_inherit", args[1] if len(args) > 1 else False)
        flags |= 0 if dont_inherit else inherited
        return compile(source, filename, mode, flags, True, *args[2:], **kwargs)

    return compile_cached


def save() -> None:
    """Write what this process compiled (after the server's imports, and after its warm-up)."""
    if _installed is not None:
        _installed.save()
