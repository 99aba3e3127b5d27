"""A language server between Kate and the real one: ``lsp_tap.py LOG SERVER [ARGS...]`` runs SERVER ARGS, relays the
JSON-RPC messages both ways unchanged, and appends each to LOG as one JSON line ``{"from": "client"|"server",
"message": {...}}``. tests/kate/kate_e2e.py puts it first in PATH under the name of the server's command."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO


def read_message(stream: IO[bytes]) -> bytes | None:
    """One framed message (headers and body, as read), or None at the end of the stream."""
    headers = b""
    while not headers.endswith(b"\r\n\r\n"):
        byte = stream.read(1)
        if not byte:
            return None
        headers += byte
    length = next(
        int(line.split(b":")[1]) for line in headers.split(b"\r\n") if line.lower().startswith(b"content-length:")
    )
    body = stream.read(length)
    return headers + body if len(body) == length else None


def relay(source: IO[bytes], target: IO[bytes], side: str, log: IO[bytes], lock: threading.Lock) -> None:
    while (framed := read_message(source)) is not None:
        body = framed.split(b"\r\n\r\n", 1)[1]
        with lock:
            log.write(json.dumps({"from": side, "message": json.loads(body)}).encode() + b"\n")
            log.flush()
        try:
            target.write(framed)
            target.flush()
        except (BrokenPipeError, ValueError):  # the other side is gone: nothing to relay to
            return
    target.close()


def main() -> int:
    log_path, *server = sys.argv[1:]
    lock = threading.Lock()
    with open(log_path, "ab") as log, subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        to_server = threading.Thread(
            target=relay, args=(sys.stdin.buffer, proc.stdin, "client", log, lock), daemon=True
        )
        to_server.start()
        relay(proc.stdout, sys.stdout.buffer, "server", log, lock)
        return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
