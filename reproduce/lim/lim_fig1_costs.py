"""LiM Figure 1's cost claims (LiM §4.2): pumadyn-32nh m = 62, λ = 1e-7 gives the test RMSE of
m = 1000, λ = 1e-3 "with a 3-fold speedup of the joint training and validation phase"; cpuSmall
m = 2679, λ = 1e-15 "requires less than half of the time and approximately half of the memory"
of m = 5000, λ = 1e-12.

Each cell is a trial of the point-value runs (configs/lim_fig1_points_pumadyn32nh.yaml: the
papers' λn·K_mm penalty with a refit; configs/lim_fig1_points_cpusmall_fitrows.yaml: the
authors' script, identity penalty, no refit), fitted in a fresh Python process of its own so
that its peak resident memory is its own: the model-selection time (``kernreg run``'s: the fit
on the fit rows, the validation predictions and the refit where the config asks, kernel
evaluations included) and the peak RSS during the fit beside the RSS before it (data loaded,
the same cell run once at smoke size first).
1 BLAS thread. One row per cell and trial in results/lim_fig1_costs.csv; docs/lim.md
renders the ratios (reproduce/docs_tables/paper_tables.py, ``lim_fig1_costs``).

    python -m reproduce.lim.lim_fig1_costs
    python -m reproduce.lim.lim_fig1_costs --smoke --trials 1 -o {out}/lim_fig1_costs.csv
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from reproduce.results_csv import write_results_csv

ROOT = Path(__file__).resolve().parents[2]
#: (dataset, config, the cheaper cell's label, the dearer cell's label, the text's claim)
PAIRS: tuple[tuple[str, str, str, str, str], ...] = (
    ("pumadyn32nh", "lim_fig1_points_pumadyn32nh", "m62_lam1e-7", "m1000_lam1e-3",
     "3-fold speed-up of training and validation"),
    ("cpusmall", "lim_fig1_points_cpusmall_fitrows", "m2679_lam1e-15_identity_fitrows",
     "m5000_lam1e-12_identity_fitrows", "less than half the time, about half the memory"),
)
#: Trials per cell (the text's counts: 10 on pumadyn-32nh, 5 on cpuSmall).
TRIALS = {"pumadyn32nh": 10, "cpusmall": 5}


def fit_cell(config: str, label: str, trial: int, smoke: bool) -> dict[str, Any]:
    """One trial of one cell, in this process: its times and memory."""
    import psutil

    from kernreg.config import load_experiment
    from kernreg.experiment.trial import prepare_data, run_trial

    path = ROOT / "configs" / f"{config}.yaml"
    # warm-up: the same cell at smoke size first, so that first-call costs (compiled kernel
    # loops, BLAS buffers) are not counted as the cell's
    warm = load_experiment(path, smoke=True)
    run_trial(warm, next(a for a in warm.algorithms if a.label == label), prepare_data(warm),
              trial)
    exp = load_experiment(path, smoke=smoke)
    algo = next(a for a in exp.algorithms if a.label == label)
    data = prepare_data(exp)
    before = psutil.Process().memory_info().rss
    record = run_trial(exp, algo, data, trial)
    return {"label": label, "m": int(algo.params["m"]), "trial": trial,
            "seconds": record.model_selection_time, "rss_before": before,
            "peak_rss": record.peak_rss, "test_rmse": record.test_rmse}


def run_pairs(trials: int | None, smoke: bool) -> list[dict[str, Any]]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    rows = []
    for dataset, config, small, large, claim in PAIRS:
        for t in range(trials or TRIALS[dataset]):
            for label in (small, large):
                out = subprocess.run(
                    [sys.executable, "-m", "reproduce.lim.lim_fig1_costs", "--cell", config,
                     label, str(t), *(["--smoke"] if smoke else [])],
                    check=True, capture_output=True, text=True, env=env, cwd=ROOT)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append({"dataset": dataset, "config": config, "pair": claim,
                             "role": "small" if label == small else "large", **row})
                print(f"{dataset} {label} trial {t}: {row['seconds']:.2f} s, peak RSS "
                      f"{row['peak_rss'] / 2**20:.0f} MiB (before {row['rss_before'] / 2**20:.0f})",
                      file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce.lim.lim_fig1_costs",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, help="trials per cell (the text's: 10, 5)")
    parser.add_argument("--smoke", action="store_true", help="the configs at smoke size")
    parser.add_argument("--cell", nargs=3, metavar=("CONFIG", "LABEL", "TRIAL"),
                        help=argparse.SUPPRESS)  # one fit, in the process the parent started
    parser.add_argument("-o", "--output", type=Path,
                        default=ROOT / "results" / "lim_fig1_costs.csv")
    args = parser.parse_args(argv)
    if args.cell:
        config, label, trial = args.cell
        print(json.dumps(fit_cell(config, label, int(trial), args.smoke)))
        return 0
    rows = run_pairs(args.trials, args.smoke)
    write_results_csv(args.output, rows, "LiM Figure 1's cost claims, each cell in a process of "
                                         "its own, 1 BLAS thread: python -m "
                                         "reproduce.lim.lim_fig1_costs")
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
