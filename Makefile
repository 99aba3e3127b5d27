# Two entry points for a fresh machine: `make demo` and `make test` (see README).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# `make test` runs the suite that needs nothing but this clone; `make test-corpus` the tests over ../shared/corpus
.PHONY: demo test test-corpus test-acorn install bench bench-smoke fuzz fidelity e2e e2e-nvim vscode clean

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

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q --ignore=tests/corpus tests

test-corpus: $(VENV)/.installed
	$(BIN)/python -m pytest -q tests/corpus

# counts on ../shared/corpus/wild: commands read / computed / unread, records paired, events matched; writes docs/fidelity.md
fidelity: $(VENV)/.installed
	$(BIN)/python bench/fidelity.py

# the full hardening run: every property with the full Hypothesis profile, and a 10,000-edit soak
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=full ROLLOUT_SOAK_EDITS=10000 $(BIN)/python -m pytest -q -s -p no:randomly \
		--hypothesis-show-statistics tests/test_hardening.py tests/test_server_robustness.py

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

vscode:
	cd vscode-client && npm ci --no-audit --no-fund && npm run typecheck && npm test && npm run package

# a real VS Code (code-server) in headless Chromium; screenshots land in docs/images/
e2e: $(VENV)/.installed vscode
	$(BIN)/python -m pip install -q -e '.[e2e]'
	$(BIN)/python -m pytest -q -p no:cacheprovider vscode-client/e2e

# a second real editor: Neovim (Debian's package) drives the server through its own LSP client
e2e-nvim: $(VENV)/.installed
	command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	timeout 600 nvim --headless -u NONE -i NONE -n -c "luafile tests/nvim/test_neovim.lua" -c "cquit 2"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
