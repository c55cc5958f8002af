"""Benchmark: model-selection time of NKRLS and NYTRO on the Table 2 datasets, against the paper
and against what a scikit-learn user would run on the same split, centers and λ grid. The host's
measured GEMM rate (float64 1024², the configs' BLAS threads) is printed with every timed line:
the yardstick of absolute times on shared hosts.

For each dataset (with its paper m and σ, the algorithm settings of its config) one hold-out
split (trial 0 of the protocol) is fitted ``--repeats`` times; the script prints the median
seconds, the peak RSS, the ratio to the paper's time (12-core Xeon, MATLAB), the chosen NYTRO
strategy and the BLAS threads. With ``--baseline`` it also times, on the same split and the same
centers, scikit-learn ``Nystroem`` + ``Ridge(alpha=λn)`` over the same λ grid (and
``KernelRidge`` over it where the n × n kernel fits), and prints our time / baseline time and
both test RMSEs.

    python scripts/bench_table2.py insurance adult --repeats 3 --baseline
    python scripts/bench_table2.py covtype_binary --repeats 1 --dtype float32 --algorithms nytro
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.errors import KernregError
from kernreg.experiment.estimators import make_estimator
from kernreg.experiment.resources import PeakMemory, blas_description, gemm_gflops
from kernreg.experiment.trial import prepare_data, trial_seed
from kernreg.results.tables import paper_table2
from kernreg.solvers import holdout_split, rmse

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
# The config holding each dataset's NKRLS and NYTRO settings.
DATASETS = {
    "insurance": ("insurance_all.yaml", "insurance_all.yaml"),
    "adult": ("adult_all.yaml", "adult_all.yaml"),
    "ijcnn1": ("ijcnn1_nkrls.yaml", "ijcnn1_nytro.yaml"),
    "yearprediction": ("yearprediction_nkrls.yaml", "yearprediction_nytro.yaml"),
    "covtype_binary": ("covtype_nkrls.yaml", "covtype_nytro.yaml"),
}
KERNEL_RIDGE_MAX_N = 12000  # n × n float64 kernel ≈ 1.2 GB and O(n³) per λ beyond this


def _timed_fit(make, data, repeats):
    times, peaks, est = [], [], None
    for _ in range(repeats):
        est = make()
        with PeakMemory() as mem:
            start = time.perf_counter()
            est.fit(*data)
            times.append(time.perf_counter() - start)
        peaks.append(mem.peak_bytes)
    return est, statistics.median(times), max(peaks)


def _baseline(X_fit, y_fit, X_val, y_val, X_test, y_test, centers, sigma, lambdas):
    """scikit-learn Nystroem + Ridge over the λ grid, hold-out selection, test RMSE."""
    start = time.perf_counter()
    feats = Nystroem(kernel="rbf", gamma=1.0 / (2 * sigma**2), n_components=len(centers),
                     random_state=0).fit(centers)
    F_fit, F_val = feats.transform(X_fit), feats.transform(X_val)
    best = (np.inf, None)
    for lam in lambdas:
        model = Ridge(alpha=lam * len(y_fit), fit_intercept=False, solver="cholesky")
        err = rmse(y_val, model.fit(F_fit, y_fit).predict(F_val))
        if err < best[0]:
            best = (err, model)
    seconds = time.perf_counter() - start
    return seconds, rmse(y_test, best[1].predict(feats.transform(X_test)))


def _kernel_ridge(X_fit, y_fit, X_val, y_val, X_test, y_test, sigma, lambdas):
    start = time.perf_counter()
    best = (np.inf, None)
    for lam in lambdas:
        model = KernelRidge(alpha=lam * len(y_fit), kernel="rbf", gamma=1.0 / (2 * sigma**2))
        err = rmse(y_val, model.fit(X_fit, y_fit).predict(X_val))
        if err < best[0]:
            best = (err, model)
    return time.perf_counter() - start, rmse(y_test, best[1].predict(X_test))


def bench(name: str, repeats: int, baseline: bool, paper: dict, dtype: str | None,
          algorithms: tuple[str, ...], max_iter: int | None = None) -> None:
    for config, label in zip(DATASETS[name], ("nkrls", "nytro"), strict=True):
        if label not in algorithms:
            continue
        overrides = {"dataset": {"dtype": dtype}} if dtype else None
        exp = load_experiment(CONFIGS / config, overrides)
        algo = next(a for a in exp.algorithms if a.name == label)
        if max_iter is not None and "max_iter" in algo.params:
            algo.params["max_iter"] = max_iter  # e.g. the paper's t* + window, for comparison
        with threadpool_limits(limits=exp.budget["blas_threads"]):
            try:
                data = prepare_data(exp)
            except KernregError as err:  # e.g. not in the offline mirror
                print(f"{name:15s} {label:5s} skipped: {err}")
                continue
            seed = trial_seed(exp.protocol["seed"], 0)
            X_fit, y_fit, X_val, y_val = holdout_split(
                data.X_train, data.y_train, exp.protocol["validation_fraction"],
                random_state=np.random.default_rng(seed))
            est, median, peak = _timed_fit(lambda a=algo, e=exp, s=seed: make_estimator(a, e, s),
                                           (X_fit, y_fit, X_val, y_val), repeats)
            test = rmse(data.y_test, est.predict(data.X_test))
            paper_time = float(paper.get((name, label, "time"), "nan").split("±")[0])
            par = getattr(est, "best_lambda_", None) or getattr(est, "best_iter_", None)
            extra = ""
            if hasattr(est, "strategy_"):
                extra = f", strategy {est.strategy_}/{est.validation_strategy_}"
            print(f"{name:15s} {label:5s} m={algo.params['m']:<6d} {exp.dataset['dtype']} "
                  f"median {median:8.2f} s (n={repeats}; host GEMM {gemm_gflops():.0f} GF/s), "
                  f"peak RSS {peak / 2**30:5.2f} GiB, "
                  f"paper {paper_time:g} s, ratio ours/paper {median / paper_time:.3f}; "
                  f"test RMSE {test:.4f}, Par. {par:.3g}{extra}; BLAS {blas_description()}",
                  flush=True)
            if baseline and label == "nkrls":
                lambdas = algo.lambdas()
                centers = X_fit[est.center_indices_]
                sk_time, sk_rmse = _baseline(X_fit, y_fit, X_val, y_val, data.X_test,
                                             data.y_test, centers, exp.kernel["sigma"], lambdas)
                print(f"{'':15s} sklearn Nystroem+Ridge ({len(lambdas)} λ): {sk_time:8.2f} s, "
                      f"test RMSE {sk_rmse:.4f}; ours/baseline time {median / sk_time:.3f}, "
                      f"RMSE ratio {test / sk_rmse:.4f}", flush=True)
                if len(y_fit) <= KERNEL_RIDGE_MAX_N:
                    kr_time, kr_rmse = _kernel_ridge(X_fit, y_fit, X_val, y_val, data.X_test,
                                                     data.y_test, exp.kernel["sigma"], lambdas)
                    print(f"{'':15s} sklearn KernelRidge ({len(lambdas)} λ): {kr_time:8.2f} s, "
                          f"test RMSE {kr_rmse:.4f}; ours/KernelRidge time "
                          f"{median / kr_time:.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", action="store_true",
                        help="also time scikit-learn on the same split, centers and λ grid")
    parser.add_argument("--dtype", choices=["float64", "float32"],
                        help="override the configs' kernel dtype")
    parser.add_argument("--algorithms", nargs="+", default=["nkrls", "nytro"],
                        choices=["nkrls", "nytro"])
    parser.add_argument("--max-iter", type=int,
                        help="override NYTRO's max_iter (e.g. to time the paper's t* + window)")
    args = parser.parse_args()
    paper = paper_table2()
    for name in args.datasets:
        bench(name, args.repeats, args.baseline, paper, args.dtype, tuple(args.algorithms),
              args.max_iter)


if __name__ == "__main__":
    main()
