"""Rollout records: the JSON Lines envelope and the payloads that matter, as typed objects.

Unknown record types and unknown fields are kept (``model_extra``), never
rejected; a known payload whose fields have the wrong types is a ``record-shape``
finding, raised here as :class:`RecordShapeError`.

Every class declares its fields once (:attr:`_Item._fields`).  A payload whose
fields all have their declared JSON types (nearly every line of a real rollout)
is read by a plain check of those types; any other is handed to pydantic models
built from the same declarations, which accept what they can convert and word
the finding for what they cannot.  pydantic is imported, and its models built
(a tenth of a second), only when a line needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..jsonl.pickling import pickled_by_fields
from .json_types import json_type as _json_type
from .record_parts import (
    _BAD,
    _REQUIRED,
    ACTION,
    ANY,
    ARGV,
    CONTENT,
    LIST,
    OPT_DICT,
    OPT_INT,
    OPT_STR,
    OUTPUT,
    STR,
    ContentItem,
    ItemT,
    LocalShellAction,
    RecordShapeError,
    _Item,
)


class Envelope(_Item):
    __slots__ = ("timestamp", "type", "payload", "ordinal", "metadata")
    _fields = (
        ("timestamp", OPT_STR, None),
        ("type", STR, _REQUIRED),
        ("payload", ANY, None),
        ("ordinal", OPT_INT, None),
        ("metadata", OPT_DICT, None),
    )


class SessionMeta(_Item):
    __slots__ = (
        "id",
        "timestamp",
        "cwd",
        "originator",
        "cli_version",
        "source",
        "model_provider",
        "git",
        "history_mode",
    )
    _fields = (
        ("id", OPT_STR, None),
        ("timestamp", OPT_STR, None),
        ("cwd", OPT_STR, None),
        ("originator", OPT_STR, None),
        ("cli_version", OPT_STR, None),
        ("source", ANY, None),
        ("model_provider", OPT_STR, None),
        ("git", OPT_DICT, None),
        ("history_mode", OPT_STR, None),
    )


class TurnContext(_Item):
    __slots__ = ("cwd", "model", "turn_id", "approval_policy", "sandbox_policy")
    _fields = (
        ("cwd", OPT_STR, None),
        ("model", OPT_STR, None),
        ("turn_id", OPT_STR, None),
        ("approval_policy", ANY, None),
        ("sandbox_policy", ANY, None),
    )


class Message(_Item):
    __slots__ = ("type", "role", "content", "phase")
    _fields = (
        ("type", ("literal", "message"), _REQUIRED),
        ("role", STR, _REQUIRED),
        ("content", CONTENT, list),
        ("phase", OPT_STR, None),
    )

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(item.text for item in self.content if item.text)


class Reasoning(_Item):
    __slots__ = ("type", "summary", "content", "encrypted_content")
    _fields = (
        ("type", ("literal", "reasoning"), _REQUIRED),
        ("summary", LIST, list),
        ("content", ANY, None),
        ("encrypted_content", OPT_STR, None),
    )


class FunctionCall(_Item):
    __slots__ = ("type", "name", "arguments", "call_id", "namespace")
    _fields = (
        ("type", ("literal", "function_call"), _REQUIRED),
        ("name", STR, _REQUIRED),
        ("arguments", STR, _REQUIRED),
        ("call_id", OPT_STR, None),
        ("namespace", OPT_STR, None),
    )


class FunctionCallOutput(_Item):
    __slots__ = ("type", "call_id", "output")
    _fields = (
        ("type", ("literal", "function_call_output"), _REQUIRED),
        ("call_id", OPT_STR, None),
        ("output", OUTPUT, ""),
    )


class CustomToolCall(_Item):
    __slots__ = ("type", "name", "input", "call_id", "status", "namespace")
    _fields = (
        ("type", ("literal", "custom_tool_call"), _REQUIRED),
        ("name", STR, _REQUIRED),
        ("input", STR, _REQUIRED),
        ("call_id", OPT_STR, None),
        ("status", OPT_STR, None),
        ("namespace", OPT_STR, None),
    )


class CustomToolCallOutput(_Item):
    __slots__ = ("type", "call_id", "output", "name")
    _fields = (
        ("type", ("literal", "custom_tool_call_output"), _REQUIRED),
        ("call_id", OPT_STR, None),
        ("output", OUTPUT, ""),
        ("name", OPT_STR, None),
    )


class LocalShellCall(_Item):
    __slots__ = ("type", "action", "call_id", "status")
    _fields = (
        ("type", ("literal", "local_shell_call"), _REQUIRED),
        ("action", ACTION, _REQUIRED),
        ("call_id", OPT_STR, None),
        ("status", OPT_STR, None),
    )


class OtherItem(_Item):
    """A response item of a kind the analysis does not read."""

    __slots__ = ("type",)
    _fields = (("type", STR, _REQUIRED),)


RESPONSE_ITEMS: dict[str, type[_Item]] = {
    "message": Message,
    "reasoning": Reasoning,
    "function_call": FunctionCall,
    "function_call_output": FunctionCallOutput,
    "custom_tool_call": CustomToolCall,
    "custom_tool_call_output": CustomToolCallOutput,
    "local_shell_call": LocalShellCall,
}
PAYLOADS: dict[str, type[_Item]] = {
    "session_meta": SessionMeta,
    "turn_context": TurnContext,
}
KNOWN_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "compacted",
        "turn_context",
        "event_msg",
        "inter_agent_communication",
        "inter_agent_communication_metadata",
        "world_state",
        "token_usage_record",
        "security_risk_score",
        "retained_context",
        "realtime_item",
        "rollout_reference",
        "fork_reference",  # 0.147 and later: a segment or fork naming the rollout it continues
    }
)
_PARTS: tuple[type[_Item], ...] = (
    Envelope,
    *RESPONSE_ITEMS.values(),
    *PAYLOADS.values(),
    ContentItem,
    LocalShellAction,
)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Record:
    """One decoded line: its envelope and, for the kinds the analysis reads, a typed payload."""

    envelope: Envelope
    item: Any = None  # the typed payload, or the raw payload for kinds kept as they are
    bare: bool = False  # read from an envelope-less line (Codex before 0.58): its envelope is made up

    @property
    def kind(self) -> str:
        """``response_item`` payloads by their own type, other records by the envelope's."""
        if self.envelope.type == "response_item" and isinstance(self.item, _Item):
            return getattr(self.item, "type", "response_item")
        return self.envelope.type

    def without_item(self) -> Record:
        """The envelope alone, for records whose content the analysis keeps in another form."""
        if self.envelope.type != "response_item":
            return Record(self.envelope, None, self.bare)
        kind = self.kind
        item = _BARE_ITEMS.get(kind)
        if item is None:  # one per kind: the items are frozen, and equal items are equal records
            item = _BARE_ITEMS[kind] = OtherItem(type=kind)
        return Record(self.envelope, item, self.bare)


_BARE_ITEMS: dict[str, OtherItem] = {}


def parse_record(value: Any) -> Record:
    """A :class:`Record` from one decoded JSON line, or :class:`RecordShapeError`."""
    if not isinstance(value, dict):
        raise RecordShapeError(f"a rollout line must be a JSON object, not {_json_type(value)}", ())
    payload = value.get("payload")
    envelope: Envelope | None = _plain_envelope(value)
    if envelope is not None:  # nearly every line: its kind read once, the payload's readers chosen by it
        kind = envelope.type
        if kind == "response_item":
            if not isinstance(payload, dict):
                raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
            _set_payload(envelope, None)
            item_type = payload.get("type")  # any JSON value: a list or object must not end the reading
            item_model = RESPONSE_ITEMS.get(item_type, OtherItem) if isinstance(item_type, str) else OtherItem
            return _record(envelope, _read(item_model, payload, ("payload",)))
        typed_model = PAYLOADS.get(kind)
        if typed_model is None:
            return _record(envelope, payload)
        if not isinstance(payload, dict):
            raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
        _set_payload(envelope, None)
        return _record(envelope, _read(typed_model, payload, ("payload",)))
    kind = value.get("type")
    typed = isinstance(kind, str) and (kind in PAYLOADS or kind == "response_item" and isinstance(payload, dict))
    # a payload read into a typed item is not kept in the envelope too (``payload`` takes anything: never bad,
    # so the envelope reads the same from the line's own dict, and its payload is emptied after)
    envelope = _read(Envelope, {**value, "payload": None} if typed else value, ())
    model = PAYLOADS.get(envelope.type)
    if envelope.type == "response_item":
        if not isinstance(payload, dict):
            raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
        item_type = payload.get("type")  # any JSON value: a list or object must not end the reading
        model = RESPONSE_ITEMS.get(item_type, OtherItem) if isinstance(item_type, str) else OtherItem
    if model is None:
        return _record(envelope, payload)
    if not isinstance(payload, dict):
        raise RecordShapeError(f"payload must be an object, not {_json_type(payload)}", ("payload",))
    return _record(envelope, _read(model, payload, ("payload",)))


_new = object.__new__
_PUT_ENVELOPE, _PUT_ITEM, _PUT_BARE = (Record.__dict__[name].__set__ for name in ("envelope", "item", "bare"))


def _record(envelope: Envelope, item: Any) -> Record:
    """``Record(envelope, item)``, made as :mod:`.copies` makes its copies: the frozen dataclass's ``__init__``
    (a call of ``object.__setattr__`` a field) cost twice as much, once a line."""
    record = _new(Record)
    _PUT_ENVELOPE(record, envelope)
    _PUT_ITEM(record, item)
    _PUT_BARE(record, False)
    return record


def _read(cls: type[ItemT], value: dict, prefix: tuple) -> ItemT:
    """``value`` as a ``cls``: by the plain check, else by pydantic (or its finding)."""
    item = _plain(cls, value)
    if item is not None:
        return item
    from pydantic import ValidationError

    from .record_shapes import _from_pydantic, _pydantic_model, _shape_error

    try:
        validated = _pydantic_model(cls).model_validate(value)
    except ValidationError as error:
        raise _shape_error(error, prefix) from None
    return _from_pydantic(cls, validated)


def _plain(cls: type[ItemT], value: dict) -> ItemT | None:
    """``value`` as a ``cls`` when every declared field holds its JSON type as it is; else None."""
    return _PLAIN_READERS[cls](value)


def _plain_reader(cls: type[_Item]) -> Callable[[dict], _Item | None]:
    """:func:`_plain` for one class: its fields looked up once, each with the one type its JSON must have (a
    loop sending every field through :func:`_check`'s chain of tests cost twice as much, on every line)."""
    simple = {
        STR: (str, False),
        OPT_STR: (str, True),
        OPT_INT: (int, True),
        OPT_DICT: (dict, True),
        LIST: (list, False),
    }
    spec = []
    for name, kind, default in cls._fields:
        want, nullable, literal, other = None, False, None, None
        if kind in simple:
            want, nullable = simple[kind]
        elif isinstance(kind, tuple):  # ("literal", value)
            want, literal = str, kind[1]
        elif kind is not ANY:  # content, output, argv, action: read by _check
            other = kind
        spec.append((name, cls.__dict__[name].__set__, want, nullable, literal, other, default))
    names = cls._names
    set_extra = _Item.__dict__["_extra"].__set__
    new = object.__new__

    def read(value: dict) -> _Item | None:
        get = value.get
        item = new(cls)
        for name, put, want, nullable, literal, other, default in spec:
            v = get(name, _REQUIRED)
            if v is _REQUIRED:  # absent
                if default is _REQUIRED:
                    return None
                v = [] if default is list else default
            elif want is not None:
                if type(v) is not want and (v is not None or not nullable) or literal is not None and v != literal:
                    return None
            elif other is not None:
                v = _check(other, v)
                if v is _BAD:
                    return None
            put(item, v)
        set_extra(item, None if value.keys() <= names else {k: v for k, v in value.items() if k not in names})
        return item

    return read


def _check(kind: Any, value: Any) -> Any:
    """The field's value when it has its declared JSON type as it is, else :data:`_BAD`."""
    if kind is ANY:
        return value
    if kind is OPT_STR:
        return value if value is None or type(value) is str else _BAD
    if kind is STR:
        return value if type(value) is str else _BAD
    if kind is OPT_INT:
        return value if value is None or type(value) is int else _BAD
    if kind is OPT_DICT:
        return value if value is None or type(value) is dict else _BAD
    if kind is LIST:
        return value if type(value) is list else _BAD
    if kind is CONTENT or kind is OUTPUT:
        if type(value) is str or kind is OUTPUT and type(value) is dict:
            return value
        if type(value) is not list:
            return _BAD
        items = []
        for element in value:
            item = _content_item(element) if type(element) is dict else None
            if item is None:
                return _BAD
            items.append(item)
        return items
    if kind is ARGV:
        if type(value) is str or type(value) is list and all(type(a) is str for a in value):
            return value
        return _BAD
    if kind is ACTION:
        action = _plain(LocalShellAction, value) if type(value) is dict else None
        return _BAD if action is None else action
    return value if type(value) is str and value == kind[1] else _BAD  # ("literal", value)


# each reads its own class (or None): Any, as a dict's value type cannot name its key's class
_PLAIN_READERS: dict[type[_Item], Callable[[dict], Any]] = {cls: _plain_reader(cls) for cls in (*_PARTS, OtherItem)}
_set_payload = Envelope.__dict__["payload"].__set__
_PUT_ENVELOPE_FIELDS = tuple(Envelope.__dict__[name].__set__ for name in ("timestamp", "type", "payload", "ordinal"))
_PUT_METADATA = Envelope.__dict__["metadata"].__set__
_SET_EXTRA = _Item.__dict__["_extra"].__set__
_ENVELOPE_NAMES = Envelope._names


_PUT_CONTENT_FIELDS = tuple(ContentItem.__dict__[name].__set__ for name in ("type", "text", "image_url"))
_CONTENT_NAMES = ContentItem._names


def _content_item(value: dict) -> ContentItem | None:
    """The plain reader of :class:`ContentItem` (``_PLAIN_READERS[ContentItem]``) written out: a long exec
    output is a list of them, a message's content too, and the loop over the field table cost half again
    (``tests/session/test_content_item_43.py`` holds them equal)."""
    get = value.get
    kind = get("type")  # required: absent reads as None, which is no str
    text = get("text")
    url = get("image_url")
    if type(kind) is not str or text is not None and type(text) is not str or url is not None and type(url) is not str:
        return None
    item = _new(ContentItem)
    put_type, put_text, put_url = _PUT_CONTENT_FIELDS
    put_type(item, kind)
    put_text(item, text)
    put_url(item, url)
    _SET_EXTRA(
        item, None if value.keys() <= _CONTENT_NAMES else {k: v for k, v in value.items() if k not in _CONTENT_NAMES}
    )
    return item


def _plain_envelope(value: dict) -> Envelope | None:
    """The plain reader of :class:`Envelope` (``_PLAIN_READERS[Envelope]``) written out: every line has one, and
    the loop over the field table cost a third more (``tests/session/test_plain_envelope.py`` holds them equal)."""
    get = value.get
    kind = get("type")  # required: absent reads as None, which is no str
    timestamp = get("timestamp")
    ordinal = get("ordinal")
    metadata = get("metadata")
    if (
        type(kind) is not str
        or timestamp is not None
        and type(timestamp) is not str
        or ordinal is not None
        and type(ordinal) is not int
        or metadata is not None
        and type(metadata) is not dict
    ):
        return None
    envelope = _new(Envelope)
    put_timestamp, put_type, put_payload, put_ordinal = _PUT_ENVELOPE_FIELDS
    put_timestamp(envelope, timestamp)
    put_type(envelope, kind)
    put_payload(envelope, get("payload"))
    put_ordinal(envelope, ordinal)
    _PUT_METADATA(envelope, metadata)
    # most envelopes are {timestamp, type, payload}: told by their count and two lookups
    plain = len(value) == 3 and "timestamp" in value and "payload" in value or value.keys() <= _ENVELOPE_NAMES
    _SET_EXTRA(envelope, None if plain else {k: v for k, v in value.items() if k not in _ENVELOPE_NAMES})
    return envelope
