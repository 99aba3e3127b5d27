"""Semantic tokens of exec scripts and patches, at the exact raw characters of the rollout line."""

from __future__ import annotations

import json

from analysis.authoring.semantic_tokens import line_tokens, patch_tokens, script_tokens
from analysis.session.rollout import analyze_text
from tests.helpers import fixture

DL = ("defaultLibrary",)


def colours(name_or_text: str, line: int) -> list[tuple]:
    text = fixture(name_or_text) if name_or_text.endswith(".jsonl") else name_or_text
    analysis = analyze_text(text)
    raw = analysis.lines[line]
    return [(raw[t.start : t.end], t.type, *t.modifiers) for t in line_tokens(raw, analysis.records[line])]


def of_type(found: list[tuple], *types: str) -> list[tuple]:
    return [t for t in found if t[1] in types]


def test_a_script_through_its_json_escapes():
    assert colours("rollout-demo.jsonl", 4) == [
        ("const", "keyword"),
        ("r", "variable"),
        ("=", "operator"),
        ("await", "keyword"),
        ("tools", "namespace"),
        (".", "operator"),
        ("exec_command", "function", *DL),
        ("(", "operator"),
        ("{", "operator"),
        ("cmd", "property"),
        (":", "operator"),
        ('\\"pytest -q tests/test_greet.py\\"', "string"),
        (",", "operator"),
        ("workdir", "property"),
        (":", "operator"),
        ('\\"/home/u/proj\\"', "string"),
        ("}", "operator"),
        (")", "operator"),
        (";", "operator"),
        ("text", "function", *DL),
        ("(", "operator"),
        ("r", "variable"),
        (")", "operator"),
        (";", "operator"),
    ]


def test_a_patch_in_a_const_template_and_the_patch_call():
    found = colours("rollout-demo.jsonl", 6)
    assert found[:16] == [
        ("const", "keyword"),
        ("patch", "variable"),
        ("=", "operator"),
        ("`", "string"),
        ("*** Begin Patch", "patchHeader"),
        ("\\n", "string"),
        ("*** Update File: src/greet.py", "patchHeader"),
        ("\\n", "string"),
        ("@@", "patchHunk"),
        ("\\n", "string"),
        ('-    return \\"hello\\"', "patchRemoved"),
        ("\\n", "string"),
        ('+    return \\"Hello\\"', "patchAdded"),
        ("\\n", "string"),
        ("*** End Patch", "patchHeader"),
        ("`", "string"),
    ]
    assert of_type(found, "function", "namespace") == [
        ("text", "function", *DL),
        ("tools", "namespace"),
        ("apply_patch", "function", *DL),
        ("tools", "namespace"),
        ("exec_command", "function", *DL),
        ("text", "function", *DL),
    ]


def test_a_patch_template_keeps_its_substitutions_javascript():
    found = colours("rollout-patches.jsonl", 2)
    assert found[10:21] == [
        ("`", "string"),
        ("*** Begin Patch", "patchHeader"),
        ("\\n", "string"),
        ("*** Update File: ", "patchHeader"),
        ("${", "operator"),
        ("target", "variable"),
        ("}", "operator"),
        ("\\n", "string"),
        ("@@", "patchHunk"),
        ("\\n", "string"),
        ("-a", "patchRemoved"),
    ]


def test_keywords_numbers_comments_regexes_and_functions():
    source = "// look\nfunction f(x) { return /a+b/i.test(x) ? 1.5 : null; }\nif (f(`${n}`)) text(this);\n"
    assert [(source[t.start : t.end], t.type, *t.modifiers) for t in script_tokens(source)] == [
        ("// look", "comment"),
        ("function", "keyword"),
        ("f", "function", "declaration"),
        ("(", "operator"),
        ("x", "variable"),
        (")", "operator"),
        ("{", "operator"),
        ("return", "keyword"),
        ("/a+b/i", "regexp"),
        (".", "operator"),
        ("test", "method"),
        ("(", "operator"),
        ("x", "variable"),
        (")", "operator"),
        ("?", "operator"),
        ("1.5", "number"),
        (":", "operator"),
        ("null", "keyword"),
        (";", "operator"),
        ("}", "operator"),
        ("if", "keyword"),
        ("(", "operator"),
        ("f", "function"),
        ("(", "operator"),
        ("`", "string"),
        ("${", "operator"),
        ("n", "variable"),
        ("}", "operator"),
        ("`", "string"),
        (")", "operator"),
        (")", "operator"),
        ("text", "function", *DL),
        ("(", "operator"),
        ("this", "keyword"),
        (")", "operator"),
        (";", "operator"),
    ]


def test_a_call_quoted_in_a_string_or_comment_is_not_a_tool_call():
    source = '// tools.exec_command({cmd: "x"})\nconst s = "tools.exec_command()";\n'
    assert [t.type for t in script_tokens(source)] == [
        "comment",
        "keyword",
        "variable",
        "operator",
        "string",
        "operator",
    ]


def test_legacy_imports_and_aliases_are_tool_calls_too():
    source = (
        'import { exec_command } from "tools.js";\nconst t = tools;\nawait exec_command({cmd: "a"});\n'
        "await t.write_stdin({session_id: 1});\n"
    )
    found = [(source[t.start : t.end], t.type, *t.modifiers) for t in script_tokens(source)]
    assert of_type(found, "function", "namespace") == [
        ("exec_command", "function", *DL),
        ("t", "namespace"),
        ("write_stdin", "function", *DL),
    ]


def test_escaped_astral_characters_map_to_their_raw_escapes():
    found = colours("rollout-unicode.jsonl", 4)
    assert found[2] == ('\\"\\u00e9\\ud83d\\ude00\\u2028\\"', "string")
    found = colours("rollout-unicode.jsonl", 2)
    assert found[2] == ('\\"😀🚀 astral first\\"', "string")


def test_top_level_patches():
    assert colours("rollout-patches.jsonl", 4) == [
        ("*** Begin Patch", "patchHeader"),
        ("*** Add File: hello.txt", "patchHeader"),
        ("+hi", "patchAdded"),
        ("*** End Patch", "patchHeader"),
    ]
    assert colours("rollout-toplevel.jsonl", 6) == [
        ("*** Begin Patch", "patchHeader"),
        ("*** Update File: src/a.py", "patchHeader"),
        ("*** Move to: src/b.py", "patchHeader"),
        ("@@", "patchHunk"),
        ("-x", "patchRemoved"),
        ("+y", "patchAdded"),
        ("*** End Patch", "patchHeader"),
    ]


def test_a_patch_json_inside_the_arguments_json_string():
    arguments = json.dumps({"input": "*** Begin Patch\n*** Delete File: é.txt\n*** End Patch\n"})
    line = json.dumps(
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": "apply_patch", "call_id": "c", "arguments": arguments},
        }
    )
    assert colours(line + "\n", 0) == [
        ("*** Begin Patch", "patchHeader"),
        ("*** Delete File: \\\\u00e9.txt", "patchHeader"),
        ("*** End Patch", "patchHeader"),
    ]


def test_patch_lines_with_crlf():
    text = "*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch"
    assert [(text[t.start : t.end], t.type) for t in patch_tokens(text)] == [
        ("*** Begin Patch", "patchHeader"),
        ("*** Add File: a", "patchHeader"),
        ("+x", "patchAdded"),
        ("*** End Patch", "patchHeader"),
    ]


def test_other_records_and_broken_scripts():
    assert colours("rollout-demo.jsonl", 5) == []  # an output record
    assert colours("rollout-invalid.jsonl", 0) == []
    found = colours(
        '{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"c",'
        '"input":"await tools.exec_command({cmd: \\"a\\""}}\n',
        0,
    )
    assert found == [
        ("await", "keyword"),
        ("tools", "namespace"),
        (".", "operator"),
        ("exec_command", "function", *DL),
        ("(", "operator"),
        ("{", "operator"),
        ("cmd", "property"),
        (":", "operator"),
        ('\\"a\\"', "string"),
    ]


def test_tokens_are_sorted_and_never_overlap_on_every_fixture():
    from tests.helpers import FIXTURES

    for path in FIXTURES.glob("*.jsonl"):
        analysis = analyze_text(path.read_bytes().decode("utf-8"))
        for number, line in enumerate(analysis.lines):
            tokens = line_tokens(line, analysis.records[number])
            assert all(a.end <= b.start for a, b in zip(tokens, tokens[1:])), (path.name, number)
            assert all(0 <= t.start < t.end <= len(line) for t in tokens)
