"""The README's example is what the command prints: `rollout-lsp outline` of the bundled demo rollout."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readmes_outline_example_is_the_commands_output():
    shown = re.search(r"^```text\n\$ rollout-lsp outline (\S+)\n(.*?)^```$", README, re.M | re.S)
    assert shown is not None and shown.group(1) == "fixtures/rollout-demo.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "outline", shown.group(1)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, shown.group(2))
