"""RPCholesky-preconditioned CG against the exact KRLS cell of NYTRO Table 2 on Ijcnn1.

Fits ``rpcholesky_pcg`` on the trial's split of ``configs/ijcnn1_krls.yaml`` at the λ* that
the KRLS trial selected (the run's settings, so no intercept on a registered dataset),
without a stopping rule, until the relative residual reaches ``--tol``, and prints its wall
time (K stored), its iterations and its test RMSE beside the KRLS trial's time and test RMSE.
The KRLS trial is read from ``results/table2_trials.csv``, or, with ``--side-by-side``, run
here first with the cell's own code (``run_trial``: the λ path by the tridiagonal reduction,
≈ 45 min) so that both times come from one run on the same host; the host's GEMM rate is
printed for both. ``--lam`` also solves at other λ (e.g. the paper's λ* 1.07e-8): the exact
KRLS test RMSE there, which the λ path of the cell does not record.

    python -m reproduce.beyond.rpcholesky_krls --trial 0 --lam 1.07e-8
    python -m reproduce.beyond.rpcholesky_krls --trial 2 --side-by-side
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import gemm_gflops
from kernreg.experiment.trial import run_trial
from kernreg.solvers import RPCholeskyPCG, rmse

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--tol", type=float, default=1e-10)
    parser.add_argument("--rank", type=int, default=1000)
    parser.add_argument("--max-iter", type=int, default=2000)
    parser.add_argument("--lam", type=float, nargs="*", default=[],
                        help="further λ to solve at (after the trial's λ*)")
    parser.add_argument("--side-by-side", action="store_true",
                        help="run the KRLS trial here first (the cell's code), not read it")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    exp = load_experiment(REPO / "configs" / "ijcnn1_krls.yaml", smoke=args.smoke)
    data = prepare_data(exp)
    if args.side_by_side:
        with threadpool_limits(limits=2):
            rate = gemm_gflops()
            record = run_trial(exp, exp.algorithms[0], data, args.trial, rate)
        row = pd.Series({"selected": record.selected, "test_rmse": record.test_rmse,
                         "model_selection_time": record.model_selection_time,
                         "gemm_gflops": rate})
        source = "run here, just before"
    else:
        trials = pd.read_csv(REPO / "results" / "table2_trials.csv")
        krls = trials[(trials["experiment"] == "ijcnn1_krls") & (trials["trial"] == args.trial)]
        if krls.empty:
            raise SystemExit(f"no ijcnn1_krls trial {args.trial} in results/table2_trials.csv")
        row, source = krls.iloc[0], "results/table2_trials.csv"
    _, (X_fit, y_fit, _, _) = trial_split(exp, data, args.trial)

    def solve(lam: float) -> tuple[RPCholeskyPCG, float, float]:
        start = time.perf_counter()
        est = RPCholeskyPCG(sigma=exp.kernel["sigma"], lam=lam,
                            fit_intercept=bool(exp.protocol.get("fit_intercept", False)),
                            rank=min(args.rank, len(y_fit)), max_iter=args.max_iter,
                            tol=args.tol, strategy="memory", random_state=args.trial)
        est.fit(X_fit, y_fit)
        seconds = time.perf_counter() - start
        return est, seconds, rmse(data.y_test, est.predict(data.X_test))

    with threadpool_limits(limits=2):
        rate = gemm_gflops()
        est, seconds, test = solve(float(row["selected"]))
    print(f"ijcnn1 trial {args.trial}, λ = {row['selected']:.4g} (the KRLS trial's λ*), "
          f"2 BLAS threads, host GEMM {rate:.0f} GF/s", flush=True)
    print(f"  rpcholesky_pcg (rank {est.rank_}, tol {args.tol:g}): {est.n_iter_} iterations, "
          f"{seconds:.1f} s (fit, K stored), test RMSE {test:.6f}", flush=True)
    print(f"  KRLS trial ({source}): {row['model_selection_time']:.1f} s "
          f"(the λ path, tridiagonal), test RMSE {row['test_rmse']:.6f}, host GEMM "
          f"{row['gemm_gflops']:.0f} GF/s", flush=True)
    print(f"  |Δ test RMSE| = {abs(test - row['test_rmse']):.2e}, time ratio "
          f"{row['model_selection_time'] / seconds:.1f}×; predictions converge to KRLS's as "
          f"the residual does (tests/test_rpcholesky_pcg.py)", flush=True)
    tests = [test]
    for lam in args.lam:
        with threadpool_limits(limits=2):
            other, other_seconds, other_test = solve(lam)
        print(f"  at λ = {lam:.4g}: {other.n_iter_} iterations, {other_seconds:.1f} s, test "
              f"RMSE {other_test:.6f} (exact KRLS there, to the residual {args.tol:g})",
              flush=True)
        tests.append(other_test)
    if not np.all(np.isfinite(tests)):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
