import pytest

from analysis.script.calls import find_calls
from analysis.script.patch import PatchFile, parse_patch
from analysis.script.script import ExecScript


def files(patch) -> list[tuple]:
    return [(f.action, f.path, f.move_to) for f in patch.files]


def test_grammar_file_operations():
    patch = parse_patch(
        "*** Begin Patch\n*** Environment ID: local\n*** Add File: a/new.txt\n+one\n+two\n"
        "*** Update File: b.py\n*** Move to: c.py\n@@ def f():\n-    x\n+    y\n \n"
        "*** End of File\n*** Delete File: d.py\n*** End Patch\n"
    )
    assert files(patch) == [("add", "a/new.txt", None), ("update", "b.py", "c.py"), ("delete", "d.py", None)]
    assert patch.errors == ()
    assert patch.files[0] == PatchFile("add", "a/new.txt", None, 2, patch.text.index("a/new.txt"))


def test_lenient_whitespace_and_heredoc():
    patch = parse_patch("<<'EOF'\n  *** Begin Patch  \n*** Delete File: x\n *** End Patch\nEOF\n")
    assert files(patch) == [("delete", "x", None)] and patch.errors == ()


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("*** Update File: a\n@@\n-x\n*** End Patch", 1, "the first line must be '*** Begin Patch'"),
        ("*** Begin Patch\n*** Delete File: a\n", 2, "the last line must be '*** End Patch'"),
        (
            "*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch",
            4,
            "a hunk line must start with '+', '-', ' ' or '@@'",
        ),
        ("*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch", 3, "a line of an added file must start with '+'"),
        ("*** Begin Patch\n*** Delete File: a\n+x\n*** End Patch", 3, "nothing may follow '*** Delete File:'"),
        ("*** Begin Patch\n*** Frob File: a\n*** End Patch", 2, "unknown patch line '*** Frob File: a'"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "the update of a changes nothing"),
        ("*** Begin Patch\n*** Add File: \n+x\n*** End Patch", 2, "'*** Add File:' names no path"),
        ("*** Begin Patch\n*** End Patch", 1, "the patch names no file"),
        ("just text", 1, "not a patch: no '*** Begin Patch' … '*** End Patch' envelope"),
        ("", 1, "empty patch: no '*** Begin Patch' line"),
    ],
)
def test_grammar_errors(text, line, message):
    errors = parse_patch(text).errors
    assert [(e.line + 1, e.message) for e in errors] == [(line, message)]


def patch_calls(source):
    result = find_calls(ExecScript(source))
    return result.calls, result.notes


@pytest.mark.parametrize(
    "argument",
    [
        '"*** Begin Patch\\n*** Delete File: x.py\\n*** End Patch"',
        "`*** Begin Patch\n*** Delete File: x.py\n*** End Patch`",
        '{input: "*** Begin Patch\\n*** Delete File: x.py\\n*** End Patch"}',
        "P",
        "{input: P}",
    ],
)
def test_patch_argument_forms(argument):
    source = (
        f'const P = "*** Begin Patch\\n*** Delete File: x.py\\n*** End Patch";\nawait tools.apply_patch({argument});'
    )
    calls, notes = patch_calls(source)
    assert [(c.kind, c.computed) for c in calls] == [("patch", False)]
    assert files(calls[0]) == [("delete", "x.py", None)]
    assert calls[0].patch == "*** Begin Patch\n*** Delete File: x.py\n*** End Patch"
    assert notes == []


def test_header_substitution_resolves_through_one_const():
    source = (
        'const target = "src/app.py";\nconst dest = `src/new.py`;\n'
        "tools.apply_patch(`*** Begin Patch\n*** Update File: ${target}\n*** Move to: ${dest}\n@@\n-a\n+b\n"
        "*** End Patch`);"
    )
    calls, notes = patch_calls(source)
    assert files(calls[0]) == [("update", "src/app.py", "src/new.py")]
    assert calls[0].computed is False and notes == []


def test_unresolved_header_path_is_dropped_with_a_finding():
    source = (
        'let other = "b.py";\n'
        "tools.apply_patch(`*** Begin Patch\n*** Update File: ${other}\n@@\n-a\n+b\n"
        "*** Add File: kept.txt\n+k\n*** End Patch`);"
    )
    calls, notes = patch_calls(source)
    assert files(calls[0]) == [("add", "kept.txt", None)]
    assert "${other}" in calls[0].patch and "\ue000" not in calls[0].patch
    assert [(n.code, source[n.start : n.end], n.message) for n in notes] == [
        (
            "unresolved-patch-path",
            "${other}",
            "patch path ${other} does not resolve to a const string; the file is not listed",
        )
    ]


def test_patch_from_let_or_a_call_is_computed():
    calls, notes = patch_calls(
        'let p = "*** Begin Patch\\n*** Delete File: a\\n*** End Patch"; '
        "tools.apply_patch(p); tools.apply_patch(make());"
    )
    assert [(c.computed, c.files, c.patch) for c in calls] == [(True, (), None), (True, (), None)]
    assert [n.message for n in notes] == [
        "the patch is computed at run time: p",
        "the patch is computed at run time: make()",
    ]


def test_patch_syntax_positions_in_an_unescaped_literal_are_exact():
    source = "tools.apply_patch(`*** Begin Patch\n*** Update File: a\n@@\noops\n*** End Patch`)"
    _, notes = patch_calls(source)
    assert [(n.code, source[n.start : n.end]) for n in notes] == [("patch-syntax", "oops")]


def test_patch_text_quoting_a_call_is_not_a_call():
    source = (
        'const patch = "*** Begin Patch\\n*** Add File: t.js\\n+await tools.exec_command({cmd: \\"rm\\"})\\n'
        '*** End Patch";\nawait tools.apply_patch(patch);'
    )
    calls, _ = patch_calls(source)
    assert [(c.tool, files(c)) for c in calls] == [("apply_patch", [("add", "t.js", None)])]
