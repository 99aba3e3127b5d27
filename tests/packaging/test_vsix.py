"""Each .vsix carries, for its platform, every compiled dependency for every CPython it lists, and the
linux-x64 one runs the command line on every CPython of this machine that it lists."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
DIST = ROOT / "vscode-client" / "dist"
TARGETS = ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64")
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# the extension modules of the compiled dependencies (bundle-native.txt): per-version, or abi3 (any 3.x)
MODULES = ("pydantic_core/_pydantic_core", "tree_sitter/_binding", "zstandard/backend_c", "websockets/speedups")
ABI3_MODULES = ("tree_sitter_javascript/_binding",)
LINUX_ARCH = {"linux-x64": "x86_64", "linux-arm64": "aarch64"}


def vsix_of(target: str) -> Path:
    return DIST / f"codex-rollout-lsp-{target}.vsix"


def extension_module(target: str, python: str, module: str, abi3: bool = False) -> str:
    """The file name CPython ``python`` on ``target`` imports ``module`` from (PEP 3149 / PEP 384 suffixes)."""
    xy = python.replace(".", "")
    if target == "win32-x64":
        return f"{module}.pyd" if abi3 else f"{module}.cp{xy}-win_amd64.pyd"
    if abi3:
        return f"{module}.abi3.so"
    if target.startswith("darwin"):
        return f"{module}.cpython-{xy}-darwin.so"
    return f"{module}.cpython-{xy}-{LINUX_ARCH[target]}-linux-gnu.so"


def test_names_of_extension_modules():
    assert extension_module("win32-x64", "3.12", "zstandard/backend_c") == "zstandard/backend_c.cp312-win_amd64.pyd"
    assert extension_module("linux-arm64", "3.10", "a/_b") == "a/_b.cpython-310-aarch64-linux-gnu.so"
    assert extension_module("darwin-x64", "3.13", "a/_b", abi3=True) == "a/_b.abi3.so"


@pytest.mark.parametrize("target", TARGETS)
def test_every_compiled_dependency_for_every_python(target):
    with zipfile.ZipFile(vsix_of(target)) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/bundled/PLATFORM.json"))
        package = json.loads(vsix.read("extension/package.json"))
        manifest_xml = vsix.read("extension.vsixmanifest").decode()
    assert (manifest["target"], manifest["pythons"]) == (target, list(PYTHONS))
    assert f'TargetPlatform="{target}"' in manifest_xml
    assert package["main"] == "./out/extension.js" and "extension/out/extension.js" in names
    missing = [
        f"cp{p.replace('.', '')}/{extension_module(target, p, m, m in ABI3_MODULES)}"
        for p in PYTHONS
        for m in MODULES + ABI3_MODULES
        if f"extension/bundled/native/cp{p.replace('.', '')}/{extension_module(target, p, m, m in ABI3_MODULES)}"
        not in names
    ]
    assert missing == []
    other = [n for n in names if n.endswith((".so", ".pyd", ".dylib", ".dll")) and "/native/cp" not in n]
    assert other == []  # nothing compiled among the pure-Python libs, which every Python shares
    for shipped in (
        "libs/lsp_server/findings.md",
        "libs/analysis/cli/__init__.py",
        "libs/lsp_server/server.py",
        "libs/pygls/__init__.py",
        "libs/pydantic/__init__.py",
        "libs/esprima/__init__.py",
    ):
        assert f"extension/bundled/{shipped}" in names, shipped


def interpreters() -> dict[str, str]:
    """The CPython of each listed version found on this machine (this test's own always among them)."""
    found = {f"{sys.version_info[0]}.{sys.version_info[1]}": sys.executable}
    for version in PYTHONS:
        candidates = [shutil.which(f"python{version}") or ""] + sorted(
            glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}"))
        )
        for candidate in candidates:
            if (
                version not in found
                and candidate
                and subprocess.run(
                    [candidate, "-c", "import sys; assert sys.implementation.name == 'cpython'"], capture_output=True
                ).returncode
                == 0
            ):
                found[version] = candidate
    return found


def test_the_linux_x64_package_runs_on_each_python_here(tmp_path):
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        pytest.fail("this test runs the linux-x64 package: run it on linux-x64")
    with zipfile.ZipFile(vsix_of("linux-x64")) as vsix:
        vsix.extractall(tmp_path)
    bundled = tmp_path / "extension" / "bundled"
    found = interpreters()
    for version, python in sorted(found.items()):
        env = dict(
            os.environ,
            PYTHONNOUSERSITE="1",
            PYTHONPATH=f"{bundled / 'native' / ('cp' + version.replace('.', ''))}:{bundled / 'libs'}",
        )
        run = subprocess.run(
            [python, "-m", "lsp_server", "check", str(ROOT / "fixtures" / "rollout-demo.jsonl")],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert (run.returncode, len(run.stdout.splitlines()), run.stderr) == (1, 3, ""), (version, run.stderr)
        server = subprocess.run(
            [
                python,
                "-c",
                "import lsp_server.server, zstandard.backend_c, pydantic_core; "
                "from lsp_server.findings_doc import findings_doc; print(findings_doc())",
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert server.stdout.strip() == (bundled / "libs" / "lsp_server" / "findings.md").as_uri(), server.stderr
    print(f"ran the linux-x64 package on CPython {', '.join(sorted(found))}")
