"""A server that dies in native code says where: every thread's Python traceback on stderr (the editor's log)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _message(body: dict) -> bytes:
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


def test_a_server_killed_by_a_segmentation_fault_writes_every_threads_traceback_to_stderr(tmp_path: Path) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}
    with subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "serve"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_message(initialize))
        server.stdin.flush()
        header = server.stdout.readline()  # the answer's header: the server is up and serving
        assert header.startswith(b"Content-Length: ")
        os.kill(server.pid, signal.SIGSEGV)
        _, errors = server.communicate(timeout=60)
    stderr = errors.decode()
    assert server.returncode == -signal.SIGSEGV
    assert "Fatal Python error: Segmentation fault" in stderr
    assert "Current thread" in stderr or "Thread 0x" in stderr
    assert 'File "' in stderr and "lsp_server" in stderr
