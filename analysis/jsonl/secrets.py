"""Credential-shaped strings in rollout lines, and redaction that keeps every offset.

Patterns run over the raw line, so a match is at the exact characters of the
document.  Every pattern is a sequence of character classes with bounded or
possessive-free single quantifiers: none can backtrack catastrophically.
Redaction replaces letters and digits with ``x`` and leaves escapes,
punctuation and the identifying prefix alone, so the line stays valid JSON of
the same length.  Whether the value of a generic match (a credential field, an
assignment, a URL password) is a placeholder rather than a secret is
:mod:`analysis.jsonl.placeholders`' to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from .jsonspans import Path
from .lazy_pattern import lazy
from .pattern_set import PatternSet
from .placeholders import MIN_VALUE, is_placeholder


@dataclass(frozen=True, slots=True)
class SecretPattern:
    kind: str
    regex: re.Pattern[str]
    keep: int = 0  # leading characters left readable (the prefix that names the kind)
    needle: str = ""  # text every match holds: a line without it is not scanned
    anywhere: bool = False  # a prefix distinctive enough to be found right after a letter (``keysk-proj-…``)


def _p(kind: str, pattern: str, keep: int = 0, needle: str = "", anywhere: bool = False) -> SecretPattern:
    # compiled on first use: the RE2 prefilter reads the pattern's text, and sends a line to a pattern only when
    # it may match, so a command meets few of these (compiling all 27 at import cost every start ~5 ms)
    return SecretPattern(kind, lazy(pattern), keep, needle, anywhere)


# No pattern starts with a lookbehind: that keeps the regex engine's fast literal-prefix scan;
# the word boundary before a match is checked in Python instead.  The forms, and how they compare with
# detect-secrets' plugins and gitleaks' rules, are listed in docs/findings.md (secret).
BUILTIN_PATTERNS: tuple[SecretPattern, ...] = (
    _p("OpenAI API key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}", 3, "sk-", anywhere=True),
    _p("Anthropic API key", r"sk-ant-[a-z]{3,5}\d\d-[A-Za-z0-9_\-]{20,}", 7, "sk-ant-", anywhere=True),
    _p("OpenAI API key", r"sk-(?!ant-)[A-Za-z0-9_\-]{20,}", 3, "sk-"),
    _p("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,}", 4, "gh"),
    _p("GitHub token", r"github_pat_[A-Za-z0-9_]{22,}", 11, "github_pat_"),
    _p("GitLab token", r"glpat-[A-Za-z0-9_\-]{20,}", 6, "glpat-"),
    _p("AWS access key", r"A[KS]IA[A-Z0-9]{16}(?![A-Z0-9])", 4, "IA"),
    _p("Slack token", r"xox[abposr]-[A-Za-z0-9\-]{10,}", 5, "xox"),
    _p(
        "Slack webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{16,}",
        24,
        "hooks.slack.com/",
    ),
    _p("Bearer token", r"Bearer [A-Za-z0-9._~+/=\-]{16,}", 7, "Bearer "),
    _p("Basic credentials", r"Basic [A-Za-z0-9+/]{12,}={0,2}", 6, "Basic "),
    _p("Google API key", r"AIza[0-9A-Za-z_\-]{35}", 4, "AIza"),
    _p("Stripe key", r"[rs]k_live_[0-9A-Za-z]{16,}", 8, "k_live_"),
    _p("Stripe key", r"[rs]k_test_[0-9A-Za-z]{16,}", 8, "k_test_"),
    _p("JSON Web Token", r"eyJ[A-Za-z0-9_\-]{8,512}\.eyJ[A-Za-z0-9_\-]{8,16384}\.[A-Za-z0-9_\-]{8,}", 0, "eyJ"),
    _p("npm token", r"npm_[A-Za-z0-9]{36}", 4, "npm_"),
    _p("Hugging Face token", r"hf_[A-Za-z0-9]{30,}", 3, "hf_"),
    _p("PyPI token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", 5, "pypi-AgEI"),
    _p("SendGrid key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", 3, "SG."),
    _p("Twilio key", r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])", 2, "SK"),
    _p("Mailchimp key", r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])", 0, "-us"),
    _p("Telegram bot token", r"[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}", 0, ":AA", anywhere=True),  # …/bot<token>
    _p("Azure storage key", r"AccountKey=[A-Za-z0-9+/]{86}==", 11, "AccountKey="),
    _p("Square token", r"sq0(?:csp|atp)-[0-9A-Za-z_\-]{22,}", 7, "sq0"),
    _p("Shopify token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", 6, "shp"),
    _p("DigitalOcean token", r"do[por]_v1_[a-f0-9]{64}", 7, "_v1_"),
    _p("Databricks token", r"dapi[a-f0-9]{32}(?![a-f0-9])", 4, "dapi"),
)
# credential fields, matched on the lower-cased line from the end of the key name
_FIELD = lazy(
    r"(?:key|secret|token|passwd|password)(?:\\?[\"'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?[\"'])"
    r"[a-z0-9+/=_.\-]{8,}"
)
# a field's name (lower-cased, without ``_`` and ``-``) ends with one of these
FIELD_NAMES = frozenset(
    {
        "signingkey",
        "secretkey",
        "clientsecret",
        "apikey",
        "accesstoken",
        "authtoken",
        "privatekey",
        "password",
        "passwd",
        "secret",
        "token",
        "refreshtoken",
        "sessiontoken",
        "secretaccesskey",
        "accountkey",
        "apitoken",
        "bottoken",
    }
)
_FIELD_VALUE = lazy(r"[:=][ \t]{0,8}(?:\\?[\"'])")
_STRING_END = lazy(r'(?<!\\)(?:\\\\)*"')
_PRIVATE_KEY_BEGIN = lazy(r"-----BEGIN ((?:[A-Z0-9]{1,16} ){0,3})PRIVATE KEY-----")
# the end of a value that is not quoted: a space, a quote, a JSON escape, shell punctuation
_BARE_VALUE = lazy(r"[^\s\\\"'`;&|<>(){}\[\],$=]{%d,512}" % MIN_VALUE)  # base64 padding aside
_MAX_NAME = 64
_ASSIGNMENT_WORDS = (
    "PASSWORD=",
    "PASSWD=",
    "SECRET=",
    "TOKEN=",
    "KEY=",
    "password=",
    "secret=",
    "token=",
    "passwd=",
    "key=",
)
_URL_CREDENTIALS = lazy(r"([^\s:/@\\\"'`<>]{1,256}):([^\s@/\\\"'`<>]{1,256})@[A-Za-z0-9\[]")
_MYSQL = lazy(r"\bmysql(?:dump|admin|sh)?\b[^\n|;&\\]{0,200}?[ \t]-p([^\s\\\"'`;&|]{%d,256})" % MIN_VALUE)
_CURL_USER = lazy(r"(?:^|[ \t])(?:-u|--user)[ \t]+([^\s:\\\"'`]{1,128}):([^\s\\\"'`]{%d,256})" % MIN_VALUE)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int  # columns of the line
    end: int
    keep: int  # columns from ``start`` that redaction leaves readable


# characters no scan's match can be made of alone: every built-in pattern and scan needs a letter outside
# ``a``-``f`` (the field words and ``Bearer`` case-folded too: ``T`` and ``Z`` spell none of them), an ``@``, a
# ``=`` or a ``_``.  A text of these only (a timestamp, a UUID, a hex digest, a number) holds no secret, which
# one ``str.strip`` in C tells, where the prefilter's RE2 pass costs a call into RE2 and the text's UTF-8
# (the index cleans a timestamp or two per line; tests/jsonl/test_secret_no_secret_chars.py checks the claim)
NO_SECRET_CHARS = "0123456789abcdef-:.TZ+ "


def find_secrets(line: str, extra: tuple[re.Pattern[str], ...] = (), encoded: bytes | None = None) -> list[SecretMatch]:
    """Credential-shaped strings in one raw line, in order, not overlapping (``encoded``: the line's UTF-8,
    when the caller has it)."""
    if not extra and not line.strip(NO_SECRET_CHARS):
        return []
    gates = _PREFILTER.matches(line) if encoded is None else _PREFILTER.matches(line, encoded)
    if not gates and gates is not None and not extra:
        return []
    return _scan(line, extra, gates)


def exact_secrets(line: str, extra: tuple[re.Pattern[str], ...] = ()) -> list[SecretMatch]:
    """:func:`find_secrets` without the prefilter: every scan on every line (the reference it must equal)."""
    return _scan(line, extra, None)


def candidates(line: str) -> bool:
    """Whether the prefilter sends ``line`` to any exact scan."""
    gates = _PREFILTER.matches(line)
    return gates is None or bool(gates)


def _scan(line: str, extra: tuple[re.Pattern[str], ...], gates: frozenset[int] | None) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for index, scan in enumerate(SCANS):
        if gates is None or index in gates:
            found.extend(scan.find(line))
    for regex in extra:
        for m in regex.finditer(line):
            if m.end() > m.start():
                found.append(SecretMatch("configured pattern", m.start(), m.end(), 0))
    found.sort(key=lambda s: (s.start, -s.end))
    merged: list[SecretMatch] = []
    for match in found:
        if merged and match.start < merged[-1].end or _already_redacted(line, match):
            continue
        merged.append(match)
    return merged


def _builtin(pattern: SecretPattern, line: str) -> list[SecretMatch]:
    if pattern.needle not in line:  # a substring test is several times cheaper than the regex's scan
        return []
    found = []
    for m in pattern.regex.finditer(line):
        if (
            pattern.kind == "Basic credentials"
            and "authorization" not in line[max(0, m.start() - 40) : m.start()].lower()
        ):
            continue  # "Basic Functionality" in prose: only an Authorization header's value is one
        if pattern.anywhere or _word_start(line, m.start(), pattern.kind):
            found.append(SecretMatch(pattern.kind, m.start(), m.end(), pattern.keep))
    return found


def _mysql(line: str) -> list[SecretMatch]:
    if "mysql" not in line:
        return []
    return [
        SecretMatch("command-line password", m.start(1), m.end(1), 0)
        for m in _MYSQL.finditer(line)
        if not is_placeholder(m.group(1))
    ]


def _curl_user(line: str) -> list[SecretMatch]:
    if "-u" not in line:
        return []
    return [
        SecretMatch("command-line password", m.start(2), m.end(2), 0)
        for m in _CURL_USER.finditer(line)
        if not is_placeholder(m.group(2))
    ]


def _private_keys(line: str) -> list[SecretMatch]:
    found = []
    for begin in _PRIVATE_KEY_BEGIN.finditer(line) if "-----BEGIN " in line else ():
        marker = f"-----END {begin.group(1)}PRIVATE KEY-----"
        end = line.find(marker, begin.end())
        if end < 0:  # no END marker: the key runs to the end of its JSON string
            close = _STRING_END.search(line, begin.end())
            end = close.start() if close else len(line)
        found.append(SecretMatch("private key", begin.start(), end, begin.end() - begin.start()))
    return found


def _word_start(line: str, at: int, kind: str = "") -> bool:
    """Nothing token-like before ``at``; the letter of an escape (``\\n``, ``\\\\n`` when JSON holds JSON) aside."""
    if at == 0:
        return True
    before = line[at - 1]
    if kind == "AWS access key":  # AWS key ids are upper-case: only those characters join them
        return not ("A" <= before <= "Z" or "0" <= before <= "9")
    if not (before.isalnum() or before == "_"):
        return True
    return at >= 2 and line[at - 2] == "\\"


def _credential_fields(line: str) -> list[SecretMatch]:
    lowered = line.lower()
    if len(lowered) != len(line):  # a few characters lower-case to two: keep columns exact
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in line)
    out = []
    for m in _field_matches(lowered):
        start = m.start()
        while start > 0 and (line[start - 1].isalnum() or line[start - 1] == "_"):
            start -= 1
        suffix_end = m.start() + next(
            len(w) for w in ("password", "passwd", "secret", "token", "key") if lowered.startswith(w, m.start())
        )
        name = line[start:suffix_end]
        if not _field_name(name):
            continue
        value = _FIELD_VALUE.search(lowered, suffix_end, m.end())
        if value is not None and is_placeholder(_value_at(line, value.end(), m.end()), name):
            continue
        out.append(SecretMatch("credential field", start, m.end(), value.end() - start if value else 0))
    return out


def _field_name(name: str) -> bool:
    folded = name.lower().replace("_", "").replace("-", "")
    return any(folded.endswith(n) for n in FIELD_NAMES)


def _value_at(line: str, start: int, end: int) -> str:
    """The whole value from ``start`` (the match may stop inside it, at a character outside its class)."""
    close = _BARE_VALUE.match(line, start)
    return line[start : close.end()] if close is not None and close.end() > end else line[start:end]


def _assignments(line: str) -> list[SecretMatch]:
    """``AWS_SECRET_ACCESS_KEY=…``, ``DB_PASSWORD=…``, ``--password=…``: a shell variable (upper case) or a
    long option (``--``) named like a credential, assigned a bare value."""
    out = []
    for word in _ASSIGNMENT_WORDS:
        at = line.find(word)
        while at != -1:
            equals = at + len(word) - 1
            start = equals
            upper = word[0].isupper()
            floor = max(0, equals - _MAX_NAME)  # a name is short: a run of capitals is not scanned back whole
            while start > floor and (
                line[start - 1].isupper() or line[start - 1].isdigit() or line[start - 1] == "_"
                if upper
                else line[start - 1].islower() or line[start - 1] == "-"
            ):
                start -= 1
            name = line[start:equals]
            value = _BARE_VALUE.match(line, equals + 1)
            if (
                value is not None
                and (upper or name.startswith("--"))
                and _field_name(name)
                and (start == 0 or not (line[start - 1].isalnum() or line[start - 1] == "_"))
                and not is_placeholder(value.group(), name.lstrip("-"))
            ):
                out.append(SecretMatch("credential field", equals + 1, value.end(), 0))
            at = line.find(word, at + 1)
    return out


def _url_credentials(line: str) -> list[SecretMatch]:
    """The password of ``scheme://user:password@host`` (postgres, mysql, redis, amqp, https)."""
    out = []
    at = line.find("://")
    while at != -1:
        m = _URL_CREDENTIALS.match(line, at + 3)
        if m is not None and at > 0 and line[at - 1].isalpha() and not is_placeholder(m.group(2), m.group(1)):
            out.append(SecretMatch("URL password", m.start(2), m.end(2), 0))
        at = line.find("://", at + 3)
    return out


_FIELD_WORDS = ("key", "secret", "token", "passw")  # every match of _FIELD starts with one of them


def _field_matches(lowered: str) -> list[re.Match[str]]:
    """``_FIELD.finditer(lowered)``, tried only where a key word starts: the regular expression, which begins
    with an alternation, would be tried at every character of the line."""
    starts: list[int] = []
    for word in _FIELD_WORDS:
        at = lowered.find(word)
        while at != -1:
            starts.append(at)
            at = lowered.find(word, at + 1)
    if not starts:
        return []
    starts.sort()
    found = []
    end = 0
    for at in starts:
        if at < end:
            continue
        m = _FIELD.match(lowered, at)
        if m is not None:
            found.append(m)
            end = m.end()
    return found


def _already_redacted(line: str, match: SecretMatch) -> bool:
    """Whether every letter and digit past the kept prefix is ``x``, as :func:`redact` leaves it."""
    escaped = _escape_tails(line, match.start, match.end)
    body = [
        line[i]
        for i in range(match.start + match.keep, match.end)
        if i not in escaped and line[i].isascii() and line[i].isalnum()
    ]
    return bool(body) and all(c in "xX" for c in body)


def redact(line: str, match: SecretMatch) -> str:
    """``line`` with the secret's letters and digits replaced by ``x``, same length, escapes kept."""
    return line[: match.start] + redacted_text(line, match) + line[match.end :]


def redacted_text(line: str, match: SecretMatch) -> str:
    """The replacement for ``line[match.start:match.end]``."""
    escaped = _escape_tails(line, match.start, match.end)
    out = []
    for i in range(match.start, match.end):
        c = line[i]
        if i < match.start + match.keep or i in escaped or not c.isalnum() or not c.isascii():
            out.append(c)
        else:
            out.append("x")
    return "".join(out)


def _escape_tails(line: str, start: int, end: int) -> set[int]:
    """Columns in ``start..end`` that continue a JSON escape (the ``n`` of ``\\n``, the hex of ``\\u``)."""
    # escapes can only be judged from the start of the string: count the backslashes before ``start``
    i = start
    while i > 0 and line[i - 1] == "\\":
        i -= 1
    tails: set[int] = set()
    pos = i
    while pos < end:
        if line[pos] == "\\":
            length = 6 if pos + 1 < len(line) and line[pos + 1] == "u" else 2
            tails.update(range(pos + 1, pos + length))
            pos += length
        else:
            pos += 1
    return tails


@dataclass(frozen=True, slots=True)
class SecretScan:
    """One exact scan of a line, and the expression that any line it finds something in must match."""

    find: Callable[[str], list[SecretMatch]]
    source: str  # a Python regular expression: the prefilter matches a loosened copy of it
    ignore_case: bool = False  # the scan reads the lower-cased line
    gate: str | None = None  # what the prefilter matches instead of ``source`` (see _GATES)


# The prefilter's expression for a scan whose loosened copy costs RE2's automaton many states: a part of the
# scan's expression that every match of it holds, so the prefilter still names the scan wherever it can find
# something (tests/jsonl/test_secret_gates_42.py).  A Mailchimp key starts with a run of 32 hex digits, which
# loosened is a count kept at every position of every line (any hex digit may start a run): building those states
# cost about 50 M instructions of a ``check`` of the wild rollouts, 0.7%, for lines that hold no ``-us`` anyway.
_GATES = {r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])": r"-us[0-9]"}


# in the order their matches were always gathered: of two matches at the same columns, the first one kept wins
SCANS: tuple[SecretScan, ...] = (
    *(
        SecretScan(partial(_builtin, pattern), pattern.regex.pattern, gate=_GATES.get(pattern.regex.pattern))
        for pattern in BUILTIN_PATTERNS
    ),
    SecretScan(_credential_fields, _FIELD.pattern, ignore_case=True),
    SecretScan(_assignments, "(?:%s)%s" % ("|".join(map(re.escape, _ASSIGNMENT_WORDS)), _BARE_VALUE.pattern)),
    SecretScan(_url_credentials, "://" + _URL_CREDENTIALS.pattern),
    SecretScan(_mysql, _MYSQL.pattern),
    SecretScan(_curl_user, _CURL_USER.pattern),
    SecretScan(_private_keys, _PRIVATE_KEY_BEGIN.pattern),
)
# one pass over a line names the scans that can find something in it: most lines need none
_PREFILTER = PatternSet([scan.gate or scan.source for scan in SCANS], tuple(scan.ignore_case for scan in SCANS))


OPAQUE_KEYS = frozenset({"encrypted_content"})
# a base64 data: URL, standard or URL-safe alphabet
_BASE64 = lazy(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=_\-\s]*\Z")


def opaque_paths(value: object) -> list[Path]:
    """Paths (for :func:`analysis.jsonl.jsonspans.locate`) of the opaque blobs of a decoded line: encrypted
    content and base64 ``data:`` payloads, in which a secret-shaped run of characters is chance."""
    out: list[Path] = []
    stack: list[tuple[Path, object]] = [((), value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if isinstance(child, str):
                    if key in OPAQUE_KEYS or child.startswith("data:") and _BASE64.match(child):
                        out.append(path + (key,))
                elif isinstance(child, (dict, list)):
                    stack.append((path + (key,), child))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                if isinstance(child, str):
                    if child.startswith("data:") and _BASE64.match(child):
                        out.append(path + (index,))
                elif isinstance(child, (dict, list)):
                    stack.append((path + (index,), child))
    return out


def redact_all(line: str, extra: tuple[re.Pattern[str], ...] = ()) -> str:
    for match in find_secrets(line, extra):
        line = redact(line, match)
    return line


# between texts looked at together: the space stands where ``^`` matches at a text's own start (the one anchor
# a scan has, in ``(?:^|[ \t])``; tests/test_secret_prefilter.py checks that no other kind appears)
GATE_JOIN = "\n "


def redact_each(texts: list[str]) -> list[str]:
    """:func:`redact_all` of each text: one prefilter pass over them all (which finds whatever a pass over each
    would: the scans are unanchored but for ``^``, see :data:`GATE_JOIN`), and each text's own scan only when
    that pass finds something (the index stores a dozen short texts a call, each a round trip to RE2)."""
    if len(texts) > 1:
        gates = _PREFILTER.matches(GATE_JOIN.join(texts))
        if gates is not None and not gates:
            return list(texts)
    return [redact_all(text) for text in texts]
