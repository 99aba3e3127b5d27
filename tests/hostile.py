"""Inputs for the hardening tests: pools of real lines and scripts, mutations, and invariant checks."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache

from hypothesis import strategies as st

from analysis import analyze_line, analyze_text
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.secrets import find_secrets, redact
from analysis.session.rollout import RolloutAnalysis
from tests.helpers import FIXTURES, exec_inputs

RECORD_TYPES = ["session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state", "x"]
ITEM_TYPES = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "other",
]
JS_PIECES = [
    "tools.",
    "exec_command",
    "apply_patch",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "`",
    "${",
    "'",
    '"',
    "\\",
    "/",
    "//",
    "/*",
    "*/",
    "\n",
    "if (false) ",
    "return;",
    "const ",
    "let ",
    " => ",
    "await ",
    "?.",
    "??",
    "cmd:",
    "*** Begin Patch\n",
    "*** Update File: ",
    "*** End Patch",
    "\u2028",
    "😀",
    "\x00",
    ";",
    ",",
]


@lru_cache(maxsize=1)
def real_lines() -> list[str]:
    """Every line of the project's fixtures (the corpus suite runs the same invariants over ../shared/corpus)."""
    lines = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        lines += [line for line in split_lines(path.read_bytes().decode("utf-8")) if line.strip()]
    return lines


@lru_cache(maxsize=1)
def real_scripts() -> list[str]:
    return exec_inputs(real_lines())


def exec_line(script: str, call_id: str = "call_fuzz") -> str:
    return json.dumps(
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": script},
        },
        ensure_ascii=False,
    )


@st.composite
def mutated(draw, base: str) -> str:
    """``base`` with a few random cuts, insertions, deletions and duplications."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            text = draw(st.text(max_size=20))
            continue
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "delete", "duplicate", "piece"]))
        if op == "cut":
            text = text[:at]
        elif op == "insert":
            text = text[:at] + draw(st.text(max_size=8)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif op == "duplicate":
            end = min(len(text), at + draw(st.integers(1, 60)))
            text = text[:end] + text[at:end] + text[end:]
        else:
            text = text[:at] + draw(st.sampled_from(JS_PIECES)) + text[at:]
    return text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


@st.composite
def record_lines(draw) -> str:
    """JSON lines shaped like records, with payloads of right and wrong types."""
    payload = draw(
        st.one_of(
            json_values,
            st.fixed_dictionaries(
                {"type": st.sampled_from(ITEM_TYPES)},
                optional={
                    "name": st.sampled_from(["exec", "apply_patch", "exec_command", "shell", "wait"]),
                    "input": st.one_of(st.text(max_size=80), json_values),
                    "arguments": st.one_of(st.text(max_size=40), json_values),
                    "call_id": st.one_of(st.text(max_size=8), st.integers()),
                    "output": json_values,
                    "role": json_values,
                    "content": json_values,
                    "action": json_values,
                    "namespace": json_values,
                },
            ),
        )
    )
    record = {"timestamp": "t", "type": draw(st.sampled_from(RECORD_TYPES)), "payload": payload}
    return json.dumps(record, ensure_ascii=draw(st.booleans()))


@st.composite
def documents(draw) -> str:
    """Whole documents of real, mutated, random and record-shaped lines, with any line endings."""
    pool = real_lines()
    scripts = real_scripts()
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["real", "mutated", "script", "record", "text"]))
        if kind == "real":
            parts.append(draw(st.sampled_from(pool)))
        elif kind == "mutated":
            parts.append(draw(mutated(draw(st.sampled_from(pool)))))
        elif kind == "script":
            parts.append(exec_line(draw(mutated(draw(st.sampled_from(scripts))))))
        elif kind == "record":
            parts.append(draw(record_lines()))
        else:
            parts.append(draw(st.text(max_size=60)))
    endings = [draw(st.sampled_from(["\n", "\r\n", "\r"])) for _ in parts]
    text = "".join(p + e for p, e in zip(parts, endings))
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return ("\ufeff" if draw(st.booleans()) else "") + text


def check_invariants(text: str) -> RolloutAnalysis:
    """Analyses ``text`` and checks what must hold for any input."""
    analysis = analyze_text(text)
    lines = split_lines(text)
    assert len(analysis.lines) == len(lines)
    spans = (
        [f.span for f in analysis.findings]
        + [r.span for f in analysis.findings for r in f.related]
        + [c.span for c in analysis.calls]
    )
    for span in spans:
        assert 0 <= span.line < len(lines), span
        assert 0 <= span.start <= span.end <= len(lines[span.line]), (span, len(lines[span.line]))
        rng = analysis.range_of(span, PositionEncoding.UTF16)
        assert rng.end.character <= len(lines[span.line].encode("utf-16-le", "surrogatepass")) // 2
    for number, line in enumerate(lines):
        alone = analyze_line(line)
        # findings of the whole document, or of pairing lines: a call and its output, an event and its call
        in_document = [
            f
            for f in analysis.findings
            if f.span.line == number
            and f.code not in ("unpaired-call", "unknown-record", "unmatched-event", "event-contradicts")
        ]
        assert in_document == [f.moved_to(number) for f in alone.findings]
        # whether a call ran can come from other lines (an event reports it, its script completed): not the call
        assert [
            replace(c.call, executed=a.executed)
            for c, a in zip([c for c in analysis.calls if c.line == number], alone.calls)
        ] == list(alone.calls)
        assert len([c for c in analysis.calls if c.line == number]) == len(alone.calls)
    return analysis


def check_redaction(line: str) -> None:
    for match in find_secrets(line):
        out = redact(line, match)
        assert len(out) == len(line)
        try:
            json.loads(line)
        except ValueError:
            continue
        json.loads(out)  # still valid JSON
        assert not any(m.start == match.start for m in find_secrets(out))


# -- hostile files, written at test time ---------------------------------------------------------------------

TERMINAL_ATTACKS = "\x1b]0;TITLE\x07 \x1b]52;c;aGVsbG8=\x07 \x1b[2J \r\x08"  # title, clipboard, clear, CR, BS


def hostile_rollout(text: str) -> str:
    """A small rollout whose command, output, user message and session id all hold ``text`` (written with
    ``ensure_ascii``, so a lone surrogate or a control character is a JSON escape in the file)."""
    records = [
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "session_meta",
            "payload": {"id": "s-" + text, "cwd": "/tmp", "cli_version": "0.1"},
        },
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ask " + text}]},
        },
        {
            "timestamp": "2026-01-01T00:00:02Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c1",
                "arguments": json.dumps({"cmd": "echo " + text}),
            },
        },
        {
            "timestamp": "2026-01-01T00:00:03Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "said " + text},
        },
        {
            "timestamp": "2026-01-01T00:00:04Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c2",
                "arguments": json.dumps({"cmd": "true"}),
            },
        },
    ]
    return "".join(json.dumps(r) + "\n" for r in records)


# -- secret forms (issue 23, point 7) ----------------------------------------------------------------------
# Values are made here, at test time, from a fixed generator: the repository holds no string that looks like
# a live credential.  Each form: its name, the text (a command, a config line, an output), the secret that
# must not stay in clear, and the gitleaks default rule of the same form.

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"


def fake(alphabet: str, n: int, salt: int = 0) -> str:
    """``n`` characters of ``alphabet``, varied and fixed (a linear congruential walk)."""
    out, x = [], 12345 + 7919 * salt
    for _ in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        out.append(alphabet[(x >> 8) % len(alphabet)])
    return "".join(out)


def _jwt(salt: int) -> str:
    import base64

    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return (
        part({"alg": "HS256", "typ": "JWT"})
        + "."
        + part({"sub": fake(_ALNUM, 12, salt), "iat": 1700000000})
        + "."
        + fake(_ALNUM + "-_", 43, salt)
    )


def secret_forms() -> list[tuple[str, str, str, str]]:
    aws_secret = fake(_B64, 40, 1)
    pg = fake(_ALNUM, 14, 2)
    forms = [
        (
            "OpenAI project key",
            "export OPENAI_API_KEY=sk-proj-{s}",
            "sk-proj-" + fake(_ALNUM + "_-", 60, 3),
            "openai-api-key",
        ),
        ("OpenAI key after a letter", "key:Xsk-proj-{s}", "sk-proj-" + fake(_ALNUM, 48, 4), "openai-api-key"),
        (
            "OpenAI legacy key",
            "OPENAI_KEY: {s}",
            "sk-" + fake(_ALNUM, 20, 5) + "T3BlbkFJ" + fake(_ALNUM, 20, 6),
            "openai-api-key",
        ),
        (
            "Anthropic key",
            "ANTHROPIC_API_KEY={s}",
            "sk-ant-api03-" + fake(_ALNUM + "_-", 93, 7) + "AA",
            "anthropic-api-key",
        ),
        (
            "AWS access key id",
            "aws_access_key_id = {s}",
            "AKIA" + fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 8),
            "aws-access-token",
        ),
        ("AWS temporary key id", "{s}", "ASIA" + fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 9), "aws-access-token"),
        ("AWS secret, unquoted", "export AWS_SECRET_ACCESS_KEY={s}", aws_secret, "generic-api-key"),
        ("AWS secret, JSON", '{{"aws_secret_access_key": "{s}"}}', fake(_B64, 40, 10), "generic-api-key"),
        ("AWS secret, credentials file", 'aws_secret_access_key = "{s}"', fake(_B64, 40, 11), "generic-api-key"),
        ("GitHub personal token", "git clone https://{s}@github.com/o/r", "ghp_" + fake(_ALNUM, 36, 12), "github-pat"),
        ("GitHub OAuth token", "GH_TOKEN={s}", "gho_" + fake(_ALNUM, 36, 13), "github-oauth"),
        (
            "GitHub fine-grained token",
            "token: {s}",
            "github_pat_" + fake(_ALNUM + "_", 82, 14),
            "github-fine-grained-pat",
        ),
        ("GitLab token", "glab auth login --token {s}", "glpat-" + fake(_ALNUM + "_-", 20, 15), "gitlab-pat"),
        (
            "Slack bot token",
            "SLACK_BOT_TOKEN={s}",
            "xoxb-" + fake("0123456789", 12, 16) + "-" + fake("0123456789", 13, 17) + "-" + fake(_ALNUM, 24, 18),
            "slack-bot-token",
        ),
        (
            "Slack user token",
            "{s}",
            "xoxp-" + fake("0123456789", 12, 19) + "-" + fake("0123456789", 12, 20) + "-" + fake(_HEX, 32, 21),
            "slack-user-token",
        ),
        (
            "Slack webhook",
            "curl -X POST {s} -d '{{}}'",
            "https://hooks.slack.com/services/T"
            + fake(_ALNUM.upper()[:36], 8, 22)
            + "/B"
            + fake(_ALNUM.upper()[:36], 8, 23)
            + "/"
            + fake(_ALNUM, 24, 24),
            "slack-webhook-url",
        ),
        ("Stripe secret key", 'stripe.api_key = "{s}"', "sk_live_" + fake(_ALNUM, 24, 25), "stripe-access-token"),
        ("Stripe restricted key", "{s}", "rk_live_" + fake(_ALNUM, 24, 26), "stripe-access-token"),
        ("Stripe test key", "STRIPE_KEY={s}", "sk_test_" + fake(_ALNUM, 24, 27), "stripe-access-token"),
        (
            "Google API key",
            "https://maps.googleapis.com/maps/api/geocode/json?key={s}",
            "AIza" + fake(_ALNUM + "_-", 35, 28),
            "gcp-api-key",
        ),
        ("JSON Web Token", "Cookie: session={s}", _jwt(29), "jwt"),
        ("npm token", "NPM_TOKEN={s} npm publish", "npm_" + fake(_ALNUM, 36, 30), "npm-access-token"),
        ("npmrc auth token", "//registry.npmjs.org/:_authToken={s}", "npm_" + fake(_ALNUM, 36, 31), "npm-access-token"),
        (
            "Hugging Face token",
            "huggingface-cli login --token {s}",
            "hf_" + fake(_ALNUM, 34, 32),
            "huggingface-access-token",
        ),
        ("PostgreSQL URL", "psql postgres://admin:{s}@db.internal:5432/app", pg, "generic (URL credentials)"),
        ("MySQL URL", "DATABASE_URL=mysql://root:{s}@127.0.0.1/app", fake(_ALNUM, 16, 33), "generic (URL credentials)"),
        (
            "MongoDB URL",
            'mongosh "mongodb+srv://app:{s}@cluster0.mongodb.net/db"',
            fake(_ALNUM, 16, 34),
            "generic (URL credentials)",
        ),
        ("Redis URL", "redis-cli -u redis://default:{s}@cache:6379", fake(_ALNUM, 16, 35), "generic (URL credentials)"),
        ("mysql -p", "mysql -u root -p{s} app < dump.sql", fake(_ALNUM, 14, 36), "none"),
        ("mysqldump --password", "mysqldump --password={s} app", fake(_ALNUM, 14, 37), "generic-api-key"),
        ("PGPASSWORD", "PGPASSWORD={s} psql -h db", fake(_ALNUM, 14, 38), "generic-api-key"),
        ("curl -u", "curl -u admin:{s} https://api.internal/v1", fake(_ALNUM, 14, 39), "curl-auth-user"),
        ("Bearer header", "curl -H 'Authorization: Bearer {s}' https://api", fake(_ALNUM, 40, 40), "curl-auth-header"),
        ("Basic header", "Authorization: Basic {s}", fake(_B64, 28, 41) + "=", "curl-auth-header"),
        (
            "RSA private key",
            "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----",
            fake(_B64, 64, 42),
            "private-key",
        ),
        (
            "OpenSSH private key",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----",
            fake(_B64, 70, 43),
            "private-key",
        ),
        (
            "SendGrid key",
            "SENDGRID_API_KEY={s}",
            "SG." + fake(_ALNUM + "_-", 22, 44) + "." + fake(_ALNUM + "_-", 43, 45),
            "sendgrid-api-token",
        ),
        ("Twilio API key", "twilio api:core --api-key {s}", "SK" + fake(_HEX, 32, 46), "twilio-api-key"),
        ("Mailchimp key", "MAILCHIMP={s}", fake(_HEX, 32, 47) + "-us12", "mailchimp-api-key"),
        (
            "PyPI token",
            "twine upload -p {s}",
            "pypi-AgEIcHlwaS5vcmc" + fake(_ALNUM + "_-", 60, 48),
            "pypi-upload-token",
        ),
        (
            "Telegram bot token",
            "https://api.telegram.org/bot{s}/getMe",
            fake("0123456789", 10, 49) + ":AA" + fake(_ALNUM + "_-", 33, 50),
            "telegram-bot-api-token",
        ),
        (
            "Azure storage key",
            "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};",
            fake(_B64, 86, 51) + "==",
            "azure-storage-account-key",
        ),
        ("Square token", "SQUARE={s}", "sq0csp-" + fake(_ALNUM + "_-", 43, 52), "square-access-token"),
        ("Shopify token", "X-Shopify-Access-Token: {s}", "shpat_" + fake(_HEX, 32, 53), "shopify-access-token"),
        ("DigitalOcean token", "doctl auth init -t {s}", "dop_v1_" + fake(_HEX, 64, 54), "digitalocean-pat"),
        ("Databricks token", "DATABRICKS_TOKEN={s}", "dapi" + fake(_HEX, 32, 55), "databricks-api-token"),
        ("password field", '{{"password": "{s}"}}', fake(_ALNUM, 16, 56), "generic-api-key"),
        ("client secret field", "client_secret: '{s}'", fake(_ALNUM, 32, 57), "generic-api-key"),
        ("DB_PASSWORD variable", "DB_PASSWORD={s} ./run.sh", fake(_ALNUM, 14, 58), "generic-api-key"),
    ]
    return [(name, template.format(s=secret), secret, rule) for name, template, secret, rule in forms]


# values that name a secret rather than hold one: never a finding
PLACEHOLDER_FORMS = [
    '{"password": "Password", "email": "Email", "username": "Username"}',  # a translation table
    '{"email": "employee1@company.com", "password": "password"}',  # a seeded demo login
    'curl -X POST /login -d \'{"email": "employee1@company.com", "password": "password"}\'',
    '{"api_key": "API_KEY"}',
    "PASSWORD=changeme",
    "DB_PASSWORD=${DB_PASSWORD}",
    'token = "<your token>"',
    '"secret": "example-secret-value"',
    "AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxx",
    "password: ****",
    '"password": "********"',
    "PGPASSWORD=pass psql",
    "postgres://user:password@localhost/db",
    "postgres://app:${DB_PASS}@db/app",
    "mysql -u root -p app",
    "mysql -u root -p$MYSQL_PWD app",
    'api_key="YOUR_API_KEY"',
    "--password=<password>",
    '"client_secret": "changeme"',
    "password = os.environ['DB']",
    "const token = getToken();",
    "SECRET_KEY=secret",
    '"token": "abc"',
    "export KIPRIS_PLUS_API_KEY=your-service-key",
    "## Basic Functionality Tests",  # seen in real rollouts
    'DatabaseURL: "postgres://postgres:postgres@localhost:5432/db"',
]


def zstd_bomb(prefix: bytes, byte: bytes, repeats: int, suffix: bytes) -> bytes:
    """One Zstandard frame of ``prefix``, ``byte`` ``repeats`` times and ``suffix``, written by hand: the
    repeats are RLE blocks of 4 bytes per 128 KiB, so 4 GB is 128 KB on disk and costs nothing to make."""
    block = 1 << 17
    out = [b"\x28\xb5\x2f\xfd", bytes([0x00, 7 << 3])]  # magic; no content size, a 128 KiB window

    def header(kind: int, size: int, last: bool = False) -> bytes:
        return (int(last) | kind << 1 | size << 3).to_bytes(3, "little")

    for at in range(0, len(prefix), block):
        out += [header(0, len(prefix[at : at + block])), prefix[at : at + block]]
    while repeats:
        size = min(block, repeats)
        out += [header(1, size), byte]
        repeats -= size
    out += [header(0, len(suffix), last=True), suffix]
    return b"".join(out)
