"""Readings kept on the object they read (analysis.jsonl.memo)."""

from __future__ import annotations

from analysis.jsonl.memo import cached_property, once_per_object


class Thing:
    def __init__(self, name: str) -> None:
        self.name = name


def test_a_reading_is_computed_once_per_object_even_when_it_is_none():
    asked: list[str] = []

    @once_per_object
    def reading(thing: Thing, extra: int = 0) -> str | None:
        asked.append(thing.name)
        return None if thing.name == "none" else f"{thing.name}+{extra}"

    a, b, nothing = Thing("a"), Thing("b"), Thing("none")
    assert [reading(a, 1), reading(a, 2), reading(b), reading(nothing), reading(nothing)] == [
        "a+1",
        "a+1",
        "b+0",
        None,
        None,
    ]
    assert asked == ["a", "b", "none"]  # the later arguments were used on the first call only
    assert reading.__name__ == "reading" and reading.__doc__ is None


def test_two_readings_keep_their_values_apart_and_a_value_can_be_given():
    @once_per_object
    def first(thing: Thing) -> str:
        return "first"

    @once_per_object
    def second(thing: Thing) -> str:
        return "second"

    thing = Thing("x")
    second.keep(thing, "given")  # type: ignore[attr-defined]
    assert (first(thing), second(thing)) == ("first", "given")


def test_cached_property_is_computed_once():
    class Counted:
        reads = 0

        @cached_property
        def value(self) -> int:
            Counted.reads += 1
            return 42

    counted = Counted()
    assert (counted.value, counted.value, Counted.reads) == (42, 42, 1)
    assert isinstance(Counted.value, cached_property)
