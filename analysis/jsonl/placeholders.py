"""Values that stand in for a credential rather than hold one: ``changeme``, ``<token>``, ``${PASS}``,
``your-api-key-here``, ``test-key``, ``dummy-key-123``, ``AI_API_KEY=你的_key``.

Only the generic scans of :mod:`analysis.jsonl.secrets` (credential fields, ``NAME=value`` assignments, URL
passwords, ``mysql -p``, ``curl -u``) ask: a prefixed token (``ghp_…``, ``sk-proj-…``) is a credential by
its shape alone.  The anchor is gitleaks' ``generic-api-key`` rule: its value class is ASCII, and its
allowlist drops a value holding one of its stop words (``example``, ``sample``, ``dummy``, …).  Here a value
is a placeholder when (:func:`is_placeholder`):

- it is shorter than :data:`MIN_VALUE`, or is one of :data:`PLACEHOLDERS` (``_`` and ``-`` aside);
- it starts like a template (``<``, ``$``, ``%``, ``{``, ``*``, ``[``, ``{{``, ``$(``, ``%(``) or holds
  ``…``, ``...``, ``***``;
- it holds a letter outside ASCII: words of a language (``你的_key``, ``ключ_api``, ``votre_clé``), which no
  issued key is made of;
- it holds a stop word (:data:`STOP_WORDS`: ``example``, ``dummy``, ``xxx``, ``0000``, …), or starts with
  ``your``, ``insert``, ``replace``, ``enter``;
- it is made of words only (:data:`PLACEHOLDER_WORDS`, camelCase split, with numbers of at most four
  digits): ``test-key``, ``my-secret-key``, ``password123``, ``sk-your-key-here``, ``django-insecure-abc``;
- it repeats too few characters to be random: at most two distinct ones, or under
  :data:`MIN_ENTROPY` bits a character (``aaaa1111``);
- it equals the name of its own field (``API_KEY=API_KEY``).

A random key is never all dictionary words, and has an entropy of 3.5 bits a character or more at the
lengths these scans accept, so real keys next to placeholders are still found.
"""

from __future__ import annotations

import math
from collections import Counter

from .lazy_pattern import lazy

MIN_VALUE = 6  # a shorter value is no credential worth the name (and most often a placeholder)
MIN_ENTROPY = 2.0  # Shannon bits a character: ``aaaa1111`` is 1.0, ``changeme`` 2.75, random keys 3.5 and more
# values that name a secret rather than hold one: documentation, templates, demo logins, translations
PLACEHOLDERS = frozenset(
    {
        "password",
        "passwd",
        "changeme",
        "changeit",
        "secret",
        "example",
        "placeholder",
        "redacted",
        "dummy",
        "sample",
        "test",
        "testing",
        "null",
        "none",
        "undefined",
        "true",
        "false",
        "yourpassword",
        "mypassword",
        "yoursecret",
        "yourtoken",
        "yourapikey",
        "apikey",
        "token",
        "value",
        "hidden",
        "masked",
        "notset",
        "empty",
        "default",
        "bearer",
        "basic",  # an auth scheme's name, the credential after it is matched alone
        "remotessh",  # the fixed --connection-token of VS Code Remote-SSH's server
    }
)
# a value made of these words only (and short numbers) describes a key: ``test-key``, ``my-secret-key``
PLACEHOLDER_WORDS = frozenset(
    """your my our the api key keys secret secrets token tokens pass password passwd pwd test testing tests
    fake dummy mock demo sample example here value change me changeme changeit placeholder local dev default
    foo bar baz qux abc xyz xxx sk pk access auth client id private public service app user admin db new put
    insert replace enter todo tbd none null string str insecure django not real invalid bogus fixme redacted
    hidden masked goes set this to use sandbox staging prod production env var variable""".split()
)
# gitleaks' allowlist of stop words, the distinctive ones: a value holding one is not a key
STOP_WORDS = (
    "example",
    "sample",
    "dummy",
    "placeholder",
    "changeme",
    "changeit",
    "redacted",
    "xxx",
    "0000",
)  # not "fake" nor "mock" as parts: test fixtures spell keys FAKEsigningKEY123 (as words they are placeholders)
_CAMEL = lazy(r"(?<=[a-z])(?=[A-Z])")
_RUNS = lazy(r"[a-z]+|[0-9]+")


def is_placeholder(value: str, name: str = "") -> bool:
    """Whether a credential's ``value`` (as the line spells it, quotes aside) is a stand-in rather than a
    secret; ``name`` is its field's name, when it has one."""
    plain = value.strip().strip("\\\"'")
    folded = plain.lower().replace("_", "").replace("-", "")
    if len(plain) < MIN_VALUE or folded in PLACEHOLDERS:
        return True
    if plain[0] in "<$%{*[" or plain.startswith(("{{", "$(", "%(")):
        return True
    if "***" in plain or "..." in plain or "…" in plain:
        return True
    if not plain.isascii() and any(not c.isascii() and c.isalpha() for c in plain):
        return True  # 你的_key, ключ_api, votre_clé: a language's words
    if any(word in folded for word in STOP_WORDS):
        return True
    if folded.startswith(("your", "insert", "replace", "enter")):  # your-service-key, <insert token>
        return True
    if name and folded == name.lower().replace("_", "").replace("-", ""):
        return True  # "password": "Password" in a translation table, API_KEY=API_KEY
    return len(set(folded)) <= 2 or _words_only(plain) or entropy(folded) < MIN_ENTROPY


def _words_only(plain: str) -> bool:
    """``test-key``, ``dummyKey123``: every run of letters a :data:`PLACEHOLDER_WORDS` word, every run of
    digits four digits at most (a year, a port, ``123``)."""
    runs = _RUNS.findall(_CAMEL.sub(" ", plain).lower())
    letters = [r for r in runs if r[0].isalpha()]
    return bool(letters) and all(r in PLACEHOLDER_WORDS if r[0].isalpha() else len(r) <= 4 for r in runs)


def entropy(text: str) -> float:
    """Shannon entropy of ``text``, in bits a character."""
    if not text:
        return 0.0
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in Counter(text).values())


__all__ = ["MIN_ENTROPY", "MIN_VALUE", "PLACEHOLDERS", "PLACEHOLDER_WORDS", "STOP_WORDS", "entropy", "is_placeholder"]
