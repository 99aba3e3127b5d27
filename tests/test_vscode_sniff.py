"""The VS Code extension decides a `.jsonl` is a rollout (and gives it the rollout language) by the server's own
rule: its list of rollout record types is analysis/session/records.py's KNOWN_TYPES, and its sample is sniff.py's."""

from __future__ import annotations

import re

from analysis.session.records import KNOWN_TYPES
from analysis.session.sniff import SAMPLE
from tests.helpers import ROOT

SETTINGS = (ROOT / "vscode-client" / "src" / "settings.ts").read_text(encoding="utf-8")


def test_the_extension_knows_the_same_record_types_and_sample():
    listed = re.search(r"ROLLOUT_RECORD_TYPES: readonly string\[\] = \[(.*?)\];", SETTINGS, re.S)
    assert listed is not None
    types = re.findall(r'"([a-z_]+)"', listed.group(1))
    assert len(types) == len(set(types)) and set(types) == set(KNOWN_TYPES)
    assert re.search(r"export const SNIFF_SAMPLE = (\d+);", SETTINGS).group(1) == str(SAMPLE)
