"""The one-pass prefilter before the secret scans changes nothing: on every line, the prefiltered scan equals
the exact scan of every pattern, and no scan that finds something was skipped."""

import re
import string
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.jsonl import secrets
from analysis.jsonl.pattern_set import PatternSet, loosened
from analysis.jsonl.secrets import SCANS, exact_secrets, find_secrets

ROOT = Path(__file__).resolve().parents[2]


def assert_prefilter_exact(line: str) -> None:
    """The prefiltered scan equals the exact one, and every scan that finds something on ``line`` is named."""
    assert find_secrets(line) == exact_secrets(line)
    gates = secrets._PREFILTER.matches(line)
    if gates is None:
        return
    for index, scan in enumerate(SCANS):
        if scan.find(line):
            assert index in gates, (scan.source, line)


def test_the_prefilter_is_compiled_here():
    # google-re2 is a pinned dependency: without it every line would take the exact scan, unseen
    assert secrets._PREFILTER.active
    assert len(secrets._PREFILTER.sources) == len(SCANS)


def test_fixture_lines():
    lines = 0
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file():
            for line in path.read_bytes().decode("utf-8", "surrogateescape").splitlines():
                assert_prefilter_exact(line)
                lines += 1
    assert lines > 1000


def test_a_line_without_candidates_is_not_scanned():
    line = '{"type":"response_item","payload":{"text":"the github token field is empty"}}'
    assert secrets._PREFILTER.matches(line) == frozenset()
    assert not secrets.candidates(line)
    token = "ghp_" + "x9Y8" * 9
    gates = secrets._PREFILTER.matches(line.replace("empty", token))
    assert [SCANS[i].source for i in sorted(gates)] == [r"gh[pousr]_[A-Za-z0-9]{36,}"]


def test_configured_patterns_run_on_every_line():
    line = '{"text":"internal id ACME-1234"}'
    assert secrets._PREFILTER.matches(line) == frozenset()
    [match] = find_secrets(line, (re.compile(r"ACME-\d+"),))
    assert (match.kind, line[match.start : match.end]) == ("configured pattern", "ACME-1234")


# pieces of lines: every scan's literal parts, the characters around its values, case and digit variants
# that the two engines read differently, JSON escapes
NEEDLES = sorted(
    {p.needle for p in secrets.BUILTIN_PATTERNS}
    | set(secrets._ASSIGNMENT_WORDS)
    | {
        "sk-proj-",
        "sk-ant-api03-",
        "ghp_",
        "github_pat_",
        "glpat-",
        "AKIA",
        "ASIA",
        "xoxb-",
        "Bearer ",
        "Basic ",
        "Authorization: ",
        "AIza",
        "sk_live_",
        "rk_test_",
        "eyJ",
        ".eyJ",
        "npm_",
        "hf_",
        "pypi-AgEIcHlwaS5vcmc",
        "SG.",
        "SK",
        "-us1",
        ":AA",
        "/bot",
        "AccountKey=",
        "sq0csp-",
        "shpat_",
        "dop_v1_",
        "dapi",
        "key",
        "Key",
        "KEY",
        "\u212aey",
        "secret",
        "Secret",
        "token",
        "TOKEN",
        "passwd",
        "password",
        "PassWord",
        "pa\u017fsword",
        "api_key",
        "client-secret",
        "signingKey",
        "AWS_SECRET_ACCESS_KEY=",
        "DB_PASSWORD=",
        "--password=",
        "postgres://",
        "https://",
        "mysql -u root -p",
        "mysqldump ",
        "curl -u ",
        " --user ",
        "-----BEGIN ",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "PRIVATE KEY-----",
        "://",
        "@",
        ":",
        "=",
        ": ",
        '"',
        "'",
        '\\"',
        "\\n",
        "\\\\",
        "\\u00e9",
        " ",
        "\t",
        "-",
        "_",
        ".",
        "/",
        "+",
        "\u0663",
        "\u0130",
        "\u00e9",
        "\u2028",
        "\u00a0",
        "x" * 40,
        "0123456789abcdef" * 4,
    }
)
PIECES = st.one_of(
    st.sampled_from(NEEDLES),
    st.text(string.ascii_letters + string.digits, max_size=70),
    st.text(string.hexdigits, min_size=8, max_size=70),
    st.text(string.digits, min_size=1, max_size=12),
    st.text(max_size=8),
)
LINES = st.lists(PIECES, max_size=24).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LINES)
def test_generated_lines(line):
    assert_prefilter_exact(line)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@pytest.mark.parametrize("index", range(len(SCANS)))
@given(data=st.data())
def test_generated_matches_of_each_scan(index, data):
    """A text each exact expression matches, between random pieces: the scan is named wherever its
    expression matches the line."""
    match = data.draw(st.from_regex(re.compile(SCANS[index].source), fullmatch=True), label="match")
    if SCANS[index].ignore_case:
        match = data.draw(st.sampled_from([match, match.upper(), match.title()]), label="case")
    line = data.draw(LINES, label="before") + match + data.draw(LINES, label="after")
    assert_prefilter_exact(line)
    read = "".join(c.lower() if len(c.lower()) == 1 else c for c in line) if SCANS[index].ignore_case else line
    if re.search(SCANS[index].source, read):  # (an anchor, or a case the scan does not read, may undo it)
        gates = secrets._PREFILTER.matches(line)
        assert gates is None or index in gates


def test_loosened_forms():
    assert loosened(r"sk-(?!ant-)[A-Za-z0-9_\-]{20,}") == r"sk-[A-Za-z0-9_\-]{20,}"
    assert loosened(r"A[KS]IA[A-Z0-9]{16}(?![A-Z0-9])") == r"A[KS]IA[A-Z0-9]{16,}"
    assert loosened(r"do[por]_v1_[a-f0-9]{64}") == r"do[por]_v1_[a-f0-9]{24,}"
    assert loosened(r"sk-ant-[a-z]{3,5}\d\d-") == r"sk-ant-[a-z]{3,}[0-9\x{80}-\x{10FFFF}][0-9\x{80}-\x{10FFFF}]-"
    assert loosened(r"[a\d]") == r"[a0-9\x{80}-\x{10FFFF}]"
    assert (
        loosened(r"\bmysql\b[^\n|;&\\]{0,200}?[ \t]-p([^\s\\]{6,256})") == r"mysql[^\n|;&\\]{0,}?[ \t]-p([^\s\\]{6,})"
    )
    assert loosened(r"[]{}x]{2}(?<=a(b)c)") == r"[]{}x]{2,}"


@pytest.mark.parametrize("source", [r"\s+", r"[\s]", r"[^\d]", r"\w", r"a$", r"(?i)a", r"(?<name>a)", r"[a-z", "a\\"])
def test_loosened_refuses_what_it_cannot_widen(source):
    with pytest.raises(ValueError):
        loosened(source)


def test_every_python_digit_is_an_re2_digit():
    digits = [chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\d", chr(c))]
    pattern_set = PatternSet([r"\d"])
    assert len(digits) > 600
    assert [d for d in digits if pattern_set.matches(f"x{d}x") != {0}] == []


def test_case_folding_covers_every_character_that_lowercases_to_a_letter():
    # the credential-field scan reads str.lower() of each character (where that is one character)
    folding = {
        chr(c): chr(c).lower()
        for c in range(sys.maxunicode + 1)
        if len(chr(c).lower()) == 1 and chr(c).lower() in string.ascii_lowercase
    }
    assert folding["\u212a"] == "k"  # the Kelvin sign
    pattern_set = PatternSet(list(string.ascii_lowercase), (True,) * 26)
    assert [c for c, lower in folding.items() if pattern_set.matches(c) != {string.ascii_lowercase.index(lower)}] == []


def test_undecidable_texts_are_scanned_whole():
    assert secrets._PREFILTER.matches("\ud800 sk-proj-" + "A1" * 12) is None  # a lone surrogate
    line = '{"text":"\ud800 ghp_' + "x9Y8" * 9 + '"}'
    assert [m.kind for m in find_secrets(line)] == ["GitHub token"]


def test_a_result_without_the_sentinel_is_undecided():
    def gave_up(text):  # RE2's answer when its automaton ran out of memory: no pattern, not even the empty one
        return []

    pattern_set = PatternSet(["abc"])
    assert pattern_set.matches("xabcx") == {0}
    pattern_set._match = gave_up  # the compiled set's own Match, which matches() calls
    assert pattern_set.matches("xabcx") is None


def test_the_only_anchor_of_any_scan_is_a_start_that_a_space_may_stand_for():
    """redact_each looks at texts joined by GATE_JOIN: a match inside one text is a match inside the joined
    text for an unanchored expression, and ``^`` appears only as ``(?:^|[ \\t])``, which the space matches."""
    assert secrets.GATE_JOIN == "\n "
    classes = re.compile(r"\[(?:\\.|[^\]])*\]")  # a character class: its ^ and $ are characters
    outside = [classes.sub("", s.replace("(?:^|[ \\t])", "(?:START)")) for s in secrets._PREFILTER.sources]
    assert sum("(?:START)" in s for s in outside) == 1
    assert not any(anchor in s for s in outside for anchor in ("^", "$", "\\A", "\\Z", "\\z", "\\b", "\\B"))


TEXT_LISTS = st.lists(
    st.one_of(
        LINES,
        st.sampled_from(
            [
                "-u admin:hunter2secret",
                "--user bob:s3cretpass",
                "password=hunter2hunter2",
                "postgres://u:pw@db",
                "ghp_" + "a" * 36,
                "",
                "plain text",
                "-----BEGIN RSA PRIVATE KEY-----",
            ]
        ),
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT_LISTS)
def test_redact_each_is_redact_all_of_each(texts):
    assert secrets.redact_each(texts) == [secrets.redact_all(t) for t in texts]


def test_a_secret_at_a_texts_start_is_redacted_among_clean_texts():
    texts = ["clean", "-u admin:hunter2secret", "also clean"]
    assert secrets.redact_each(texts)[1] != texts[1]
    assert secrets.redact_each(texts) == [secrets.redact_all(t) for t in texts]
    assert secrets.redact_each(["a", "b"]) == ["a", "b"]
