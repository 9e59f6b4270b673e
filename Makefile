# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test lint typecheck bench soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/python -m bot

lint: $(STAMP_DEV)
	$(BIN)/ruff check .

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

test: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP_DEV)
	$(BIN)/python bench/games.py

soak: $(STAMP_DEV)
	$(BIN)/python bench/soak.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
