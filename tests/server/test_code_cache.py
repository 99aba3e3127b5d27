"""The cache of the code attrs and cattrs generate (lsp_server/code_cache.py): each code object it gives is the
one ``compile`` makes, over every class lsprotocol defines; a damaged or foreign file is read as empty; servers
writing it together leave a whole file; and the hooks on attrs and cattrs still apply to the pinned versions."""

import dataclasses
import hashlib
import json
import marshal
import os
import subprocess
import sys
import types
from pathlib import Path

import attr._make
import cattrs.gen
import cattrs.gen.typeddicts
import pytest

from lsp_server import code_cache

ROOT = Path(__file__).resolve().parents[2]

# one fresh interpreter: hook (or not), make lsprotocol's classes and the converter's functions of the warm-up,
# and print every generated method's code (marshal, hex) with what the cache did
PROBE = r"""
import json, marshal, sys
from pathlib import Path
hooked = sys.argv[1] == "hooked"
if hooked:
    from lsp_server import code_cache
    cache = code_cache.install(Path(sys.argv[2]))
    assert cache is not None, "the hooks no longer fit attrs or cattrs"
    seen = []
    returned = []  # the code objects the cache gave, kept alive so that ids stay theirs
    cached_code = cache.code
    def recording(source, filename, flags):
        seen.append((source, filename, flags))
        code = cached_code(source, filename, flags)
        returned.append(code)
        return code
    cache.code = recording
import lsprotocol.types
from lsp_server.features.warm_up import warm_up
from lsp_server.server import create_server
warm_up(create_server().protocol)
generated = {}
code_of = {}  # the same keys: the code objects themselves
for module in ("lsprotocol.types",):
    for name, cls in sorted(vars(sys.modules[module]).items()):
        if hasattr(cls, "__attrs_attrs__") and cls.__module__ == module:
            for method, function in sorted(vars(cls).items()):
                method_code = getattr(function, "__code__", None)
                if method_code is not None and method_code.co_filename.startswith("<attrs generated"):
                    generated[f"{name}.{method}"] = marshal.dumps(method_code, 2).hex()
                    code_of[f"{name}.{method}"] = method_code
converter = create_server().protocol._converter
for kind, functions in (("structure", converter._structure_func), ("unstructure", converter._unstructure_func)):
    for cls in (lsprotocol.types.DidOpenTextDocumentParams, lsprotocol.types.CodeAction):
        function = functions.dispatch(cls)
        generated[f"{kind} {cls.__name__}"] = marshal.dumps(function.__code__, 2).hex()
        code_of[f"{kind} {cls.__name__}"] = function.__code__
# every dataclass of the server's modules: their methods are dataclasses' generated code ("<string>")
for module_name, module in sorted(sys.modules.items()):
    if module_name.split(".")[0] in ("analysis", "lsp_server", "pygls"):
        for name, cls in sorted(getattr(module, "__dict__", {}).items()):
            if isinstance(cls, type) and hasattr(cls, "__dataclass_fields__") and cls.__module__ == module_name:
                for method, function in sorted(vars(cls).items()):
                    method_code = getattr(function, "__code__", None)
                    if method_code is not None and method_code.co_filename == "<string>":
                        generated[f"{module_name}:{name}.{method}"] = marshal.dumps(method_code, 2).hex()
                        code_of[f"{module_name}:{name}.{method}"] = method_code
out = {"generated": generated, "classes": sorted(
    name for name, cls in vars(lsprotocol.types).items()
    if hasattr(cls, "__attrs_attrs__") and cls.__module__ == "lsprotocol.types")}
if hooked:
    # each generated method's code is the cache's: the very object, or a function's code made inside it
    given = set()
    def walk(code):
        given.add(id(code))
        for const in code.co_consts:
            if hasattr(const, "co_consts"):
                walk(const)
    for code in returned:
        walk(code)
    out["not_through_cache"] = sorted(key for key, code in code_of.items() if id(code) not in given)
    out.update(hits=cache.hits, compiled=len(cache.compiled), saved=cache.save(),
               seen=[[s, f, flags] for s, f, flags in seen])
print(json.dumps(out))
"""


def _probe(*args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def three_starts(tmp_path_factory):
    """A start without the cache, a first start with it (compiles, writes) and a second (reads)."""
    path = tmp_path_factory.mktemp("cache") / "generated-code.bin"
    return _probe("plain"), _probe("hooked", str(path)), _probe("hooked", str(path)), path


def test_each_generated_method_is_the_same_code_with_and_without_the_cache(three_starts):
    plain, first, second, _ = three_starts
    assert len(plain["classes"]) > 500
    # every class lsprotocol defines went through the cache: its methods' file names are attrs' own
    named = {key.split(".")[0] for key in plain["generated"] if "." in key and ":" not in key}
    assert named == set(plain["classes"])
    assert sum(":" in key for key in plain["generated"]) > 300  # the dataclasses' methods
    assert first["generated"] == plain["generated"]
    assert second["generated"] == plain["generated"]
    # and each of them came out of the cache, on both starts: a method compiled some other way is named here
    assert first["not_through_cache"] == [] and second["not_through_cache"] == []


def test_the_second_start_compiles_nothing_and_the_first_wrote_it_all(three_starts):
    _, first, second, path = three_starts
    distinct = {(source, filename) for source, filename, _ in first["seen"]}
    # the first start compiled each source once (a repeat within the process is found) and wrote them all
    assert first["hits"] == len(first["seen"]) - len(distinct)
    assert len(code_cache.parse(path.read_bytes(), code_cache.cache_key())) == len(distinct)
    assert second["compiled"] == 0 and second["hits"] == len(second["seen"]) == len(first["seen"])
    assert second["saved"] is False  # nothing new: the file is not written again
    assert any(f.startswith("<cattrs generated") for _, f, _ in first["seen"])  # the converter's hook applies


def test_each_cached_code_object_is_what_compile_makes(three_starts):
    _, first, _, path = three_starts
    entries = code_cache.parse(path.read_bytes(), code_cache.cache_key())
    # attrs' and cattrs' generating modules import annotations from __future__ and nothing else, so their own
    # compile() calls inherit exactly that flag
    for module in (attr._make, cattrs.gen, cattrs.gen.typeddicts):
        source = Path(module.__file__).read_text()
        assert source.count("from __future__ import") == 1
        assert "from __future__ import annotations\n" in source
    assert "from __future__" not in Path(dataclasses.__file__).read_text()  # its exec() inherits no flag

    def flags_of(filename: str) -> int:  # "<string>": dataclasses' exec(); the others attrs' and cattrs' compile()
        return 0 if filename == "<string>" else __import__("__future__").annotations.compiler_flag

    assert all(flags == flags_of(filename) for _, filename, flags in first["seen"])
    assert {filename == "<string>" for _, filename, _ in first["seen"]} == {True, False}
    fresh = {_bytes(compile(source, name, "exec", flags_of(name), True)) for source, name, _ in first["seen"]}
    assert {_bytes(code) for code in entries.values()} == fresh


def _bytes(code: types.CodeType) -> bytes:
    """The code object's marshal without references (version 2): marshal's default marks an object it meets
    again by reference, which depends on the objects' reference counts, not on the code."""
    return marshal.dumps(code, 2)


def _cache(tmp_path: Path, key=("key",)) -> code_cache.CodeCache:
    return code_cache.CodeCache(tmp_path / "__pycache__" / "generated-code.bin", key)


def _written(tmp_path: Path) -> code_cache.CodeCache:
    cache = _cache(tmp_path)
    cache.code("x = 1\n", "<one>", 0)
    cache.code("def f(a):\n    return a + 1\n", "<two>", 0)
    assert cache.save() is True
    return cache


def test_a_file_written_is_read_back_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _written(tmp_path)
    again = _cache(tmp_path)
    again.load()
    assert sorted(c.co_filename for c in again.read.values()) == ["<one>", "<two>"]
    code = again.code("x = 1\n", "<one>", 0)
    assert (again.hits, again.compiled) == (1, {})
    assert _bytes(code) == _bytes(compile("x = 1\n", "<one>", "exec", 0, True))
    assert os.listdir(tmp_path / "__pycache__") == ["generated-code.bin"]  # no temporary file left


def test_another_source_file_name_or_flags_is_compiled_not_reused(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _written(tmp_path)
    cache = _cache(tmp_path)
    cache.load()
    annotations = __import__("__future__").annotations.compiler_flag
    for source, filename, flags in (
        ("x = 2\n", "<one>", 0),
        ("x = 1\n", "<other>", 0),
        ("x = 1\n", "<one>", annotations),
    ):
        code = cache.code(source, filename, flags)
        assert _bytes(code) == _bytes(compile(source, filename, "exec", flags, True))
    assert cache.hits == 0 and len(cache.compiled) == 3


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-1], id="last-byte-missing"),
        pytest.param(lambda data: data[:40], id="header-only"),
        pytest.param(lambda data: data[:-5] + bytes([data[-5] ^ 1]) + data[-4:], id="one-bit-flipped"),
        pytest.param(lambda data: b"rollout-lsp code cache 0\n" + data[25:], id="other-format"),
        pytest.param(lambda data: os.urandom(len(data)), id="random"),
        pytest.param(lambda data: b"\x00" * 100, id="zeros"),
    ],
)
def test_a_damaged_file_reads_as_empty_and_is_written_again(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _written(tmp_path)
    path = tmp_path / "__pycache__" / "generated-code.bin"
    path.write_bytes(damage(path.read_bytes()))
    cache = _cache(tmp_path)
    cache.load()
    assert cache.read == {}
    cache.code("x = 1\n", "<one>", 0)
    assert cache.save() is True
    again = _cache(tmp_path)
    again.load()
    assert [c.co_filename for c in again.read.values()] == ["<one>"]


def test_a_file_of_another_python_or_versions_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _written(tmp_path)
    other = _cache(tmp_path, key=("other",))
    other.load()
    assert other.read == {}
    key = code_cache.cache_key()
    assert key[:2] == (sys.version, sys.implementation.cache_tag)
    assert key[2] == ("26.1.0", "26.2.1", "2025.0.0")  # attrs, cattrs, lsprotocol as pinned


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = _cache(tmp_path)
    cache.code("x = 1\n", "<one>", 0)
    assert cache.save() is False
    assert not (tmp_path / "__pycache__").exists()


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "__pycache__").write_text("a file where the folder would be")
    cache = _cache(tmp_path)
    cache.code("x = 1\n", "<one>", 0)
    assert cache.save() is False
    assert code_cache.CodeCache(None, ()).save() is False


def test_the_cache_lives_beside_the_packages_bytecode():
    path = code_cache.cache_path()
    version = hashlib.sha256(sys.version.encode()).hexdigest()[:12]
    name = f"generated-code.{sys.implementation.cache_tag}.{version}.bin"
    assert path == Path(code_cache.__file__).parent / "__pycache__" / name


def test_servers_writing_together_leave_one_whole_file(tmp_path):
    path = tmp_path / "generated-code.bin"
    script = (
        "import sys; from pathlib import Path; from lsp_server import code_cache; "
        "c = code_cache.install(Path(sys.argv[1])); import lsprotocol.types; print(c.save())"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    starts = [
        subprocess.Popen([sys.executable, "-c", script, str(path)], cwd=ROOT, env=env, stdout=subprocess.PIPE)
        for _ in range(4)
    ]
    outputs = [start.communicate()[0] for start in starts]
    assert [start.returncode for start in starts] == [0, 0, 0, 0]
    assert all(out.strip() in (b"True", b"False") for out in outputs)
    entries = code_cache.parse(path.read_bytes(), code_cache.cache_key())
    assert len(entries) > 500
    assert os.listdir(tmp_path) == ["generated-code.bin"]


def test_the_hooks_fit_the_pinned_attrs_and_cattrs_and_this_pythons_dataclasses():
    # attrs' private _compile_and_eval is what the cache replaces: if attrs renames or reshapes it, this fails
    # (and install() leaves attrs alone, so the server still starts, compiling as before)
    assert code_cache.attrs_hook_fits(attr._make)
    for module, builtin in ((cattrs.gen, "compile"), (cattrs.gen.typeddicts, "compile"), (dataclasses, "exec")):
        fresh = types.ModuleType(module.__name__)  # the module as imported, before any hook shadows the builtin
        fresh.__dict__.update({k: v for k, v in vars(module).items() if k != builtin})
        assert code_cache.calls_builtin(fresh, builtin)
        fresh.__dict__[builtin] = print
        assert not code_cache.calls_builtin(fresh, builtin)  # a name of the module's own is never replaced
    assert not code_cache.attrs_hook_fits(types.ModuleType("attr._make"))
    assert not code_cache.calls_builtin(types.ModuleType("cattrs.gen"), "compile")


def test_the_hooks_other_calls_are_the_builtins(tmp_path):
    cache = code_cache.CodeCache(None, ())
    hooked_exec = code_cache._cached_exec(cache, 0)
    namespace: dict = {}
    hooked_exec("x = 1", namespace, namespace)  # dataclasses' call: cached
    assert namespace["x"] == 1 and len(cache.compiled) == 1
    y = 2  # noqa: F841  (read by the exec below)
    hooked_exec("assert y == 2")  # no namespace: the caller's, as exec takes it (a NameError otherwise)
    g = {"y": 5}
    hooked_exec("w = y * 2", g)
    assert g["w"] == 10
    hooked_compile = code_cache._cached_compile(cache, 0)
    assert hooked_compile("1 + 2", "<e>", "eval").co_filename == "<e>"  # not exec mode: uncached
    assert eval(hooked_compile("1 + 2", "<e>", "eval")) == 3
    assert len(cache.compiled) == 1


SERVE_PROBE = r"""
import argparse, sys
from lsp_server import code_cache, serve_command
real_install = code_cache.install
def install(*args, **kwargs):
    print("lsprotocol.types" in sys.modules)  # not yet made when the hooks go in
    cache = real_install(*args, **kwargs)
    import lsprotocol.types  # made now: every class through the hooks
    classes = [c for c in vars(lsprotocol.types).values() if hasattr(c, "__attrs_attrs__")]
    print(cache is not None and cache.hits + len(cache.compiled) >= len(classes) > 500)
    raise SystemExit(0)
code_cache.install = install
serve_command.run(argparse.Namespace())
"""


def test_the_server_start_installs_the_cache_before_lsprotocol():
    done = subprocess.run([sys.executable, "-c", SERVE_PROBE], cwd=ROOT, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "False\nTrue\n"), done.stderr


def test_what_another_thread_compiles_while_the_file_is_written_is_kept_for_the_next_write(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = _cache(tmp_path)
    cache.code("x = 1\n", "<one>", 0)
    real_serialise = code_cache.serialise

    def serialise_while_another_compiles(key, entries):
        cache.code("x = 2\n", "<two>", 0)  # as the warm-up's thread would, between the copy and the write
        return real_serialise(key, entries)

    monkeypatch.setattr(code_cache, "serialise", serialise_while_another_compiles)
    assert cache.save() is True
    assert [c.co_filename for c in cache.compiled.values()] == ["<two>"]
    monkeypatch.setattr(code_cache, "serialise", real_serialise)
    assert cache.save() is True
    again = _cache(tmp_path)
    again.load()
    assert sorted(c.co_filename for c in again.read.values()) == ["<one>", "<two>"]


def test_the_file_keeps_what_the_last_start_used_once_it_holds_too_many(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(code_cache, "MAX_ENTRIES", 3)
    first = _cache(tmp_path)
    for n in range(3):
        first.code(f"x = {n}\n", "<old>", 0)
    assert first.save() is True
    second = _cache(tmp_path)
    second.load()
    second.code("x = 0\n", "<old>", 0)  # used again
    second.code("x = 9\n", "<new>", 0)  # made: four entries in all, over the limit
    assert second.save() is True
    third = _cache(tmp_path)
    third.load()
    assert sorted(marshal.dumps(c.co_consts, 2) for c in third.read.values()) == sorted(
        marshal.dumps(compile(source, "<x>", "exec", 0, True).co_consts, 2) for source in ("x = 0\n", "x = 9\n")
    )


def test_what_is_no_regular_file_of_this_user_reads_as_empty_without_waiting(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = _written(tmp_path)
    path = cache.path
    good = path.read_bytes()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opened for reading, a FIFO without a writer would block the start for ever
    link = tmp_path / "link"
    link.symlink_to(path)  # a link, even to a good file, is not followed
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")  # size 0 to stat, endless to read
    for place in (fifo, link, zero, tmp_path):
        other = code_cache.CodeCache(place, ("key",))
        other.load()
        assert other.read == {}, place
    # a file of another user (not root) is not read either
    monkeypatch.setattr(code_cache, "_owners", lambda: (os.getuid() + 4242,))
    other = code_cache.CodeCache(path, ("key",))
    other.load()
    assert other.read == {}
    monkeypatch.undo()
    again = code_cache.CodeCache(path, ("key",))
    again.load()
    assert len(again.read) == 2 and path.read_bytes() == good


def test_a_file_of_another_key_is_not_unmarshalled(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = _written(tmp_path).path
    loaded = []
    monkeypatch.setattr(code_cache.marshal, "loads", lambda data: loaded.append(len(data)))
    assert code_cache.parse(path.read_bytes(), ("other",)) == {}
    assert loaded == []


def test_the_exec_hooks_other_calls_compile_with_the_modules_flags():
    cache = code_cache.CodeCache(None, ())
    plain = code_cache._cached_exec(cache, 0)  # a module without `from __future__ import annotations`
    with pytest.raises(NameError):  # annotations evaluated, as the builtin exec does there
        plain(b"def f(x: undefined_name): pass\n", {}, {})
    with pytest.raises(NameError):
        plain(bytearray(b"def f(x: undefined_name): pass\n"))
    postponed = code_cache._cached_exec(cache, __import__("__future__").annotations.compiler_flag)
    namespace: dict = {}
    postponed(b"def f(x: undefined_name): pass\n", namespace)
    assert namespace["f"].__annotations__ == {"x": "undefined_name"}
    g: dict = {}
    local: dict = {}
    plain("z = 3", globals=g, locals=local)  # the keyword form (Python 3.13's)
    assert local == {"z": 3} and "z" not in g
    with pytest.raises(TypeError):
        plain("z = 3", g, local, g)
    assert cache.compiled == {}
