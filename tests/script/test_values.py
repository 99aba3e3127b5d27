"""The constant evaluator (analysis.script.values): JavaScript's own conversions, never a guess."""

import math

import pytest

from analysis.script.script import ExecScript
from analysis.script.values import UNDEFINED, constants_of, number_to_string, to_string


@pytest.mark.parametrize(
    "value, text",
    [
        (0, "0"),
        (-0.0, "0"),
        (7, "7"),
        (-12, "-12"),
        (0.5, "0.5"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000, "123456789012345680000"),
        (2**53, "9007199254740992"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1 / 3, "0.3333333333333333"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (100.0, "100"),
        (-1.25e25, "-1.25e+25"),
    ],
)
def test_number_to_string_as_javascript_prints_it(value, text):
    assert number_to_string(value) == text


def test_to_string_of_every_primitive_and_none_of_objects():
    assert [to_string(v) for v in ("s", True, False, None, UNDEFINED, 3)] == [
        "s",
        "true",
        "false",
        "null",
        "undefined",
        "3",
    ]
    assert repr(to_string([1])) == repr(to_string({})) == "UNKNOWN"


def value_of(source: str):
    script = ExecScript(source)
    declarator = script.structure["declarator"][-1]["declarator"][0]
    return constants_of(script).value(declarator.child_by_field_name("value"))


@pytest.mark.parametrize(
    "source, value",
    [
        ('const x = "a" + 1 + 2;', "a12"),
        ("const x = 1 + 2 + 'a';", "3a"),
        ("const x = 0.1 + 0.2;", 0.30000000000000004),
        ("const x = true + 1;", 2),
        ("const x = null + 1;", 1),
        ("const x = -'1';", None),
        ("const x = -(-0);", 0),
        ("const x = [1, 'a', null, true];", [1, "a", None, True]),
        ('const x = {a: 1, "b": [2]};', {"a": 1, "b": [2]}),
        ("const x = {a: 1, ...o};", None),
        ("const x = {__proto__: p};", None),
        ("const x = [1, , 2];", None),
        ("const a = 'k'; const x = `${a}-${2}`;", "k-2"),
        ("const x = 'a' === 'a';", True),
        ("const x = 1 !== 1.0;", False),
        ("const x = 0 || 'd';", "d"),
        ("const x = '' ?? 'd';", ""),
        ("const x = 1 && f();", None),
        ("const x = 0 && f();", 0),
        ("const x = 0x10 + 1_000;", 1016),
        ("const x = 'a' + [1];", None),
        ("let y = 'a'; const x = y + 'b';", None),
        ("const y = {}; const x = y;", None),
        ("const x = undefined;", UNDEFINED),
        ("const undefined2 = 1; const x = NaN;", math.nan),
    ],
)
def test_values(source, value):
    got = value_of(source)
    if value is None:
        assert repr(got) == "UNKNOWN"
    elif isinstance(value, float) and math.isnan(value):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    "source, value",
    [
        ('const x = await "ls";', "ls"),  # awaiting a value that is no promise gives the value
        ('const x = await ("a" + "b");', "ab"),  # tree-sitter reads this one as a call of `await`
        ("const x = await (0, 1);", 1),
        ("const x = await f();", None),
    ],
)
def test_await_of_a_known_value_is_the_value(source, value):
    got = value_of(source)
    assert (None if repr(got) == "UNKNOWN" else got) == value
