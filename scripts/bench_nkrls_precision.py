"""Benchmark: NKRLS with ``precision: float64`` against ``precision: mixed`` side by side, on the
Table 2 settings (configs/adult_all.yaml, configs/ijcnn1_nkrls.yaml: m, σ, 100 λ in [1e-15, 1]).

For each dataset and trial the two precisions are fitted alternately (``--repeats`` times each,
on the same hold-out split, centers and λ grid, the runner's buffer reuse on), and the script
prints: the host's float64 and float32 GEMM rates (4096², the config's BLAS threads) before and
after; the median seconds of each precision and their ratio mixed / float64 (the number to read
on a shared host: both measured in the same run); λ* of each, the largest difference of the
validation RMSE over the whole λ path, the test RMSE of each (and whether they agree to 4
significant digits), the largest relative difference of the test predictions, and what the
refinement did (CG steps, the worst final estimate, whether it fell back to float64, and
whether ``K_nm`` was kept). ``auto`` is reported as the cost model's choice for the cell.

    python scripts/bench_nkrls_precision.py adult ijcnn1 --trials 0 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.experiment import make_estimator, prepare_data, resolve_blas_threads, trial_split
from kernreg.experiment.resources import gemm_gflops
from kernreg.solvers import reuse_buffers, rmse
from kernreg.solvers.blocks.mixed_precision import precision_costs, resolve_precision

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
DATASETS = {"adult": "adult_all.yaml", "ijcnn1": "ijcnn1_nkrls.yaml",
            "insurance": "insurance_all.yaml"}


def rates(threads: int) -> str:
    with threadpool_limits(limits=threads):
        g64, g32 = gemm_gflops(4096, 3, "float64"), gemm_gflops(4096, 3, "float32")
    return f"host GEMM float64 {g64:.0f} GF/s, float32 {g32:.0f} GF/s ({threads} BLAS threads)"


def four_digits(a: float, b: float) -> bool:
    return f"{a:.4g}" == f"{b:.4g}"


def bench(name: str, trials: list[int], repeats: int) -> None:
    exp = load_experiment(CONFIGS / DATASETS[name])
    algo = next(a for a in exp.algorithms if a.name == "nkrls")
    threads = resolve_blas_threads(exp.budget["blas_threads"])
    data = prepare_data(exp)
    for trial in trials:
        seed, (X, y, Xv, yv) = trial_split(exp, data, trial)
        n, d, m, L = X.shape[0], X.shape[1], algo.params["m"], len(algo.lambdas())
        costs = precision_costs(n, m, d, L)
        auto = resolve_precision("auto", n, m, d, L, np.float64)
        print(f"{name} trial {trial}: n={n} m={m} d={d} L={L}; cost model float64 "
              f"{costs['float64']:.3g} s, mixed {costs['mixed']:.3g} s (nominal rates): auto "
              f"picks {auto}", flush=True)
        print(f"  before: {rates(threads)}", flush=True)
        times: dict[str, list[float]] = {"float64": [], "mixed": []}
        fitted = {}
        with threadpool_limits(limits=threads), reuse_buffers():
            for _ in range(repeats):
                for precision in times:
                    est = make_estimator(algo, exp, seed).set_params(precision=precision)
                    start = time.perf_counter()
                    est.fit(X, y, Xv, yv)
                    times[precision].append(time.perf_counter() - start)
                    fitted[precision] = est
        print(f"  after:  {rates(threads)}", flush=True)
        e64, emx = fitted["float64"], fitted["mixed"]
        med = {k: statistics.median(v) for k, v in times.items()}
        p64, pmx = e64.predict(data.X_test), emx.predict(data.X_test)
        t64, tmx = rmse(data.y_test, p64), rmse(data.y_test, pmx)
        val_diff = float(np.nanmax(np.abs(e64.path_["val_rmse"] - emx.path_["val_rmse"])))
        rel = float(np.max(np.abs(pmx - p64)) / np.max(np.abs(p64)))
        info = emx.precision_info_
        print(f"  float64 median {med['float64']:.2f} s, mixed median {med['mixed']:.2f} s "
              f"(n={repeats} each, alternated): mixed / float64 = "
              f"{med['mixed'] / med['float64']:.3f}", flush=True)
        print(f"  λ* float64 {e64.best_lambda_:.4g}, mixed {emx.best_lambda_:.4g} "
              f"({'same' if e64.best_lambda_ == emx.best_lambda_ else 'DIFFERENT'}); "
              f"max |Δ val RMSE| over the path {val_diff:.2e}; test RMSE {t64:.6f} / "
              f"{tmx:.6f} ({'equal' if four_digits(t64, tmx) else 'NOT equal'} to 4 digits); "
              f"test predictions max rel diff {rel:.2e}", flush=True)
        print(f"  refinement: {info}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["adult", "ijcnn1"],
                        choices=list(DATASETS))
    parser.add_argument("--trials", type=int, nargs="+", default=[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name in args.datasets:
        bench(name, args.trials, args.repeats)


if __name__ == "__main__":
    main()
