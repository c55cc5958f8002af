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

.PHONY: help install test lint docs data smoke clean gpu-check-pack \
        figures theory-figures artifacts

# Every result of the project is an artifact of the reproduction layer (reproduce/): one
# registration each, with its steps, inputs, outputs and docs tables. `python -m reproduce list`
# lists them; each target below is an alias of `python -m reproduce make NAME` (tests/
# test_reproduce.py checks that every artifact has its alias here and nothing else).
REPRODUCE := $(BIN)/python -m reproduce make

help:
	@echo "make install     create $(VENV) and install kernreg with its dev tools"
	@echo "make test        run the test suite (offline; uses the mirror if present)"
	@echo "make lint        ruff check"
	@echo "make docs        render the measured tables of README.md and docs/ from results/ (seconds)"
	@echo "make data        fetch, verify and cache every dataset that can be had"
	@echo "make smoke       a one-minute real run (Adult subsample, NKRLS + NYTRO)"
	@echo "make figures     LiM Figures 1-2, NYTRO Figure 2, thesis Figure 5.3 -> results/figures/"
	@echo "make theory-figures  Bach 2013 Figs 1-3 + Table 1, thesis Figs 5.1-5.2, NYTRO Fig 1"
	@echo "make gpu-check-pack  fill gpu_carry/ (wheels + mirror files) for the GPU check"
	@echo "make gpu-check   Table 2 cells on a GPU and its CPU cores, one run < 8 min (docs/gpu.md)"
	@echo "make clean       remove caches of prepared data and build artefacts"
	@echo "and one target per artifact (make NAME = python -m reproduce make NAME):"
	@$(BIN)/python -m reproduce list

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	# PyTorch's CPU build first (device: torch in the tests): an unpinned torch pulls a CUDA
	# build of several GB, which a machine without a GPU does not need
	$(BIN)/python -m pip install torch==2.13.0
	$(BIN)/python -m pip install -e '.[dev,dask,torch,jit,rdata,robot]'

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
ARTIFACTS := table1 table2 nytro-fig1 nytro-fig2 ijcnn1-nkrls-lambda-curve error-vs-time \
             lim-table1 lim-table1-full lim-fig1-points lim-fig1 lim-fig1-authors \
             lim-fig1-m300 lim-fig1-costs lim-fig2 \
             thesis-fig5-1 thesis-fig5-2 thesis-fig5-2-draws4 thesis-fig5-3 \
             thesis-table6 thesis-table6-1 thesis-fig6 thesis-table6-full thesis-table6-adult-libsvm \
             thesis-table6-full-costs \
             thesis-ch6-checks thesis-ch6-ijcnn1-subset thesis-table6-ijcnn1-sigm \
             thesis-fig8-4-sim thesis-table5-1-rf thesis-table5-1-rf-forest \
             thesis-table7 thesis-table7-threshold10 thesis-table7-nystrom thesis-table7-per-digit \
             bach-fig1 bach-fig2 bach-fig3 bach-table1 \
             beyond samplers sampler-ranks advise \
             bench-table2 bench-acceleration bench-load bench-dask bench-rlsc \
             bench-nkrls-precision bench-sgm-pass bench-torch-cpu \
             table2-notes adult-differences check-cpusmall ci-reference \
             synthetic-yearprediction \
             lim-fig1-points-checks rlsc-alpha-sweep bench-kernels bench-kols bench-blas-spin \
             bench-sigma-shared compare-jit-paths profile-fit bench-data gpu-check
.PHONY: $(ARTIFACTS)
$(ARTIFACTS):
	$(REPRODUCE) $@

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
	$(REPRODUCE) $(ARTIFACTS)

# The GPU check's carry folder (docs/gpu.md): the wheels and mirror files the GPU machine lacks,
# fetched here with PyPI reachable (the check itself is the artifact gpu-check)
gpu-check-pack:
	$(BIN)/python reproduce/bench/gpu_check.py --pack
