import json
import re

import pytest

from analysis.jsonl.secrets import find_secrets, redact, redact_all

SHAPES = [
    ("OpenAI API key", "sk-proj-" + "Ab3" * 10),
    ("OpenAI API key", "sk-" + "a1B2" * 6),
    ("GitHub token", "ghp_" + "x9Y8" * 9),
    ("GitHub token", "gho_" + "x9Y8" * 9),
    ("GitHub token", "github_pat_" + "11AB" * 6),
    ("AWS access key", "AKIA" + "ABCD2345EFGH6789"),
    ("AWS access key", "ASIA" + "ABCD2345EFGH6789"),
    ("Slack token", "xoxb-" + "1234567890-abcdef"),
    ("Slack token", "xoxp-" + "1234567890-abcdef"),
    ("Bearer token", "Bearer " + "eyJhbGciOiJIUzI1NiJ9.abc"),
    ("credential field", 'signingKey: \\"abcdEFGH1234'),
    ("credential field", "api_key='abcdEFGH1234"),
    ("credential field", 'password = \\"hunter2hunter2'),
    ("private key", "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXk=\\n"),
]
FOLLOWING = {"private key": "-----END OPENSSH PRIVATE KEY-----"}


@pytest.mark.parametrize("kind, secret", SHAPES)
def test_every_shape_is_found_at_its_characters(kind, secret):
    line = '{"text":"before ' + secret + FOLLOWING.get(kind, "") + ' after"}'
    found = find_secrets(line)
    assert [(s.kind, line[s.start : s.end]) for s in found] == [(kind, secret)]
    redacted = redact(line, found[0])
    assert len(redacted) == len(line)
    assert json.loads(redacted)["text"].startswith("before ")
    assert redacted != line


def test_redaction_keeps_escapes_prefix_and_end_marker():
    line = json.dumps(
        {"t": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpA\n-----END RSA PRIVATE KEY----- sk-proj-" + "A1" * 12}
    )
    out = redact_all(line)
    assert json.loads(out)["t"] == (
        "-----BEGIN RSA PRIVATE KEY-----\nxxxxxx\n-----END RSA PRIVATE KEY----- sk-xxxx-" + "xx" * 12
    )


@pytest.mark.parametrize(
    "text",
    [
        "sk-short",
        "task-1234567890123456789012",
        "/Users/xxxxxxxxxxxx/Desktop",
        "password: process.env.PASSWORD",
        "AKIAlowercase1234567",
        "the Bearer of news",
        # VS Code Remote-SSH's server is started with this fixed token (two real rollouts of ../shared/corpus/wild)
        "sh /root/.vscode-server/cli/servers/Stable-1b6a/server/bin/code-server --connection-token=remotessh "
        "--accept-server-license-terms",
        "TOKEN=Bearer",
    ],
)
def test_near_misses_are_not_secrets(text):
    assert find_secrets(json.dumps({"t": text})) == []


def test_configured_patterns():
    line = '{"t":"internal-TOKEN-123"}'
    found = find_secrets(line, (re.compile(r"internal-[A-Z]+-\d+"),))
    assert [(s.kind, line[s.start : s.end]) for s in found] == [("configured pattern", "internal-TOKEN-123")]


def test_private_key_without_end_marker_runs_to_the_end_of_its_string():
    line = '{"a":"-----BEGIN PRIVATE KEY-----\\nMIIE\\\\\\"x","b":"y"}'
    found = find_secrets(line)
    assert [line[s.start : s.end] for s in found] == ['-----BEGIN PRIVATE KEY-----\\nMIIE\\\\\\"x']
    assert json.loads(redact(line, found[0])) == {"a": '-----BEGIN PRIVATE KEY-----\nxxxx\\"x', "b": "y"}


def test_opaque_blobs_are_not_scanned():
    from analysis.session.record_analysis import analyze_line

    key = "sk-" + "BLOBblob0123456789" * 2
    reasoning = json.dumps(
        {"type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA" + key}}
    )
    assert analyze_line(reasoning).findings == ()
    image = json.dumps(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_image", "image_url": "data:image/png;base64,iVBOR/" + key + "=="}],
            },
        }
    )
    assert analyze_line(image).findings == ()
    # the same characters in readable text are a secret, at their exact place
    text = json.dumps(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "key " + key},
                    {"type": "input_image", "image_url": "data:image/png;base64," + key},
                    {"type": "input_text", "text": "data:" + key},
                ],
            },
        }
    )
    found = analyze_line(text).findings
    assert [(f.code, text[f.span.start : f.span.end]) for f in found] == [("secret", key), ("secret", key)]
    assert found[0].span.start == text.index(key) and found[1].span.start == text.rindex(key)


@pytest.mark.parametrize(
    "text",
    [
        'keykey: "abcdefgh12"',
        "passwordpassword='abcdefgh12'",
        'token = "tokentokentoken" secret="abcdefgh12"',
        'mykey: "abc" then secret_key: "abcdefgh1234", api_token=\\"abcdefgh1234',
        "passwd:'ab'passwd:'abcdefghij'",
    ],
)
def test_credential_fields_are_the_leftmost_matches_of_the_field_pattern(text):
    # the scan tries the pattern only where a key word starts: it must find what a scan of every character finds
    from analysis.jsonl.secrets import _FIELD, _field_matches

    lowered = text.lower()
    assert [m.span() for m in _field_matches(lowered)] == [m.span() for m in _FIELD.finditer(lowered)]
    assert [m.span() for m in _FIELD.finditer(lowered)]  # each example holds a field


# -- placeholders are not secrets (issue 31, point 6) -------------------------------------------------------
# values seen reported on real rollouts of other people, and their kin: words, a language's words for "your
# key", templates, stop words (gitleaks' allowlist), too few distinct characters to be random
PLACEHOLDER_VALUES = [
    "你的_key",
    "ключ_api",
    "votre_clé",
    "test-key",
    "changeme",
    "changeme123",
    "dummy-key-123",
    "placeholder_value",
    "my-secret-key",
    "fake-api-key",
    "mock_api_key",
    "sk-test-key",
    "sk-your-key-here",
    "your-api-key-here",
    "YourApiKeyHere",
    "password123",
    "django-insecure-abc",
    "xxxxxxxxxxxxxxxx",
    "xxx-xxx-xxx",
    "<your-api-key>",
    "${OPENAI_API_KEY}",
    "%API_KEY%",
    "aaaa1111",
    "sample-token-0000",
]
# credential-shaped values that are random: still found, even beside a placeholder
REAL_VALUES = [
    "hunter2hunter2",
    "Xk9mQ2vL8pR4wZ",
    "gaokao_pass",
    "a8Fj3kLm9QpZ",
    "eb92251b-416d-4190-a2fa-6dad8548b52f",
]
CONTEXTS = [
    "AI_API_KEY={v}",
    '{{"api_key": "{v}"}}',  # a JSON text inside the line's JSON string: \\"api_key\\": \\"…\\"
    "client_secret: '{v}'",
    "postgres://app:{v}@db:5432/app",
    "mysql -u root -p{v} app",
    "curl -u admin:{v} https://api.internal",
]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("value", PLACEHOLDER_VALUES)
def test_a_placeholder_is_not_a_secret(value, context):
    line = json.dumps({"text": context.format(v=value)}, ensure_ascii=False)
    assert find_secrets(line) == []


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("value", REAL_VALUES)
def test_a_real_value_beside_placeholders_is_still_found(value, context):
    text = f"AI_API_KEY=你的_key TOKEN=test-key {context.format(v=value)} PASSWORD=changeme"
    line = json.dumps({"text": text}, ensure_ascii=False)
    found = find_secrets(line)
    assert len(found) == 1
    assert value in line[found[0].start : found[0].end] or line[found[0].start : found[0].end] in value
    assert value not in redact_all(line)


def test_placeholders_in_a_rollout_are_no_finding_and_the_real_key_is(tmp_path):
    """As a reviewer meets it: ``check`` of a rollout whose commands hold both."""
    from tests.helpers import run_cli

    commands = [f"export AI_API_KEY={v}" for v in PLACEHOLDER_VALUES] + ["export DB_PASSWORD=Xk9mQ2vL8pR4wZ"]
    records = [{"type": "session_meta", "payload": {"id": "s1", "cwd": "/tmp"}}] + [
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "call_id": f"c{n}",
                "arguments": json.dumps({"cmd": command}, ensure_ascii=False),
            },
        }
        for n, command in enumerate(commands)
    ]
    path = tmp_path / "rollout-placeholders.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    found = json.loads(run_cli("check", "--json", str(path)).stdout)
    assert [(f["code"], f["range"]["start"]["line"]) for f in found if f["code"] == "secret"] == [
        ("secret", len(commands))
    ]
