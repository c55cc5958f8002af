"""Check: the compiled path (numba) and the numpy fallback give the same fits on a config's
trials — the selection (λ*, t*, ...), the test RMSE and the test predictions (largest relative
difference) of every algorithm and trial, fitted once per path as the runner fits them.

With ``--save FILE.npz`` the predictions and selections are kept, and ``--against FILE.npz``
compares this run with a saved one instead (e.g. the code before a change: run the old
checkout with ``--save``, then this one with ``--against``).

    python -m reproduce.bench.compare_jit_paths configs/ci_cpusmall.yaml
    python -m reproduce.bench.compare_jit_paths \\
        configs/adult_nytro.yaml --dtype float32 --paths numba
    python -m reproduce.bench.compare_jit_paths configs/ci_cpusmall.yaml --smoke  # seconds

Timings are not reported: this is a correctness check, not a benchmark.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment
from kernreg.experiment import (
    make_estimator,
    prepare_data,
    real_outputs,
    resolve_blas_threads,
    trial_split,
)
from kernreg.kernels import use_jit
from kernreg.solvers import rmse
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option


def fit_all(exp, data, trials: int, jit: bool, only: list[str] | None) -> dict[str, tuple]:
    """``{"label/trial": (selected, test RMSE, predictions)}`` on one path."""
    out = {}
    with use_jit(jit):
        for algo in exp.algorithms:
            if only and algo.label not in only:
                continue
            for trial in range(trials):
                seed, split = trial_split(exp, data, trial)
                est = make_estimator(algo, exp, random_state=seed).fit(*split)
                pred = np.asarray(real_outputs(est, data.X_test), dtype=np.float64)
                chosen = est.selection()
                out[f"{algo.label}/{trial}"] = (chosen.selected, rmse(data.y_test, pred), pred)
    return out


def compare(name_a: str, a: dict, name_b: str, b: dict) -> float:
    """Print one line per fit; return the largest relative prediction difference."""
    worst = 0.0
    for key in a:
        sel_a, rmse_a, pred_a = a[key]
        sel_b, rmse_b, pred_b = b[key]
        rel = float(np.linalg.norm(pred_a - pred_b) / max(np.linalg.norm(pred_b), 1e-300))
        worst = max(worst, rel)
        same = "same" if sel_a == sel_b or (sel_a is None and sel_b is None) or (
            np.isnan(float(sel_a)) and np.isnan(float(sel_b))) else "DIFFERENT"
        print(f"{key:24s} selected {name_a} {sel_a!s:>12.12} {name_b} {sel_b!s:>12.12} ({same}); "
              f"test RMSE {rmse_a:.6f} / {rmse_b:.6f}; predictions rel. diff {rel:.2e}",
              flush=True)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--trials", type=int, help="default: the config's")
    parser.add_argument("--dtype", choices=["float64", "float32"],
                        help="override the dataset's dtype")
    parser.add_argument("--paths", nargs="+", default=["numba", "numpy"],
                        choices=["numba", "numpy"])
    parser.add_argument("--only", action="append", help="only this algorithm label (repeatable)")
    parser.add_argument("--save", type=Path, help="keep this run's results")
    parser.add_argument("--against", type=Path,
                        help="compare each path with the same path of a saved run")
    add_smoke_option(parser)
    args = parser.parse_args()
    exp = load_experiment(args.config, {"dataset": {"dtype": args.dtype}} if args.dtype else None,
                          smoke=args.smoke)
    trials = args.trials or exp.protocol["trials"]
    with Bench("reproduce/bench/compare_jit_paths.py",
               threads=resolve_blas_threads(exp.budget["blas_threads"]), rates=False):
        data = prepare_data(exp)
        runs = {p: fit_all(exp, data, trials, p == "numba", args.only) for p in args.paths}
    if len(runs) == 2:
        print(f"largest relative prediction difference: "
              f"{compare('numba', runs['numba'], 'numpy', runs['numpy']):.2e}")
    fields = ("selected", "rmse", "pred")
    if args.save:
        np.savez(args.save, **{f"{p}|{k}|{f}": v for p, run in runs.items()
                               for k, row in run.items() for f, v in zip(fields, row,
                                                                         strict=True)})
    if args.against:
        saved = np.load(args.against)
        for p, run in runs.items():
            if f"{p}|{next(iter(run))}|pred" not in saved:
                continue
            before = {k: tuple(saved[f"{p}|{k}|{f}"][()] for f in fields) for k in run}
            print(f"{p}: largest relative prediction difference, now / saved: "
                  f"{compare('now', run, 'saved', before):.2e}")

if __name__ == "__main__":
    main()
