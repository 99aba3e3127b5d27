"""Secrets masked in every text the server shows outside the document itself.

The outline, breadcrumbs, hovers, workspace symbols, code lenses and decoded scripts show transcript
text; a credential there would be shown (and screen-shared) in clear.  :class:`Masker` runs the same
secret patterns as the ``secret`` finding, the configured ones included, over the shown text and
replaces each secret's letters and digits past its identifying prefix with ``x``.
"""

from __future__ import annotations

import re

from analysis.jsonl.secrets import redact_all


class Masker:
    def __init__(self, extra: tuple[re.Pattern[str], ...] = ()) -> None:
        self.extra = extra

    def __call__(self, text: str) -> str:
        """``text`` with every secret masked (same length)."""
        return redact_all(text, self.extra) if text else text

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self(text)
