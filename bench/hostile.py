"""Pathological inputs, timed per item at four sizes: each must be linear (issue 23, point 2).

Each input is built at 1/8, 1/4, 1/2 and the whole of its largest size and analysed
(:func:`analysis.analyze_text`, what the server and ``outline`` run; the long line also through the streaming
``check`` path); the table prints the time per item at each size and the ratio of the largest size's to the
smallest's.  A linear analysis keeps that ratio near 1 (within 2× on a quiet machine); a pass over the
whole script or document per call or per line makes it grow with the size (it was 8× for the calls before
``reachability._guarded`` looked for ``?.`` once per script).

    python bench/hostile.py                 # the sizes of the issue: 20,000 calls … 100,000 records
    python bench/hostile.py --scale 0.1     # a tenth of each, for a quick look
    python bench/hostile.py --only calls nested
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis import analyze_text


def exec_line(script: str, call_id: str = "c") -> str:
    return json.dumps(
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": script},
        }
    )


def calls(n: int) -> str:
    """One exec script of ``n`` calls."""
    return exec_line("".join(f'await tools.exec_command({{cmd: "echo {i}"}});\n' for i in range(n)))


def optional_chains(n: int) -> str:
    """One exec script of ``n`` calls, each inside an optional chain that may skip it."""
    return exec_line("".join(f'hooks?.before?.(await tools.exec_command({{cmd: "echo {i}"}}));\n' for i in range(n)))


def nested_blocks(n: int) -> str:
    """One exec script of ``n`` blocks nested in one another, a call in each."""
    opening = "".join(f'{{ await tools.exec_command({{cmd: "echo {i}"}});\n' for i in range(n))
    return exec_line(opening + "}" * n)


def blank_run(n: int) -> str:
    """One exec script of two command objects, each with a run of ``n`` blanks: one with a comment after its last
    value (refused by the lean reading's plain-object match, ``analysis.script.arguments``), one of blanks alone
    (matched, then its pairs looked for).  Stop 40's review: blanks side by side in the object's pattern, and a
    pair's pattern starting with blanks, each made its part quadratic in the run (6 s and 33 s for 64,000)."""
    blanks = " " * n
    return exec_line(f'await tools.exec_command({{cmd: "x"{blanks}/*c*/}}); await tools.exec_command({{{blanks}}});')


def long_line(megabytes: int) -> str:
    """One output record of ``megabytes`` MB."""
    chunk = "output line with some words and numbers 0123456789\\n" * 20
    text = chunk * (megabytes * (1 << 20) // len(chunk))
    return json.dumps(
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": text},
        }
    ).replace("\\\\n", "\\n")


def records(n: int) -> str:
    """A rollout of ``n`` records: calls and their outputs, half each."""
    out = []
    for i in range(n // 2):
        out.append(
            json.dumps(
                {
                    "timestamp": "2026-01-01T00:00:00Z",
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "exec_command",
                        "call_id": f"c{i}",
                        "arguments": json.dumps({"cmd": f"echo {i}"}),
                    },
                }
            )
        )
        out.append(
            json.dumps(
                {
                    "timestamp": "2026-01-01T00:00:01Z",
                    "type": "response_item",
                    "payload": {"type": "function_call_output", "call_id": f"c{i}", "output": f"{i}\n"},
                }
            )
        )
    return "\n".join(out) + "\n"


def _analyse(text: str) -> None:
    analyze_text(text)


def _check_streamed(text: str) -> None:
    """The command line's streaming path (``check``), from a file."""
    from analysis.jsonl.positions import PositionEncoding
    from analysis.reports.stream import stream_rollout

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as handle:
        handle.write(text)
    try:
        stream_rollout(handle.name, PositionEncoding.UTF16)
    finally:
        os.unlink(handle.name)


# name: (builder, largest size, unit, how it is run)
INPUTS: dict[str, tuple[Callable[[int], str], int, str, Callable[[str], None]]] = {
    "calls": (calls, 20_000, "call", _analyse),
    "optional-chains": (optional_chains, 20_000, "call", _analyse),
    "nested": (nested_blocks, 5_000, "block", _analyse),
    "blank-run": (blank_run, 256_000, "blank", _check_streamed),
    "long-line": (long_line, 50, "MB", _analyse),
    "long-line-check": (long_line, 50, "MB", _check_streamed),
    "records": (records, 100_000, "record", _analyse),
}


def measure(name: str, scale: float) -> list[tuple[int, float]]:
    build, largest, _, run = INPUTS[name]
    rows = []
    for share in (8, 4, 2, 1):
        n = max(1, round(largest * scale / share))
        text = build(n)
        gc.collect()
        started = time.perf_counter()
        run(text)
        rows.append((n, (time.perf_counter() - started) / n))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="share of each largest size (default 1)")
    parser.add_argument("--only", nargs="+", choices=list(INPUTS), help="these inputs only")
    args = parser.parse_args()
    print(f"{'input':18} {'items':>8} {'per item':>12}  ratio largest/smallest")
    for name in args.only or INPUTS:
        unit = INPUTS[name][2]
        rows = measure(name, args.scale)
        for n, per in rows:
            # an item as small as a blank takes nanoseconds: µs keep its digits
            shown = f"{per * 1e3:9.3f} ms" if per >= 1e-5 else f"{per * 1e6:9.4f} µs"
            print(f"{name:18} {n:8} {shown}/{unit}")
        ratio = rows[-1][1] / rows[0][1] if rows[0][1] else float("inf")
        print(f"{name:18} {'':8} {'':12}  {ratio:.2f}× {'(linear)' if ratio <= 2 else '(NOT linear)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
