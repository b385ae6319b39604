# Two entry points: `make figures` and `make test`. Both create .venv with python3 (>= 3.11) when needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DATA   ?= data/sample
FIGURES ?= figures

.PHONY: all install test lint figures bench clean

all: test

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "rtlab needs Python >= 3.11, found " + sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check rtlab tests bench

test: lint
	$(BIN)/python -m pytest -q

figures: $(STAMP)
	$(BIN)/python -m rtlab.notebooks --data $(DATA) --figures $(FIGURES)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
