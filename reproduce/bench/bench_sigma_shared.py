"""Benchmark: what a σ grid could share — the σ-independent part of one fit, measured.

A σ grid (``kernel: {sigma: [...]}``, :mod:`kernreg.solvers.blocks.sigma_search`) fits the
estimator once per σ on the same split and centers. Of a Gaussian kernel block only the cross
products ``X Cᵀ`` do not depend on σ (the norms ride in the same GEMM; the exponential, and
everything the solver does with the block, do). This script fits the Incremental Nyström
column of ``configs/lim_table1_full_<dataset>.yaml`` (the thesis's σ, m ≤ 2048 in 32 levels,
13 λ) on trial 0's split, ``--repeats`` times, and prints the CPU seconds of the whole fit and
of those cross products (process time, so a loaded host inflates both alike), with their
share: the most a σ grid could save per σ by computing them once, against the n × m block it
would have to keep. It needs the compiled kernel path: the numpy fallback (``KERNREG_JIT=0``)
folds 1/σ² into its one GEMM, so no σ-free product exists there to time.

    python -m reproduce.bench.bench_sigma_shared --datasets insurance,cpu_act --repeats 3
    python -m reproduce.bench.bench_sigma_shared --datasets insurance --repeats 1 --smoke
        # the config at smoke size (m ≤ 40, 3 λ): seconds
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import kernreg.kernels.gaussian as gaussian
from kernreg.config import load_experiment
from kernreg.config.estimators import make_estimator
from kernreg.experiment import prepare_data, trial_split
from kernreg.kernels import active_path
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="insurance,cpu_act")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    add_smoke_option(parser)
    args = parser.parse_args()
    if active_path() != "numba":
        parser.exit(2, "bench_sigma_shared: the compiled kernel path is off (numba missing or "
                       "KERNREG_JIT=0); the numpy path has no σ-free cross product to time\n")

    spent = [0.0]
    cross = gaussian.cross

    def timed_cross(*a, **k):  # the σ-independent GEMM of every Gaussian block
        start = time.process_time()
        try:
            return cross(*a, **k)
        finally:
            spent[0] += time.process_time() - start

    gaussian.cross = timed_cross
    try:
        with smoke_run(args.smoke):
            _bench(args, spent)
    finally:  # the module as it was (a smoke run shares its interpreter with others)
        gaussian.cross = cross


def _bench(args: argparse.Namespace, spent: list[float]) -> None:
    """Each dataset's median fit and cross-product CPU seconds (``spent`` counts the latter)."""
    with Bench("reproduce/bench/bench_sigma_shared.py", threads=args.threads, rates=False):
        print(f"BLAS threads {args.threads}; host GEMM {host_gemm():.0f} GF/s")
        for name in args.datasets.split(","):
            exp = load_experiment(ROOT / "configs" / f"lim_table1_full_{name}.yaml",
                                  smoke=args.smoke)
            algo = next(a for a in exp.algorithms if a.label == "incremental_nystrom_rbf")
            data = prepare_data(exp)
            seed, (X, y, X_val, y_val) = trial_split(exp, data, 0)
            totals, shares = [], []
            for _ in range(args.repeats):
                est = make_estimator(algo, exp, random_state=seed)
                spent[0] = 0.0
                start = time.process_time()
                est.fit(X, y, X_val, y_val)
                totals.append(time.process_time() - start)
                shares.append(spent[0])
            total, shared = statistics.median(totals), statistics.median(shares)
            block_mb = (X.shape[0] + X_val.shape[0]) * int(est.m) * 8 / 2**20
            print(f"{name}: n_fit {X.shape[0]}, d {X.shape[1]}, m {est.m}: fit {total:.2f} CPU s "
                  f"(median of {args.repeats}), cross products {shared:.3f} CPU s = "
                  f"{100 * shared / total:.1f}% — saved per σ at most, for a kept "
                  f"{block_mb:.0f} MiB block")


if __name__ == "__main__":
    main()
