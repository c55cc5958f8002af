"""Benchmark: KOLS by eigendecomposition against KOLS by pivoted Cholesky, side by side.

On Adult (trial 0's fit rows of configs/adult_all.yaml, σ = 6.6) subsampled to each of
``--sizes`` rows, the kernel matrix is evaluated once and both solvers of
:mod:`kernreg.solvers.blocks.min_norm` run on copies of it, alternating, ``--repeats`` times.
Printed: the median seconds of each (the pivoted Cholesky's including its Lanczos λ_max and
the gap test; the steps of the last run beside), their ratio, the rank each keeps, whether the
Cholesky rank was certified, and the test predictions of both (first ``--test-rows`` rows of
Adult's test file): relative difference and test RMSE. BLAS threads and the host's rates
(before and after the run: reproduce.bench.skeleton) are printed beside the times.

``--full`` then fits KOLS on all fit rows with the pivoted Cholesky, what a trial of
configs/adult_all.yaml times (kernel evaluation, the solve and the validation predictions: the
calls ``KOLS.fit`` makes, each step timed; the Cholesky's own answer and its gap test, no
fallback), against the paper's 112 s (NYTRO Table 2);
repeated rows merged as ``KOLS`` does (``--full-whole`` then also factors the whole n × n
kernel, side by side); ``--full-eigh`` does the same with the eigendecomposition (about half
an hour or more here).

    python -m reproduce.bench.bench_kols --sizes 4000,8000 --repeats 3 --full
    python -m reproduce.bench.bench_kols --sizes 200 --repeats 1 --full --smoke
        # the config at smoke size (320 fit rows, 200 test rows): seconds
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import blas_description
from kernreg.solvers import KOLS, rmse
from kernreg.solvers.blocks.distinct import distinct_rows
from kernreg.solvers.blocks.linalg import sym_inplace
from kernreg.solvers.blocks.min_norm import (
    default_rcond,
    eigh_min_norm,
    pivoted_cholesky_min_norm,
)
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, smoke_run

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "adult_all.yaml"
PAPER_SECONDS = 112.0  # NYTRO Table 2, Adult KOLS


def bench_size(n: int, X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray,
               sigma: float, repeats: int) -> None:
    rows = np.sort(np.random.default_rng(n).choice(X.shape[0], n, replace=False))
    Xn, yn = X[rows], y[rows]
    est = KOLS(sigma=sigma)
    est.kernel_ = est._make_kernel()
    kernel = Bench.time(lambda: sym_inplace(np.asarray(est.kernel_(Xn), dtype=np.float64)), 1,
                        warmup=0)
    K = kernel.result
    K_test = est.kernel_(X_test, Xn)
    rcond = default_rcond(n)
    solvers = {"eigh": eigh_min_norm, "pivoted_cholesky": pivoted_cholesky_min_norm}
    times = Bench.side_by_side({name: lambda A, f=solve: f(A, yn, rcond)  # on a copy of K
                                for name, solve in solvers.items()}, repeats, warmup=0,
                               setup=K.copy)
    eig, chol = times["eigh"].result, times["pivoted_cholesky"].result
    p_eig, p_chol = K_test @ eig.alpha, K_test @ chol.alpha
    t_eig, t_chol = times["eigh"].median, times["pivoted_cholesky"].median
    distinct = np.unique(Xn, axis=0).shape[0]
    diff = np.linalg.norm(p_chol - p_eig) / np.linalg.norm(p_eig)
    print(f"n = {n} ({distinct} distinct rows): kernel {kernel.median:.2f} s; eigh "
          f"{t_eig:.2f} s, pivoted Cholesky {t_chol:.2f} s, ratio {t_eig / t_chol:.1f}x "
          f"(medians of {repeats})", flush=True)
    print(f"  last Cholesky run: {_steps(chol.seconds)}; last eigh run: {_steps(eig.seconds)}")
    print(f"  rank eigh {eig.rank}, Cholesky {chol.rank} (certified: {chol.certified}); "
          f"predictions relative difference {diff:.2e}; test RMSE eigh "
          f"{rmse(y_test, p_eig):.4f}, Cholesky {rmse(y_test, p_chol):.4f}", flush=True)


def _steps(seconds: dict[str, float]) -> str:
    return ", ".join(f"{name} {value:.2f} s" for name, value in seconds.items())


def full_fit(solver: str, exp, split, data, merge: bool = True) -> None:
    """The calls :meth:`KOLS.fit` makes (repeated rows merged, kernel, solve, validation
    predictions), each timed; the pivoted Cholesky's own answer is reported with its gap test,
    with no fallback. ``merge=False`` factors the whole n × n kernel."""
    X_fit, y_fit, X_val, y_val = split
    est = KOLS(sigma=exp.kernel["sigma"], solver=solver)
    start = time.perf_counter()
    est.kernel_ = est._make_kernel()
    rows = distinct_rows(X_fit) if merge else None
    seconds = {"merge": time.perf_counter() - start} if merge else {}
    if rows is not None:
        K = sym_inplace(rows.scale_kernel(np.asarray(est.kernel_(X_fit[rows.first]),
                                                     dtype=np.float64)))
        rhs = rows.reduce(y_fit)
    else:
        K = sym_inplace(np.asarray(est.kernel_(X_fit), dtype=np.float64))
        rhs = y_fit
    seconds["kernel"] = time.perf_counter() - start - sum(seconds.values())
    rcond = default_rcond(X_fit.shape[0])
    if solver == "eigh":
        solution = eigh_min_norm(K, rhs, rcond)
    else:
        solution = pivoted_cholesky_min_norm(K, rhs, rcond)
    del K
    alpha = solution.alpha if rows is None else rows.expand(solution.alpha)
    est.alpha_, est.centers_, est.n_features_in_ = alpha, X_fit, X_fit.shape[1]
    mark = time.perf_counter()
    val_rmse = rmse(y_val, est.predict(X_val))
    seconds["validation"] = time.perf_counter() - mark
    total = time.perf_counter() - start
    size = f"{rows.n_distinct} distinct rows merged" if rows is not None else "whole K"
    print(f"full Adult KOLS, solver {solver}, {size}: fit {total:.1f} s (n = {X_fit.shape[0]}, "
          f"rank {solution.rank}); steps: {_steps(seconds)}, {_steps(solution.seconds)}; test RMSE "
          f"{rmse(data.y_test, est.predict(data.X_test)):.4f}, validation RMSE {val_rmse:.4f}; "
          f"paper {PAPER_SECONDS:.0f} s", flush=True)
    print(f"  gap test: certified {solution.certified}, cut-off τ {solution.cutoff:.3e}, "
          f"1/‖K₁₁⁻¹‖₁ {solution.lambda_min_bound:.3e}, tr S {solution.residual_trace:.3e}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,4000", help="comma-separated subsample sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="BLAS threads")
    parser.add_argument("--test-rows", type=int, default=5000)
    parser.add_argument("--full", action="store_true", help="one full Adult fit, pivoted Cholesky")
    parser.add_argument("--full-eigh", action="store_true", help="one full Adult fit, eigh")
    parser.add_argument("--full-whole", action="store_true",
                        help="with --full: also factor the whole K (repeated rows not merged)")
    add_smoke_option(parser)
    args = parser.parse_args()
    exp = load_experiment(CONFIG, smoke=args.smoke)
    data = prepare_data(exp)
    _, split = trial_split(exp, data, 0)
    X, y = np.asarray(split[0]), np.asarray(split[1])
    X_test, y_test = data.X_test[:args.test_rows], data.y_test[:args.test_rows]
    with smoke_run(args.smoke), Bench("reproduce/bench/bench_kols.py", threads=args.threads):
        print(f"BLAS: {blas_description()}, {args.threads} thread(s)", flush=True)
        for n in (int(v) for v in args.sizes.split(",") if v):
            bench_size(n, X, y, X_test, y_test, exp.kernel["sigma"], args.repeats)
        if args.full:
            full_fit("pivoted_cholesky", exp, split, data)
            if args.full_whole:
                full_fit("pivoted_cholesky", exp, split, data, merge=False)
        if args.full_eigh:
            full_fit("eigh", exp, split, data)


if __name__ == "__main__":
    main()
