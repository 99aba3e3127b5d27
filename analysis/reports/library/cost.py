"""``rollout-lsp cost``: the counted responses' tokens and exact cost, grouped by session, day, project or
model (each response's price at its time and tier, summed exactly in groups by :mod:`.grouped`; a group's ``usd``
null when any response is unpriced)."""

from __future__ import annotations

import os
from typing import Any

from .pricing import PRICES_AS_OF
from .responses import Response
from .sessions import Library, cost_of, tokens_of
from .tree import local_day

BY = ("session", "day", "project", "model")


def cost_report(library: Library, by: str = "session", paths: tuple[str, ...] = ()) -> dict[str, Any]:
    """``{by, groups: [{key, …, responses, tokens, cost}], total: {responses, tokens, cost}, prices_as_of}``."""
    files = {f["id"]: f for f in library.files}
    folders = [os.path.abspath(p).rstrip(os.sep) for p in paths]
    groups: dict[Any, list[Response]] = {}
    about: dict[Any, dict[str, Any]] = {}
    kept: list[Response] = []
    for owner, responses in library.by_file.items():
        f = files.get(owner)
        if folders and (f is None or not any(f["path"] == d or f["path"].startswith(d + os.sep) for d in folders)):
            continue
        for r in responses:
            kept.append(r)
            if by == "session":
                key: Any = owner if f is not None else f"thread:{r.thread_id}"
                about.setdefault(
                    key,
                    {
                        "key": f["session_id"] if f else r.thread_id,
                        "rollout": f["path"] if f else None,
                        "project": (f["repo_root"] or f["cwd"]) if f else None,
                        "started": (f["started"] or f["session_time"]) if f else None,
                    },
                )
            elif by == "day":
                key = local_day(r.timestamp)
            elif by == "project":
                key = (f["repo_root"] or f["cwd"]) if f else None
            else:
                key = r.model
            groups.setdefault(key, []).append(r)
    out = []
    for key, responses in groups.items():
        head = about.get(key, {"key": key})
        out.append({**head, "responses": len(responses), "tokens": tokens_of(responses), "cost": cost_of(responses)})
    if by == "session":
        out.sort(key=lambda g: (g.get("started") or "", g.get("rollout") or ""), reverse=True)
    elif by == "day":
        out.sort(key=lambda g: g["key"], reverse=True)
    else:
        out.sort(key=lambda g: (g["key"] is None, g["key"] or ""))
    total = {"responses": len(kept), "tokens": tokens_of(kept), "cost": cost_of(kept)}
    return {"by": by, "groups": out, "total": total, "prices_as_of": PRICES_AS_OF}
