"""The real-VS Code tests fail when a language server died in native code, even when every test passed.

The server's stderr is the "Rollout LSP" output channel, which code-server writes under the test's user-data folder;
a server that died of a fault wrote "Fatal Python error" and every thread's traceback there (``faulthandler``,
docs/reliability.md "Crashes in native code").  Stop 38's servers died so between and after requests, unnoticed but
for ``dmesg``: the extension started another one and the tests went on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

CRASH = "Fatal Python error"


def server_logs(base: Path) -> list[Path]:
    """The "Rollout LSP" output-channel logs code-server wrote under ``base``."""
    return sorted(base.rglob("*Rollout LSP*.log"))


def crashed_server_logs(base: Path) -> dict[str, str]:
    """Each "Rollout LSP" output-channel log under ``base`` that says a server died, with the lines from there."""
    found = {}
    for log in server_logs(base):
        text = log.read_text(encoding="utf-8", errors="replace")
        if CRASH in text:
            found[str(log.relative_to(base))] = text[text.index(CRASH) :][:4000]
    return found


@pytest.fixture(scope="session", autouse=True)
def no_server_died_in_native_code(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield
    base = tmp_path_factory.getbasetemp()
    # no log at all would make the check below pass over nothing (code-server moving or renaming its logs)
    assert server_logs(base), f"no 'Rollout LSP' output log under {base}: the servers' crashes cannot be checked"
    crashed = crashed_server_logs(base)
    assert not crashed, "a language server died in native code:\n" + "\n\n".join(
        f"{log}:\n{text}" for log, text in crashed.items()
    )
