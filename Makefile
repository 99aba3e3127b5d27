# Two entry points for a fresh machine: `make demo` and `make test` (see README).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# `make test` runs the suite that needs nothing but this clone; `make test-corpus` the tests over ../shared/corpus;
# `make vsix-all` builds the .vsix of every platform and tests what is inside (tests/packaging)
.PHONY: demo lint test test-corpus test-acorn install bench bench-smoke fuzz fidelity e2e e2e-nvim e2e-emacs e2e-vim e2e-kate vscode vsix-all clean
TARGETS ?= linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64
E2E_VSIX := vscode-client/dist/codex-rollout-lsp-linux-x64.vsix

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/rollout-lsp outline fixtures/rollout-demo.jsonl
	@echo
	$(BIN)/rollout-lsp check --fail-on error fixtures/rollout-demo.jsonl

# the guardrails: ruff's lint and format check, then mypy as pyproject.toml's [tool.mypy] says (.ci/lint runs the same)
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n 2 --ignore=tests/corpus --ignore=tests/packaging --ignore=tests/editor_pickers tests

test-corpus: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n 2 tests/corpus

# counts on ../shared/corpus/wild: commands read / computed / unread, records paired, events matched; writes docs/fidelity.md
fidelity: $(VENV)/.installed
	$(BIN)/python bench/fidelity.py

# the full hardening run: every property with the full Hypothesis profile, and a 10,000-edit soak
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=full ROLLOUT_SOAK_EDITS=10000 $(BIN)/python -m pytest -q -s -p no:randomly \
		--hypothesis-show-statistics tests/test_hardening.py tests/server/test_server_robustness.py

bench/node_modules/.installed: bench/package-lock.json
	cd bench && npm ci --no-audit --no-fund
	touch $@

# the differential test against acorn + eslint-scope on generated scripts (needs node)
test-acorn: $(VENV)/.installed bench/node_modules/.installed
	$(BIN)/python -m pytest -q bench/differential

bench: $(VENV)/.installed bench/node_modules/.installed
	$(BIN)/python bench/run.py

bench-smoke: $(VENV)/.installed bench/node_modules/.installed
	$(BIN)/python bench/run.py --smoke

vscode-client/node_modules/.installed: vscode-client/package-lock.json
	cd vscode-client && npm ci --no-audit --no-fund
	touch $@

# the client's type check and unit tests
vscode: vscode-client/node_modules/.installed
	cd vscode-client && npm run typecheck && npm test

# one .vsix per platform in vscode-client/dist/, each with the server for CPython 3.10-3.13, then tests of each
vsix-all: $(VENV)/.installed vscode-client/node_modules/.installed
	cd vscode-client && TARGETS="$(TARGETS)" bash scripts/package-all.sh
	$(BIN)/python -m pytest -q tests/packaging

$(E2E_VSIX): vscode-client/node_modules/.installed $(shell git ls-files analysis lsp_server vscode-client/src vscode-client/scripts docs/findings.md pyproject.toml 2>/dev/null)
	cd vscode-client && TARGETS=linux-x64 bash scripts/package-all.sh

# a real VS Code (code-server) in headless Chromium, with the linux-x64 .vsix; screenshots land in docs/images/
e2e: $(VENV)/.installed $(E2E_VSIX)
	$(BIN)/python -m pip install -q -e '.[e2e]'
	$(BIN)/python -m pytest -q -p no:cacheprovider vscode-client/e2e

# a second real editor: Neovim (Debian's package) drives the server through its own LSP client
e2e-nvim: $(VENV)/.installed
	command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	timeout 600 nvim --headless -u NONE -i NONE -n -c "luafile tests/nvim/test_neovim.lua" -c "cquit 2"
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/editor_pickers/test_neovim_picker.py

# a third: Emacs with eglot (Debian's emacs-nox and elpa-eglot, installed when missing), set up as docs/editors.md says
e2e-emacs: $(VENV)/.installed
	command -v emacs >/dev/null || { apt-get update -qq && apt-get install -y -qq emacs-nox; }
	emacs --batch -Q --eval "(require 'eglot)" >/dev/null 2>&1 || ls -d /usr/share/emacs/site-lisp/elpa/eglot-* \
		>/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq elpa-eglot; }
	timeout 600 emacs --batch -Q -l tests/emacs/test_eglot.el
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/editor_pickers/test_emacs_picker.py

# and Vim with ALE (Debian's vim and vim-ale, installed when missing): byte columns through the positionEncoding option
e2e-vim: $(VENV)/.installed
	command -v vim >/dev/null && test -d /usr/share/vim-ale || { apt-get update -qq && apt-get install -y -qq vim vim-ale; }
	timeout 300 vim -N -u NONE -i NONE -es -S tests/vim/test_ale.vim

# and Kate 22.12 (Debian's kate and dbus, installed when missing) through its LSP client plugin, headless: Qt's
# offscreen platform in a D-Bus session (tests/kate/kate_e2e.py closes Kate's window over D-Bus)
e2e-kate: $(VENV)/.installed
	command -v kate >/dev/null && command -v dbus-run-session >/dev/null && command -v dbus-send >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends kate dbus; }
	QT_QPA_PLATFORM=offscreen timeout 600 dbus-run-session -- $(BIN)/python -m pytest -q -p no:cacheprovider tests/kate/kate_e2e.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build vscode-client/dist vscode-client/build vscode-client/bundled
