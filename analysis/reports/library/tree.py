"""``sessions --tree``: projects → days → sessions, a fork or subagent indented under the session it came from,
one line each (name or request, duration, turns, failed calls, cost)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

NO_PROJECT = "(no project)"


def local_day(stamp: str | None) -> str:
    """The local date of an ISO timestamp (the machine's time zone), ``(no date)`` without one."""
    if not stamp:
        return "(no date)"
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d")
    except ValueError:
        return stamp[:10]


def duration(seconds: float | None) -> str:
    """``45 s``, ``3 min 05 s``, ``2 h 04 min``."""
    if seconds is None:
        return "?"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def money(cost: dict[str, Any], responses: int) -> str:
    if not responses:
        return "no usage"
    if cost["usd"] is None:
        return "unpriced"
    return f"${cost['usd']:.4f}"


def label(session: dict[str, Any], limit: int = 70) -> str:
    text = session["name"] or session["request"] or session["id"] or "?"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def line(session: dict[str, Any]) -> str:
    parts = [label(session), duration(session["duration_s"]), f"{session['turns']} turn{'s' * (session['turns'] != 1)}"]
    if session["failed_calls"]:
        parts.append(f"{session['failed_calls']} failed call{'s' * (session['failed_calls'] != 1)}")
    parts.append(money(session["cost"], session["responses"]))
    marks = [m for m, on in (("live", session["live"]), ("archived", session["archived"])) if on]
    if session["nickname"] or session["agent_path"]:
        marks.insert(0, f"agent {session['nickname'] or session['agent_path']}")
    return " · ".join(parts) + (f"  [{', '.join(marks)}]" if marks else "")


def _origin(session: dict[str, Any]) -> str | None:
    return session["parent_thread"] or session["parent"]


def tree_lines(sessions: list[dict[str, Any]]) -> list[str]:
    """The tree of ``sessions`` (newest first, as listed): a session whose parent is listed goes under it."""
    listed = {s["id"] for s in sessions}
    under: dict[str, list[dict[str, Any]]] = {}
    tops = []
    for s in sessions:
        origin = _origin(s)
        if origin and origin in listed and origin != s["id"]:
            under.setdefault(origin, []).append(s)
        else:
            tops.append(s)
    out: list[str] = []
    projects: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for s in tops:
        projects.setdefault(s["project"] or NO_PROJECT, {}).setdefault(local_day(s["started"]), []).append(s)
    shown: set[int] = set()

    def walk(session: dict[str, Any], depth: int) -> None:
        if id(session) in shown:
            return
        shown.add(id(session))
        out.append("    " + "  " * depth + ("↳ " if depth else "") + line(session))
        for child in reversed(under.get(session["id"], [])):  # children oldest first, as they were started
            walk(child, depth + 1)

    for project in sorted(projects):
        out.append(project)
        for day in sorted(projects[project], reverse=True):
            out.append(f"  {day}")
            for session in projects[project][day]:
                walk(session, 0)
    return out
