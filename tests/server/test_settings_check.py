"""The settings' plain check (lsp_server/config.py) reads every value as the pydantic model does
(lsp_server/settings_model.py): the same fields, keys and defaults; a value of its JSON type taken as it is; any
other converted, or refused with the same words, by the model itself.  And a client's usual settings are read
without building the model (issue 35: building it cost more than the rest of the server's own start)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from lsp_server.config import FIELDS, Settings, _plain, parse_settings
from lsp_server.settings_model import SettingsModel

ROOT = Path(__file__).resolve().parents[2]

# values a client may send for each key: plain ones, ones pydantic converts, ones it refuses
TRIALS = {
    "severity": [{}, {"secret": "off"}, {"secret": "loud"}, {"no-such-code": "error"}, [], None, {"secret": 1}],
    "secretPatterns": [[], ["ghp_[0-9]+"], ["("], "ghp_", ("a",), [1], None],
    "secret_patterns": [["x"]],
    "hoverOutputLines": [0, 20, 10_000, 10_001, -1, "7", 7.0, 7.5, True, None, "x"],
    "hover_output_lines": [5],
    "files": [["**/*.jsonl"], [], "**/*", ["a", 2], None, ("a",)],
    "invocationLogs": [["**/calls.jsonl"], [None]],
    "debounceMs": [0, 30, 10_000, 10_001, "30", False],
    "pullDiagnostics": [True, False, "yes", "off", 1, 0, 2, "maybe", None],
    "blame": [True, "true", 0.0],
    "blameOutsideWorkspace": [False, "no"],
    "codexHome": [None, "/home/u/.codex", "", 3, ["x"]],
    "codex_home": ["~/.codex"],
    "findings": [None, "auto", "reader", "author", "null", "Reader", 1],
    "positionEncoding": [None, "utf-8", "utf-16", "utf-32", "utf-7", 8],
    "unknownKey": [1],
}


def _model(data: dict) -> dict | str:
    try:
        model = SettingsModel.model_validate(data)
    except ValidationError as error:
        return error.errors()[0]["msg"]
    return {field.name: getattr(model, field.name) for field in FIELDS}


def _ours(data: dict) -> dict | str:
    try:
        settings = Settings.model_validate(data)
    except ValidationError as error:
        return error.errors()[0]["msg"]
    return dict(vars(settings))


def test_the_fields_are_the_models():
    model = SettingsModel.model_fields
    assert list(Settings.model_fields) == list(model)
    for field in FIELDS:
        assert field.alias == model[field.name].alias, field.name
        assert field.default == model[field.name].get_default(call_default_factory=True), field.name
    assert Settings().model_dump(by_alias=True) == SettingsModel().model_dump(by_alias=True)


@pytest.mark.parametrize("key", list(TRIALS))
def test_every_value_reads_as_the_model_reads_it(key):
    for value in TRIALS[key]:
        data = {key: value}
        assert _ours(data) == _model(data), data
        both = {key: value, "hover_output_lines": 3, "hoverOutputLines": 4}  # a key given twice: the model decides
        assert _ours(both) == _model(both), both


def test_plain_values_need_no_model():
    assert _plain({"hoverOutputLines": 7, "blame": False, "severity": {"secret": "off"}}) is not None
    assert _plain({"hoverOutputLines": "7"}) is None  # converted by the model
    assert _plain({"findings": "null"}) is None  # refused by the model, in its words
    assert parse_settings({"findings": "null"})[1] == [
        "setting 'findings' ignored: Input should be 'auto', 'reader' or 'author'"
    ]
    assert parse_settings({"hoverOutputLines": "7"})[0].hover_output_lines == 7


def test_a_copy_and_a_dump_are_of_their_own():
    settings = Settings(files=["a"])
    dumped = settings.model_dump(by_alias=True)
    dumped["files"].append("b")
    assert settings.files == ["a"] and dumped["invocationLogs"] == ["**/cli_mocks/calls.jsonl"]
    copy = settings.model_copy(update={"blame": False})
    assert (copy.blame, settings.blame, copy.files) == (False, True, ["a"])
    assert copy != settings and copy.model_copy(update={"blame": True}) == settings


def test_a_clients_usual_settings_are_read_without_the_model():
    """As VS Code sends them (initializationOptions, then workspace/configuration): every key, of its type."""
    usual = {
        "rolloutLsp": {
            "severity": {"secret": "warning"},
            "secretPatterns": ["internal-[0-9a-f]{8}"],
            "hoverOutputLines": 20,
            "files": ["**/rollout-*.jsonl"],
            "invocationLogs": ["**/cli_mocks/calls.jsonl"],
            "debounceMs": 30,
            "pullDiagnostics": True,
            "blame": True,
            "blameOutsideWorkspace": False,
            "codexHome": "",
            "findings": "auto",
            "server": {"path": ""},
            "trace": {"server": "off"},
        }
    }
    code = (
        "import json, sys\nfrom lsp_server.config import parse_settings\n"
        f"settings, problems = parse_settings(json.loads({json.dumps(json.dumps(usual))}))\n"
        "print(json.dumps([problems, settings.secret_patterns, 'pydantic' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [[], ["internal-[0-9a-f]{8}"], False]
