"""The settings a thread runs with: model, reasoning effort, approvals, permissions, working directory.

Codex wrote them in every ``turn_context`` record; from about 0.145 it also writes
``event_msg/thread_settings_applied`` (``thread_settings``: ``model``, ``model_provider_id``,
``service_tier``, ``approval_policy``, ``approvals_reviewer``, ``permission_profile``,
``active_permission_profile``, ``cwd``, ``reasoning_effort``, …) whenever the settings are applied,
which is often with nothing changed (a wild rollout has 35 of them in a row of identical ones).  So
settings are shown as **changes**: :func:`settings_changes` keeps a record only where what it says differs
from the settings before it, and names the fields that changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..jsonl.pickling import pickled_by_fields


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Settings:
    model: str | None = None
    effort: str | None = None
    approval: str | None = None
    permissions: str | None = None  # the permission profile (or the sandbox policy's type)
    cwd: str | None = None

    def items(self) -> list[tuple[str, str]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self) if getattr(self, f.name) is not None]

    def text(self, only: Iterable[str] | None = None) -> str:
        """``model gpt-5.5 · effort high · approval never · permissions :danger-full-access · cwd /w``."""
        keep = set(only) if only is not None else None
        return " · ".join(f"{name} {value}" for name, value in self.items() if keep is None or name in keep)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class SettingsChange:
    line: int
    settings: Settings
    changed: tuple[str, ...]  # the fields that differ from the settings before (all of them at the first)
    records: int = 1  # the records folded into this change (this one and identical ones after it)

    def text(self) -> str:
        return self.settings.text(self.changed)


def read_thread_settings(payload: dict) -> Settings | None:
    """The settings of an ``event_msg/thread_settings_applied`` payload."""
    value = payload.get("thread_settings")
    if not isinstance(value, dict):
        return None
    collaboration = value.get("collaboration_mode")
    nested = collaboration.get("settings") if isinstance(collaboration, dict) else None
    effort = _text(value.get("reasoning_effort")) or (
        _text(nested.get("reasoning_effort")) if isinstance(nested, dict) else None
    )
    return Settings(
        model=_text(value.get("model")),
        effort=effort,
        approval=_policy(value.get("approval_policy")),
        permissions=_permissions(value),
        cwd=_text(value.get("cwd")),
    )


def read_turn_context_settings(item: Any) -> Settings:
    """The settings a ``turn_context`` record (a :class:`~analysis.session.records.TurnContext`) carries."""
    extra = getattr(item, "model_extra", None) or {}
    return Settings(
        model=_text(getattr(item, "model", None)),
        effort=_text(extra.get("effort")),
        approval=_policy(getattr(item, "approval_policy", None)),
        permissions=_permissions({**extra, "sandbox_policy": getattr(item, "sandbox_policy", None)}),
        cwd=_text(getattr(item, "cwd", None)),
    )


def settings_changes(found: Sequence[tuple[int, Settings]]) -> list[SettingsChange]:
    """The settings records ``found`` ((line, settings), in order) folded into changes: a record saying what
    the settings already were adds to the change before it.  A field a record leaves out keeps its value."""
    out: list[SettingsChange] = []
    current = Settings()
    for line, settings in found:
        merged = Settings(
            **{
                f.name: getattr(settings, f.name) if getattr(settings, f.name) is not None else getattr(current, f.name)
                for f in fields(Settings)
            }
        )
        changed = tuple(f.name for f in fields(Settings) if getattr(merged, f.name) != getattr(current, f.name))
        if changed:
            out.append(SettingsChange(line, merged, changed))
        elif out:
            last = out[-1]
            out[-1] = SettingsChange(last.line, last.settings, last.changed, last.records + 1)
        current = merged
    return out


def record_settings_changes(records: Sequence[Any]) -> list[SettingsChange]:
    """The settings changes of a rollout's records (:class:`~analysis.session.record_analysis.LineAnalysis`), from
    its ``thread_settings_applied`` records, or, in a file without them (before 0.144), its ``turn_context``
    records: where the model, effort, approvals, permissions or cwd changed.  The first is what the session
    started with."""
    applied = [(n, r.settings) for n, r in enumerate(records) if r.settings is not None and r.kind == "event_msg"]
    if not applied:
        applied = [(n, r.settings) for n, r in enumerate(records) if r.settings is not None]
    return settings_changes(applied)


def _permissions(value: dict) -> str | None:
    active = value.get("active_permission_profile")
    if isinstance(active, dict) and _text(active.get("id")):
        return active["id"]
    profile = value.get("permission_profile")
    if isinstance(profile, str):
        return profile
    if isinstance(profile, dict):
        return _text(profile.get("id")) or _text(profile.get("name")) or _text(profile.get("type"))
    sandbox = value.get("sandbox_policy")
    if isinstance(sandbox, dict):
        return _text(sandbox.get("type"))
    return _text(sandbox)


def _policy(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict) and len(value) == 1:  # {"granular": {...}}
        return next(iter(value))
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


__all__ = [
    "Settings",
    "SettingsChange",
    "read_thread_settings",
    "read_turn_context_settings",
    "settings_changes",
    "record_settings_changes",
]
