"""The cold first Outline (issue 35), two commits alternating run for run: the server's CPU from its spawn to its
first ``documentSymbol`` answer on a file opened right after ``initialized``, as an editor that starts the server
for the file it opens.

    python bench/cold_first.py BASE [--runs 8] [FILE...]

``bench/editor_first.py`` measures one tree, three runs a file, and its single medians move by ±20 % under load;
this one alternates BASE and the working tree within each round (the order flipped every other round), each
tree's bytecode compiled and its server started once first (``first_start``, as a user's first start writes its
code cache), and prints medians of CPU seconds: the start (spawn → ``initialize`` answer) and the start plus
the first Outline (spawn → the ``documentSymbol`` answer).  Files by default as in ``editor_first.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.editor_first import Client, default_files, first_start  # noqa: E402
from bench.same_outputs import checkout  # noqa: E402

CAPABILITIES = {
    "textDocument": {
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "publishDiagnostics": {"relatedInformation": True},
    },
    "window": {"workDoneProgress": True},
}


def cold(tree: Path, path: Path) -> tuple[float, float]:
    """The server's CPU at its ``initialize`` answer and at its first ``documentSymbol`` answer."""
    uri = path.resolve().as_uri()
    text = path.read_text(encoding="utf-8")
    client = Client([sys.executable, "-m", "lsp_server", "serve"], cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))
    try:
        number = client.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES})
        _, start_cpu, _ = client.wait(lambda m: m.get("id") == number)
        client.notify("initialized", {})
        opened = {"uri": uri, "languageId": "codex-rollout", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": opened})
        number = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        _, outline_cpu, _ = client.wait(lambda m: m.get("id") == number and "method" not in m)
    finally:
        client.close()
    return start_cpu, outline_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    files = args.files or default_files()
    with checkout(args.base) as base, checkout(None) as head:
        sides = (("base", base), ("head", head))
        for _, tree in sides:
            first_start(tree)
        print(f"medians of {args.runs} rounds alternated, BASE {args.base}, HEAD working tree; CPU seconds\n")
        print("| file | start, BASE → HEAD | start + first Outline, BASE → HEAD | runs of start + first Outline |")
        print("|---|---|---|---|")
        for path in files:
            runs: dict[str, list[tuple[float, float]]] = {"base": [], "head": []}
            for number in range(args.runs):
                for side, tree in sides if number % 2 == 0 else sides[::-1]:
                    runs[side].append(cold(tree, path))
            start = {s: statistics.median(a for a, _ in v) for s, v in runs.items()}
            total = {s: statistics.median(b for _, b in v) for s, v in runs.items()}
            shown = "; ".join(f"{s} {' '.join(f'{b:.2f}' for _, b in v)}" for s, v in runs.items())
            print(
                f"| {path.name[:48]} | {start['base']:.3f} → {start['head']:.3f} "
                f"| {total['base']:.3f} → {total['head']:.3f} ({total['head'] / total['base']:.3f}) | {shown} |"
            )


if __name__ == "__main__":
    main()
