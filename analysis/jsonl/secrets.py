"""Credential-shaped strings in rollout lines, and redaction that keeps every offset.

Patterns run over the raw line, so a match is at the exact characters of the
document.  Every pattern is a sequence of character classes with bounded or
possessive-free single quantifiers: none can backtrack catastrophically.
Redaction replaces letters and digits with ``x`` and leaves escapes,
punctuation and the identifying prefix alone, so the line stays valid JSON of
the same length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass



@dataclass(frozen=True, slots=True)
class SecretPattern:
    kind: str
    regex: re.Pattern[str]
    keep: int = 0  # leading characters left readable (the prefix that names the kind)
    needle: str = ""  # text every match holds: a line without it is not scanned


def _p(kind: str, pattern: str, keep: int = 0, needle: str = "") -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern), keep, needle)


# No pattern starts with a lookbehind: that keeps the regex engine's fast literal-prefix scan;
# the word boundary before a match is checked in Python instead.
BUILTIN_PATTERNS: tuple[SecretPattern, ...] = (
    _p("OpenAI API key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", 3, "sk-"),
    _p("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,}", 4, "gh"),
    _p("GitHub token", r"github_pat_[A-Za-z0-9_]{22,}", 11, "github_pat_"),
    _p("AWS access key", r"A[KS]IA[A-Z0-9]{16}(?![A-Z0-9])", 4, "IA"),
    _p("Slack token", r"xox[abposr]-[A-Za-z0-9\-]{10,}", 5, "xox"),
    _p("Bearer token", r"Bearer [A-Za-z0-9._~+/=\-]{16,}", 7, "Bearer "),
)
# credential fields, matched on the lower-cased line from the end of the key name
_FIELD = re.compile(r"(?:key|secret|token|passwd|password)(?:\\?[\"'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?[\"'])"
                    r"[a-z0-9+/=_.\-]{8,}")
FIELD_NAMES = frozenset({"signingkey", "secretkey", "clientsecret", "apikey", "accesstoken", "authtoken",
                         "privatekey", "password", "passwd", "secret", "token", "refreshtoken", "sessiontoken",
                         "secretaccesskey"})
_FIELD_VALUE = re.compile(r"[:=][ \t]{0,8}(?:\\?[\"'])")
_STRING_END = re.compile(r'(?<!\\)(?:\\\\)*"')
_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]{1,16} ){0,3})PRIVATE KEY-----")


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int  # columns of the line
    end: int
    keep: int  # columns from ``start`` that redaction leaves readable


def find_secrets(line: str, extra: tuple[re.Pattern[str], ...] = ()) -> list[SecretMatch]:
    """Credential-shaped strings in one raw line, in order, not overlapping."""
    found: list[SecretMatch] = []
    for pattern in BUILTIN_PATTERNS:
        if pattern.needle not in line:  # a substring test is several times cheaper than the regex's scan
            continue
        for m in pattern.regex.finditer(line):
            if _word_start(line, m.start(), pattern.kind):
                found.append(SecretMatch(pattern.kind, m.start(), m.end(), pattern.keep))
    found.extend(_credential_fields(line))
    for begin in _PRIVATE_KEY_BEGIN.finditer(line) if "-----BEGIN " in line else ():
        marker = f"-----END {begin.group(1)}PRIVATE KEY-----"
        end = line.find(marker, begin.end())
        if end < 0:  # no END marker: the key runs to the end of its JSON string
            close = _STRING_END.search(line, begin.end())
            end = close.start() if close else len(line)
        found.append(SecretMatch("private key", begin.start(), end, begin.end() - begin.start()))
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
        suffix_end = m.start() + next(len(w) for w in ("password", "passwd", "secret", "token", "key")
                                      if lowered.startswith(w, m.start()))
        if lowered[start:suffix_end].replace("_", "") not in FIELD_NAMES:
            continue
        value = _FIELD_VALUE.search(lowered, suffix_end, m.end())
        out.append(SecretMatch("credential field", start, m.end(), value.end() - start if value else 0))
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
    body = [line[i] for i in range(match.start + match.keep, match.end)
            if i not in escaped and line[i].isascii() and line[i].isalnum()]
    return bool(body) and all(c in "xX" for c in body)


def redact(line: str, match: SecretMatch) -> str:
    """``line`` with the secret's letters and digits replaced by ``x``, same length, escapes kept."""
    return line[:match.start] + redacted_text(line, match) + line[match.end:]


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


OPAQUE_KEYS = frozenset({"encrypted_content"})
# a base64 data: URL, standard or URL-safe alphabet
_BASE64 = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=_\-\s]*\Z")


def opaque_paths(value: object) -> list[tuple]:
    """Paths (for :func:`analysis.jsonl.jsonspans.locate`) of the opaque blobs of a decoded line: encrypted
    content and base64 ``data:`` payloads, in which a secret-shaped run of characters is chance."""
    out: list[tuple] = []
    stack: list[tuple[tuple, object]] = [((), value)]
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
