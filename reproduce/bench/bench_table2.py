"""Benchmark: model-selection time of NKRLS, NYTRO and ES on the Table 2 datasets, against the paper
and against what a scikit-learn user would run on the same split, centers and λ grid. The host's
measured GEMM rate (float64 1024², the configs' BLAS threads) is printed with every timed line:
the yardstick of absolute times on shared hosts. Beside time / paper every line prints
time / floor: the least arithmetic, memory traffic and exponentials the cell must do
(reproduce.bench.floor) at this host's GEMM, streaming and exp rates, measured right before
and right after the cell (the floor takes the faster of the two); a cell whose rates moved by
more than 20% between the two is flagged "noisy host" (its time / floor is not to be judged).

For each dataset (with its paper m and σ, the algorithm settings of its config) one hold-out
split (trial 0 of the protocol) is fitted ``--repeats`` times as the runner fits trials (each
fit writing its kernel arrays into the previous fit's: kernreg.solvers.blocks.buffers); the script
prints the median seconds and the first fit's (into fresh memory), the peak RSS, the ratio to
the paper's time (12-core Xeon, MATLAB), the chosen NYTRO strategy and the BLAS threads.
With ``--baseline`` it also times, on the same split and the same centers, scikit-learn
``Nystroem`` + ``Ridge(alpha=λn)`` over the same λ grid (and ``KernelRidge`` over it where the
n × n kernel fits), and prints our time / baseline time and both test RMSEs.
``--baseline falkon`` times Falkon (FalkonML/falkon, CPU; not on PyPI, never needed by the
tests) with the same centers over every tenth λ of the grid instead.

Repeated training rows are merged as the solvers do (kernreg.solvers.blocks.distinct: Adult
repeats 21% of its rows, Insurance 9%), and the floor counts the distinct rows; ``--no-merge``
times the products over all rows instead, for comparison (print only, like ``--param
KEY=VALUE``, which sets a parameter of the timed algorithms).

Every timed line is also written to ``--csv`` (default results/bench_table2.csv, the source of
the speed tables of README.md and docs/speed.md: ``make docs``), replacing the row of the same
dataset, algorithm, dtype and ``--max-iter``; the file is rewritten atomically after each line.

    python -m reproduce.bench.bench_table2 insurance adult --repeats 3 --baseline
    python -m reproduce.bench.bench_table2 \\
        covtype_binary --repeats 1 --dtype float32 --algorithms nytro
    python -m reproduce.bench.bench_table2 insurance adult --repeats 1 --baseline \\
        --smoke --csv /tmp/bench_table2.csv  # smoke size: seconds (reproduce.bench.smoke)
"""

from __future__ import annotations

import argparse
import time
from contextlib import ExitStack
from pathlib import Path

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from kernreg.config import load_experiment
from kernreg.errors import KernregError
from kernreg.experiment import (
    PeakMemory,
    blas_description,
    make_estimator,
    prepare_data,
    resolve_blas_threads,
    trial_split,
)
from kernreg.results.tables import paper_table2
from kernreg.solvers import reuse_buffers, rmse
from kernreg.solvers.blocks.distinct import distinct_rows, merging
from reproduce.bench.floor import HostRates, es_floor, nkrls_floor, nytro_floor
from reproduce.bench.record import add_csv_options, add_param_option, params_of, record_row
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_table2.py"
BENCH_CSV = Path(__file__).resolve().parents[2] / "results" / "bench_table2.csv"
CSV_KEY = ["dataset", "algorithm", "dtype", "max_iter"]
CSV_COLUMNS = [*CSV_KEY, "repeats", "median_s", "first_s", "paper_s", "over_paper", "floor_s",
               "over_floor", "strategy", "validation_strategy", "selected", "test_rmse",
               "peak_rss_gib", "host_gemm_gflops_min", "host_gemm_gflops_max",
               "host_stream_gbs_min", "host_stream_gbs_max", "blas_threads", "source",
               "host_exp_geps_min", "host_exp_geps_max", "noisy_host"]
# The config holding each dataset's settings of each timed algorithm (ES: where the paper ran it).
DATASETS = {
    "insurance": {"nkrls": "insurance_all.yaml", "nytro": "insurance_all.yaml",
                  "es": "insurance_all.yaml"},
    "adult": {"nkrls": "adult_all.yaml", "nytro": "adult_all.yaml", "es": "adult_all.yaml"},
    "ijcnn1": {"nkrls": "ijcnn1_nkrls.yaml", "nytro": "ijcnn1_nytro.yaml",
               "es": "ijcnn1_es.yaml"},
    "yearprediction": {"nkrls": "yearprediction_nkrls.yaml",
                       "nytro": "yearprediction_nytro.yaml"},
    "covtype_binary": {"nkrls": "covtype_nkrls.yaml", "nytro": "covtype_nytro.yaml"},
}
ALGORITHMS = ("nkrls", "nytro", "es")
KERNEL_RIDGE_MAX_N = 12000  # n × n float64 kernel ≈ 1.2 GB and O(n³) per λ beyond this


def _timed_fit(make, data, repeats, merge=True):
    """Fit ``repeats`` times as the runner fits an algorithm's trials (each fit handing its
    kernel arrays to the next); (last estimator, median seconds, first fit's seconds, peak RSS
    over the fits). ``merge=False``: repeated rows are not merged (the products over all rows)."""
    with reuse_buffers(), merging(merge), PeakMemory() as mem:
        timing = Bench.time(lambda est: est.fit(*data), repeats, warmup=0, setup=make)
    return timing.result, timing.median, timing.seconds[0], mem.peak_bytes


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


def _falkon(X_fit, y_fit, X_val, y_val, X_test, y_test, centers, sigma, lambdas, maxiter=20):
    """Falkon (FalkonML/falkon, CPU) with the same centers, one fit per λ of the grid (Falkon has
    no λ path), hold-out selection, test RMSE. Falkon's penalty λ is ours: both solve
    (K_nmᵀK_nm + λn·K_mm)α = K_nmᵀy."""
    import falkon  # optional: not on PyPI; builds for CPU with torch
    import torch

    options = falkon.FalkonOptions(use_cpu=True, keops_active="no")
    kernel = falkon.kernels.GaussianKernel(sigma=sigma, opt=options)
    fixed = torch.from_numpy(np.ascontiguousarray(centers))
    selector = falkon.center_selection.FixedSelector(fixed)
    as_torch = [torch.from_numpy(np.ascontiguousarray(a)) for a in (X_fit, X_val, X_test)]
    y_torch = torch.from_numpy(np.ascontiguousarray(y_fit, dtype=X_fit.dtype)).reshape(-1, 1)
    start = time.perf_counter()
    best = (np.inf, None)
    for lam in lambdas:
        model = falkon.Falkon(kernel=kernel, penalty=float(lam), M=len(centers),
                              center_selection=selector, maxiter=maxiter, options=options)
        model.fit(as_torch[0], y_torch)
        err = rmse(y_val, model.predict(as_torch[1]).numpy().ravel())
        if err < best[0]:
            best = (err, model)
    seconds = time.perf_counter() - start
    return seconds, rmse(y_test, best[1].predict(as_torch[2]).numpy().ravel())


def _kernel_ridge(X_fit, y_fit, X_val, y_val, X_test, y_test, sigma, lambdas):
    start = time.perf_counter()
    best = (np.inf, None)
    for lam in lambdas:
        model = KernelRidge(alpha=lam * len(y_fit), kernel="rbf", gamma=1.0 / (2 * sigma**2))
        err = rmse(y_val, model.fit(X_fit, y_fit).predict(X_val))
        if err < best[0]:
            best = (err, model)
    return time.perf_counter() - start, rmse(y_test, best[1].predict(X_test))


def record(path: Path, row: dict) -> None:
    """Put ``row`` (all its columns given) into the bench CSV at ``path`` in place of the row
    of the same cell."""
    record_row(path, row, CSV_KEY, CSV_COLUMNS)


#: The host's rates as the timed lines print them.
_rate_line = Bench.describe


def rated(stack: ExitStack, dtype: str, threads: int) -> dict[str, Bench]:
    """Benches entered on ``stack`` that measure this host's GEMM, streaming and exp rates
    before and after, in ``dtype`` and (for the Grams and products that stay float64) in
    float64."""
    return {kind: stack.enter_context(Bench(SCRIPT, threads=threads, dtype=kind, exp=True))
            for kind in dict.fromkeys((dtype, "float64"))}


def fastest(a: HostRates, b: HostRates) -> HostRates:
    """The faster of two measurements of each rate (the floor's: the least the host allows)."""
    exp = None if a.exp is None or b.exp is None else max(a.exp, b.exp)
    return HostRates(gemm=max(a.gemm, b.gemm), stream=max(a.stream, b.stream), exp=exp)


def floor_seconds(label: str, est, algo, exp, n: int, n_val: int, d: int,
                  rates: dict[str, HostRates]) -> float:
    """The cell's floor (see reproduce.bench.floor) at the host rates ``rates`` (by dtype)."""
    dtype = exp.dataset["dtype"]
    itemsize = 4 if dtype == "float32" else 8
    if label == "es":
        return float(es_floor(n, n_val, d, est.n_iter_, itemsize, rates[dtype])["total"])
    m = algo.params["m"]
    if label == "nkrls":
        floor = nkrls_floor(n, n_val, m, d, len(algo.lambdas()), itemsize, rates[dtype],
                            rates["float64"])
    else:
        floor = nytro_floor(n, n_val, m, d, est.n_iter_, itemsize, rates[dtype],
                            rates["float64"])
    return float(floor["total"])


def bench(name: str, repeats: int, baseline: str | None, paper: dict, dtype: str | None,
          algorithms: tuple[str, ...], max_iter: int | None = None,
          csv: Path | None = None, params: dict | None = None, merge: bool = True,
          smoke: bool = False) -> None:
    for label, config in DATASETS[name].items():
        if label not in algorithms:
            continue
        overrides = {"dataset": {"dtype": dtype}} if dtype else None
        exp = load_experiment(CONFIGS / config, overrides, smoke=smoke)
        algo = next(a for a in exp.algorithms if a.name == label)
        if max_iter is not None and "max_iter" in algo.params:
            algo.params["max_iter"] = max_iter  # e.g. the paper's t* + window, for comparison
        algo.params.update(params or {})
        if not merge and label == "es":
            algo.params["merge_duplicates"] = False
        threads = resolve_blas_threads(exp.budget["blas_threads"])
        with Bench(SCRIPT, threads=threads, csv=csv, key=CSV_KEY, columns=CSV_COLUMNS,
                   rates=False) as cell:
            try:
                data = prepare_data(exp)
            except KernregError as err:  # e.g. not in the offline mirror
                print(f"{name:15s} {label:5s} skipped: {err}")
                continue
            seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, 0)
            dtype = exp.dataset["dtype"]
            with ExitStack() as stack:
                benches = rated(stack, dtype, threads)
                est, median, first, peak = _timed_fit(
                    lambda a=algo, e=exp, s=seed: make_estimator(a, e, s),
                    (X_fit, y_fit, X_val, y_val), repeats, merge)
            rates = {k: fastest(b.before, b.after) for k, b in benches.items()}
            moved = sorted({r for b in benches.values() for r in b.noisy})
            test = rmse(data.y_test, est.predict(data.X_test))
            paper_time = float(paper.get((name, label, "time"), "nan").split("±")[0])
            # the fit rows the solvers work on: the distinct ones when repeated rows are merged
            n_rows = distinct_rows(X_fit).n_distinct if merge else len(y_fit)
            floor = floor_seconds(label, est, algo, exp, n_rows, len(y_val), X_fit.shape[1],
                                  rates)
            par = getattr(est, "best_lambda_", None) or getattr(est, "best_iter_", None)
            extra = ""
            if hasattr(est, "strategy_"):
                extra = f", strategy {est.strategy_}/{est.validation_strategy_}"
            size = f"m={algo.params['m']:<6d}" if "m" in algo.params else f"n={len(y_fit):<6d}"
            print(f"{name:15s} {label:5s} {size} {exp.dataset['dtype']} "
                  f"median {median:8.2f} s (n={repeats}, first {first:.2f} s; "
                  f"host GEMM {host_gemm():.0f} GF/s), "
                  f"peak RSS {peak / 2**30:5.2f} GiB, "
                  f"paper {paper_time:g} s, ratio ours/paper {median / paper_time:.3f}, "
                  f"floor {floor:.3g} s, ours/floor {median / floor:.2f}; "
                  f"test RMSE {test:.4f}, Par. {par:.3g}{extra}; BLAS {blas_description()}; "
                  f"host {_rate_line(rates[dtype])}"
                  + (f"; NOISY HOST ({', '.join(moved)} moved > 20%): time / floor not judged"
                     if moved else ""),
                  flush=True)
            pair = (benches[dtype].before, benches[dtype].after)
            exps = [r.exp for r in pair if r.exp is not None]
            cell.record({  # with the cell's blas_threads and source
                "dataset": name, "algorithm": label, "dtype": exp.dataset["dtype"],
                "max_iter": max_iter, "repeats": repeats, "median_s": round(median, 4),
                "first_s": round(first, 4), "paper_s": paper_time,
                "over_paper": round(median / paper_time, 4), "floor_s": round(floor, 4),
                "over_floor": round(median / floor, 3),
                "strategy": getattr(est, "strategy_", None),
                "validation_strategy": getattr(est, "validation_strategy_", None),
                "selected": par, "test_rmse": round(test, 6),
                "peak_rss_gib": round(peak / 2**30, 3),
                "host_gemm_gflops_min": round(min(r.gemm for r in pair) / 1e9, 1),
                "host_gemm_gflops_max": round(max(r.gemm for r in pair) / 1e9, 1),
                "host_stream_gbs_min": round(min(r.stream for r in pair) / 1e9, 2),
                "host_stream_gbs_max": round(max(r.stream for r in pair) / 1e9, 2),
                "host_exp_geps_min": round(min(exps) / 1e9, 3) if exps else None,
                "host_exp_geps_max": round(max(exps) / 1e9, 3) if exps else None,
                "noisy_host": " ".join(moved) or None})
            if baseline == "falkon" and label == "nkrls":
                lambdas = algo.lambdas()[:: max(1, len(algo.lambdas()) // 10)]  # ~10 λ
                fk_time, fk_rmse = _falkon(X_fit, y_fit, X_val, y_val, data.X_test, data.y_test,
                                           X_fit[est.center_indices_], exp.kernel["sigma"],
                                           lambdas)
                print(f"{'':15s} Falkon ({len(lambdas)} λ, 20 CG iterations each): "
                      f"{fk_time:8.2f} s, test RMSE {fk_rmse:.4f}; ours ({len(algo.lambdas())} "
                      f"λ)/Falkon time {median / fk_time:.3f}", flush=True)
            if baseline == "sklearn" and label == "nkrls":
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
    parser.add_argument("--baseline", nargs="?", const="sklearn", choices=["sklearn", "falkon"],
                        help="also time scikit-learn (default) or Falkon, when the falkon package "
                             "is importable, on the same split, centers and λ grid")
    parser.add_argument("--dtype", choices=["float64", "float32"],
                        help="override the configs' kernel dtype")
    parser.add_argument("--algorithms", nargs="+", default=["nkrls", "nytro"],
                        choices=ALGORITHMS, help="es: kernel Landweber on the n × n kernel "
                        "(Insurance, Adult, Ijcnn1; not in the default run)")
    parser.add_argument("--max-iter", type=int,
                        help="override NYTRO's (or ES's) max_iter (e.g. to time the paper's t* "
                             "+ window)")
    add_csv_options(parser, BENCH_CSV)
    add_param_option(parser, "an algorithm parameter of the timed algorithms, e.g. "
                             "merge_duplicates=false; print only (the CSV holds the configs' "
                             "cells)")
    parser.add_argument("--no-merge", dest="merge", action="store_false",
                        help="do not merge repeated training rows (the whole rows' products, "
                             "for comparison; print only)")
    add_smoke_option(parser)
    args = parser.parse_args()
    params = params_of(parser, args)
    if params or not args.merge:
        args.csv = None
    paper = paper_table2()
    with smoke_run(args.smoke):
        for name in args.datasets:
            bench(name, args.repeats, args.baseline, paper, args.dtype, tuple(args.algorithms),
                  args.max_iter, args.csv, params, args.merge, args.smoke)


if __name__ == "__main__":
    main()
