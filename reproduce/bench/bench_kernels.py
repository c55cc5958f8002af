"""Benchmark: the compiled kernel layer against the numpy path, on Table 2-sized blocks.

For Adult-, Ijcnn1- and Covertype-shaped synthetic data (the rows, features, m and σ of their
NYTRO Table 2 cells; Gaussian kernel), times side by side in one run, numpy path then compiled
path (``kernreg.kernels.use_jit``):

* ``block``   — evaluating one kernel block of the memory budget (``kernel(X_b, C, out=...)``);
* ``pass k``  — the gradient pass ``Kᵀ(Kβ − y)`` over a stored ``K`` of ``--rows`` rows for
  k = 1 and k = 16 right-hand sides (``kernreg.kernels.normal_pass``);
* ``fly k``   — the same pass with ``K`` re-evaluated block by block, never stored
  (``Kernel.normal_matvec``).

Each line prints the median of ``--repeats`` (after one untimed warm-up that also compiles),
numpy / compiled, and the ratio; the BLAS and compiled thread counts and the host's GEMM,
stream and exp rates are printed before and after, with a "noisy host" warning when they moved
by more than 20% (the times are then not comparable). The numbers of both paths are checked
to agree (1e-10 relative in float64) before anything is timed.

    python -m reproduce.bench.bench_kernels                     # all three shapes, 5 repeats
    python -m reproduce.bench.bench_kernels --quick             # small shapes: checks that it runs
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from kernreg.experiment.resources import blas_description
from kernreg.kernels import DEFAULT_MEMORY_BUDGET, GaussianKernel, normal_pass, use_jit
from kernreg.kernels.compiled import HAVE_NUMBA, compiled_threads, max_threads
from reproduce.bench.floor import HostRates, noisy_host
from reproduce.bench.skeleton import Bench

#: name: (training rows, d, m, σ, dtype) of the NYTRO Table 2 cell (80% of the training file).
SHAPES = {
    "adult": (26049, 123, 1000, 6.6, "float32"),
    "ijcnn1": (39992, 22, 5000, 1.0, "float64"),
    "covtype": (418328, 54, 10000, 1.0, "float32"),
}


def _both(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median seconds of ``fn`` on the numpy path, then on the compiled path (each after a
    warm-up call: compilation, first touch)."""
    with use_jit(False):
        slow = Bench.time(fn, repeats).median
    with use_jit(True):
        fast = Bench.time(fn, repeats).median
    return slow, fast


def _rates(dtype: str, quick: bool) -> HostRates:
    if quick:
        return HostRates.measure(dtype, n=512, stream_mb=64, repeats=2, exp=HAVE_NUMBA)
    return HostRates.measure(dtype, exp=HAVE_NUMBA)


def _show_rates(label: str, rates: HostRates) -> None:
    exp = f", exp {rates.exp / 1e9:.2f} G/s" if rates.exp else ""
    print(f"  host {label}: GEMM {rates.gemm / 1e9:.1f} GF/s, stream {rates.stream / 1e9:.1f} "
          f"GB/s{exp}")


def bench_shape(name: str, rows: int, d: int, m: int, sigma: float, dtype: str,
                repeats: int, budget: int) -> None:
    rng = np.random.default_rng(0)
    # points at typical distances ~σ from each other, so the kernel values are not all 0 or 1
    X = rng.standard_normal((rows, d)) * (sigma / np.sqrt(d))
    C = X[rng.choice(rows, size=m, replace=False)]
    kernel = GaussianKernel(sigma, dtype=dtype, memory_budget=budget)
    block = kernel.block_rows(m, n_rows=rows)
    buf = np.empty((block, m), dtype=dtype)
    with use_jit(False):
        K = kernel(X, C)
    with use_jit(True):
        K_fast = kernel(X, C)
    tol = 1e-10 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(K_fast, K, rtol=tol, atol=0)
    del K_fast
    print(f"{name}: {rows} × {m} {dtype} (d = {d}, blocks of {block} rows, "
          f"K {K.nbytes / 2**20:.0f} MiB)")
    lines = [("block", lambda: kernel(X[:block], C, out=buf))]
    for k in (1, 16):
        beta = rng.standard_normal((m, k))
        y = rng.standard_normal((rows, k))
        with use_jit(False):
            g_ref = normal_pass(K, beta, y)[0]
        with use_jit(True):
            g = normal_pass(K, beta, y)[0]
        np.testing.assert_allclose(g, g_ref, rtol=tol, atol=tol * np.abs(g_ref).max())
        lines.append((f"pass k={k}", lambda b=beta, t=y: normal_pass(K, b, t)))
        lines.append((f"fly  k={k}", lambda b=beta, t=y: kernel.normal_matvec(X, C, b, t)))
    for label, fn in lines:
        slow, fast = _both(fn, repeats)
        print(f"  {label:10s} numpy {slow * 1e3:9.2f} ms   compiled {fast * 1e3:9.2f} ms   "
              f"numpy / compiled {slow / fast:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help=f"comma-separated, from {list(SHAPES)}")
    parser.add_argument("--rows", type=int, default=60000,
                        help="at most this many rows of the stored K (Covertype's 418328 × "
                             "10000 would take 16.7 GB)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS threads (the compiled threads follow them); default: all "
                             "of numba's")
    parser.add_argument("--quick", action="store_true",
                        help="small shapes (m/10, 2000 rows) and quick rates: a check that the "
                             "script runs, not a measurement")
    args = parser.parse_args()
    if not HAVE_NUMBA:
        raise SystemExit("numba is not installed: there is no compiled path to compare")
    unknown = sorted(set(args.shapes.split(",")) - set(SHAPES))
    if unknown:
        raise SystemExit(f"--shapes: unknown {unknown}; choose from {list(SHAPES)}")
    threads = args.threads or max_threads()
    with Bench("reproduce/bench/bench_kernels.py", threads=threads, rates=False):
        print(f"BLAS: {blas_description()}; compiled threads {compiled_threads()}")
        for name in args.shapes.split(","):
            rows, d, m, sigma, dtype = SHAPES[name]
            rows = min(rows, args.rows)
            budget = DEFAULT_MEMORY_BUDGET
            if args.quick:
                rows, m, budget = min(rows, 2000), m // 10, 2**22
            before = _rates(dtype, args.quick)
            _show_rates("before", before)
            bench_shape(name, rows, d, m, sigma, dtype, args.repeats, budget)
            after = _rates(dtype, args.quick)
            _show_rates("after", after)
            moved = noisy_host(before, after)
            if moved:
                print(f"  noisy host: {', '.join(moved)} moved by more than 20% during the "
                      "cell; its times are not comparable")


if __name__ == "__main__":
    main()
