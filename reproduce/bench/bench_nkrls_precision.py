"""Benchmark: NKRLS with ``precision: float64`` against ``precision: mixed`` side by side, on the
Table 2 settings (configs/adult_all.yaml, configs/ijcnn1_nkrls.yaml: m, σ, 100 λ in [1e-15, 1]).

For each dataset and trial the two precisions are fitted alternately (``--repeats`` times each,
on the same hold-out split, centers and λ grid, the runner's buffer reuse on), and the script
prints: the host's float64 and float32 GEMM rates (4096², the config's BLAS threads) before and
after; the median seconds of each precision and their ratio mixed / float64 (the number to read
on a shared host: both measured in the same run); λ* of each, the largest difference of the
validation RMSE over the whole λ path, the test RMSE of each (and whether they agree to 4
significant digits), the largest relative difference of the test predictions, and what the
refinement did (CG steps, the worst final estimate, and whether it fell back to float64).
``auto`` is reported as the cost model's choice for the cell.
Every measured cell is also written to ``--csv`` (default results/bench_nkrls_precision.csv,
rendered into docs/solvers.md by ``make docs``), replacing the row of the same dataset and
trial.

    python -m reproduce.bench.bench_nkrls_precision adult ijcnn1 --trials 0 --repeats 3
    python -m reproduce.bench.bench_nkrls_precision adult --repeats 1 --smoke \\
        --csv /tmp/bench_nkrls_precision.csv  # the config at smoke size, 128² GEMM rates

``--parts ROWS`` instead times the parts that differ, on ``ROWS`` random rows at each dataset's
m (best of 3, side by side, the GEMM rates printed): the float64 path's triangular solve and
float64 ``syrk``, against mixed precision's float32 copy and ``syrk`` and two refinement
passes with L columns (the fits' other parts — kernel blocks, K_mm's factor, ``eigh`` of the
m × m Gram, validation — are the same work in both).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.experiment import make_estimator, prepare_data, resolve_blas_threads, trial_split
from kernreg.solvers import reuse_buffers, rmse
from kernreg.solvers.blocks.mixed_precision import precision_costs, resolve_precision
from reproduce.bench.record import add_csv_options
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CSV = Path(__file__).resolve().parents[2] / "results" / "bench_nkrls_precision.csv"
CSV_KEY = ["dataset", "trial"]
CSV_COLUMNS = [*CSV_KEY, "n", "m", "lambdas", "repeats", "float64_s", "mixed_s",
               "mixed_over_float64", "gemm64_gflops_min", "gemm64_gflops_max",
               "gemm32_gflops_min", "gemm32_gflops_max", "lambda_float64", "lambda_mixed",
               "val_rmse_max_diff", "test_rmse_float64", "test_rmse_mixed",
               "test_pred_max_rel_diff", "refine_steps", "precision_used", "auto_choice",
               "source"]
PRECISIONS = ("float64", "mixed")
DATASETS = {"adult": "adult_all.yaml", "ijcnn1": "ijcnn1_nkrls.yaml",
            "insurance": "insurance_all.yaml"}


#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_nkrls_precision.py"


def rates(threads: int) -> tuple[float, float]:
    """This host's float64 and float32 GEMM rates (GF/s, 4096²), printed."""
    with threadpool_limits(limits=threads):
        g64, g32 = host_gemm(4096, 3, "float64"), host_gemm(4096, 3, "float32")
    print(f"  host GEMM float64 {g64:.0f} GF/s, float32 {g32:.0f} GF/s ({threads} BLAS "
          "threads)", flush=True)
    return g64, g32


def four_digits(a: float, b: float) -> bool:
    return f"{a:.4g}" == f"{b:.4g}"


def alternate(algo, exp, seed: int, split: tuple, repeats: int) -> tuple[dict, dict]:
    """Each precision's median fit seconds over ``repeats`` fits (a fresh estimator each, made
    untimed), alternated, and its last fitted estimator."""
    times = Bench.side_by_side(
        {p: lambda est, p=p: est.set_params(precision=p).fit(*split) for p in PRECISIONS},
        repeats, warmup=0, setup=lambda: make_estimator(algo, exp, seed))
    return {p: t.median for p, t in times.items()}, {p: t.result for p, t in times.items()}


def bench(name: str, trials: list[int], repeats: int, csv: Path | None,
          smoke: bool = False) -> None:
    exp = load_experiment(CONFIGS / DATASETS[name], smoke=smoke)
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
        before = rates(threads)
        with Bench(SCRIPT, threads=threads, csv=csv, key=CSV_KEY, columns=CSV_COLUMNS,
                   rates=False) as cell, reuse_buffers():
            med, fitted = alternate(algo, exp, seed, (X, y, Xv, yv), repeats)
        after = rates(threads)
        e64, emx = fitted["float64"], fitted["mixed"]
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
        cell.record({
            "dataset": name, "trial": trial, "n": n, "m": m, "lambdas": L,
            "repeats": repeats, "float64_s": round(med["float64"], 3),
            "mixed_s": round(med["mixed"], 3),
            "mixed_over_float64": round(med["mixed"] / med["float64"], 4),
            "gemm64_gflops_min": round(min(before[0], after[0]), 1),
            "gemm64_gflops_max": round(max(before[0], after[0]), 1),
            "gemm32_gflops_min": round(min(before[1], after[1]), 1),
            "gemm32_gflops_max": round(max(before[1], after[1]), 1),
            "lambda_float64": f"{e64.best_lambda_:.6g}",
            "lambda_mixed": f"{emx.best_lambda_:.6g}", "val_rmse_max_diff": f"{val_diff:.3g}",
            "test_rmse_float64": round(t64, 6), "test_rmse_mixed": round(tmx, 6),
            "test_pred_max_rel_diff": f"{rel:.3g}",
            "refine_steps": info.get("refine_steps"), "precision_used": info["precision"],
            "auto_choice": auto})


def parts(name: str, rows: int, smoke: bool = False) -> None:
    """Best-of-3 seconds of the parts that differ between the precisions (see the docstring)."""
    import scipy.linalg as la

    exp = load_experiment(CONFIGS / DATASETS[name], smoke=smoke)
    algo = next(a for a in exp.algorithms if a.name == "nkrls")
    threads = resolve_blas_threads(exp.budget["blas_threads"])
    m, L = algo.params["m"], len(algo.lambdas())
    rng = np.random.default_rng(0)
    K = rng.random((rows, m))
    R = np.asfortranarray(np.triu(rng.random((m, m))) + m * np.eye(m))
    B = rng.standard_normal((m, L))

    def best(f) -> float:
        return Bench.time(f, 3, warmup=0).min

    def syrk32() -> None:
        A32 = A.astype(np.float32)
        A32.T @ A32

    print(f"{name} parts: {rows} rows, m={m}, L={L}", flush=True)
    before = rates(threads)
    with Bench(SCRIPT, threads=threads, rates=False):
        A = la.solve_triangular(R, K.T, trans="T", lower=False).T
        solve = best(lambda: la.solve_triangular(R, K.T, trans="T", lower=False))
        s64, s32 = best(lambda: A.T @ A), best(syrk32)
        one_pass = best(lambda: A.T @ (A @ B))
    after = rates(threads)
    f64, mixed = solve + s64, solve + s32 + 2 * one_pass
    print(f"  triangular solve {solve:.2f} s, float64 syrk {s64:.2f} s, float32 copy + syrk "
          f"{s32:.2f} s, one pass with {L} columns {one_pass:.2f} s: float64 {f64:.2f} s, "
          f"mixed (2 passes) {mixed:.2f} s, mixed / float64 {mixed / f64:.3f} (GEMM float64 "
          f"{min(before[0], after[0]):.0f}–{max(before[0], after[0]):.0f} GF/s, float32 "
          f"{min(before[1], after[1]):.0f}–{max(before[1], after[1]):.0f} GF/s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["adult", "ijcnn1"],
                        choices=list(DATASETS))
    parser.add_argument("--trials", type=int, nargs="+", default=[0])
    parser.add_argument("--repeats", type=int, default=3)
    add_csv_options(parser, CSV)
    parser.add_argument("--parts", type=int, metavar="ROWS",
                        help="time only the parts that differ, on ROWS random rows")
    add_smoke_option(parser)
    args = parser.parse_args()
    with smoke_run(args.smoke):
        for name in args.datasets:
            if args.parts:
                parts(name, args.parts, args.smoke)
            else:
                bench(name, args.trials, args.repeats, args.csv, args.smoke)


if __name__ == "__main__":
    main()
