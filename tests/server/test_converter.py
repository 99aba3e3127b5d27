"""The protocol's converter with lsprotocol's forward references resolved class by class (lsp_server/converter.py,
issue 35) against lsprotocol's own, which resolves all classes at once: each in its own process, since the
resolution changes the classes."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# every attrs class of lsprotocol, in one order: each one's structure and unstructure functions (the code cattrs
# generated, as its source), then each one's fields' types
PROBE = """
import json, linecache, sys
import attrs
from lsprotocol import types
if sys.argv[1] == "lazy":
    from lsp_server.wire import CONVERTER as converter
else:
    from pygls.protocol import default_converter
    converter = default_converter()
classes = [c for n, c in sorted(types.ALL_TYPES_MAP.items()) if isinstance(c, type) and attrs.has(c)]
resolved_before = sum(getattr(c, "__attrs_types_resolved__", None) is c for c in classes)
functions = {}
for cls in classes:
    for kind, get in (("unstructure", converter.get_unstructure_hook), ("structure", converter.get_structure_hook)):
        try:
            hook = get(cls)
        except Exception as error:  # a few classes cattrs cannot structure (a union of str and a sequence of str)
            functions[f"{kind} {cls.__name__}"] = repr(error)
            continue
        code = getattr(hook, "__code__", None)
        source = linecache.getlines(code.co_filename) if code is not None else None
        functions[f"{kind} {cls.__name__}"] = [getattr(hook, "__qualname__", repr(hook)), source]
fields = {c.__name__: [[f.name, repr(f.type)] for f in attrs.fields(c)] for c in classes}
print(json.dumps({"classes": len(classes), "resolved_before": resolved_before, "functions": functions, "fields": fields}))
"""


def probe(side: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, side], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_every_class_gets_the_same_functions_and_field_types_as_with_lsprotocols_eager_resolution():
    eager, lazy = probe("eager"), probe("lazy")
    assert eager["classes"] == lazy["classes"] > 500
    assert eager["resolved_before"] == eager["classes"]
    assert lazy["resolved_before"] < 60  # the server's import made only the hooks its start needs
    assert lazy["functions"] == eager["functions"]
    assert lazy["fields"] == eager["fields"]


FALLBACK = """
import json
import attrs
from lsprotocol import _hooks, types
from pygls.protocol import default_converter
if __import__("sys").argv[1] == "no-flag":
    _hooks._resolved_forward_references = None  # a lsprotocol whose flag is not the False this was written for
from lsp_server.converter import lazily_resolved_converter
converter = lazily_resolved_converter()
classes = [c for c in types.ALL_TYPES_MAP.values() if isinstance(c, type) and attrs.has(c)]
first = sum(getattr(c, "__attrs_types_resolved__", None) is c for c in classes)
default_converter()  # another converter made later in the process
later = sum(getattr(c, "__attrs_types_resolved__", None) is c for c in classes)
print(json.dumps([len(classes), first, later]))
"""


def test_without_lsprotocols_flag_the_converter_resolves_everything_at_once_and_later_converters_do_as_before():
    def run(side: str) -> list[int]:
        done = subprocess.run(
            [sys.executable, "-c", FALLBACK, side], cwd=ROOT, capture_output=True, text=True, check=True
        )
        return json.loads(done.stdout)

    classes, first, later = run("no-flag")
    assert first == later == classes  # the eager converter, lsprotocol's own way
    classes, first, later = run("flag")
    assert first == 0 and later == classes  # lazy, and a converter made after it resolves as lsprotocol does
