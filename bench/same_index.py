"""`rollout-lsp index` writes the same database at two commits: every row of every table, compared.

    python bench/same_index.py BASE [HEAD]     # HEAD: a commit, or omitted for the working tree

``bench/same_outputs.py`` compares ``check``, ``census`` and ``outline``; the index is not among them.  This
indexes ``fixtures/`` and ``../shared/corpus`` (each folder at hand) into a fresh database with each commit's
code (``--jobs 1``, then the default jobs), and compares the rows of ``files``, ``calls``, ``changes``,
``responses``, ``links`` and ``roots`` (ids included: files are indexed in the same order) and what
``search`` finds for a few words.  Exit status 1 when anything differs.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))  # as tests/helpers.py finds it
sys.path.insert(0, str(ROOT))

from bench.same_outputs import checkout  # noqa: E402

TABLES = ("files", "calls", "changes", "responses", "links", "roots")
WORDS = ("git", "apply_patch", "npm test", "README")


def folders() -> list[str]:
    found = [ROOT / "fixtures", *(SHARED / "corpus" / name for name in ("wild", "recorded", "peer"))]
    return [str(f) for f in found if f.is_dir()]


def dump(tree: Path, jobs: list[str]) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory(prefix="same-index-") as temp:
        db = str(Path(temp) / "index.sqlite3")
        made = subprocess.run(
            [sys.executable, "-m", "lsp_server", "index", *folders(), "--db", db, *jobs],
            capture_output=True,
            env=env,
            cwd=temp,
        )
        # its time taken is the one part of its report meant to change
        said = re.sub(rb" in [0-9.]+ s\n", b"\n", made.stdout).replace(temp.encode(), b"TEMP")
        out: dict[str, object] = {"index": (made.returncode, said, made.stderr)}
        connection = sqlite3.connect(db)
        try:
            for table in TABLES:
                out[table] = connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
        finally:
            connection.close()
        for word in WORDS:
            found = subprocess.run(
                [sys.executable, "-m", "lsp_server", "search", word, "--db", db, "--json"],
                capture_output=True,
                env=env,
                cwd=temp,
            )
            out[f"search {word}"] = (found.returncode, found.stdout)
    return out


def main() -> int:
    base = sys.argv[1]
    head = sys.argv[2] if len(sys.argv) > 2 else None
    differ = 0
    for jobs in (["--jobs", "1"], []):
        with checkout(base) as tree:
            before = dump(tree, jobs)
        with checkout(head) as tree:
            after = dump(tree, jobs)
        for key in before:
            if before[key] != after[key]:
                differ += 1
                print(f"DIFFERS ({' '.join(jobs) or 'default jobs'}): {key}")
        rows = sum(len(v) for k, v in before.items() if k in TABLES and isinstance(v, list))
        print(f"{' '.join(jobs) or 'default jobs'}: {len(before)} outputs, {rows} rows compared")
    print("identical" if not differ else f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
