"""The real-VS Code tests' check of the servers' logs (vscode-client/e2e/conftest.py): a server that died in native
code is named with its traceback, a server that stopped normally is not."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("e2e_conftest", ROOT / "vscode-client" / "e2e" / "conftest.py")
assert _SPEC is not None and _SPEC.loader is not None
e2e_conftest = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(e2e_conftest)

CRASHED = """Starting the server (default): python3 -m lsp_server serve
[Info  - 1:40:53 PM] rollout-lsp 0.1.0: utf-16 positions
Fatal Python error: Segmentation fault

Current thread 0x00007fc379c93b80 (most recent call first):
  File "/ext/bundled/libs/analysis/authoring/semantic_tokens.py", line 127 in script_tokens
[Error - 1:41:02 PM] Server process exited with signal SIGSEGV.
"""
STOPPED = """Starting the server (default): python3 -m lsp_server serve
The server stopped.
[Info  - 1:41:09 PM] Server process exited with code 0.
"""


def _log(base: Path, server: int, text: str) -> None:
    folder = base / f"code-server{server}" / "data" / "logs" / "20261202T134036" / "exthost1" / "output_logging_1"
    folder.mkdir(parents=True)
    (folder / "1-Rollout LSP.log").write_text(text, encoding="utf-8")
    (folder / "2-Git.log").write_text("Fatal Python error: not ours\n", encoding="utf-8")


def test_a_server_that_died_in_native_code_is_named_with_its_traceback(tmp_path: Path) -> None:
    _log(tmp_path, 0, STOPPED)
    _log(tmp_path, 1, CRASHED)
    assert e2e_conftest.crashed_server_logs(tmp_path) == {
        "code-server1/data/logs/20261202T134036/exthost1/output_logging_1/1-Rollout LSP.log": CRASHED[
            CRASHED.index("Fatal Python error") :
        ]
    }


def test_servers_that_stopped_normally_are_no_crash(tmp_path: Path) -> None:
    _log(tmp_path, 0, STOPPED)
    _log(tmp_path, 1, STOPPED)
    assert e2e_conftest.crashed_server_logs(tmp_path) == {}


def test_the_servers_logs_are_found_where_code_server_writes_them(tmp_path: Path) -> None:
    assert e2e_conftest.server_logs(tmp_path) == []  # the e2e's check fails on this: it would see no crash
    _log(tmp_path, 0, STOPPED)
    assert e2e_conftest.server_logs(tmp_path) == [
        tmp_path / "code-server0/data/logs/20261202T134036/exthost1/output_logging_1/1-Rollout LSP.log"
    ]
