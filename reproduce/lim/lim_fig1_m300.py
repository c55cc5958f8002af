"""LiM Figure 1's breast-cancer point value m = 300, λ = 4.28e-6 (1.24% test classification
error over 20 trials), one factor at a time.

The base reading is the authors' Figure 1 script as
configs/lim_fig1_points_breast_cancer_fitrows.yaml runs it (Enitor
scripts/scriptone_nips/prova_sigma_forzato_breastCancer.m, 2015-06-05: batch Nyström with the
identity penalty λn·I, {0, 1} targets, the model of the 320 fit rows scored on the test rows
without a refit, the test set the last 169 rows of wdbc.data, min-max scaling over all 569
rows, σ = 0.9). Each other variant changes one factor of it and keeps the trials' seeds, so
the 80/20 splits and the center draws are the base's (where the rows are the same):

``kmm_penalty``     the papers' λn·K_mm penalty
``refit``           the selected model refit on all 400 training rows
``pm1_targets``     ±1 targets (class by the sign)
``random_test``     a random 400/169 train/test split per trial instead of the fixed last 169 rows
``minmax_train``    min-max scaling over the 400 training rows only
``sigma_0.791``     σ = 0.791 (the σ of the authors' earlier plot1_breastCancer_laptop.m)
``lambda_down``, ``lambda_up``  the neighbouring points of the authors' λ grid
                    logspace(-3, -12, 20), of which 4.28e-6 is the sixth
``trials_1000``     the base over 1000 trials: the spread of a 20-trial mean (50 disjoint blocks)

Every trial's test error is written to results/lim_fig1_m300.csv (one row per variant and
trial); docs/lim.md renders it (reproduce/docs_tables/paper_tables.py,
``lim_fig1_m300``: mean ± std per variant beside the paper's 1.24%).

    python -m reproduce.lim.lim_fig1_m300
    python -m reproduce.lim.lim_fig1_m300 --smoke --trials 2 -o {out}/lim_fig1_m300.csv
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kernreg.config import experiment_task, load_experiment, make_estimator
from kernreg.experiment.trial import (
    PreparedData,
    prepare_data,
    real_outputs,
    trial_seed,
    trial_split,
)
from reproduce.results_csv import write_results_csv

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "lim_fig1_points_breast_cancer_fitrows.yaml"
LABEL = "m300_lam4.28e-6_identity_fitrows"
#: The authors' λ grid (prova_sigma_forzato_breastCancer.m) and the text's λ, its sixth point.
AUTHORS_LAMBDAS = np.logspace(-3, -12, 20)
PAPER_LAMBDA = 4.28e-6
PAPER_ERROR = 0.0124

#: Each variant: its name, what it changes, and the change (data, estimator parameters).
VARIANTS: dict[str, str] = {
    "base": "the authors' script: λn·I, {0, 1} targets, no refit, the last 169 rows as test "
            "set, min-max over all 569 rows, σ = 0.9",
    "kmm_penalty": "the papers' λn·K_mm penalty",
    "refit": "refit on all 400 training rows",
    "pm1_targets": "±1 targets",
    "random_test": "a random 400/169 train/test split per trial",
    "minmax_train": "min-max scaling over the 400 training rows only",
    "sigma_0.791": "σ = 0.791 (the authors' earlier Figure 1 script)",
    "lambda_down": "λ one step down the authors' grid",
    "lambda_up": "λ one step up the authors' grid",
    "trials_1000": "the base over 1000 trials",
}


def _grid_neighbours() -> tuple[float, float, float]:
    """The authors' grid point nearest the text's λ and its two neighbours (down, at, up)."""
    k = int(np.argmin(np.abs(np.log10(AUTHORS_LAMBDAS / PAPER_LAMBDA))))
    return float(AUTHORS_LAMBDAS[k + 1]), float(AUTHORS_LAMBDAS[k]), float(AUTHORS_LAMBDAS[k - 1])


def _all_rows(data: PreparedData) -> tuple[np.ndarray, np.ndarray]:
    return np.vstack([data.X_train, data.X_test]), np.concatenate([data.y_train, data.y_test])


def _rescaled(data: PreparedData, how: str) -> PreparedData:
    """The data min-max scaled over its training rows only (``how``: "minmax_train"). The
    prepared features are min-max scaled over all 569 rows, an affine map per column, so this
    equals min-max scaling the raw features over the training rows."""
    if how != "minmax_train":
        raise ValueError(f"unknown scaling {how!r}")
    lo, hi = data.X_train.min(axis=0), data.X_train.max(axis=0)
    shift, scale = lo, np.where(hi > lo, hi - lo, 1.0)
    return dataclasses.replace(data, X_train=(data.X_train - shift) / scale,
                               X_test=(data.X_test - shift) / scale)


def _pm1(data: PreparedData) -> PreparedData:
    high = data.codes[1]
    recode = lambda y: np.where(y == high, 1.0, -1.0)  # noqa: E731
    return dataclasses.replace(data, y_train=recode(data.y_train), y_test=recode(data.y_test),
                               codes=(-1.0, 1.0))


def _random_test(data: PreparedData, seed: int) -> PreparedData:
    """A random train/test split of all 569 rows with the original sizes (seeded by the
    trial's seed, its own stream)."""
    X, y = _all_rows(data)
    order = np.random.default_rng([seed, 0x7E57]).permutation(len(y))
    tr, te = order[:len(data.y_train)], order[len(data.y_train):]
    return dataclasses.replace(data, X_train=X[tr], y_train=y[tr], X_test=X[te], y_test=y[te])


def variant_setup(name: str, data: PreparedData, seed: int
                  ) -> tuple[PreparedData, dict[str, Any]]:
    """The data and the estimator parameters of variant ``name`` for one trial."""
    down, _, up = _grid_neighbours()
    changes: dict[str, Callable[[], tuple[PreparedData, dict[str, Any]]]] = {
        "base": lambda: (data, {}),
        "trials_1000": lambda: (data, {}),
        "kmm_penalty": lambda: (data, {"penalty": "kmm"}),
        "refit": lambda: (data, {"refit": True}),
        "pm1_targets": lambda: (_pm1(data), {}),
        "random_test": lambda: (_random_test(data, seed), {}),
        "minmax_train": lambda: (_rescaled(data, "minmax_train"), {}),
        "sigma_0.791": lambda: (data, {"sigma": 0.791}),
        "lambda_down": lambda: (data, {"lambdas": [down], "lam": down}),
        "lambda_up": lambda: (data, {"lambdas": [up], "lam": up}),
    }
    return changes[name]()


def run_variant(name: str, trials: int, smoke: bool = False) -> list[dict[str, Any]]:
    """Test classification error of every trial of variant ``name``."""
    exp = load_experiment(CONFIG, smoke=smoke)
    algo = next(a for a in exp.algorithms if a.label == LABEL)
    base = prepare_data(exp)
    task = experiment_task(exp.task, exp.dataset["name"])
    rows = []
    for t in range(trials):
        data, params = variant_setup(name, base, trial_seed(exp.protocol["seed"], t))
        seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, t)
        est = make_estimator(algo, exp, random_state=seed)
        est.set_params(**params)
        est.fit(X_fit, y_fit, X_val, y_val)
        f = real_outputs(est, data.X_test)
        error = task.evaluate(data.y_test, f, data.codes)["error"]
        rows.append({"variant": name, "trial": t, "seed": seed, "m": int(est.alpha_.size),
                     "lambda": float(est.best_lambda_), "penalty": est.penalty,
                     "refit": bool(est.refit), "sigma": float(est.sigma),
                     "n_fit": len(y_fit), "n_test": len(data.y_test),
                     "test_errors": round(error * len(data.y_test)),
                     "test_error": float(error)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce.lim.lim_fig1_m300",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="trials per variant (20)")
    parser.add_argument("--smoke", action="store_true", help="the config at smoke size")
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "results" / "lim_fig1_m300.csv")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for name in args.variants:
        start = time.perf_counter()
        trials = max(args.trials, 1000) if name == "trials_1000" and not args.smoke else args.trials
        done = run_variant(name, trials, args.smoke)
        errors = np.array([r["test_error"] for r in done])
        print(f"{name}: {errors.mean():.5f} ± {errors.std():.5f} over {len(errors)} trials "
              f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
        rows += done
    write_results_csv(args.output, rows, "LiM Figure 1, breast cancer m = 300, λ = 4.28e-6 "
                                         "(paper: 1.24% over 20 trials), one factor at a time: "
                                         "python -m reproduce.lim.lim_fig1_m300")
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
