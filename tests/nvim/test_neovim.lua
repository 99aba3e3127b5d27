-- A second real editor: Neovim (Debian's 0.7.2) runs `rollout-lsp serve` through its built-in LSP client,
-- configured by the Neovim 0.7 block of docs/editors.md (read out of that file and run as it is).
-- Run by `make e2e-nvim` (nvim --headless … -c "luafile tests/nvim/test_neovim.lua"; an error in it exits 2).
-- It opens fixtures and checks the filetype and the client, diagnostics, a hover, the outline, a code lens
-- executed through the server (the documented window/showDocument handler opens the script), a quick fix
-- applied, a stale quick fix refused, the named fixes of every diagnostic of a line, and :RolloutScript
-- (docs/editors.md) refusing a script that does not parse and writing an edited one back; then blame (the
-- neovim-blame block): a generated repository whose generated sessions are in a temporary index, the lens's
-- text on a file those sessions patched, :RolloutBlameHover on an attributed line, :RolloutBlameLine opening
-- the rollout at the patch, and that rollout's lens `open src/app.py` opening the file at the change.
-- Exits 0 when every check passes, 1 otherwise.

local root = vim.fn.getcwd()
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

-- The setup a user copies: the Neovim 0.7 block and the :RolloutScript block of docs/editors.md, run as they are.
local function snippet(name)
  local doc = table.concat(vim.fn.readfile(root .. "/docs/editors.md"), "\n")
  local body = doc:match("<!%-%- snippet: " .. vim.pesc(name) .. " %-%->\n```%w+\n(.-)\n```\n")
  assert(body, "docs/editors.md has no snippet " .. name)
  return body
end

-- the blame world (tests/blame_support.py): a repository, four sessions, their index; the server reads that index
local world = vim.fn.tempname()
local python = (os.getenv("ROLLOUT_BIN") or (root .. "/.venv/bin")) .. "/python"
local built = vim.fn.system({ python, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
  .. "from tests.blame_support import build_world; build_world(Path(sys.argv[2]))", root, world })
vim.env.ROLLOUT_LSP_INDEX = world .. "/index.sqlite3"
vim.env.ROLLOUT_LSP_INDEX_REFRESH = "0"

-- `rollout-lsp` from this clone's .venv (ROLLOUT_BIN: another folder holding it)
vim.env.PATH = (os.getenv("ROLLOUT_BIN") or (root .. "/.venv/bin")) .. ":" .. vim.env.PATH
local notified = {}
vim.notify = function(message, level) table.insert(notified, { message = message, level = level }) end
-- the documented showDocument handler, watched: the test counts what it was asked to show
local shown = {}
local show_document_handler
local loaded, load_error = pcall(function()
  assert(loadstring(snippet("neovim-0.7"), "neovim-0.7"))()
  assert(loadstring(snippet("neovim-script"), "neovim-script"))()
  assert(loadstring(snippet("neovim-blame"), "neovim-blame"))()
end)
check("the documented setup loads", loaded, load_error)
vim.cmd("filetype on") -- what Neovim does after init.lua (-u NONE skips it)

local client_id
local function open(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path:sub(1, 1) == "/" and path or (root .. "/fixtures/" .. path)))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(20000, function()
    for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if client.name == "rollout_lsp" then client_id = client.id return true end
    end
  end, 50)
  if client_id and not show_document_handler then
    local client = vim.lsp.get_client_by_id(client_id)
    show_document_handler = client.handlers["window/showDocument"]
    client.handlers["window/showDocument"] = function(err, params, ctx, config)
      table.insert(shown, params.uri)
      return show_document_handler(err, params, ctx, config)
    end
  end
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
  -- the FileType autocommand started the server and attached the rollout
  local demo, demo_uri = open("rollout-demo.jsonl")
  check("a rollout gets the filetype and the server", vim.bo[demo].filetype == "rollout" and client_id ~= nil,
    { filetype = vim.bo[demo].filetype, client = client_id })
  local other = open("rollout-demo.jsonl") -- the same buffer again: still one client
  check("one client for every rollout", #vim.lsp.get_active_clients() == 1 and other == demo)

  -- diagnostics
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
    and table.concat(records, " | ") == "exec · pytest -q tests/test_greet.py | exec · update greet.py +1 | "
      .. "[no output] exec · 2 commands: git diff --stat -- README.md … +1 | files changed (1)"
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
  check("the quick fix is a versioned edit", redact.title == "Redact sk-…789 (line 2)" and redact.edit
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

  -- every diagnostic of a line in one request, as vim.lsp.buf.code_action() sends them: each fix once, named
  local on_line = vim.lsp.diagnostic.get_line_diagnostics(secrets, 3)
  actions = request(secrets, "textDocument/codeAction", { textDocument = { uri = secrets_uri },
    range = { start = { line = 3, character = 0 }, ["end"] = { line = 3, character = 0 } },
    context = { diagnostics = on_line } }) or {}
  local titles = {}
  for _, action in ipairs(actions) do table.insert(titles, action.title) end
  check("one fix per secret, each named", #on_line == 4 and table.concat(titles, " | ") ==
    "Redact Bearer…123 (line 4) | Redact signingKey… (line 4) | Redact xoxb-…AKE (line 4) | "
    .. "Redact github_pat_…000 (line 4) | Redact all 7 secrets in this file", { diagnostics = #on_line, titles = titles })

  -- :RolloutScript (docs/editors.md) on a copy: a script that does not parse is refused; :w of an edited
  -- one writes it into the rollout's buffer and saves the rollout
  local folder = vim.fn.tempname()
  vim.fn.mkdir(folder, "p")
  local copy = folder .. "/rollout-script.jsonl"
  vim.fn.writefile(vim.fn.readfile(root .. "/fixtures/rollout-demo.jsonl", "b"), copy, "b")
  local rollout = open(copy)
  vim.wait(30000, function() return #vim.diagnostic.get(rollout) >= 3 end, 50)
  local record_before = vim.api.nvim_buf_get_lines(rollout, 4, 5, false)[1]
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.cmd("RolloutScript")
  vim.wait(20000, function() return vim.api.nvim_buf_get_name(0):match("^rollout%-script://") ~= nil end, 50)
  local script_buffer = vim.api.nvim_get_current_buf()
  check("RolloutScript opens the record's script",
    vim.api.nvim_buf_get_name(script_buffer) == "rollout-script://call_demo1/line5.js"
    and vim.bo[script_buffer].filetype == "javascript"
    and vim.deep_equal(vim.api.nvim_buf_get_lines(script_buffer, 0, -1, false), {
      'const r = await tools.exec_command({cmd: "pytest -q tests/test_greet.py", workdir: "/home/u/proj"});',
      "text(r);", "" }), vim.api.nvim_buf_get_lines(script_buffer, 0, -1, false))

  vim.api.nvim_buf_set_lines(script_buffer, 1, 2, false, { "await tools." })
  notified = {}
  vim.cmd("write")
  vim.wait(20000, function() return #notified > 0 end, 50)
  check("a script that does not parse is not written", #notified == 1 and notified[1].message ==
    "RolloutScript: not written: the script does not parse (line 2, column 1): syntax error: unexpected 'await tools.'"
    and vim.bo[script_buffer].modified and vim.api.nvim_buf_get_lines(rollout, 4, 5, false)[1] == record_before,
    notified)

  vim.api.nvim_buf_set_lines(script_buffer, 0, 2, false, {
    'const r = await tools.exec_command({cmd: "pytest -q", workdir: "/home/u/proj"});', "text(r);" })
  notified = {}
  vim.cmd("write")
  vim.wait(20000, function() return not vim.bo[script_buffer].modified and not vim.bo[rollout].modified end, 50)
  local record_after = vim.api.nvim_buf_get_lines(rollout, 4, 5, false)[1]
  local on_disk = vim.fn.readfile(copy)[5]
  local expected = record_before:gsub(vim.pesc("pytest -q tests/test_greet.py"), "pytest -q")
  check(":w writes the script into the rollout and saves it", record_after == expected and on_disk == expected
    and #notified == 0 and not vim.bo[rollout].modified, { buffer = record_after, disk = on_disk, notified = notified })
  vim.fn.delete(folder, "rf")

  -- blame: the generated repository is outside the workspace (this clone): the setting extends blame to it
  -- (Neovim 0.7 answers no workspace/configuration: the notification carries the section)
  check("the blame world is built", vim.v.shell_error == 0 and vim.fn.filereadable(world .. "/index.sqlite3") == 1,
    built)
  local client = vim.lsp.get_client_by_id(client_id)
  client.notify("workspace/didChangeConfiguration", { settings = { rolloutLsp = { blameOutsideWorkspace = true } } })
  local app_path = world .. "/repo/src/app.py"
  vim.wait(20000, function()
    local answer = client.request_sync("textDocument/codeLens", { textDocument = { uri = vim.uri_from_fname(app_path) } },
      5000)
    return answer and answer.result and #answer.result == 1
  end, 100)
  vim.cmd("edit " .. vim.fn.fnameescape(app_path)) -- not attached: blame reads the file from disk
  local app = vim.api.nvim_get_current_buf()
  local ns = vim.api.nvim_create_namespace("rollout_blame")
  vim.wait(20000, function() return #vim.api.nvim_buf_get_extmarks(app, ns, 0, -1, {}) == 1 end, 50)
  local marks = vim.api.nvim_buf_get_extmarks(app, ns, 0, -1, { details = true })
  local mark = marks[1] or {}
  local lens_text = mark[4] and mark[4].virt_text and mark[4].virt_text[1][1]
  check("blame: the lens's text on the file's first line", #marks == 1 and mark[2] == 0
    and lens_text == "changed by 3 Codex sessions · last: 2026-03-01 add a review note"
    and not vim.lsp.buf_is_attached(app, client_id), marks)

  local function floating()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then return win end
    end
  end
  vim.api.nvim_win_set_cursor(0, { 12, 4 })
  vim.cmd("RolloutBlameHover")
  vim.wait(20000, function() return floating() ~= nil end, 50)
  local float = floating()
  local hover_text = float and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false),
    "\n") or ""
  check("blame: the hover on an attributed line", hover_text:find("019b0000-0000-7000-8000-00000000000b", 1, true)
    and hover_text:find("capitalise the greeting", 1, true)
    and hover_text:find('+    return f"Hello, {name}!"', 1, true) and hover_text:find("then ran", 1, true), hover_text)
  if float then vim.api.nvim_win_close(float, true) end

  local rollout_c = vim.fn.glob(world .. "/sessions/*019c0000*.jsonl")
  local rollout_b = vim.fn.glob(world .. "/sessions/*019b0000*.jsonl")
  vim.api.nvim_win_set_cursor(0, { 5, 0 }) -- "    # reviewed on windows", added by session C
  local shown_before = #shown
  vim.cmd("RolloutBlameLine")
  vim.wait(20000, function() return vim.api.nvim_buf_get_name(0) == rollout_c end, 50)
  check("blame: RolloutBlameLine opens the rollout at the patch", vim.api.nvim_buf_get_name(0) == rollout_c
    and #shown == shown_before + 1 and vim.deep_equal(vim.api.nvim_win_get_cursor(0), { 4, 0 }),
    { buffer = vim.api.nvim_buf_get_name(0), cursor = vim.api.nvim_win_get_cursor(0) })

  -- from the rollout to the file: session B's exec record (line 4) has the lens `open src/app.py`; a rollout's
  -- changed file is read only inside a workspace folder (docs/security.md), so the repository is added as one
  client.notify("workspace/didChangeWorkspaceFolders", { event = {
    added = { { uri = vim.uri_from_fname(world .. "/repo"), name = "repo" } }, removed = {} } })
  local b, b_uri = open(rollout_b)
  local b_lenses = request(b, "textDocument/codeLens", { textDocument = { uri = b_uri } }) or {}
  local open_app
  for _, l in ipairs(b_lenses) do
    if l.command and l.command.title == "open src/app.py" then open_app = l end
  end
  check("blame: the rollout's lens opens the file", open_app and open_app.range.start.line == 3
    and open_app.command.command == "rollout-lsp.openChangedFile", b_lenses)
  if open_app then
    vim.lsp.buf.execute_command(open_app.command)
    vim.wait(20000, function() return vim.api.nvim_buf_get_name(0) == app_path end, 50)
  end
  check("blame: at the first line of the hunk", vim.api.nvim_buf_get_name(0) == app_path
    and vim.deep_equal(vim.api.nvim_win_get_cursor(0), { 11, 0 }),
    { buffer = vim.api.nvim_buf_get_name(0), cursor = vim.api.nvim_win_get_cursor(0) })
  vim.fn.delete(world, "rf")
end)
check("no error in the test itself", ok, err)
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish()
