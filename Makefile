# Two entry points for a fresh machine: `make demo` and `make test` (see README).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install bench bench-smoke fuzz e2e vscode clean

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
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
