# callbreak_lab: one-command set-up. `make lab` opens the notebooks, `make test` runs every check.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install whenever pyproject.toml changes.
STAMP  := $(VENV)/.installed
# Jupyter refuses to run as root unless told; CI and these machines run as root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab test quick stress venv lint typecheck pytest clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

## Install into .venv and open JupyterLab on notebooks/ (LAB_ARGS passes extra options).
lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

## Install what the tests need and run lint, type checks and the whole test suite.
test: $(STAMP) lint typecheck browser-deps pytest

## The developer loop: lint and every test but the slow, browser and notebook ones (under 2 min).
## Bytecode is written even where the environment turns it off (PYTHONDONTWRITEBYTECODE), so a
## second run reuses the tests' rewritten modules (collection about 10 s instead of 18).
quick: $(STAMP) lint
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n 2 -m "not slow and not browser and not notebook and not stress" $(PYTEST_ARGS)

## The long load tests (numba's cache under two and eight processes compiling at once).
stress: $(STAMP)
	$(BIN)/python -m pytest -q -m stress $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check callbreak_lab tests benchmarks scripts
	$(BIN)/ruff format --check callbreak_lab tests benchmarks scripts

typecheck: $(STAMP)
	$(BIN)/mypy callbreak_lab

pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --durations=20 -m "not stress" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

## Serve the player's pages with Voilà on 127.0.0.1 (APP_PORT, APP_ARGS): http://127.0.0.1:8866/ lists
## them (evaluate a hand, play against the bots, the analysis board, the calling trainer, play lines),
## each at /voila/render/<notebook>.ipynb. app/voila.py sets the pages' template (nothing from a
## CDN), the kernel cap and idle culling.
APP_PORT ?= 8866
app: $(STAMP)
	JUPYTER_PATH=$(CURDIR)/app$${JUPYTER_PATH:+:$$JUPYTER_PATH} $(BIN)/voila notebooks --no-browser \
		--Voila.ip=127.0.0.1 --port=$(APP_PORT) --Voila.config_file_paths=$(CURDIR)/app $(APP_ARGS)

## Headless Chromium and its driver for tests/test_browser.py (Debian packages, as root; only if missing).
browser-deps:
	@test -x /usr/bin/chromium || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver; }

.PHONY: app browser-deps

## Serve the hand-evaluation HTTP service (JSON API and bot endpoints) on 127.0.0.1:8000.
serve: $(STAMP)
	$(BIN)/callbreak-lab serve --host 127.0.0.1 --port 8000

.PHONY: serve

## Regenerate the solved datasets and train, evaluate and save the bid models from scratch
## (resumable; MODELS_ARGS e.g. "--n 2000 --profiles modern"). Takes hours at full size. The models
## go to callbreak_lab/models/, where the package reads them; the reports to benchmarks/evaluation/.
MODELS_ARGS ?= --n 20000
models: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python scripts/make_models.py --jobs -1 $(MODELS_ARGS)

.PHONY: models

## Record arena deals per preset (four model players) and ship them as the match equity's model of
## a deal, callbreak_lab/models/equity_<preset>.npz and its card (resumable: chunks in
## build/equity/; EQUITY_ARGS e.g. "--rules online --deals 2000"). About 15 s a preset.
EQUITY_ARGS ?= --deals 8000 --players model --chunk 1000
equity: $(STAMP)
	nice -n 10 $(BIN)/python scripts/make_equity.py $(EQUITY_ARGS)

.PHONY: equity
