"""A command's fixed cost (issue 35): run as the program, a command takes its dataclasses' generated methods from
the command line's own code cache (lsp_server/code_cache.py, ``install_for_commands``), the same code as compiled,
without attrs; and ``check`` ends with ``os._exit`` once its output is flushed, only when nothing else waits for
the exit, with the same output and status as the normal end.  (Speed: bench/start_cpu.py, never a test.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server import code_cache
from tests.helpers import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(FIXTURES / "rollout-demo.jsonl")

# one fresh interpreter: hook (or not), import what check and outline import, and print every generated method
# of the analysis's dataclasses (marshal, hex) with what the cache did
PROBE = r"""
import json, marshal, sys
from pathlib import Path
hooked = sys.argv[1] == "hooked"
if hooked:
    from lsp_server import code_cache
    cache = code_cache.install_for_commands(Path(sys.argv[2]))
    assert cache is not None, "the hook no longer fits dataclasses"
import analysis.cli.check, analysis.cli.outline, analysis.session.rollout
generated = {}
for module_name, module in sorted(sys.modules.items()):
    if module_name.split(".")[0] in ("analysis", "lsp_server"):
        for name, cls in sorted(getattr(module, "__dict__", {}).items()):
            if isinstance(cls, type) and hasattr(cls, "__dataclass_fields__") and cls.__module__ == module_name:
                for method, function in sorted(vars(cls).items()):
                    code = getattr(function, "__code__", None)
                    if code is not None and code.co_filename == "<string>":
                        generated[f"{module_name}:{name}.{method}"] = marshal.dumps(code, 2).hex()
out = {"generated": generated, "attrs": "attr" in sys.modules}
if hooked:
    out.update(hits=cache.hits, compiled=len(cache.compiled), saved=cache.save())
print(json.dumps(out))
"""


def _probe(*args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def three_starts(tmp_path_factory):
    """Imports without the cache, a first start with it (compiles, writes) and a second (reads)."""
    path = tmp_path_factory.mktemp("cache") / "dataclass-code.bin"
    return _probe("plain"), _probe("hooked", str(path)), _probe("hooked", str(path)), path


def test_each_dataclass_method_is_the_same_code_with_and_without_the_commands_cache(three_starts):
    plain, first, second, _ = three_starts
    assert len(plain["generated"]) > 200
    assert first["generated"] == plain["generated"]
    assert second["generated"] == plain["generated"]
    assert [plain["attrs"], first["attrs"], second["attrs"]] == [False, False, False]


def test_the_second_start_compiles_nothing_and_writes_nothing(three_starts):
    _, first, second, path = three_starts
    assert first["saved"] is True and first["hits"] < second["hits"]
    key = code_cache.command_cache_key(__import__("dataclasses"))
    assert len(code_cache.parse(path.read_bytes(), key)) >= len(first["generated"]) // 2
    assert second["compiled"] == 0 and second["saved"] is False


def test_each_commands_cache_is_a_file_of_its_own_beside_the_servers(tmp_path):
    server, check = code_cache.cache_path(), code_cache.cache_path("dataclass-code-check")
    assert server is not None and check is not None
    assert check.parent == server.parent
    assert check.name == server.name.replace("generated-code.", "dataclass-code-check.", 1)
    done = subprocess.run([sys.executable, "-c", NAMED], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [
        "dataclass-code-check",
        "dataclass-code-outline",
        "dataclass-code",
        "dataclass-code",
        "dataclass-code",
    ]


# the file each command line's first word names (each in a fresh module state: install is once per process)
NAMED = """
import json
from lsp_server import code_cache
names = []
for command in ("check", "outline", "--version", "check2", "Check"):
    code_cache._commands = None
    cache = code_cache.install_for_commands(command=command)
    names.append(cache.path.name.split(".")[0])
    import dataclasses
    del dataclasses.exec
print(json.dumps(names))
"""


ENTRY = """
import json, sys
sys.argv = [sys.argv[1], "check", "--help"]
import lsp_server.__main__
from lsp_server import code_cache
print(json.dumps({"commands": code_cache._commands is not None, "server": code_cache._installed is not None,
                  "attrs": "attr" in sys.modules}))
"""


@pytest.mark.parametrize(
    ("program", "installed"),
    [("/usr/local/bin/rollout-lsp", True), ("rollout-lsp", True), ("pytest", False), ("-c", False)],
)
def test_the_commands_cache_is_installed_when_the_console_script_runs_only(program, installed):
    done = subprocess.run([sys.executable, "-c", ENTRY, program], cwd=ROOT, capture_output=True, text=True)
    assert json.loads(done.stdout) == {"commands": installed, "server": False, "attrs": False}


# the same command through main() returned to sys.exit (Python's normal end) and as the program (os._exit)
NORMAL_END = "import sys\nfrom lsp_server.__main__ import main\nsys.exit(main(sys.argv[1:]))\n"


def _both(*arguments: str) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    normal = subprocess.run([sys.executable, "-c", NORMAL_END, *arguments], cwd=ROOT, capture_output=True, text=True)
    program = subprocess.run([sys.executable, "-m", "lsp_server", *arguments], cwd=ROOT, capture_output=True, text=True)
    return normal, program


@pytest.mark.parametrize(
    "arguments",
    [
        ("check", "--json", "--jobs", "1", DEMO),
        ("check", "--jobs", "1", DEMO, str(FIXTURES / "rollout-events.jsonl")),
        ("check", "--jobs", "1", "--fail-on", "error", str(FIXTURES / "rollout-events.jsonl")),
        ("check", "--jobs", "1", str(FIXTURES / "no-such-rollout.jsonl")),
        ("check", "--jobs", "1", str(FIXTURES / "not-a-rollout.jsonl")),
    ],
)
def test_check_ending_early_prints_and_exits_as_the_normal_end(arguments):
    normal, program = _both(*arguments)
    assert (program.returncode, program.stdout, program.stderr) == (normal.returncode, normal.stdout, normal.stderr)
    assert program.stdout or program.stderr


WAITING = """
import atexit, sys, threading
sys.argv = ["rollout-lsp", "check", "--json", "--jobs", "1", sys.argv[1]]
from lsp_server.__main__ import main
if "{what}" == "atexit":
    atexit.register(lambda: print("exit handler ran", file=sys.stderr))
if "{what}" == "thread":  # waits for the main thread's end: says so only if the process ends normally after it
    def late():
        threading.main_thread().join()
        print("thread ran", file=sys.stderr)
    threading.Thread(target=late).start()
sys.exit(main())
"""


@pytest.mark.parametrize(("what", "said"), [("atexit", "exit handler ran"), ("thread", "thread ran")])
def test_check_ends_normally_when_an_exit_handler_or_a_thread_waits(what, said):
    done = subprocess.run(
        [sys.executable, "-c", WAITING.replace("{what}", what), DEMO], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert said in done.stderr
    assert json.loads(done.stdout)[0]["file"] == DEMO
