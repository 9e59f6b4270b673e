# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
STAMP_BENCH := $(VENV)/.installed-bench

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

# The benchmarks' extra: OpenSpiel, the computer players' yardstick in Oh Hell.
$(STAMP_BENCH): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@ $(STAMP_DEV) $(STAMP_RUN)

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

# Engines and search states (OpenSpiel's oh_hell side by side), then strong
# against OpenSpiel's ISMCTSBot in Oh Hell at a small budget (docs/computer-players.md).
bench: $(STAMP_BENCH)
	$(BIN)/python bench/games.py
	$(BIN)/python bench/computer.py --games oh_hell --pairs strong:reference --think 0.25 --scale 0.5

soak: $(STAMP_DEV)
	$(BIN)/python bench/soak.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
