"""The settings as a pydantic model: what reads a value the plain check of :mod:`lsp_server.config` does not
take as it is (a number given as text, ``"yes"`` for a flag, a field that does not validate), so that it is
converted, or refused with pydantic's words, exactly as before.  Imported only then: building this model costs
more than the rest of the server's own start (issue 35)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from analysis.jsonl.findings import CODES
from analysis.jsonl.source import ROLLOUT_PATTERNS

# as lsp_server/config.py has them (which this module does not import: config imports it when needed)
SeverityName = Literal["error", "warning", "information", "hint", "off"]
DEFAULT_FILES = ROLLOUT_PATTERNS
DEFAULT_INVOCATION_LOGS = ("**/cli_mocks/calls.jsonl",)


class SettingsModel(BaseModel):
    """Every setting, as :data:`lsp_server.config.FIELDS` lists them, with the same defaults
    (tests/server/test_settings_check.py keeps the two the same).  Keys are accepted in camelCase or snake_case."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    severity: dict[str, SeverityName] = Field(default_factory=dict)
    secret_patterns: list[str] = Field(default_factory=list, alias="secretPatterns")
    hover_output_lines: int = Field(default=20, ge=0, le=10_000, alias="hoverOutputLines")
    files: list[str] = Field(default_factory=lambda: list(DEFAULT_FILES))
    invocation_logs: list[str] = Field(default_factory=lambda: list(DEFAULT_INVOCATION_LOGS), alias="invocationLogs")
    debounce_ms: int = Field(default=30, ge=0, le=10_000, alias="debounceMs")
    pull_diagnostics: bool = Field(default=True, alias="pullDiagnostics")
    blame: bool = Field(default=True, alias="blame")
    blame_outside_workspace: bool = Field(default=False, alias="blameOutsideWorkspace")
    codex_home: str | None = Field(default=None, alias="codexHome")
    findings: Literal["auto", "reader", "author"] | None = Field(default=None, alias="findings")
    position_encoding: Literal["utf-8", "utf-16", "utf-32"] | None = Field(default=None, alias="positionEncoding")

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


def validated(data: dict) -> dict:
    """The value of every field, by name, as the model reads ``data``; pydantic's ValidationError when a field
    does not validate."""
    model = SettingsModel.model_validate(data)
    return {name: getattr(model, name) for name in SettingsModel.model_fields}


def first_problem(data: dict) -> str | None:
    """pydantic's words for the first field of ``data`` that does not validate; None when all do."""
    from pydantic import ValidationError

    try:
        SettingsModel.model_validate(data)
    except ValidationError as error:
        return str(error.errors()[0]["msg"])
    return None
