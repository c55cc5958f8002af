# kernreg — set-up, tests, data and reproductions. `make help` lists the targets.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

# The offline dataset mirror (checked before any download) and the cache of prepared data.
export KERNREG_MIRROR ?= $(wildcard $(abspath $(CURDIR)/../shared/datasets))
export KERNREG_CACHE  ?= $(CURDIR)/datasets
# OpenBLAS threads sleep right after a call (kernreg/__init__.py says why) in scripts too, which
# import numpy before kernreg
export OPENBLAS_THREAD_TIMEOUT ?= 4

.PHONY: help install test lint docs data smoke clean figures theory-figures artifacts

# Every result of the project is an artifact of the reproduction layer (reproduce/): one
# registration each, with its steps, inputs, outputs and docs tables. `python -m reproduce list`
# lists them; `make NAME` is `python -m reproduce make NAME` for each (the pattern rule at the
# end; tests/test_reproduce.py checks that every artifact is made through it).
REPRODUCE := $(BIN)/python -m reproduce make
# PyTorch's index of CPU-only wheels (make install)
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu

help:
	@echo "make install     create $(VENV) and install kernreg with its dev tools"
	@echo "make test        run the test suite (offline; uses the mirror if present)"
	@echo "make lint        ruff check"
	@echo "make docs        render the measured tables of README.md and docs/ from results/ (seconds)"
	@echo "make data        fetch, verify and cache every dataset that can be had"
	@echo "make smoke       a one-minute real run (Adult subsample, NKRLS + NYTRO)"
	@echo "make figures     LiM Figures 1-2, NYTRO Figure 2, thesis Figure 5.3 -> results/figures/"
	@echo "make theory-figures  Bach 2013 Figs 1-3 + Table 1, thesis Figs 5.1-5.2, NYTRO Fig 1"
	@echo "make gpu-check   Table 2 cells on the GPU and on the CPU, and their equality (docs/gpu.md)"
	@echo "make clean       remove caches of prepared data and build artefacts"
	@echo "and one target per artifact (make NAME = python -m reproduce make NAME):"
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m reproduce list; \
	 else echo "  (listed once make install has run)"; fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	# PyTorch's CPU build first (device: torch in the tests): PyPI's torch for Linux is the
	# CUDA build (several GB of GPU libraries), which a machine without a GPU does not need.
	# The CPU index's 2.13.0+cpu outranks it (a local version label sorts above the plain
	# one); where that index cannot be reached (an offline mirror) --retries 0 goes on at
	# once with the wheels at hand. A GPU machine: docs/gpu.md.
	$(BIN)/python -m pip install --retries 0 --extra-index-url $(TORCH_CPU_INDEX) torch==2.13.0
	$(BIN)/python -m pip install -e '.[dev,dask,torch,jit,parquet,rdata,robot]'

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check kernreg tests reproduce

# Every <!-- kernreg:table NAME --> block of README.md and docs/*.md, re-rendered from the
# committed results files (reproduce.docs_tables; tests/test_docs_tables.py checks them).
docs:
	$(BIN)/python -m reproduce.render_docs

data:
	$(BIN)/kernreg data fetch all --skip-missing

smoke:
	$(BIN)/kernreg run configs/smoke.yaml --out results --force

clean:
	rm -rf datasets/processed .pytest_cache .ruff_cache build *.egg-info

# ---------------------------------------------------------------- artifacts (reproduce/)
# the outputs of an artifact alone, from the runs present (its render-only steps)
.PHONY: table2-render
table2-render:
	$(REPRODUCE) table2 --render-only

# groups: the paper figures of runs, and the theory figures
FIGURE_RUNS := lim_fig1_pumadyn32nh lim_fig1_breast_cancer lim_fig1_cpusmall lim_fig2_cpusmall \
               nytro_fig2_cpusmall thesis_fig53_pumadyn32nh thesis_fig53_breast_cancer
figures:
	$(REPRODUCE) lim-fig1 lim-fig2 nytro-fig2 thesis-fig5-3
	$(BIN)/kernreg report $(addprefix results/,$(FIGURE_RUNS)) --title "kernreg: paper figures" \
	  -o results/figures/report.html

theory-figures:
	$(REPRODUCE) bach-fig1 bach-fig2 bach-fig3 thesis-fig5-1 thesis-fig5-2 bach-table1 nytro-fig1

# every artifact in turn (hours; each run resumes its finished trials)
artifacts:
	$(REPRODUCE) $(shell $(BIN)/python -m reproduce list --names)

# Any other target is an artifact: make NAME = python -m reproduce make NAME ('-' or '_'
# alike), which refuses a name the registry does not know and lists the names. FORCE runs it
# even where a file of that name exists; the Makefile's own rule keeps make from trying to
# remake it through this one.
Makefile: ;
.PHONY: FORCE
FORCE:
%: FORCE
	$(REPRODUCE) $@
