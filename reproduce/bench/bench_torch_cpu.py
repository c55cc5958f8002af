"""Benchmark: the device code on PyTorch's CPU build (``device: torch``) against the numpy path
(kernreg's compiled numba layer on, the default) on this host, side by side in one run.

Two parts, each in float32 and float64, timed alternately (numpy, torch, numpy, ...) so that a
change in the host's load hits both, and reported as medians over the repeats:

(a) a Gaussian kernel block ``K(X, C)`` (default 20000 × 2000, d = 54): the host path
    ``kernel(X, C, out=...)`` (the compiled distance-exponential pass, written into a reused
    buffer as the stored ``K_nm`` is) against ``kernel.to("torch").on_device(X, C)`` with the
    rows already torch arrays (the device's blocks under the same memory budget);
(b) one NYTRO normal pass ``K_nmᵀ(K_nm v − y)`` (default n = 100000, m = 1000), as NYTRO's
    iteration calls it (``make_knm(...).gradient(y)``): on a stored ``K_nm`` (strategy
    ``memory``: the compiled one-read pass against torch's two GEMVs) and re-evaluated block by
    block (strategy ``blocked``: kernel blocks and both products per pass).

The BLAS, OpenMP, numba and torch threads are all set to ``--threads`` (default: every core)
and printed. Each line's two results are compared (largest relative difference). The table is
printed and written to ``--csv`` (default results/bench_torch_cpu.csv). Nothing here feeds the
cost model.

    python -m reproduce.bench.bench_torch_cpu                   # make bench-torch-cpu
    python -m reproduce.bench.bench_torch_cpu --repeats 3 --n 50000
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from reproduce.bench.threads import set_thread_variables

REPO = Path(__file__).resolve().parents[2]


def set_threads(threads: int) -> None:
    """Every thread pool to ``threads``, before numpy, numba or torch is imported."""
    set_thread_variables(threads)
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


def rel(a, b) -> float:
    import numpy as np

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), np.finfo(np.float64).tiny))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="BLAS/OpenMP/numba/torch threads (default: every core)")
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds (default 7)")
    parser.add_argument("--rows", type=int, default=20000, help="(a): rows of X")
    parser.add_argument("--centers", type=int, default=2000, help="(a): rows of C")
    parser.add_argument("--d", type=int, default=54, help="features (Covertype's 54)")
    parser.add_argument("--n", type=int, default=100000, help="(b): rows of K_nm")
    parser.add_argument("--m", type=int, default=1000, help="(b): columns of K_nm")
    parser.add_argument("--blocked-repeats", type=int, default=3,
                        help="timed rounds of the blocked pass (default 3)")
    parser.add_argument("--csv", default=str(REPO / "results" / "bench_torch_cpu.csv"))
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np
    import pandas as pd
    import torch
    from threadpoolctl import threadpool_info

    from kernreg.experiment import blas_description
    from kernreg.kernels import make_kernel
    from kernreg.kernels.compiled import active_path, compiled_threads
    from kernreg.solvers.blocks.knm import make_knm
    from reproduce.bench.skeleton import Bench, Timing

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    sigma = float(np.sqrt(args.d))
    rows = []
    with Bench("reproduce/bench/bench_torch_cpu.py", threads=args.threads, rates=False) as bench:
        import numba

        print(f"host: {platform.node()}, {os.cpu_count()} cores, {platform.processor() or ''}"
              f"python {platform.python_version()}; numpy {np.__version__}, torch "
              f"{torch.__version__}, numba {numba.__version__}")
        openmp = [lib["num_threads"] for lib in threadpool_info()
                  if lib["user_api"] == "openmp"]
        print(f"threads set to {args.threads}: BLAS {blas_description()}; torch "
              f"{torch.get_num_threads()} (interop {torch.get_num_interop_threads()}); "
              f"numba pool {numba.get_num_threads()}, compiled calls {compiled_threads()}; "
              f"openmp {openmp}; kernel path {active_path()}")

        def record(case: str, dtype: str, shape: str, times: dict[str, Timing],
                   diff: float, repeats: int) -> None:
            med = {k: t.median for k, t in times.items()}
            rows.append({
                "case": case, "dtype": dtype, "shape": shape, "numpy_s": med["numpy"],
                "torch_s": med["torch"], "torch_over_numpy": med["torch"] / med["numpy"],
                "numpy_min_s": times["numpy"].min, "torch_min_s": times["torch"].min,
                "repeats": repeats, "rel_diff": diff, "threads": args.threads,
                "torch_threads": torch.get_num_threads(), "kernel_path": active_path(),
                "numpy": np.__version__, "torch": torch.__version__,
                "date": time.strftime("%Y-%m-%d"), "host_cores": os.cpu_count()})
            print(f"{case:<28} {dtype:<8} numpy {med['numpy']:8.4f} s  torch "
                  f"{med['torch']:8.4f} s  torch/numpy {med['torch'] / med['numpy']:6.2f}  "
                  f"(rel diff {diff:.1e})", flush=True)

        # (a) kernel blocks
        X = rng.standard_normal((args.rows, args.d))
        C = rng.standard_normal((args.centers, args.d))
        for dtype in ("float32", "float64"):
            host = make_kernel("gaussian", sigma, dtype=dtype)
            dev = host.to("torch")
            Xd, Cd = dev.device.asarray(X, dtype), dev.device.asarray(C, dtype)
            out = np.empty((args.rows, args.centers), dtype=dtype)
            results = {}

            def numpy_block(host=host, out=out, results=results):
                results["numpy"] = host(X, C, out=out)

            def torch_block(dev=dev, Xd=Xd, Cd=Cd, results=results):
                results["torch"] = dev.on_device(Xd, Cd)

            times = bench.side_by_side({"numpy": numpy_block, "torch": torch_block},
                                       args.repeats)
            shape = f"{args.rows}x{args.centers}x{args.d}"
            record("kernel block", dtype, shape, times,
                   rel(results["torch"].numpy(), results["numpy"]), args.repeats)
            # where the time goes: the block's distance GEMM X Cᵀ alone, on each side
            Xh, Ch = X.astype(dtype), C.astype(dtype)

            def numpy_gemm(Xh=Xh, Ch=Ch, out=out, results=results):
                results["numpy"] = np.matmul(Xh, Ch.T, out=out)

            def torch_gemm(Xd=Xd, Cd=Cd, results=results):
                results["torch"] = Xd @ Cd.T

            times = bench.side_by_side({"numpy": numpy_gemm, "torch": torch_gemm},
                                       args.repeats)
            record("kernel block: GEMM alone", dtype, shape, times,
                   rel(results["torch"].numpy(), results["numpy"]), args.repeats)
            del results, out

        # (b) NYTRO's normal pass: stored K_nm, then blocked
        X = rng.standard_normal((args.n, args.d))
        C = X[rng.choice(args.n, args.m, replace=False)]
        y = rng.standard_normal(args.n)
        v = rng.standard_normal(args.m) / args.m
        for storage, repeats in (("memory", args.repeats), ("blocked", args.blocked_repeats)):
            for dtype in ("float32", "float64"):
                host = make_kernel("gaussian", sigma, dtype=dtype)
                dev = host.to("torch")
                knm = {"numpy": make_knm(storage, host, X, C), "torch": make_knm(storage, dev,
                                                                                  X, C)}
                grads = {k: op.gradient(y) for k, op in knm.items()}
                results = {}

                def call(k, grads=grads, results=results):
                    results[k] = grads[k](v)

                times = bench.side_by_side({k: (lambda k=k: call(k)) for k in grads}, repeats)
                record(f"NYTRO normal pass, {storage}", dtype, f"{args.n}x{args.m}x{args.d}",
                       times, rel(results["torch"], results["numpy"]), repeats)
                for op in knm.values():
                    op.close()
                del knm, grads, results

    table = pd.DataFrame(rows)
    Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.csv, index=False, float_format="%.6g")
    print()
    print(table[["case", "dtype", "shape", "numpy_s", "torch_s", "torch_over_numpy",
                 "rel_diff"]].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    print(f"\nwritten: {args.csv}")


if __name__ == "__main__":
    sys.exit(main())
