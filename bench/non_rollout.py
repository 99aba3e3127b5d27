"""What a JSON Lines file that is no rollout costs the server: VS Code offers every ``.jsonl`` to it, and the
server answers only for rollouts, deciding from the first records (analysis.session.sniff).

    python bench/non_rollout.py [MB]     # default 100

Prints the time to split the document into lines (what the server does with any document it is sent) and the
time of the content check, which reads the first 50 records only.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.jsonl.lines import split_lines
from analysis.session.sniff import looks_like_rollout


def main(argv: list[str]) -> int:
    size = int(float(argv[0]) * 1_000_000) if argv else 100_000_000
    rows = [
        json.dumps({"id": i, "event": "click", "user": f"u{i % 977}", "payload": {"x": i * 3, "text": "lorem " * 40}})
        for i in range(20_000)
    ]
    block = "\n".join(rows)
    text = (block + "\n") * (size // (len(block) + 1) + 1)
    text = text[:size]
    started = time.perf_counter()
    lines = split_lines(text)
    split = time.perf_counter() - started
    started = time.perf_counter()
    verdict = looks_like_rollout(lines)
    check = time.perf_counter() - started
    print(f"{len(text) / 1e6:.0f} MB, {len(lines):,} lines of JSON Lines that is no rollout")
    print(f"split into lines       {split * 1000:.0f} ms")
    print(f"content check          {check * 1000:.2f} ms (a rollout: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
