"""Fidelity on real rollouts: how much of ../shared/corpus/wild/ the analysis reads exactly.

    python bench/fidelity.py            # prints the counts and writes docs/fidelity.md
    python bench/fidelity.py --check    # prints them; exits 1 if a file crashed or a command went unread

Counts, over every rollout of the corpus: command-running calls read exactly / computed / unread (a call
of a command-running tool whose command is neither known nor marked computed), call records paired with
their output (a record whose call_id has an output record anywhere in the file must be paired), events
matched with the calls they report, and findings by code.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis import analyze_text  # noqa: E402
from analysis.jsonl.findings import RECORD_SHAPE  # noqa: E402
from analysis.jsonl.source import load, rollout_files  # noqa: E402
from analysis.script.calls import COMMAND  # noqa: E402

SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))
WILD = SHARED / "corpus" / "wild"
DOC = ROOT / "docs" / "fidelity.md"
# every tool that runs a command, in scripts and at the top level
COMMAND_TOOLS = frozenset({"exec_command", "shell_command", "shell", "container.exec", "local_shell"})


def measure(paths: list[str]) -> dict:
    counts: Counter = Counter()
    unread: Counter = Counter()
    events: Counter = Counter()
    unmatched: Counter = Counter()
    findings: Counter = Counter()
    crashed: list[str] = []
    for path in paths:
        loaded = load(path)
        if loaded.error:
            crashed.append(f"{path}: {loaded.error}")
            continue
        try:
            analysis = analyze_text(loaded.text)
        except Exception:
            crashed.append(f"{path}: {traceback.format_exc(limit=1)}")
            continue
        counts["files"] += 1
        for located in analysis.calls:
            call = located.call
            if call.kind != COMMAND and call.tool not in COMMAND_TOOLS:
                continue
            where = "in scripts" if located.record.is_exec else "top level"
            counts[f"command calls {where}"] += 1
            if call.kind == COMMAND and call.command is not None and not call.computed:
                counts[f"read {where}"] += 1
            elif call.kind == COMMAND and any(f.code == RECORD_SHAPE for f in located.record.findings):
                counts[f"not JSON {where}"] += 1  # the record's arguments are no JSON object: a record-shape finding
            elif call.kind == COMMAND and call.computed:
                counts[f"computed {where}"] += 1
                if call.expansion:
                    counts[f"computed with every command listed {where}"] += 1
            else:
                counts[f"unread {where}"] += 1
                unread[f"{call.tool} ({where})"] += 1
        answered = set(analysis.outputs_by_call_id)
        for number in analysis.call_records:
            record = analysis.records[number]
            counts["call records"] += 1
            has_output = record.call_id in answered or (record.call_id is None and record.output is not None)
            paired = analysis.record_output(number) is not None
            counts["call records with an output in the file"] += has_output
            counts["call records paired"] += paired
            if has_output and not paired:
                counts["call records with an output left unpaired"] += 1
            if analysis.record_output(number) is not None and analysis.record_output(number).continued_by:
                counts["call records followed through wait / write_stdin"] += 1
        for line, event in analysis.events:
            events[event.type] += 1
            if line not in analysis.matched_events:
                unmatched[event.type + (" (user shell)" if event.source == "user_shell" else "")] += 1
        counts["calls executed: yes (in scripts)"] += sum(
            1 for c in analysis.calls if c.record.is_exec and c.call.executed == "yes"
        )
        findings.update(f.code for f in analysis.findings)
    return {
        "counts": counts,
        "unread": unread,
        "events": events,
        "unmatched": unmatched,
        "findings": findings,
        "crashed": crashed,
    }


def render(result: dict, corpus: str) -> str:
    c, events, unmatched = result["counts"], result["events"], result["unmatched"]

    def row(label: str, value) -> str:
        return f"| {label} | {value} |"

    out = [
        "# Fidelity on real rollouts",
        "",
        f"Counts over every rollout of `{corpus}` (real sessions from public repositories; see its",
        "`SOURCES.md`), written by `make fidelity` (`python bench/fidelity.py`). A command is *read* when its",
        "exact text is known, *computed* when the script builds it at run time (the hover shows the script and",
        "any exact expansion), *unread* when a command-running call has neither; unread must be 0. A call whose",
        "`arguments` are not a JSON object (the two files of `redacted/`, whose publisher replaced arguments with",
        "hashes) cannot be read by anyone: it is counted apart, with the `record-shape` finding it gets.",
        "",
        "| | count |",
        "|---|---|",
        row("files read (without a crash)", f"{c['files']} of {c['files'] + len(result['crashed'])}"),
    ]
    for where in ("top level", "in scripts"):
        out += [
            row(f"command-running calls, {where}", c[f"command calls {where}"]),
            row("&nbsp;&nbsp;read exactly", c[f"read {where}"]),
            row("&nbsp;&nbsp;computed", c[f"computed {where}"]),
            row(
                "&nbsp;&nbsp;&nbsp;&nbsp;of which every command is listed",
                c[f"computed with every command listed {where}"],
            ),
            row("&nbsp;&nbsp;arguments not a JSON object (a `record-shape` finding)", c[f"not JSON {where}"]),
            row("&nbsp;&nbsp;unread", c[f"unread {where}"]),
        ]
    out += [
        row("call records", c["call records"]),
        row("&nbsp;&nbsp;with an output in the file", c["call records with an output in the file"]),
        row("&nbsp;&nbsp;paired with it", c["call records paired"]),
        row("&nbsp;&nbsp;with an output left unpaired", c["call records with an output left unpaired"]),
        row(
            "&nbsp;&nbsp;followed through `wait` / `write_stdin`", c["call records followed through wait / write_stdin"]
        ),
        row("calls in scripts known to have run (`executed: yes`)", c["calls executed: yes (in scripts)"]),
        row("events that report a call", sum(events.values())),
        row("&nbsp;&nbsp;matched with the call they report", sum(events.values()) - sum(unmatched.values())),
    ]
    out += ["", "Events by type (matched / all):", "", "| event | matched | all |", "|---|---|---|"]
    for kind, n in sorted(events.items()):
        out.append(f"| `{kind}` | {n - unmatched.get(kind, 0) - unmatched.get(kind + ' (user shell)', 0)} | {n} |")
    if unmatched:
        out += ["", "Unmatched events (each an `unmatched-event` finding):", ""]
        out += [f"- `{kind}`: {n}" for kind, n in sorted(unmatched.items())]
    if result["unread"]:
        out += ["", "Unread command-running calls, by tool:", ""]
        out += [f"- `{tool}`: {n}" for tool, n in result["unread"].most_common()]
    out += ["", "Findings by code:", "", "| code | count |", "|---|---|"]
    out += [f"| `{code}` | {n} |" for code, n in result["findings"].most_common()]
    if result["crashed"]:
        out += ["", "Files that could not be read:", ""] + [f"- {line}" for line in result["crashed"]]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print only; exit 1 on a crash or an unread command")
    parser.add_argument("paths", nargs="*", default=[str(WILD)])
    args = parser.parse_args()
    if not all(Path(p).exists() for p in args.paths):
        print(f"fidelity: {', '.join(args.paths)} not found (lay ../shared beside the clone)", file=sys.stderr)
        return 2
    result = measure(rollout_files(args.paths))
    text = render(result, "../shared/corpus/wild" if args.paths == [str(WILD)] else " ".join(args.paths))
    print(text, end="")
    if not args.check:
        DOC.write_text(text, encoding="utf-8")
    unread = result["counts"]["unread top level"] + result["counts"]["unread in scripts"]
    return 1 if args.check and (result["crashed"] or unread) else 0


if __name__ == "__main__":
    sys.exit(main())
