"""The user's own words in a user message: the context Codex and its IDE extension inject, removed.

Codex sends the model user messages that no person typed (``<environment_context>``, ``# AGENTS.md
instructions … <INSTRUCTIONS>``, ``<user_instructions>``, ``<recommended_plugins>``, ``<turn_aborted>``…),
and its IDE extension and app wrap the prompt itself in context (``# Context from my IDE setup:``,
``# Files mentioned by the user:``), putting the words after ``## My request for Codex:``.
"""

from __future__ import annotations

import re

REQUEST_MARKER = "## My request for Codex:"
# blocks of injected context, written as an XML-like element
_TAGS = (
    "environment_context",
    "user_instructions",
    "recommended_plugins",
    "INSTRUCTIONS",
    "permissions",
    "developer_instructions",
    "turn_aborted",
    "user_shell_command",
    "skills_instructions",
    "skill",
    "collaboration_mode",
    "apps_instructions",
    "plugins_instructions",
    "subagent_notification",
    "image",
)
_BLOCK = re.compile(r"<(" + "|".join(_TAGS) + r")\b[^>]*>.*?(?:</\1>|\Z)", re.DOTALL)
# an attached image, as Codex writes it into the prompt: the placeholder the user saw in their prompt stands for it
_IMAGE = re.compile(r"<image\b[^>]*?\bname=(\[[^\]]*\]|[^\s>]+)[^>]*>\s*(?:</image>)?")
# headings that introduce injected context; what follows them up to the request is context too
_CONTEXT_HEADINGS = ("# AGENTS.md instructions", "# Context from my IDE setup:", "# Files mentioned by the user:")


def user_words(text: str) -> str | None:
    """What the user typed, or None when the message is only injected context."""
    text = _IMAGE.sub(lambda m: m.group(1), text)
    marker = text.rfind(REQUEST_MARKER)
    if marker >= 0:
        words = text[marker + len(REQUEST_MARKER) :].strip()
        return words or None
    stripped = _BLOCK.sub("", text).strip()
    if stripped.startswith(_CONTEXT_HEADINGS):  # injected context and no request: nobody typed it
        return None
    return stripped or None


__all__ = ["REQUEST_MARKER", "user_words"]
