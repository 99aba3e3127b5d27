"""A patch's file sections checked in one pass each and ended at the lines holding "*** " (stop 41): the same
files, errors, lines and offsets as a line-by-line reading, with lines that look like headers inside sections,
CRLF and lone CR breaks, heredocs and "*** End of File"."""

import pytest

from analysis.script.patch import PatchError, PatchFile, parse_patch


def test_header_like_text_inside_an_added_file_does_not_end_it():
    text = "*** Begin Patch\n*** Add File: a.md\n+*** bold ***\n+x *** y\n*** End Patch\n"
    patch = parse_patch(text)
    assert patch.files == (PatchFile("add", "a.md", None, 1, text.index("a.md")),)
    assert patch.errors == ()


def test_a_bad_line_of_an_added_file_is_found_among_many():
    lines = ["+line %d" % i for i in range(300)]
    lines[217] = "no plus"
    text = "*** Begin Patch\n*** Add File: big.txt\n" + "\n".join(lines) + "\n*** End Patch"
    (error,) = parse_patch(text).errors
    assert error == PatchError(219, text.index("no plus"), 7, "a line of an added file must start with '+'")


def test_an_update_with_end_of_file_and_a_move():
    text = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End of File\n*** End Patch"
    patch = parse_patch(text)
    assert patch.files == (PatchFile("update", "a.py", "b.py", 1, text.index("a.py"), text.index("b.py")),)
    assert patch.errors == ()


def test_an_update_whose_lines_are_only_blank_or_context_free_changes_nothing():
    text = "*** Begin Patch\n*** Update File: a.py\n@@\n\n@@ def f():\n*** End Patch"
    assert [e.message for e in parse_patch(text).errors] == ["the update of a.py changes nothing"]


@pytest.mark.parametrize("breaks", ["\r\n", "\r"])
def test_offsets_through_crlf_and_lone_cr(breaks):
    text = breaks.join(["*** Begin Patch", "*** Update File: é/ü.py", "@@", "oops", "+ok", "*** End Patch", ""])
    patch = parse_patch(text)
    assert patch.files == (PatchFile("update", "é/ü.py", None, 1, text.index("é/ü.py")),)
    assert patch.errors == (PatchError(3, text.index("oops"), 4, "a hunk line must start with '+', '-', ' ' or '@@'"),)


def test_a_heredoc_around_blank_lines_and_a_patch():
    text = "\n  <<'EOF'\n\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n\nEOF\n\n"
    patch = parse_patch(text)
    assert patch.files == (PatchFile("delete", "x", None, 4, text.index("x\n")),)
    assert patch.errors == ()


def test_a_heredoc_around_nothing_is_an_empty_patch():
    assert parse_patch("<<'EOF'\n\n  \nEOF").errors == (PatchError(0, 0, 0, "empty patch: no '*** Begin Patch' line"),)


def test_the_next_header_after_lines_holding_stars():
    text = (
        "*** Begin Patch\n*** Update File: a\n@@\n-*** x\n+ *** y\n*** End of File\n"
        "*** Add File: b\n+1\n  *** Delete File: c  \n*** End Patch"
    )
    patch = parse_patch(text)
    assert [(f.action, f.path, f.line) for f in patch.files] == [
        ("update", "a", 1),
        ("add", "b", 6),
        ("delete", "c", 8),
    ]
    assert patch.files[2].path_offset == text.index("c  \n")
    assert patch.errors == ()
