"""docs/editors.md's Neovim session picker, run as written (headless Neovim, run by `make e2e-nvim`): it lists
the sessions of a Codex home built here through `rollout-lsp sessions --json` and opens the chosen rollout."""

from __future__ import annotations

import subprocess

from tests.editor_pickers.pickers import SNIPPETS, picker_env, picker_rollout


def test_the_neovim_picker_lists_the_sessions_and_opens_the_chosen_one(tmp_path):
    driver = tmp_path / "driver.lua"
    out = tmp_path / "out.txt"
    driver.write_text(
        SNIPPETS["neovim"]
        + f"""
local shown = {{}}
vim.ui.select = function(items, opts, on_choice)
  local chosen
  for _, item in ipairs(items) do
    local line = opts.format_item(item)
    table.insert(shown, line)
    if line:find("Build audit", 1, true) then chosen = item end
  end
  on_choice(chosen)
end
vim.cmd("RolloutSessions --project /w/alpha")
table.insert(shown, "opened " .. vim.api.nvim_buf_get_name(0))
vim.fn.writefile(shown, {str(out)!r})
vim.cmd("qa!")
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {driver}", "-c", "cquit 2"],
        env=picker_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").splitlines() == [
        "2026-11-20T11:00  Now the docs  /w/alpha  $0.00",
        "2026-11-20T10:00  Read one file  /w/alpha  $0.00",
        "2026-11-20T10:00  Check the tests  /w/alpha  $0.02",
        "2026-11-20T10:00  Build audit  /w/alpha  $0.03",
        f"opened {picker_rollout(tmp_path)}",
    ]
