"""Update time per example of the incremental RLSC (thesis Chapter 7) against the number n of
examples already seen, beside the batch refit of the rebalanced RLS (RB) on the same n.

For each n: fit the model on n MNIST rows (d = 784, 10 classes), then time ``--updates``
single-example ``partial_fit`` calls (one rank-one Cholesky update, O(d²)) and the weights
``W = A⁻¹bΓ^α`` after each (O(Td²)); and ``--repeats`` batch fits of RB (O(nd² + d³)). The
medians, their ratios and the BLAS thread count are printed in one table, and each line is
written to ``--csv`` (default results/bench_rlsc_update.csv, the source of the table in
docs/thesis_ch7.md: ``make docs``), replacing the row of the same data, n, λ
and thread count. Timings on a shared machine are indicative only.

    python -m reproduce.bench.bench_rlsc_update --n 1000 2000 4000 8000 16000 32000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

from kernreg.datasets import load_dataset
from kernreg.experiment import gemm_gflops
from kernreg.solvers.blocks.rlsc import IncrementalRLSC, RebalancedRLS
from reproduce.bench.skeleton import Bench

CSV_KEY = ["data", "n", "lam", "threads"]
CSV_COLUMNS = ["data", "n", "d", "lam", "threads", "updates", "repeats", "update_ms",
               "update_w_ms", "rb_ms", "rb_over_update_w", "host_gemm_gflops", "source"]


#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_rlsc_update.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000])
    parser.add_argument("--updates", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lam", type=float, default=1e3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    parser.add_argument("--synthetic", action="store_true",
                        help="random [0, 1] data instead of MNIST (no mirror needed)")
    parser.add_argument("--csv", type=Path, default=Path("results/bench_rlsc_update.csv"),
                        help="CSV the rows are written to (the docs table's source)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_max = max(args.n) + args.updates
    if args.synthetic:
        X, y = rng.random((n_max, 784)), rng.integers(0, 10, n_max).astype(float)
    else:
        ds = load_dataset("mnist")
        rows = rng.permutation(ds.X_train.shape[0])[:n_max]
        X, y = ds.X_train[rows], ds.y_train[rows]
    with Bench(SCRIPT, threads=args.threads, csv=args.csv, key=CSV_KEY, columns=CSV_COLUMNS,
               rates=False) as bench:
        blas = {i["internal_api"]: i["num_threads"] for i in threadpool_info()
                if i["user_api"] == "blas"}
        host_gemm = gemm_gflops()
        print(f"d = {X.shape[1]}, λ = {args.lam:g}, BLAS threads: {blas}; "
              f"{args.updates} updates, {args.repeats} RB fits per n (medians); host GEMM "
              f"{host_gemm:.0f} GF/s\n")
        print("| n seen | update (ms) | update + W (ms) | RB refit (ms) | RB / (update + W) |")
        print("|---|---|---|---|---|")
        for n in args.n:
            model = IncrementalRLSC([args.lam]).fit(X[:n], y[:n])
            upd, with_w = [], []
            for k in range(n, n + args.updates):
                start = time.perf_counter()
                model.partial_fit(X[k], [y[k]])
                mid = time.perf_counter()
                model.coef(1.0)
                end = time.perf_counter()
                upd.append(mid - start)
                with_w.append(end - start)
            rb = bench.time(lambda n=n: RebalancedRLS([args.lam]).fit(X[:n], y[:n]),
                            args.repeats, warmup=0).median
            u, w = np.median(upd) * 1e3, np.median(with_w) * 1e3
            print(f"| {n} | {u:.2f} | {w:.2f} | {rb * 1e3:.1f} | {rb * 1e3 / w:.1f} |")
            bench.record({
                "data": "synthetic" if args.synthetic else "mnist", "n": n, "d": X.shape[1],
                "lam": f"{args.lam:g}", "threads": args.threads, "updates": args.updates,
                "repeats": args.repeats, "update_ms": f"{u:.2f}", "update_w_ms": f"{w:.2f}",
                "rb_ms": f"{rb * 1e3:.1f}", "rb_over_update_w": f"{rb * 1e3 / w:.1f}",
                "host_gemm_gflops": round(host_gemm, 1)})


if __name__ == "__main__":
    main()
