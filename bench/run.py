"""Benchmarks, side by side with a JavaScript-native reader (acorn), on the same generated rollouts.

    python bench/run.py            # full run: prints the table and writes docs/benchmarks.md
    python bench/run.py --smoke    # under a minute, small files; writes bench/out/smoke.md (CI)

Measures: analysis time per exec script against acorn's; whole-process `rollout-lsp check` against the
reference process; whole-file time and peak memory by size; editor latency through a real LSP client over
stdio (didOpen to first diagnostics, a one-line edit to new diagnostics, hover, documentSymbol); scaling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(ROOT))

from bench.corpus import generate  # noqa: E402

MB = 1 << 20


def corpus_file(size: int) -> Path:
    """A generated rollout of about ``size`` bytes (seed 1), made once and reused."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"rollout-{size // 1024}k.jsonl"
    if not path.exists():
        path.write_text(generate(size, seed=1), encoding="utf-8")
    return path


def exec_scripts(path: Path) -> list[str]:
    scripts = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if '"name":"exec"' not in line:
            continue
        payload = json.loads(line)["payload"]
        if payload.get("type") == "custom_tool_call" and isinstance(payload.get("input"), str):
            scripts.append(payload["input"])
    return scripts


def reference(paths: list[Path]) -> dict:
    out = subprocess.run(["node", str(HERE / "acorn_reference.mjs"), *map(str, paths)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def per_script(path: Path, repeats: int) -> dict:
    """Microseconds a script: tree-sitter structure, calls, arguments, dead code, syntax (ours) vs acorn+walk."""
    import gc

    from analysis.calls import find_calls
    from analysis.script import ExecScript

    gc.set_threshold(100_000, 50, 100)
    scripts = exec_scripts(path)
    ours = []
    for _ in range(repeats):
        started = time.perf_counter()
        for script in scripts:
            parsed = ExecScript(script)
            find_calls(parsed)
            parsed.syntax_problem  # noqa: B018  (computed as the analysis does)
        ours.append(time.perf_counter() - started)
    theirs = [reference([path])["script_seconds"] for _ in range(repeats)]
    us, ref = min(ours) / len(scripts) * 1e6, min(theirs) / len(scripts) * 1e6
    return {"scripts": len(scripts), "ours_us": us, "reference_us": ref, "ratio": us / ref}


def timed(command: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False, cwd=ROOT)
        best = min(best, time.perf_counter() - started)
    return best


def whole_process(path: Path, repeats: int) -> dict:
    ours = timed([sys.executable, "-m", "analysis.cli", "check", "--fail-on", "error", str(path)], repeats)
    theirs = timed(["node", str(HERE / "acorn_reference.mjs"), str(path)], repeats)
    return {"ours_s": ours, "reference_s": theirs, "ratio": ours / theirs}


_WHOLE_FILE = """
import gc, json, resource, sys, time
sys.path.insert(0, {root!r})
from analysis.cli import tune_gc
from analysis import analyze_text
tune_gc()
text = open({path!r}, encoding="utf-8").read()
started = time.perf_counter()
analysis = analyze_text(text)
seconds = time.perf_counter() - started
print(json.dumps({{"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                   "scripts": sum(1 for r in analysis.records if r.is_exec), "calls": len(analysis.calls)}}))
"""


def whole_file(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _WHOLE_FILE.format(root=str(ROOT), path=str(path))],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    result["size_mb"] = path.stat().st_size / MB
    result["scripts_per_s"] = result["scripts"] / result["seconds"]
    return result


async def editor_latency(path: Path, edits: int, requests: int) -> dict:
    """Latency seen by a real LSP client over stdio."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    from analysis.lines import split_lines

    client = LanguageClient("rollout-bench", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.version or 0] = time.perf_counter()
        arrived.set()

    async def diagnostics_for(version: int) -> float:
        while version not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 120)
        return published[version]

    await client.start_io(sys.executable, "-m", "analysis.cli", "serve")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True)))))
    client.initialized(types.InitializedParams())
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "jsonl", 1, text)))
    first = await diagnostics_for(1) - started

    lines = split_lines(text)
    targets = [(n, line.index("tools.")) for n, line in enumerate(lines) if '"name":"exec"' in line and "tools." in line]
    edit_times = []
    for version, (number, column) in enumerate(targets[:edits], start=2):
        marker = lines[number].index('"call_id":"') + len('"call_id":"')  # edit one character of the call id
        started = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(number, marker), types.Position(number, marker + 1)), text="X")]))
        edit_times.append(await diagnostics_for(version) - started)
    hovers, symbols = [], []
    for number, column in targets[:requests]:
        started = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                 types.Position(number, column + 2)))
        hovers.append(time.perf_counter() - started)
    for _ in range(max(5, requests // 5)):
        started = time.perf_counter()
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))
        symbols.append(time.perf_counter() - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"size_mb": path.stat().st_size / MB, "first_diagnostics_s": first, "edit": _stats(edit_times),
            "hover": _stats(hovers), "symbols": _stats(symbols)}


def _stats(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "n": len(ordered)}


def profile(path: Path) -> list[tuple[str, float]]:
    """Where whole-file analysis spends its time (cProfile, own time, top functions)."""
    import cProfile
    import pstats

    from analysis import analyze_text
    from analysis.cli import tune_gc

    tune_gc()
    text = path.read_text(encoding="utf-8")
    profiler = cProfile.Profile()
    profiler.runcall(analyze_text, text)
    stats = pstats.Stats(profiler)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:10]  # type: ignore[attr-defined]
    return [(f"{Path(f).name}:{line} {name}", tt / total * 100) for (f, line, name), (_, _, tt, _, _) in rows]


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    memory = next((int(line.split()[1]) // 1024 // 1024 for line in open("/proc/meminfo")
                   if line.startswith("MemTotal")), 0)
    return (f"{os.cpu_count()} cores ({cpu}), {memory} GiB, Linux {platform.release()}, "
            f"CPython {platform.python_version()}, Node {node}, {time.strftime('%Y-%m-%d')}")


def report(results: dict, smoke: bool) -> str:
    ps, wp, ed = results["per_script"], results["whole_process"], results["editor"]
    lines = [f"Machine: {machine()}.", "",
             f"Corpus: generated by `bench/corpus.py` (seed 1); {'smoke run' if smoke else 'full run'} of "
             "`python bench/run.py`.", "",
             "| measure | this project | acorn reference | ratio | target | met |", "|---|---|---|---|---|---|",
             f"| analysis per exec script ({ps['scripts']} scripts) | {ps['ours_us']:.0f} µs | {ps['reference_us']:.0f} µs "
             f"| {ps['ratio']:.2f}× | ≤ 2× | {'yes' if ps['ratio'] <= 2 else 'no'} |",
             f"| whole process, `rollout-lsp check` vs `node acorn_reference.mjs` ({wp['scripts']} scripts, "
             f"{wp['size_mb']:.0f} MB) | {wp['ours_s']:.2f} s | {wp['reference_s']:.2f} s | {wp['ratio']:.2f}× | ≤ 3× | "
             f"{'yes' if wp['ratio'] <= 3 else 'no'} |", "",
             "| rollout | whole-file analysis | scripts/s | peak memory | target memory (3× size + 80 MB) | met |",
             "|---|---|---|---|---|---|"]
    for row in results["sizes"]:
        budget = 3 * row["size_mb"] + 80
        lines.append(f"| {row['size_mb']:.1f} MB, {row['scripts']} scripts | {row['seconds']:.2f} s | "
                     f"{row['scripts_per_s']:.0f} | {row['peak_mb']:.0f} MB | {budget:.0f} MB | "
                     f"{'yes' if row['peak_mb'] <= budget else 'no'} |")
    lines += ["", f"Editor latency through a real LSP client over stdio, on a {ed['size_mb']:.1f} MB rollout "
              "(server defaults):", "",
              "| measure | median | p95 | samples | target | met |", "|---|---|---|---|---|---|",
              f"| didOpen → first diagnostics | {ed['first_diagnostics_s'] * 1000:.0f} ms | | 1 | ≤ 1500 ms | "
              f"{'yes' if ed['first_diagnostics_s'] <= 1.5 else 'no'} |"]
    for key, label, target in (("edit", "one-line edit → new diagnostics", 100), ("hover", "hover", 50),
                               ("symbols", "documentSymbol", 50)):
        s = ed[key]
        lines.append(f"| {label} | {s['median_ms']:.0f} ms | {s['p95_ms']:.0f} ms | {s['n']} | ≤ {target} ms p95 | "
                     f"{'yes' if s['p95_ms'] <= target else 'no'} |")
    lines += ["", "Where whole-file analysis spends its time (cProfile, share of own time):", ""]
    lines += [f"- {name}: {share:.0f}%" for name, share in results["profile"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="small files, under a minute; for CI")
    args = parser.parse_args()
    smoke = args.smoke
    sizes = [100 * 1024, MB] if smoke else [MB, 10 * MB, 20 * MB, 50 * MB]
    files = {size: corpus_file(size) for size in sizes}
    script_file = files[MB] if smoke else files[10 * MB]
    check_file = files[MB] if smoke else files[20 * MB]
    editor_file = files[MB] if smoke else files[20 * MB]
    repeats = 1 if smoke else 3
    results: dict = {"per_script": per_script(script_file, repeats)}
    results["whole_process"] = whole_process(check_file, repeats)
    results["whole_process"].update(scripts=len(exec_scripts(check_file)), size_mb=check_file.stat().st_size / MB)
    results["sizes"] = [whole_file(files[size]) for size in sizes]
    results["editor"] = asyncio.run(editor_latency(editor_file, edits=10 if smoke else 30, requests=20 if smoke else 60))
    results["profile"] = profile(files[MB] if smoke else files[10 * MB])
    table = report(results, smoke)
    print(table)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    if smoke:
        (OUT / "smoke.md").write_text(table)
    else:
        doc = ROOT / "docs" / "benchmarks.md"
        head = doc.read_text().split("<!-- results -->")[0] if doc.exists() else "# Benchmarks\n\n"
        tail = doc.read_text().split("<!-- end results -->")[1] if doc.exists() and "<!-- end results -->" in \
            doc.read_text() else ""
        doc.write_text(head + "<!-- results -->\n" + table + "<!-- end results -->" + tail)


if __name__ == "__main__":
    main()
