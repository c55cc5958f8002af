"""Check NKRLS against NYTRO on cpuSmall (σ = 0.1, m = 1000) and time their model selection.

Protocol (REFERENCE.md): the training set is shuffled and split 80/20 into fit / validation
parts (seeded); centers are drawn from the fit part; NKRLS searches 100 λ log-spaced in
[1e-15, 1], NYTRO runs at most 500 iterations with the default stopping rule (window linear
fitting, w = 10, θ = 0). "Model-selection time" is the wall time of ``fit`` with validation data:
kernel computations, the whole path and the validation evaluation, data loading excluded.

Run ``.venv/bin/python -m reproduce.nytro.check_cpusmall [--threads N] [--seed S] [--full]``.
The mirror is taken from ``KERNREG_MIRROR`` (default ``../shared/datasets`` next to the repository).

``--smoke`` runs the same fits at ``kernreg run --smoke`` size in seconds (400 training and 200
test rows drawn uniformly, 40 centers, 3 λ, 20 iterations): its numbers mean nothing, so the 10%
check is printed but does not set the exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from kernreg.config.smoke import (
    SMOKE_CENTERS,
    SMOKE_GRID_POINTS,
    SMOKE_ITERATIONS,
    SMOKE_ROWS,
    SMOKE_TEST_ROWS,
)
from kernreg.experiment import subsample_rng, subsample_rows
from kernreg.solvers import KRLS, KernelLandweber, NystromKRLS, Nytro, holdout_split, rmse

REPO = Path(__file__).resolve().parents[2]


def _blas_summary() -> str:
    libs = [
        f"{i.get('internal_api')} {i.get('version')} [{Path(i.get('filepath', '?')).name}] "
        f"{i.get('num_threads')} threads"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    return ", ".join(libs) or "no BLAS found by threadpoolctl"


def _timed_fit(est, X_fit, y_fit, X_val, y_val):
    t0 = time.perf_counter()
    est.fit(X_fit, y_fit, X_val, y_val)
    return est, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="BLAS threads")
    parser.add_argument("--seed", type=int, default=0, help="seed of split and centers")
    parser.add_argument("--m", type=int, default=1000, help="Nyström centers")
    parser.add_argument("--full", action="store_true", help="also run KRLS and ES (full kernel)")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny data and sizes: seconds, numbers that mean nothing")
    args = parser.parse_args(argv)
    n_lambdas, max_iter = (SMOKE_GRID_POINTS, SMOKE_ITERATIONS) if args.smoke else (100, 500)
    if args.smoke:
        args.m = min(args.m, SMOKE_CENTERS)

    os.environ.setdefault("KERNREG_MIRROR", str(REPO.parent / "shared" / "datasets"))
    try:
        from kernreg.datasets import load_dataset
    except ImportError as exc:
        print(f"kernreg.datasets.load_dataset is not available: {exc}", file=sys.stderr)
        return 2
    ds = load_dataset("cpusmall")
    X_train, y_train, X_test, y_test = ds.X_train, ds.y_train, ds.X_test, ds.y_test
    if args.smoke:
        rng = subsample_rng(args.seed)
        X_train, y_train = subsample_rows(X_train, y_train, SMOKE_ROWS, rng)
        X_test, y_test = subsample_rows(X_test, y_test, SMOKE_TEST_ROWS, rng)
    X_fit, y_fit, X_val, y_val = holdout_split(X_train, y_train, 0.2, random_state=args.seed)
    sigma, lambdas = 0.1, np.logspace(-15, 0, n_lambdas)
    baseline = rmse(y_test, np.full(y_test.shape, y_fit.mean()))

    with threadpool_limits(limits=args.threads, user_api="blas"):
        print(f"BLAS: {_blas_summary()}")
        print(
            f"cpusmall: train {X_train.shape}, test {X_test.shape}; fit {X_fit.shape[0]} / "
            f"validation {X_val.shape[0]} (seed {args.seed}); sigma={sigma}, m={args.m}"
        )
        print(f"test RMSE of the fit-part mean (baseline): {baseline:.4f}")
        common = {"sigma": sigma, "m": args.m, "random_state": args.seed}
        eigh = NystromKRLS(lambdas=lambdas, path_method="eigh", **common)
        chol = NystromKRLS(lambdas=lambdas, path_method="cholesky", **common)
        runs = [
            ("NKRLS (eigh path)", eigh),
            ("NKRLS (Cholesky per λ)", chol),
            ("NYTRO", Nytro(max_iter=max_iter, **common)),
        ]
        if args.full:
            runs += [
                ("KRLS (eigh path)", KRLS(sigma=sigma, lambdas=lambdas)),
                ("ES (Landweber)", KernelLandweber(sigma=sigma, max_iter=max_iter)),
            ]
        results = {}
        for name, est in runs:
            est, seconds = _timed_fit(est, X_fit, y_fit, X_val, y_val)
            test = rmse(y_test, est.predict(X_test))
            results[name] = test
            if hasattr(est, "best_lambda_"):
                par = f"lambda*={est.best_lambda_:.3e}"
            else:
                stop = "rule fired" if est.path_["stopped"] else "no stop"
                par = f"t*={est.best_iter_} (ran {est.n_iter_}, {stop}), step={est.step_size_:.4g}"
            extra = ""
            if hasattr(est, "factor_info_"):
                extra = f", eps used {est.factor_info_['epsilon_used']:.0e}"
            if est.path_.get("cholesky_fallbacks"):
                extra += f", {len(est.path_['cholesky_fallbacks'])} Cholesky fallbacks"
            print(
                f"{name:24s} test RMSE {test:.4f}  val RMSE {np.min(est.path_['val_rmse']):.4f}  "
                f"{par}  model-selection time {seconds:.3f} s{extra}"
            )
        nk, ny = results["NKRLS (eigh path)"], results["NYTRO"]
        rel = abs(nk - ny) / min(nk, ny)
        print(f"NKRLS vs NYTRO test RMSE: relative difference {rel:.2%} (limit 10%)")
    return 0 if rel <= 0.10 or args.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
