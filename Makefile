# kernreg — set-up, tests, data and reproductions. `make help` lists the targets.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

# The offline dataset mirror (checked before any download) and the cache of prepared data.
export KERNREG_MIRROR ?= $(wildcard $(abspath $(CURDIR)/../shared/datasets))
export KERNREG_CACHE  ?= $(CURDIR)/datasets

.PHONY: help install test lint data smoke table1 table2 bench-table2 bench-data clean

help:
	@echo "make install     create $(VENV) and install kernreg with its dev tools"
	@echo "make test        run the test suite (offline; uses the mirror if present)"
	@echo "make lint        ruff check"
	@echo "make data        fetch, verify and cache every dataset that can be had"
	@echo "make smoke       a one-minute real run (Adult subsample, NKRLS + NYTRO)"
	@echo "make table1      NYTRO Table 1 (datasets) -> results/table1.md"
	@echo "make bench-table2 NKRLS, NYTRO times vs the paper and scikit-learn (about 2 hours)"
	@echo "make table2      run NYTRO Table 2 (resumes finished trials; hours) -> results/table2.md"
	@echo "make bench-data  time loading covtype_binary and adult from the binary cache"
	@echo "make clean       remove caches of prepared data and build artefacts"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check kernreg tests scripts

data:
	$(BIN)/kernreg data fetch all --skip-missing

smoke:
	$(BIN)/kernreg run configs/smoke.yaml --out results --force

table1:
	$(BIN)/kernreg table configs/table2.yaml --table 1 -o results/table1.md

# Each run resumes its finished trials; a run that cannot start here (memory budget, missing
# data) says why and the next one goes on. The table marks cells not run with the reason.
table2:
	$(BIN)/kernreg run configs/table2.yaml --no-progress
	$(BIN)/kernreg table configs/table2.yaml --compare-paper -o results/table2.md

bench-table2:
	$(BIN)/python scripts/bench_table2.py insurance adult ijcnn1 --repeats 5 --baseline
	$(BIN)/python scripts/bench_table2.py insurance adult ijcnn1 --repeats 5 --dtype float32
	$(BIN)/python scripts/bench_table2.py covtype_binary yearprediction --repeats 1 --dtype float32

bench-data:
	$(BIN)/python scripts/bench_data_load.py covtype_binary adult --repeats 5

clean:
	rm -rf datasets/processed .pytest_cache .ruff_cache build *.egg-info
