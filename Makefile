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

.PHONY: help install test lint docs data smoke table1 table2 lim-table1 lim-table1-full \
        lim-fig1-points figures theory-figures beyond samplers sampler-ranks advise bench-table2 \
        table2-render \
        thesis-table6 thesis-table6-full thesis-table6-full-costs thesis-table7 bench-rlsc \
        bench-acceleration bench-data bench-load bench-dask clean

# The runs behind the paper figures (LiM Figure 1 has three panels, thesis Figure 5.3 two).
FIGURE_RUNS := lim_fig1_pumadyn32nh lim_fig1_breast_cancer lim_fig1_cpusmall lim_fig2_cpusmall \
               nytro_fig2_cpusmall thesis_fig53_pumadyn32nh thesis_fig53_breast_cancer

help:
	@echo "make install     create $(VENV) and install kernreg with its dev tools"
	@echo "make test        run the test suite (offline; uses the mirror if present)"
	@echo "make lint        ruff check"
	@echo "make docs        render the measured tables of README.md and docs/ from results/ (seconds)"
	@echo "make data        fetch, verify and cache every dataset that can be had"
	@echo "make smoke       a one-minute real run (Adult subsample, NKRLS + NYTRO)"
	@echo "make table1      NYTRO Table 1 (datasets) -> results/table1.md"
	@echo "make thesis-table6 thesis Table 6.2 small rows + Figures 6.1, 6.2 (~10 min)"
	@echo "make thesis-table6-full thesis Table 6.2, full adult and ijcnn1 rows, 10 trials a cell (~3.5 h)"
	@echo "                 -> results/thesis_table6_full.md"
	@echo "make thesis-table6-full-costs  LIBSVM per C, SIGM per epoch on the full rows (~25 min)"
	@echo "make lim-table1  LiM Table 1, the authors' code and the paper's reading (~40 min)"
	@echo "                 -> results/lim_table1.md, results/lim_table1_selected.md"
	@echo "make lim-table1-full  every column of LiM Table 1 / thesis Table 5.1 that runs here"
	@echo "                 (hours: Forest) -> results/lim_table1_full.md; the thesis's σ against"
	@echo "                 a hold-out's -> results/lim_table1_sigma.md"
	@echo "make lim-fig1-points  the point values of LiM Figure 1's text, three readings each (~12 min"
	@echo "                 on a loaded 2-core host) -> results/lim_fig1_points.md"
	@echo "make figures     LiM Figures 1-2, NYTRO Figure 2, thesis Figure 5.3 -> results/figures/"
	@echo "make theory-figures  Bach 2013 Figs 1-3 + Table 1, thesis Figs 5.1-5.2, NYTRO Fig 1 (~30 min"
	@echo "                 on one core) -> results/figures/, results/bach_table1.md; docs/theory.md"
	@echo "make sampler-ranks  centers each sampler needs to reach KRLS within 1% (~15 min)"
	@echo "make beyond      samplers, ν-method, random features, PCG on 4 datasets (~1 h) -> results/beyond.md"
	@echo "make samplers    NKRLS with uniform vs leverage-score centers on cpuSmall (~1 min)"
	@echo "                 -> results/samplers_cpusmall.csv"
	@echo "make advise      kernreg advise on the Table 2 datasets vs their measured winners (~2 min)"
	@echo "make bench-table2 NKRLS, NYTRO times vs the paper and scikit-learn (about 2 hours)"
	@echo "make table2      run NYTRO Table 2 (resumes finished trials; hours) -> results/table2.md"
	@echo "make table2-render  Table 2 from the runs present + the committed trials (seconds)"
	@echo "make bench-acceleration NYTRO vs the ν-method: iterations and time to the same error"
	@echo "make bench-data  time loading covtype_binary and adult from the binary cache"
	@echo "make bench-load  a fit alone and beside competing processes, per BLAS thread count"
	@echo "make bench-dask  NKRLS/NYTRO on a 2-worker LocalCluster against local (Dask extra)"
	@echo "make thesis-table7 thesis Table 7.1 / Figure 7.3 (MNIST, 10 trials, ~15 min) and Figure 7.1"
	@echo "                 -> results/thesis_table7.md, results/figures/thesis_fig7_*.png"
	@echo "make bench-rlsc  incremental RLSC update time per example vs n, beside RB's refit"
	@echo "make gpu-check-pack  fill gpu_carry/ (wheels + mirror files) for the GPU check"
	@echo "make gpu-check   Table 2 cells on a GPU and its CPU cores, one run < 8 min (docs/gpu.md)"
	@echo "make bench-torch-cpu  PyTorch's CPU build against numpy/numba: kernel block, NYTRO pass"
	@echo "make clean       remove caches of prepared data and build artefacts"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	# PyTorch's CPU build first (device: torch in the tests): an unpinned torch pulls a CUDA
	# build of several GB, which a machine without a GPU does not need
	$(BIN)/python -m pip install torch==2.13.0
	$(BIN)/python -m pip install -e '.[dev,dask,torch]'

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check kernreg tests scripts

# Every <!-- kernreg:table NAME --> block of README.md and docs/*.md, re-rendered from the
# committed results files (kernreg.results.docs; tests/test_docs_tables.py checks them).
docs:
	$(BIN)/python scripts/render_docs.py

data:
	$(BIN)/kernreg data fetch all --skip-missing

smoke:
	$(BIN)/kernreg run configs/smoke.yaml --out results --force

table1:
	$(BIN)/kernreg table configs/table2.yaml --table table1 -o results/table1.md

# Each run resumes its finished trials; a run that cannot start here (memory budget, missing
# data) says why and the next one goes on. The table marks cells not run with the reason.
table2:
	$(BIN)/kernreg run configs/table2.yaml --no-progress
	$(MAKE) --no-print-directory table2-render

# The table from the run folders present, each (experiment, label) without one taken from the
# committed trials (results/table2_trials.csv, rewritten with the rows behind the table): after
# e.g. `kernreg run configs/adult_all.yaml --only kols`, only those cells change.
table2-render:
	$(BIN)/kernreg table configs/table2.yaml --compare-paper --fallback results/table2_trials.csv \
		--trials-out results/table2_trials.csv -o results/table2.md
	$(MAKE) --no-print-directory docs

# Thesis Table 6.2 (SGM / SIGM / LIBSVM, hinge loss), its small rows (minutes), and Figures
# 6.1 and 6.2 (one run each, about a minute); the full adult and ijcnn1 rows: thesis-table6-full.
THESIS6_SMALL := breast_cancer adult_1000 ijcnn1_1000
thesis-table6:
	for row in $(THESIS6_SMALL); do $(BIN)/kernreg run configs/thesis_table6_$$row.yaml --no-progress --resume || exit 1; done
	$(BIN)/kernreg table configs/thesis_table6.table.yaml -o results/thesis_table6.md
	$(BIN)/kernreg run configs/thesis_fig6_adult_1000.yaml --no-progress --resume
	$(BIN)/python scripts/thesis_ch6_figures.py --run results/thesis_fig6_adult_1000 --out results/figures
	$(MAKE) --no-print-directory docs

thesis-table6-full:
	$(BIN)/kernreg run configs/thesis_table6_adult.yaml --no-progress --resume
	$(BIN)/kernreg run configs/thesis_table6_ijcnn1.yaml --no-progress --resume
	$(BIN)/kernreg table configs/thesis_table6_full.table.yaml -o results/thesis_table6_full.md
	$(MAKE) --no-print-directory docs

# The parts of a full-row trial: LIBSVM per C (20 min budget each, with each C's test error),
# SIGM's set-up and 2 epochs
# -> results/thesis_table6_full_costs.csv.
thesis-table6-full-costs:
	rm -f results/thesis_table6_full_costs.csv
	for row in adult ijcnn1; do \
	  $(BIN)/python scripts/thesis_ch6_full_costs.py $$row sigm --label SIGM_C --epochs 2 --csv results/thesis_table6_full_costs.csv || exit 1; \
	  $(BIN)/python scripts/thesis_ch6_full_costs.py $$row libsvm --budget-s 1200 --test --csv results/thesis_table6_full_costs.csv || exit 1; done
	$(MAKE) --no-print-directory docs

lim-table1:
	$(BIN)/kernreg run configs/lim_table1.yaml --no-progress
	$(BIN)/kernreg table configs/lim_table1.yaml -o results/lim_table1.md
	$(BIN)/kernreg run configs/lim_table1_selected.yaml --no-progress
	$(BIN)/kernreg table configs/lim_table1_selected.yaml -o results/lim_table1_selected.md
	$(MAKE) --no-print-directory docs

lim-table1-full:
	$(BIN)/kernreg run configs/lim_table1_full.yaml --no-progress
	$(BIN)/kernreg table configs/lim_table1_full.yaml -o results/lim_table1_full.md
	$(BIN)/kernreg run configs/lim_table1_full_insurance_sigma.yaml --resume --no-progress
	$(BIN)/kernreg run configs/lim_table1_full_cpu_act_sigma.yaml --resume --no-progress
	$(BIN)/kernreg table configs/lim_table1_sigma.yaml -o results/lim_table1_sigma.md
	$(MAKE) --no-print-directory docs

lim-fig1-points:
	$(BIN)/kernreg run configs/lim_fig1_points.yaml --no-progress
	$(BIN)/kernreg table configs/lim_fig1_points.yaml -o results/lim_fig1_points.md
	$(MAKE) --no-print-directory docs

# Each run resumes its finished trials; its figures go to results/<run>/figures (PNG + PDF),
# and the PNGs are gathered in results/figures/ for the README.
figures:
	@rm -f $(foreach run,$(FIGURE_RUNS),results/figures/$(run)__*.png)
	@for run in $(FIGURE_RUNS); do \
	  $(BIN)/kernreg run configs/$$run.yaml --resume --no-progress > /dev/null || exit 1; \
	  figs=$$($(BIN)/kernreg plot results/$$run) || exit 1; \
	  mkdir -p results/figures; \
	  for f in $$figs; do case $$f in *.png) cp $$f results/figures/$${run}__$$(basename $$f);; esac; done; \
	done
	$(BIN)/kernreg report $(addprefix results/,$(FIGURE_RUNS)) --title "kernreg: paper figures" \
	  -o results/figures/report.html
	@ls results/figures

# The theory figures: one script each, closed-form models and small matrices (docs/theory.md).
# NYTRO Figure 1 places the Table 2 datasets with `kernreg advise` (run first where missing).
THEORY_SCRIPTS := bach_fig1 bach_fig2 bach_fig3 thesis_fig5_1 thesis_fig5_2
theory-figures:
	@for s in $(THEORY_SCRIPTS); do $(BIN)/python scripts/$$s.py || exit 1; done
	$(BIN)/python scripts/bach_fig2.py --noise 1 -o results/figures/bach_fig2_sigma1.png
	$(BIN)/python scripts/bach_table1.py -o results/bach_table1.md
	@for ds in $(ADVISE_DATASETS); do test -f results/advise/$$ds.json || \
	  $(BIN)/kernreg advise $$ds --out results/advise || echo "$$ds: skipped"; done
	$(BIN)/python scripts/nytro_fig1.py --advice-dir results/advise -o results/figures/nytro_fig1.png
	$(MAKE) --no-print-directory docs

# Center samplers side by side: the rank each needs to reach KRLS within 1% (docs/theory.md).
sampler-ranks:
	$(BIN)/python scripts/sampler_ranks.py -o results/sampler_ranks.md
	$(MAKE) --no-print-directory docs

beyond:
	$(BIN)/kernreg run configs/beyond.yaml --no-progress > /dev/null
	$(BIN)/kernreg table configs/beyond.yaml -o results/beyond.md
	$(MAKE) --no-print-directory docs

samplers:
	$(BIN)/kernreg run configs/samplers_cpusmall.yaml --no-progress > /dev/null
	$(BIN)/python scripts/run_summary.py results/samplers_cpusmall -o results/samplers_cpusmall.csv
	$(MAKE) --no-print-directory docs

# A dataset that cannot be loaded here (not in the mirror, no internet) is reported and skipped;
# the comparison marks it NA. The maps go to results/figures/ for the README.
ADVISE_DATASETS := insurance adult ijcnn1 covtype_binary yearprediction
advise:
	@for ds in $(ADVISE_DATASETS); do \
	  $(BIN)/kernreg advise $$ds --out results/advise || echo "$$ds: skipped"; done
	$(BIN)/python scripts/advise_table2.py --advice-dir results/advise -o results/advise_table2.md
	@mkdir -p results/figures
	@for f in results/advise/*.png; do cp $$f results/figures/advise_$$(basename $$f); done
	$(MAKE) --no-print-directory docs

bench-table2:
	$(BIN)/python scripts/bench_table2.py insurance adult ijcnn1 --repeats 5 --baseline
	$(BIN)/python scripts/bench_table2.py insurance adult ijcnn1 --repeats 5 --dtype float32
	$(BIN)/python scripts/bench_table2.py covtype_binary yearprediction --repeats 1 --dtype float32
	$(MAKE) --no-print-directory docs

bench-acceleration:
	$(BIN)/python scripts/bench_acceleration.py cpusmall insurance adult ijcnn1 --repeats 3
	$(MAKE) --no-print-directory docs

bench-data:
	$(BIN)/python scripts/bench_data_load.py covtype_binary adult --repeats 5

bench-load:
	$(BIN)/python scripts/bench_load.py --repeats 5
	$(MAKE) --no-print-directory docs

bench-dask:
	$(BIN)/python scripts/bench_dask.py adult ijcnn1 --workers 2 --repeats 3
	$(BIN)/python scripts/bench_dask.py covtype_binary --workers 2 --algorithms nytro
	$(MAKE) --no-print-directory docs

# Thesis Chapter 7: the streaming protocol resumes its finished trials.
thesis-table7:
	$(BIN)/kernreg stream configs/thesis_table7.yaml --resume --no-progress \
	  --table results/thesis_table7.md --figure results/figures/thesis_fig7_3_mnist.png
	# trials 0-2 alone (finished above): the linear baseline of the Nyström extension's table
	$(BIN)/kernreg stream configs/thesis_table7.yaml --trials 3 --resume --no-progress \
	  --table results/thesis_table7_trials3.md --figure results/thesis_table7/fig7_3_trials3.png
	$(BIN)/python scripts/thesis_fig7_1.py -o results/figures/thesis_fig7_1.png
	$(MAKE) --no-print-directory docs

bench-rlsc:
	$(BIN)/python scripts/bench_rlsc_update.py --n 1000 2000 4000 8000 16000 32000
	$(MAKE) --no-print-directory docs

clean:
	rm -rf datasets/processed .pytest_cache .ruff_cache build *.egg-info

# The prepared GPU check (docs/gpu.md): on a machine with one GPU (no network), the Table 2 cells
# on the GPU and on its CPU cores in one run of < 8 minutes -> $OUT/gpu_check.csv when OUT is set,
# else results/gpu_check.csv. It reads the wheels and mirror files it lacks from gpu_carry/
# (make gpu-check-pack, here, with PyPI reachable); GPU_CHECK_ARGS passes options, e.g.
# `make gpu-check GPU_CHECK_ARGS="--device torch --quick"` for the dry run on PyTorch's CPU build.
# Its python: this checkout's venv where there is one, else python3 (the GPU image's).
.PHONY: gpu-check gpu-check-pack bench-torch-cpu
GPU_PYTHON ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,python3)
gpu-check:
	PYTHONUNBUFFERED=1 $(GPU_PYTHON) scripts/gpu_check.py $(GPU_CHECK_ARGS)

gpu-check-pack:
	$(BIN)/python scripts/gpu_check.py --pack

# PyPI's torch CPU build against numpy (+ the compiled numba layer) on this host: kernel blocks
# and NYTRO's normal pass -> results/bench_torch_cpu.csv (a minute or two; not in the cost model)
bench-torch-cpu:
	$(BIN)/python scripts/bench_torch_cpu.py
