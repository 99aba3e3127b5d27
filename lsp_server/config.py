"""Settings of the language server, from ``initializationOptions`` and ``workspace/configuration``."""

from __future__ import annotations

import logging
import os
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analysis.jsonl.access import CODEX_HOME_ENV
from analysis.jsonl.findings import CODES
from analysis.jsonl.source import ROLLOUT_PATTERNS
from analysis.jsonl.source import glob_regex as _glob
from analysis.session.profiles import READER, default_profile

log = logging.getLogger(__name__)

SeverityName = Literal["error", "warning", "information", "hint", "off"]
DEFAULT_FILES = ROLLOUT_PATTERNS  # the command line's too
DEFAULT_INVOCATION_LOGS = ("**/cli_mocks/calls.jsonl",)


class Settings(BaseModel):
    """Everything a client can configure.  Keys are accepted in camelCase or snake_case."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    severity: dict[str, SeverityName] = Field(default_factory=dict)
    secret_patterns: list[str] = Field(default_factory=list, alias="secretPatterns")
    hover_output_lines: int = Field(default=20, ge=0, le=10_000, alias="hoverOutputLines")
    files: list[str] = Field(default_factory=lambda: list(DEFAULT_FILES))
    # invocation logs of recording shims, linked to the rollout of the same run
    invocation_logs: list[str] = Field(default_factory=lambda: list(DEFAULT_INVOCATION_LOGS), alias="invocationLogs")
    debounce_ms: int = Field(default=30, ge=0, le=10_000, alias="debounceMs")
    # a client that supports pulled diagnostics gets them unless it sets this to false
    pull_diagnostics: bool = Field(default=True, alias="pullDiagnostics")
    # blame (lsp_server/features/blame.py): a lens and hovers in the workspace's files, from the session index
    blame: bool = Field(default=True, alias="blame")
    blame_outside_workspace: bool = Field(default=False, alias="blameOutsideWorkspace")
    # a Codex home whose sessions folders parents and segments are read from, besides $CODEX_HOME and ~/.codex
    codex_home: str | None = Field(default=None, alias="codexHome")
    # the findings profile (docs/findings.md): "auto" (or None) is reader in a Codex home, author elsewhere
    findings: Literal["auto", "reader", "author"] | None = Field(default=None, alias="findings")

    def profile_of(self, path: str | None) -> str:
        """The findings profile of a document at ``path``: the one set, else ``reader`` for a rollout inside a
        Codex home (``codexHome``, ``$CODEX_HOME``, ``~/.codex``, or any ``.codex/sessions`` folder), else
        ``author`` (a fixture, or a copy kept in a project: nothing in a file tells a reviewer's copy from a
        fixture written to look like a session, so a reviewers' project sets ``reader`` itself)."""
        if self.findings in ("reader", "author"):
            return self.findings
        if path and in_codex_home(path, codex_homes(self.codex_home)):
            return READER
        return default_profile(path)

    # the columns of a client that offers no positionEncodings but does not count UTF-16 units (Vim's ALE
    # sends bytes): read at initialize only; a client that negotiates gets what it negotiated
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

    def compiled_secret_patterns(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.secret_patterns)

    def is_rollout_path(self, path: str) -> bool:
        return any(_glob(p).search(path.replace("\\", "/")) for p in self.files)

    def is_invocation_log_path(self, path: str) -> bool:
        return any(_glob(p).search(path.replace("\\", "/")) for p in self.invocation_logs)


def codex_homes(setting: str | None) -> tuple[str, ...]:
    """The Codex homes a rollout may be in, as absolute paths: the ``codexHome`` setting, the command line's
    ``--codex-home`` (``$ROLLOUT_LSP_CODEX_HOME``), ``$CODEX_HOME`` and ``~/.codex``."""
    given = (setting, os.environ.get(CODEX_HOME_ENV), os.environ.get("CODEX_HOME"), "~/.codex")
    homes = (os.path.expanduser(h) for h in given if h)
    return tuple(dict.fromkeys(os.path.normpath(h) for h in homes if os.path.isabs(h)))


def in_codex_home(path: str, homes: tuple[str, ...]) -> bool:
    """Whether ``path`` is inside one of ``homes``, as written or once links are resolved (a home reached
    through a link, or a link to one)."""
    candidates = {os.path.normpath(path)}
    try:
        candidates.add(os.path.realpath(path))
        homes = (*homes, *(os.path.realpath(h) for h in homes))
    except (OSError, ValueError):
        pass
    return any(c.startswith(h.rstrip(os.sep) + os.sep) for c in candidates for h in homes)


def position_encoding(settings: Settings, capabilities: Any, negotiated: str | None) -> str | None:
    """The position encoding of the session: the negotiated one, unless the client offered none and the
    ``positionEncoding`` setting names another (a client that counts bytes without saying so)."""
    general = getattr(capabilities, "general", None)
    if settings.position_encoding is None or (general is not None and general.position_encodings):
        return negotiated
    return settings.position_encoding


def section_of(value: Any) -> dict | None:
    """The ``rolloutLsp`` section a client sent: a whole settings tree is unwrapped; ``null``, ``{}`` and
    anything that is not an object say nothing (``None``)."""
    if isinstance(value, dict) and isinstance(value.get("rolloutLsp"), dict):
        value = value["rolloutLsp"]
    if not isinstance(value, dict) or not value:
        return None
    return value


def merge_layers(*layers: Any) -> dict:
    """The settings of several sources, each over the ones before it (defaults are under them all).

    A layer that says nothing (``null``, ``{}``, not an object) changes nothing, nor does a key set to
    ``null``; a layer's keys replace the
    earlier ones, except ``severity``, merged code by code."""
    merged: dict = {}
    for layer in layers:
        section = section_of(layer)
        if section is None:
            continue
        for key, item in section.items():
            if item is None:  # a key set to null is not set
                continue
            earlier = merged.get(key)
            if key == "severity" and isinstance(item, dict) and isinstance(earlier, dict):
                item = {**earlier, **item}
            merged[key] = item
    return merged


def parse_settings(value: Any, previous: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client's whole ``rolloutLsp`` section.

    What the value does not set is the default (a removed setting takes effect too).  A setting that
    does not validate keeps its previous value, with a message; a severity for an unknown code or with
    an unknown name is left out, with a message.
    """
    previous = previous or Settings()
    if value is None:
        return previous, []
    if not isinstance(value, dict):
        return previous, [f"rollout-lsp settings must be an object, not {type(value).__name__}"]
    if isinstance(value.get("rolloutLsp"), dict):  # a whole settings tree
        value = value["rolloutLsp"]
    problems: list[str] = []
    merged = Settings().model_dump(by_alias=True)
    old = previous.model_dump(by_alias=True)
    for key, item in value.items():
        if key in ("server", "trace"):  # read by the client that starts the server
            continue
        if key == "severity" and isinstance(item, dict):
            item = _known_severities(item, problems)
        trial = dict(merged, **{key: item})
        try:
            Settings.model_validate(trial)
        except ValidationError as error:
            problems.append(f"setting {key!r} ignored: {error.errors()[0]['msg']}")
            field = _field_of(key)
            if field is not None:
                merged[field.alias or key] = old.get(field.alias or key)
            continue
        merged = trial
    return Settings.model_validate(merged), problems


def _known_severities(value: dict, problems: list[str]) -> dict:
    known = {}
    for code, name in value.items():
        if code not in CODES:
            problems.append(f"setting 'severity' ignored for {code!r}: not a finding code")
        elif name not in ("error", "warning", "information", "hint", "off"):
            problems.append(f"setting 'severity' ignored for {code!r}: {name!r} is not a severity")
        else:
            known[code] = name
    return known


def _field_of(key: str):
    for name, field in Settings.model_fields.items():
        if key in (name, field.alias):
            return field
    return None
