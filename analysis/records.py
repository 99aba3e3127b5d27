"""Rollout records: the JSON Lines envelope and the payloads that matter, as pydantic models.

Unknown record types and unknown fields are kept (``extra="allow"``), never
rejected; a known payload whose fields have the wrong types is a ``record-shape``
finding, raised here as :class:`RecordShapeError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Envelope(_Model):
    timestamp: str | None = None
    type: str
    payload: Any = None
    ordinal: int | None = None
    metadata: dict[str, Any] | None = None


class ContentItem(_Model):
    type: str
    text: str | None = None
    image_url: str | None = None


class SessionMeta(_Model):
    id: str | None = None
    timestamp: str | None = None
    cwd: str | None = None
    originator: str | None = None
    cli_version: str | None = None
    source: Any = None
    model_provider: str | None = None
    git: dict[str, Any] | None = None
    history_mode: str | None = None


class TurnContext(_Model):
    cwd: str | None = None
    model: str | None = None
    turn_id: str | None = None
    approval_policy: Any = None
    sandbox_policy: Any = None


class Message(_Model):
    type: Literal["message"]
    role: str
    content: list[ContentItem] | str = []
    phase: str | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(item.text for item in self.content if item.text)


class Reasoning(_Model):
    type: Literal["reasoning"]
    summary: list[Any] = []
    content: Any = None
    encrypted_content: str | None = None


OutputBody = Union[str, list[ContentItem], dict[str, Any]]


class FunctionCall(_Model):
    type: Literal["function_call"]
    name: str
    arguments: str
    call_id: str | None = None
    namespace: str | None = None


class FunctionCallOutput(_Model):
    type: Literal["function_call_output"]
    call_id: str | None = None
    output: OutputBody = ""


class CustomToolCall(_Model):
    type: Literal["custom_tool_call"]
    name: str
    input: str
    call_id: str | None = None
    status: str | None = None
    namespace: str | None = None


class CustomToolCallOutput(_Model):
    type: Literal["custom_tool_call_output"]
    call_id: str | None = None
    output: OutputBody = ""
    name: str | None = None


class LocalShellAction(_Model):
    type: str | None = None
    command: list[str] | str
    working_directory: str | None = None
    timeout_ms: int | None = None


class LocalShellCall(_Model):
    type: Literal["local_shell_call"]
    action: LocalShellAction
    call_id: str | None = None
    status: str | None = None


class OtherItem(_Model):
    """A response item of a kind the analysis does not read."""

    type: str


RESPONSE_ITEMS: dict[str, type[_Model]] = {
    "message": Message,
    "reasoning": Reasoning,
    "function_call": FunctionCall,
    "function_call_output": FunctionCallOutput,
    "custom_tool_call": CustomToolCall,
    "custom_tool_call_output": CustomToolCallOutput,
    "local_shell_call": LocalShellCall,
}
PAYLOADS: dict[str, type[_Model]] = {
    "session_meta": SessionMeta,
    "turn_context": TurnContext,
}
KNOWN_TYPES = frozenset({
    "session_meta", "response_item", "compacted", "turn_context", "event_msg",
    "inter_agent_communication", "inter_agent_communication_metadata", "world_state",
    "token_usage_record", "security_risk_score", "retained_context", "realtime_item",
})
_ENVELOPE = TypeAdapter(Envelope)


class RecordShapeError(Exception):
    """A record whose fields have the wrong types; ``loc`` is the path of the first bad field."""

    def __init__(self, message: str, loc: tuple) -> None:
        super().__init__(message)
        self.loc = loc


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded line: its envelope and, for the kinds the analysis reads, a typed payload.  A plain
    class, not a model: both parts are validated already, and one lives for every line of a document."""

    envelope: Envelope
    item: Any = None  # the typed payload, or the raw payload for kinds kept as they are

    @property
    def kind(self) -> str:
        """``response_item`` payloads by their own type, other records by the envelope's."""
        if self.envelope.type == "response_item" and isinstance(self.item, _Model):
            return getattr(self.item, "type", "response_item")
        return self.envelope.type

    def without_item(self) -> "Record":
        """The envelope alone, for records whose content the analysis keeps in another form."""
        return Record(envelope=self.envelope, item=OtherItem(type=self.kind) if self.envelope.type ==
                      "response_item" else None)


def parse_record(value: Any) -> Record:
    """A :class:`Record` from one decoded JSON line, or :class:`RecordShapeError`."""
    if not isinstance(value, dict):
        raise RecordShapeError(f"a rollout line must be a JSON object, not {_json_type(value)}", ())
    kind = value.get("type")
    payload = value.get("payload")
    typed = isinstance(kind, str) and (kind in PAYLOADS or kind == "response_item" and isinstance(payload, dict))
    try:
        # a payload read into a typed item is not kept in the envelope too (``payload`` is Any: it never fails)
        envelope = _ENVELOPE.validate_python({**value, "payload": None} if typed else value)
    except ValidationError as error:
        raise _shape_error(error, ()) from None
    model = PAYLOADS.get(envelope.type)
    if envelope.type == "response_item":
        if not isinstance(payload, dict):
            raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
        model = RESPONSE_ITEMS.get(payload.get("type"), OtherItem)  # type: ignore[arg-type]
    if model is None:
        return Record(envelope=envelope, item=payload)
    if not isinstance(payload, dict):
        raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
    try:
        return Record(envelope=envelope, item=model.model_validate(payload))
    except ValidationError as error:
        raise _shape_error(error, ("payload",)) from None


def _shape_error(error: ValidationError, prefix: tuple) -> RecordShapeError:
    first = error.errors()[0]
    loc = prefix + tuple(first["loc"])
    path = _json_path(loc)
    where = ".".join(str(p) for p in path) or "record"
    what = _json_type(first.get("input"))
    if len(path) < len(loc):  # a union's member names follow the path: no single expected type
        return RecordShapeError(f"{where}: wrong type (got {what})", path)
    return RecordShapeError(f"{where}: {first['msg'].lower()} (got {what})", path)


def _json_path(loc: tuple) -> tuple:
    """The prefix of a pydantic location that names real JSON keys and indices."""
    out: list = []
    for part in loc:
        if isinstance(part, int) or part in _FIELD_NAMES:
            out.append(part)
        else:
            break
    return tuple(out)


_FIELD_NAMES = frozenset(
    name
    for model in (Envelope, *RESPONSE_ITEMS.values(), *PAYLOADS.values(), ContentItem, LocalShellAction)
    for name in model.model_fields
)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
