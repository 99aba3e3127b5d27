"""Settings of the language server, from ``initializationOptions`` and ``workspace/configuration``."""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analysis.findings import CODES
from analysis.source import ROLLOUT_PATTERNS
from analysis.source import glob_regex as _glob

log = logging.getLogger(__name__)

SeverityName = Literal["error", "warning", "information", "hint", "off"]
DEFAULT_FILES = ROLLOUT_PATTERNS  # the command line's too


class Settings(BaseModel):
    """Everything a client can configure.  Keys are accepted in camelCase or snake_case."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    severity: dict[str, SeverityName] = Field(default_factory=dict)
    secret_patterns: list[str] = Field(default_factory=list, alias="secretPatterns")
    hover_output_lines: int = Field(20, ge=0, le=10_000, alias="hoverOutputLines")
    files: list[str] = Field(default_factory=lambda: list(DEFAULT_FILES))
    debounce_ms: int = Field(30, ge=0, le=10_000, alias="debounceMs")

    @field_validator("severity")
    @classmethod
    def _known_codes(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(CODES))
        if unknown:
            raise ValueError(f"unknown finding codes: {', '.join(unknown)}")
        return value

    @field_validator("secret_patterns")
    @classmethod
    def _compilable(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"secret pattern {pattern!r}: {error}") from None
        return value

    def compiled_secret_patterns(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.secret_patterns)

    def is_rollout_path(self, path: str) -> bool:
        return any(_glob(p).search(path.replace("\\", "/")) for p in self.files)


def parse_settings(value: Any, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client's value; fields that do not validate keep their old value, with a message."""
    base = base or Settings()
    if value is None:
        return base, []
    if not isinstance(value, dict):
        return base, [f"rollout-lsp settings must be an object, not {type(value).__name__}"]
    if isinstance(value.get("rolloutLsp"), dict):  # a whole settings tree
        value = value["rolloutLsp"]
    merged = base.model_dump(by_alias=True)
    problems: list[str] = []
    for key, item in value.items():
        if key == "severity" and isinstance(item, dict):  # per code: later sources override code by code
            item = {**merged.get("severity", {}), **item}
        trial = dict(merged, **{key: item})
        try:
            Settings.model_validate(trial)
        except ValidationError as error:
            problems.append(f"setting {key!r} ignored: {error.errors()[0]['msg']}")
            continue
        merged = trial
    return Settings.model_validate(merged), problems
