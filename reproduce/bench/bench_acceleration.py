"""Benchmark: NYTRO's Landweber iteration against the accelerated ν-method, side by side.

On one hold-out split (trial 0 of the protocol) of each dataset, at its paper σ and m:
NYTRO's whole validated path (``max_iter`` iterations) gives its best validation RMSE ``e*``
at iteration ``t*``; the ν-method's path gives the first iteration ``t_ν`` with validation
RMSE ≤ ``e*``. Both are then re-timed fitting exactly their iterations (``t*`` and ``t_ν``,
validation included, median of ``--repeats``), and the script prints iterations, seconds and
their ratios, with the BLAS threads and the host's rates before and after the run
(reproduce.bench.skeleton). Each dataset's line is also written to ``--csv``
(default results/bench_acceleration.csv, the source of the table in docs/solvers.md: ``make
docs``), replacing the row of the same dataset, m, max_iter and ν.

    python -m reproduce.bench.bench_acceleration cpusmall adult --repeats 3
    python -m reproduce.bench.bench_acceleration cpusmall insurance --repeats 1 --smoke \\
        --csv /tmp/bench_acceleration.csv  # 400 rows, m ≤ 40, ≤ 20 iterations: seconds
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kernreg.datasets import get_spec, load_dataset
from kernreg.experiment import blas_description, trial_seed
from kernreg.solvers import Nytro, holdout_split, rmse
from reproduce.bench.record import add_csv_options
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import (
    SMOKE_CENTERS,
    SMOKE_ITERATIONS,
    SMOKE_ROWS,
    add_smoke_option,
    host_gemm,
    smoke_run,
)

#: m per dataset: the paper's, else the one of this project's figures.
M = {"cpusmall": 1000, "adult": 1000, "ijcnn1": 5000, "insurance": 2000}
CSV = Path(__file__).resolve().parents[2] / "results" / "bench_acceleration.csv"
CSV_KEY = ["dataset", "sigma", "m", "max_iter", "nu"]
CSV_COLUMNS = [*CSV_KEY, "nytro_val_rmse", "nytro_t", "nytro_s", "nu_t", "nu_s", "repeats",
               "blas_threads", "host_gemm_gflops", "source"]


def _seconds(params: dict, data: tuple, repeats: int) -> tuple[Nytro, float]:
    """The last fit of ``Nytro(**params)`` on ``data`` and the median seconds of ``repeats``."""
    timing = Bench.time(lambda est: est.fit(*data), repeats, warmup=0,
                        setup=lambda: Nytro(**params))
    return timing.result, timing.median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", choices=sorted(M))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=500)
    parser.add_argument("--nu", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    add_csv_options(parser, CSV)
    add_smoke_option(parser, f"{SMOKE_ROWS} rows, m ≤ {SMOKE_CENTERS}, "
                             f"max_iter ≤ {SMOKE_ITERATIONS}")
    args = parser.parse_args()
    max_iter = min(args.max_iter, SMOKE_ITERATIONS) if args.smoke else args.max_iter
    with smoke_run(args.smoke), Bench("reproduce/bench/bench_acceleration.py",
                                      threads=args.threads, csv=args.csv, key=CSV_KEY,
                                      columns=CSV_COLUMNS) as bench:
        print(f"BLAS: {blas_description()}")
        print("dataset   m     e* (NYTRO)  t*   NYTRO s   t_nu  nu s    iter ratio  time ratio")
        for name in args.datasets:
            spec, ds = get_spec(name), load_dataset(name)
            seed = trial_seed(0, 0)
            X, y = ds.X_train, ds.y_train
            if args.smoke:  # a random slice of the training rows
                rows = np.random.default_rng(seed).permutation(len(y))[:SMOKE_ROWS]
                X, y = X[rows], y[rows]
            data = holdout_split(X, y, 0.2, random_state=np.random.default_rng(seed))
            m = min(M[name], SMOKE_CENTERS) if args.smoke else M[name]
            kw = {"sigma": spec.sigma, "m": m, "random_state": seed}
            # full paths: where each method gets to
            lw = Nytro(max_iter=max_iter, **kw).fit(*data)
            nu = Nytro(max_iter=max_iter, acceleration="nu", nu=args.nu, **kw).fit(*data)
            e_star, t_star = float(np.min(lw.path_["val_rmse"])), lw.best_iter_
            reached = np.flatnonzero(nu.path_["val_rmse"] <= e_star)
            row = {"dataset": name, "sigma": spec.sigma, "m": m, "max_iter": max_iter,
                   "nu": args.nu, "nytro_val_rmse": round(e_star, 6), "nytro_t": t_star,
                   "repeats": args.repeats, "host_gemm_gflops": round(host_gemm(), 1)}
            if reached.size == 0:
                print(f"{name:9s} {m:5d} {e_star:.5f}  {t_star:4d}  ν-method never "
                      f"reaches it in {max_iter} iterations")
                bench.record(row)  # NYTRO's time is not measured then: no seconds
                continue
            t_nu = int(reached[0]) + 1
            # re-timed at exactly the iterations each needs; a threshold of +99.9% keeps the
            # stopping rule from ending either path early
            fixed = {"stopping_rule": "window_linear_fitting", "threshold": 0.999}
            est_lw, s_lw = _seconds({"max_iter": t_star, **fixed, **kw}, data, args.repeats)
            est_nu, s_nu = _seconds({"max_iter": t_nu, "acceleration": "nu", "nu": args.nu,
                                     **fixed, **kw}, data, args.repeats)
            X_val, y_val = data[2], data[3]
            check = (rmse(y_val, est_lw.predict(X_val)), rmse(y_val, est_nu.predict(X_val)))
            print(f"{name:9s} {m:5d} {e_star:.5f}  {t_star:4d}  {s_lw:7.3f}  {t_nu:4d}  "
                  f"{s_nu:6.3f}  {t_nu / t_star:9.3f}  {s_nu / s_lw:9.3f}   "
                  f"(val RMSE of the re-timed fits {check[0]:.5f} / {check[1]:.5f})")
            bench.record({**row, "nytro_s": round(s_lw, 4), "nu_t": t_nu,
                          "nu_s": round(s_nu, 4)})


if __name__ == "__main__":
    main()
