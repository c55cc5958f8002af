"""Benchmark: what OpenBLAS's spinning worker threads cost the compiled kernel pass.

OpenBLAS keeps its worker threads spinning for ``2^OPENBLAS_THREAD_TIMEOUT`` cycles after each
call (28 by default); a compiled (numba) pass that starts right after a GEMM then shares a core
with a spinning thread. For each timeout in ``--timeouts`` a fresh process (the variable is
read when the library loads) times, on an Adult-sized block (26049 × 1000, d = 123):

* the exponential pass alone after 0.5 s of idle, and right after the cross-product GEMM;
* the whole block evaluation (GEMM, then the pass);
* ``K(X, C) @ v`` over the block in ``--small-mb`` blocks (many GEMM / pass / GEMV rounds) and
  in one block;
* the stored gradient pass ``Kᵀ(Kβ − y)`` over the float32 block (numpy's two GEMVs per 4 MB
  of rows: many short BLAS calls back to back, where sleeping threads would cost wake-ups).

Medians of ``--repeats``; BLAS threads ``--threads``. Printed side by side, one line per
timeout, with the host's GEMM rate measured in each process.

    python -m reproduce.bench.bench_blas_spin --timeouts 4,16,20,28 --repeats 15
    python -m reproduce.bench.bench_blas_spin --in-process --repeats 1 --smoke
        # this process's timeout only; a 2000 × 100 block after 0.05 s of idle, the GEMM
        # rate on 128²: seconds
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

#: The option that measures in this process (each timeout's process gets it).
CHILD = "--in-process"
REPO = Path(__file__).resolve().parents[2]
#: The block (rows, centers, features: Adult's) and the idle seconds before a timed pass
#: (SMOKE_*: a smoke run's).
BLOCK, IDLE_S = (26049, 1000, 123), 0.5
SMOKE_BLOCK, SMOKE_IDLE_S = (2000, 100, 123), 0.05


def _median_ms(fn, repeats: int, before=None) -> float:
    """Median milliseconds of ``repeats`` calls of ``fn``, each right after an untimed call of
    ``before`` when one is given."""
    from reproduce.bench.skeleton import Bench

    timed = fn if before is None else lambda _: fn()
    return Bench.time(timed, repeats, warmup=0, setup=before).median * 1e3


def child(repeats: int, threads: int, small_mb: int, smoke: bool = False) -> None:
    import numpy as np

    from kernreg.kernels import GaussianKernel, normal_pass
    from kernreg.kernels import compiled as C
    from reproduce.bench.skeleton import Bench
    from reproduce.bench.smoke import host_gemm, smoke_run

    rng = np.random.default_rng(0)
    n, m, d = SMOKE_BLOCK if smoke else BLOCK
    idle_s = SMOKE_IDLE_S if smoke else IDLE_S
    X = rng.random((n, d)).astype(np.float32)
    Y = X[:m].copy()
    xx, yy = (X * X).sum(1), (Y * Y).sum(1)
    out = np.empty((n, m), np.float32)
    X64, v = X.astype(np.float64), np.ones(m)
    small = GaussianKernel(6.6, memory_budget=small_mb * 2**20)
    whole = GaussianKernel(6.6)

    def gemm() -> None:
        np.matmul(X, Y.T, out=out)

    def exp_pass() -> None:
        C.distance_exp(out, xx, yy, C.GAUSSIAN, 0.01)

    def idle() -> None:
        gemm()
        time.sleep(idle_s)

    with smoke_run(smoke), Bench("reproduce/bench/bench_blas_spin.py", threads=threads,
                                 rates=False):
        gemm(), exp_pass(), small.matvec(X64, X64[:m], v)  # compile, touch
        after_idle = _median_ms(exp_pass, repeats, idle)
        after_gemm = _median_ms(exp_pass, repeats, gemm)
        block = _median_ms(lambda: (gemm(), exp_pass()), repeats)
        small_blocks = _median_ms(lambda: small.matvec(X64, X64[:m], v), repeats)
        one_block = _median_ms(lambda: whole.matvec(X64, X64[:m], v), repeats)
        gemm(), exp_pass()
        beta, target = rng.random(m), rng.random(n)
        stored_pass = _median_ms(lambda: normal_pass(out, beta, target), repeats)
        rate = host_gemm()
    timeout = os.environ.get("OPENBLAS_THREAD_TIMEOUT", "default")
    passes = (f"exp pass {after_idle:6.1f} ms after idle, {after_gemm:6.1f} ms after a GEMM; "
              f"block {block:6.1f} ms; K v in {small_mb} MB blocks {small_blocks:6.1f} ms, in "
              f"one block {one_block:6.1f} ms; stored pass {stored_pass:5.2f} ms")
    print(f"timeout {timeout:>7s}: {passes} (compiled path {C.active_path()}, {threads} BLAS "
          f"threads, GEMM {rate:.0f} GF/s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeouts", default="4,16,20,28",
                        help="comma-separated OPENBLAS_THREAD_TIMEOUT values (4..30)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--small-mb", type=int, default=4)
    parser.add_argument("--smoke", action="store_true",
                        help=f"smoke size: a {SMOKE_BLOCK[0]} × {SMOKE_BLOCK[1]} block, "
                             f"{SMOKE_IDLE_S} s of idle, the GEMM rate on tiny blocks "
                             "(seconds; the numbers mean nothing)")
    parser.add_argument(CHILD, dest="child", action="store_true",
                        help="measure in this process, at the OPENBLAS_THREAD_TIMEOUT it "
                             "started with (what each timeout's process runs; no --timeouts)")
    args = parser.parse_args()
    if args.child:
        child(args.repeats, args.threads, args.small_mb, args.smoke)
        return
    for timeout in (t for t in args.timeouts.split(",") if t):
        env = dict(os.environ, OPENBLAS_THREAD_TIMEOUT=timeout)
        subprocess.run([sys.executable, "-m", "reproduce.bench.bench_blas_spin", CHILD,
                        "--repeats", str(args.repeats), "--threads", str(args.threads),
                        "--small-mb", str(args.small_mb), *["--smoke"] * args.smoke],
                       env=env, check=True, cwd=REPO)


if __name__ == "__main__":
    main()
