"""Where a diagnostic's code links to: the finding's section of findings.md.

The published copy when the project names one (``Findings`` under ``[project.urls]`` in pyproject.toml, read
from the installed metadata); otherwise the copy that ships with the server (``lsp_server/findings.md`` in the
wheel and the .vsix, ``docs/findings.md`` in a source tree), as a ``file:`` URI: never an address nobody
published."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

DISTRIBUTION = "codex-rollout-lsp"
URL_LABEL = "findings"  # [project.urls] Findings = "https://…/findings.md"
HERE = Path(__file__).resolve().parent
COPIES = (HERE / "findings.md", HERE.parent / "docs" / "findings.md")  # installed, then a source tree


@lru_cache(maxsize=1)
def findings_doc() -> str | None:
    """The URL of findings.md, or None when there is none to link to."""
    published = published_url()
    if published:
        return published
    return next((copy.as_uri() for copy in COPIES if copy.is_file()), None)


def published_url() -> str | None:
    import importlib.metadata  # here: it costs about 10 ms, at the first diagnostic rather than at start

    try:
        urls = importlib.metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == URL_LABEL and url.strip():
            return url.strip()
    return None


def section_url(code: str) -> str | None:
    """The section of ``code`` (a finding code is its heading, so it is its anchor)."""
    base = findings_doc()
    return f"{base}#{code}" if base else None
