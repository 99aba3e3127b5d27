"""The ``rollout-lsp`` command line: check, outline, census, serve."""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections import Counter
from typing import Sequence

from .findings import Finding, Severity
from .positions import PositionEncoding
from .report import finding_json, outline_json
from .rollout import RolloutAnalysis, analyze_text
from .source import LoadedFile, load, rollout_files


def tune_gc() -> None:
    """An analysis allocates millions of small objects that live as long as the document: with the
    default thresholds the collector rescans them again and again (a third of the time on large files)."""
    gc.set_threshold(100_000, 50, 100)


def main(argv: Sequence[str] | None = None) -> int:
    tune_gc()
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:  # `rollout-lsp outline … | head` is fine
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rollout-lsp",
                                     description="Read what a Codex agent did: tool calls of rollout files.")
    sub = parser.add_subparsers(dest="command")
    encoding = argparse.ArgumentParser(add_help=False)
    encoding.add_argument("--position-encoding", choices=[e.value for e in PositionEncoding], default="utf-16",
                          help="units of JSON ranges' characters (default utf-16, as LSP)")

    check = sub.add_parser("check", parents=[encoding], help="print findings; exit 1 when one is severe enough")
    check.add_argument("--json", action="store_true", help="a JSON list of findings")
    check.add_argument("--fail-on", choices=[s.label for s in Severity], default="warning",
                       help="exit 1 when a finding is at or above this severity (default warning)")
    check.add_argument("paths", nargs="+", metavar="PATH", help="rollout files or folders")
    check.set_defaults(run=_check)

    outline = sub.add_parser("outline", parents=[encoding], help="the tool calls of one rollout")
    outline.add_argument("--json", action="store_true", help="one JSON object: file, calls, diagnostics")
    outline.add_argument("file", metavar="FILE")
    outline.set_defaults(run=_outline)

    census = sub.add_parser("census", help="counts over a corpus of rollouts")
    census.add_argument("--json", action="store_true")
    census.add_argument("paths", nargs="+", metavar="PATH")
    census.set_defaults(run=_census)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--ws", metavar="HOST:PORT", help="listen on a WebSocket instead of stdio")
    serve.add_argument("--log-level", default="INFO")
    serve.set_defaults(run=_serve)
    return parser


def _analyze(loaded: LoadedFile) -> tuple[RolloutAnalysis, list[Finding]]:
    analysis = analyze_text(loaded.text)
    findings = sorted(loaded.findings + analysis.findings,
                      key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))
    return analysis, findings


def _check(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    fail_on = Severity.parse(args.fail_on)
    worst = Severity.HINT + 1
    status = 0
    rows: list[dict] = []
    files = rollout_files(args.paths)
    if not files:
        print(f"rollout-lsp: no rollout files in {' '.join(args.paths)}", file=sys.stderr)
        return 2
    for path in files:
        loaded = load(path)
        if loaded.error:
            status = 2
            if args.json:
                rows.append({"file": path, "range": None, "severity": "error", "code": "invalid-json",
                             "message": loaded.error})
            else:
                print(f"{path}:1:1: error invalid-json {loaded.error}")
            continue
        analysis, findings = _analyze(loaded)
        for finding in findings:
            worst = min(worst, finding.severity)
            if args.json:
                rows.append({"file": path, **finding_json(analysis, finding, encoding)})
            else:
                r = analysis.range_of(finding.span, encoding)
                print(f"{path}:{r.start.line + 1}:{r.start.character + 1}: "
                      f"{finding.severity.label} {finding.code} {finding.message}")
    if args.json:
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False)
        print()
    if status:
        return status
    return 1 if worst <= fail_on else 0


def _outline(args: argparse.Namespace) -> int:
    encoding = PositionEncoding(args.position_encoding)
    loaded = load(args.file)
    if loaded.error:
        print(f"rollout-lsp: {loaded.error}", file=sys.stderr)
        return 2
    analysis, findings = _analyze(loaded)
    if args.json:
        out = outline_json(args.file, analysis, encoding)
        out["diagnostics"] = [finding_json(analysis, f, encoding) for f in findings]
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    print(_outline_text(args.file, analysis, findings, encoding))
    return 0


def _outline_text(path: str, analysis: RolloutAnalysis, findings: list[Finding],
                  encoding: PositionEncoding) -> str:
    out = [path]
    turns = {t.line: t for t in analysis.turns}
    by_line: dict[int, list] = {}
    for located in analysis.calls:
        by_line.setdefault(located.line, []).append(located)
    for number, record in enumerate(analysis.records):
        if number in turns:
            out.append(f"  turn (line {number + 1}): {_one_line(turns[number].title, 70)}")
        if not record.is_call:
            continue
        calls = by_line.get(number, [])
        output = calls[0].output if calls else None
        state = f"  [{output.status}" + (f", {output.wall_time:g} s]" if output.wall_time is not None else "]") \
            if output and output.status else "  [no output]" if output is None and record.call_id else ""
        out.append(f"    line {number + 1}: {record.name} {record.call_id or ''}{state}")
        if not calls and record.is_exec:
            out.append("      (no tool call)")
        for i, located in enumerate(calls):
            call = located.call
            branch = "└─" if i == len(calls) - 1 else "├─"
            marks = "".join(f" ({m})" for m in (
                "dead" if call.executed == "no" else None, "computed" if call.computed else None) if m)
            where = f"  in {call.workdir}" if call.workdir else ""
            out.append(f"      {branch} {call.tool or '?'}: {_one_line(_describe(call), 100)}{where}{marks}")
            for command in call.expansion or ():
                out.append(f"      {'  ' if branch == '└─' else '│ '}   · {_one_line(command, 100)}")
    if findings:
        out.append("findings:")
        for f in findings:
            r = analysis.range_of(f.span, encoding)
            out.append(f"  {r.start.line + 1}:{r.start.character + 1}: {f.severity.label} {f.code} {f.message}")
    return "\n".join(out)


def _describe(call) -> str:
    if call.kind == "patch" and call.files:
        return ", ".join(f"{f.action} {f.path}" + (f" → {f.move_to}" if f.move_to else "") for f in call.files)
    if call.kind == "command" and call.command is None and call.computed:
        return f"computed: {call.computed_expression or ''}"
    return call.label


def _one_line(text: str, limit: int) -> str:
    text = text.replace("\r", "").replace("\n", "⏎ ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _census(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    counts: Counter = Counter()
    by_tool: Counter = Counter()
    by_code: Counter = Counter()
    unreadable = 0
    for path in rollout_files(args.paths):
        loaded = load(path)
        if loaded.error:
            unreadable += 1
            continue
        analysis, findings = _analyze(loaded)
        counts["rollouts"] += 1
        counts["lines"] += len(analysis.lines)
        for record in analysis.records:
            if record.is_exec:
                counts["exec scripts"] += 1
                if any(f.code == "script-syntax" for f in record.findings):
                    counts["scripts that do not parse"] += 1
        for located in analysis.calls:
            call = located.call
            by_tool[call.tool or "(computed)"] += 1
            if call.kind == "command" and (call.computed or call.command is not None):
                counts["computed commands" if call.computed else "literal commands"] += 1
                if call.expansion:
                    counts["computed commands with a known expansion"] += 1
            if call.json_arguments is True and located.record.is_exec:
                counts["JSON arguments"] += 1
            elif call.json_arguments is False:
                counts["JS-literal arguments"] += 1
        by_code.update(f.code for f in findings)
    seconds = time.perf_counter() - started
    result = {"counts": dict(counts), "calls_by_tool": dict(by_tool.most_common()),
              "findings_by_code": dict(by_code.most_common()), "unreadable_files": unreadable,
              "seconds": round(seconds, 3)}
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    for key in ("rollouts", "lines", "exec scripts", "scripts that do not parse", "literal commands",
                "computed commands", "computed commands with a known expansion", "JSON arguments",
                "JS-literal arguments"):
        print(f"{key:44} {counts.get(key, 0)}")
    print("calls by tool:")
    for tool, n in by_tool.most_common():
        print(f"  {tool:42} {n}")
    print("findings by code:")
    for code, n in by_code.most_common():
        print(f"  {code:42} {n}")
    if unreadable:
        print(f"{'unreadable files':44} {unreadable}")
    print(f"{'seconds':44} {seconds:.3f}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from lsp_server.server import run  # imported here: the analysis commands need no pygls

    return run(tcp=args.tcp, ws=args.ws, log_level=args.log_level)


if __name__ == "__main__":
    sys.exit(main())
