"""A lazy pattern is compiled at its first use and then answers as the compiled pattern does."""

import copy
import pickle
import re

from analysis.jsonl.lazy_pattern import LazyPattern, lazy


def test_nothing_is_compiled_before_the_first_use():
    pattern = lazy(r"(\w+)@(\w+)")
    assert isinstance(pattern, LazyPattern)
    assert "compiled" not in vars(pattern)
    assert pattern.pattern == r"(\w+)@(\w+)"  # known without compiling
    assert "compiled" not in vars(pattern)
    assert repr(pattern) == "lazy('(\\\\w+)@(\\\\w+)')"


def test_once_used_it_answers_as_the_compiled_pattern():
    text = "a@b, c@d\nE@F"
    compiled = re.compile(r"^(\w)@(\w)", re.M | re.I)
    pattern = lazy(r"^(\w)@(\w)", re.M | re.I)
    assert pattern.findall(text) == compiled.findall(text) == [("a", "b"), ("E", "F")]
    assert vars(pattern)["compiled"] is compiled  # re's own cache: the same object
    assert pattern.search(text).span() == compiled.search(text).span()
    assert pattern.match(text).groups() == ("a", "b")
    assert pattern.fullmatch("x@y").group(2) == "y"
    assert [m.start() for m in pattern.finditer(text)] == [0, 9]
    assert pattern.sub(r"\2@\1", text) == compiled.sub(r"\2@\1", text)
    assert pattern.subn("-", text) == ("-, c@d\n-", 2)
    assert pattern.split("q\nx@y") == ["q\n", "x", "y", ""]
    assert (pattern.flags, pattern.groups, pattern.groupindex) == (compiled.flags, 2, {})


def test_bytes_patterns_too():
    pattern = lazy(rb"[\w$]")
    assert pattern.match(b"$a") is not None and pattern.match(b"-") is None


def test_copying_or_pickling_compiles_nothing():
    pattern = lazy("a+")
    assert copy.copy(pattern).pattern == "a+"
    assert pickle.loads(pickle.dumps(pattern)).sub("b", "caat") == "cbt"
    assert "compiled" not in vars(pattern)
