"""Settings of the language server, from ``initializationOptions`` and ``workspace/configuration``."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from analysis.jsonl.access import CODEX_HOME_ENV
from analysis.jsonl.findings import CODES
from analysis.jsonl.source import ROLLOUT_PATTERNS
from analysis.jsonl.source import glob_regex as _glob
from analysis.session.profiles import READER, default_profile

log = logging.getLogger(__name__)

SeverityName = Literal["error", "warning", "information", "hint", "off"]
SEVERITY_NAMES = ("error", "warning", "information", "hint", "off")
DEFAULT_FILES = ROLLOUT_PATTERNS  # the command line's too
DEFAULT_INVOCATION_LOGS = ("**/cli_mocks/calls.jsonl",)


@dataclass(frozen=True, slots=True)
class SettingField:
    """One setting: its name, the camelCase key a client sends (None: the name itself), its default, and the
    plain check a value of the expected JSON type passes as it is."""

    name: str
    alias: str | None
    default: Any  # a container's default is copied for each Settings
    plain: Any  # (value) -> bool


def _texts(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _whole(low: int, high: int) -> Any:
    return lambda value: type(value) is int and low <= value <= high


def _one_of(*allowed: str) -> Any:
    return lambda value: value is None or (type(value) is str and value in allowed)


def _severities(value: Any) -> bool:
    return type(value) is dict and all(
        type(code) is str and code in CODES and type(name) is str and name in SEVERITY_NAMES
        for code, name in value.items()
    )


def _patterns(value: Any) -> bool:
    if not _texts(value):
        return False
    try:
        for pattern in value:
            re.compile(pattern)
    except re.error:
        return False
    return True


def _flag(value: Any) -> bool:
    return type(value) is bool


# Every setting a client can configure, in order.  A value of the plain JSON type that passes its check is taken
# as it is; any other goes to the pydantic model (lsp_server/settings_model.py), which converts it or says why not,
# as it always did.  Keys are accepted in camelCase or snake_case.
FIELDS: tuple[SettingField, ...] = (
    SettingField("severity", None, {}, _severities),
    SettingField("secret_patterns", "secretPatterns", [], _patterns),
    SettingField("hover_output_lines", "hoverOutputLines", 20, _whole(0, 10_000)),
    SettingField("files", None, list(DEFAULT_FILES), _texts),
    # invocation logs of recording shims, linked to the rollout of the same run
    SettingField("invocation_logs", "invocationLogs", list(DEFAULT_INVOCATION_LOGS), _texts),
    SettingField("debounce_ms", "debounceMs", 30, _whole(0, 10_000)),
    # a client that supports pulled diagnostics gets them unless it sets this to false
    SettingField("pull_diagnostics", "pullDiagnostics", True, _flag),
    # blame (lsp_server/features/blame.py): a lens and hovers in the workspace's files, from the session index
    SettingField("blame", "blame", True, _flag),
    SettingField("blame_outside_workspace", "blameOutsideWorkspace", False, _flag),
    # a Codex home whose sessions folders parents and segments are read from, besides $CODEX_HOME and ~/.codex
    SettingField("codex_home", "codexHome", None, lambda value: value is None or type(value) is str),
    # the findings profile (docs/findings.md): "auto" (or None) is reader in a Codex home, author elsewhere
    SettingField("findings", "findings", None, _one_of("auto", "reader", "author")),
    # the columns of a client that offers no positionEncodings but does not count UTF-16 units (Vim's ALE
    # sends bytes): read at initialize only; a client that negotiates gets what it negotiated
    SettingField("position_encoding", "positionEncoding", None, _one_of("utf-8", "utf-16", "utf-32")),
)


def _copied(value: Any) -> Any:
    return list(value) if type(value) is list else dict(value) if type(value) is dict else value


def _plain(data: dict) -> dict | None:
    """The value of every field, by name, when each value ``data`` gives is of its plain type and valid (a
    field's camelCase key first, as pydantic reads it); None when one is not, or a field is given twice."""
    out = {}
    for field in FIELDS:
        keys = [k for k in dict.fromkeys((field.alias or field.name, field.name)) if k in data]
        if len(keys) > 1:
            return None
        if not keys:
            out[field.name] = _copied(field.default)
            continue
        value = data[keys[0]]
        if not field.plain(value):
            return None
        out[field.name] = _copied(value)
    return out


class Settings:
    """Everything a client can configure (:data:`FIELDS`), read as the pydantic model reads it
    (lsp_server/settings_model.py, imported only for a value that is not plain): ``Settings(**values)`` and
    ``Settings.model_validate(values)`` raise pydantic's ValidationError for a value that does not validate."""

    model_fields: ClassVar[dict[str, SettingField]] = {field.name: field for field in FIELDS}

    severity: dict[str, SeverityName]
    secret_patterns: list[str]
    hover_output_lines: int
    files: list[str]
    invocation_logs: list[str]
    debounce_ms: int
    pull_diagnostics: bool
    blame: bool
    blame_outside_workspace: bool
    codex_home: str | None
    findings: Literal["auto", "reader", "author"] | None
    position_encoding: Literal["utf-8", "utf-16", "utf-32"] | None

    def __init__(self, **data: Any) -> None:
        values = _plain(data)
        if values is None:
            from .settings_model import validated

            values = validated(data)
        self.__dict__.update(values)

    @classmethod
    def model_validate(cls, data: dict) -> Settings:
        return cls(**data)

    def model_dump(self, by_alias: bool = False) -> dict[str, Any]:
        return {
            (field.alias or field.name) if by_alias else field.name: _copied(getattr(self, field.name))
            for field in FIELDS
        }

    def model_copy(self, update: dict[str, Any] | None = None) -> Settings:
        """A copy with ``update`` (by field name) over it, not validated (as pydantic's ``model_copy``)."""
        copy = object.__new__(Settings)
        copy.__dict__.update(self.__dict__, **(update or {}))
        return copy

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items()) + ")"

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
        problem = _problem(trial)
        if problem is not None:
            problems.append(f"setting {key!r} ignored: {problem}")
            field = _field_of(key)
            if field is not None:
                merged[field.alias or key] = old.get(field.alias or key)
            continue
        merged = trial
    return Settings.model_validate(merged), problems


def _problem(data: dict) -> str | None:
    """Why ``data`` is not valid settings, in pydantic's words (asked only of a value that is not plain)."""
    if _plain(data) is not None:
        return None
    from .settings_model import first_problem

    return first_problem(data)


def _known_severities(value: dict, problems: list[str]) -> dict:
    known = {}
    for code, name in value.items():
        if code not in CODES:
            problems.append(f"setting 'severity' ignored for {code!r}: not a finding code")
        elif name not in SEVERITY_NAMES:
            problems.append(f"setting 'severity' ignored for {code!r}: {name!r} is not a severity")
        else:
            known[code] = name
    return known


def _field_of(key: str):
    for name, field in Settings.model_fields.items():
        if key in (name, field.alias):
            return field
    return None
