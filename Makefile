# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
STAMP_BENCH := $(VENV)/.installed-bench

.PHONY: run test lint typecheck bench soak clean chromium

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

# Debian's chromium (and a colour emoji font, as Telegram's clients have) for the
# Mini App's browser tests (tests/support/browser.py): installed by the test set-up
# where missing, as the PostgreSQL server comes with the dev extra. Playwright drives
# it; its own browser downloads are never used. Not root and no sudo: a note, and
# the browser tests skip (under CI they fail).
CHROMIUM_PACKAGES := chromium fonts-noto-color-emoji
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "no chromium: apt-get install $(CHROMIUM_PACKAGES), else the browser tests skip"; \
	  exit 0; fi; \
	  echo "installing Debian's $(CHROMIUM_PACKAGES) for the browser tests"; \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CHROMIUM_PACKAGES) \
	    >/dev/null; }

test: $(STAMP_DEV) chromium
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
