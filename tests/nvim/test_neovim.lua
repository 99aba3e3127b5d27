-- A second real editor: Neovim (Debian's 0.7.2) runs `rollout-lsp serve` through its built-in LSP client.
-- Run by `make e2e-nvim` (nvim --headless … -c "luafile tests/nvim/test_neovim.lua"; an error in it exits 2).
-- It opens fixtures and checks diagnostics, a hover, the outline, a code lens executed through the server
-- (window/showDocument opens the script), a quick fix applied, and a stale quick fix refused.
-- Exits 0 when every check passes, 1 otherwise.

local root = vim.fn.getcwd()
local python = os.getenv("ROLLOUT_PYTHON") or (root .. "/.venv/bin/python")
local failures, checks = 0, 0

local function check(name, ok, detail)
  checks = checks + 1
  if ok then
    io.stdout:write("ok   " .. name .. "\n")
  else
    failures = failures + 1
    io.stdout:write("FAIL " .. name .. (detail and (": " .. vim.inspect(detail)) or "") .. "\n")
  end
end

local function finish()
  io.stdout:write(string.format("%d checks, %d failed\n", checks, failures))
  io.stdout:flush()
  vim.cmd(failures == 0 and "qall!" or "cquit 1")
end

-- Neovim 0.7 applies versioned edits (it refuses an edit for an older version) but does not say so;
-- window/showDocument is handled here as a user's configuration would.
local capabilities = vim.lsp.protocol.make_client_capabilities()
capabilities.workspace.workspaceEdit.documentChanges = true
capabilities.window.showDocument = { support = true }
local shown = {}
local client_id = vim.lsp.start_client({
  name = "rollout-lsp",
  cmd = { python, "-m", "lsp_server", "serve" },
  cmd_env = { PYTHONPATH = root },
  root_dir = root,
  capabilities = capabilities,
  handlers = {
    ["window/showDocument"] = function(_, params)
      table.insert(shown, params.uri)
      vim.schedule(function() vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(params.uri))) end)
      return { success = true }
    end,
  },
})
check("the server starts", client_id ~= nil)

local function open(name)
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/fixtures/" .. name))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  return bufnr, vim.uri_from_bufnr(bufnr)
end

local function request(bufnr, method, params)
  local results = vim.lsp.buf_request_sync(bufnr, method, params, 20000) or {}
  local answer = results[client_id] or {}
  return answer.result, answer.err
end

local function codes(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, string.format("%d:%s", d.lnum + 1, d.code))
  end
  table.sort(out)
  return table.concat(out, " ")
end

local ok, err = pcall(function()
  -- diagnostics
  local demo, demo_uri = open("rollout-demo.jsonl")
  vim.wait(30000, function() return #vim.diagnostic.get(demo) >= 3 end, 50)
  local got = codes(demo)
  check("diagnostics of rollout-demo.jsonl", got == "9:dead-branch 9:expanded-command 9:unpaired-call", got)

  -- hover (UTF-16 column of `tools.exec_command` on line 5)
  local line5 = vim.api.nvim_buf_get_lines(demo, 4, 5, false)[1]
  local column = vim.str_utfindex(line5, line5:find("tools.exec_command", 1, true) - 1)
  local hover = request(demo, "textDocument/hover", { textDocument = { uri = demo_uri },
    position = { line = 4, character = column } })
  local text = hover and hover.contents and hover.contents.value or ""
  check("hover shows the decoded command", text:find("```sh\npytest -q tests/test_greet.py\n```", 1, true) ~= nil, text)

  -- outline: failure marks on the rows, a known expansion's commands as children, the files the turn changed
  local symbols = request(demo, "textDocument/documentSymbol", { textDocument = { uri = demo_uri } }) or {}
  local session = symbols[1] or {}
  local turn = (session.children or {})[1] or {}
  local calls, records = {}, {}
  for _, record in ipairs(turn.children or {}) do
    table.insert(records, record.name)
    for _, call in ipairs(record.children or {}) do
      table.insert(calls, call.name)
      for _, element in ipairs(call.children or {}) do table.insert(calls, "  " .. element.name) end
    end
  end
  check("outline: session, turn, calls", session.name == "session 019f0000-0000-7000-8000-000000000001"
    and session.detail == "1 failed (first: line 5, exit 1)"
    and turn.name == "turn 1 (line 3): Fix the failing greeting test"
    and table.concat(records, " | ") == "exec | exec | [no output] exec | files changed (1)"
    and table.concat(calls, " | ") == "[exit 1] exec_command: pytest -q tests/test_greet.py | "
      .. "apply_patch: update src/greet.py | exec_command: pytest -q | "
      .. "exec_command: 2 commands: git diff --stat -- README.md … | "
      .. "  exec_command: git diff --stat -- README.md |   exec_command: git diff --stat -- CHANGELOG.md | "
      .. "[dead] exec_command: git push --force | src/greet.py",
    { session.name, session.detail, turn.name, records, calls })

  -- a code lens, executed through the server: it writes the script to a .js file and shows it
  local lenses = request(demo, "textDocument/codeLens", { textDocument = { uri = demo_uri } }) or {}
  local lens = lenses[1] or {}
  check("code lens command is a server command", lens.command and lens.command.command == "rollout-lsp.showDecodedScript"
    and lens.command.title == "1 command · exit 1 · 0.4 s", lens)
  vim.lsp.buf.execute_command(lens.command)
  vim.wait(20000, function() return #shown == 1 and vim.api.nvim_buf_get_name(0):match("%.js$") ~= nil end, 50)
  local script = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check("the lens opened the decoded script", #shown == 1 and script ==
    'const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py", workdir: "/home/u/proj"});\ntext(r);',
    { shown = shown, buffer = vim.api.nvim_buf_get_name(0), script = script })

  -- a quick fix, applied: the first secret is redacted and its finding goes away
  local secrets, secrets_uri = open("rollout-secrets.jsonl")
  vim.wait(30000, function() return #vim.diagnostic.get(secrets) >= 8 end, 50)
  -- Neovim 0.7 opens a document as version 0 and checks no edit for version 0: edit it once first
  vim.api.nvim_buf_set_lines(secrets, -1, -1, false, { "" })
  vim.wait(30000, function() return (vim.lsp.util.buf_versions[secrets] or 0) > 0 and
    #vim.diagnostic.get(secrets) >= 8 end, 50)
  local first = vim.diagnostic.get(secrets, { lnum = 1 })[1]
  local lsp_diagnostic = { range = { start = { line = 1, character = vim.str_utfindex(
      vim.api.nvim_buf_get_lines(secrets, 1, 2, false)[1], first.col) }, ["end"] = { line = 1, character = 0 } },
    message = first.message, code = first.code }
  lsp_diagnostic.range["end"].character = lsp_diagnostic.range.start.character
  local actions = request(secrets, "textDocument/codeAction", { textDocument = { uri = secrets_uri },
    range = lsp_diagnostic.range, context = { diagnostics = { lsp_diagnostic } } }) or {}
  local redact = actions[1] or {}
  check("the quick fix is a versioned edit", redact.title == "Redact secret" and redact.edit
    and redact.edit.documentChanges and redact.edit.documentChanges[1].textDocument.version ~= nil, redact)

  -- first a stale one: the buffer changes, then the fix computed for the older version is refused
  local before = vim.api.nvim_buf_get_lines(secrets, 1, 2, false)[1]
  local all_before = vim.api.nvim_buf_get_lines(secrets, 0, -1, false)
  vim.api.nvim_buf_set_lines(secrets, 0, 0, false, { "" })
  pcall(vim.lsp.util.apply_workspace_edit, redact.edit, "utf-16")
  -- applied anyway, the same-length redaction would overwrite line 2 (now the session line) in place
  check("a fix for an older version is not applied",
    vim.deep_equal(vim.api.nvim_buf_get_lines(secrets, 1, -1, false), all_before),
    { version = redact.edit.documentChanges[1].textDocument.version, buffer = vim.lsp.util.buf_versions[secrets] })
  vim.api.nvim_buf_set_lines(secrets, 0, 1, false, {})
  vim.wait(30000, function() return #vim.diagnostic.get(secrets) >= 8 and
    vim.diagnostic.get(secrets, { lnum = 1 })[1] ~= nil end, 50)

  actions = request(secrets, "textDocument/codeAction", { textDocument = { uri = secrets_uri },
    range = lsp_diagnostic.range, context = { diagnostics = { lsp_diagnostic } } }) or {}
  vim.lsp.util.apply_workspace_edit(actions[1].edit, "utf-16")
  local after = vim.api.nvim_buf_get_lines(secrets, 1, 2, false)[1]
  check("the quick fix redacts the secret", after:find("OPENAI_API_KEY=sk-xxxx-xxxx", 1, true) ~= nil
    and #after == #before, after)
  vim.wait(30000, function() return #vim.diagnostic.get(secrets, { lnum = 1 }) == 0 end, 50)
  check("its finding goes away", #vim.diagnostic.get(secrets, { lnum = 1 }) == 0, codes(secrets))
end)
check("no error in the test itself", ok, err)
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish()
