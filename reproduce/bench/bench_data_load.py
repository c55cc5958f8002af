"""Benchmark: time to load prepared datasets from the binary (HDF5) cache.

Prints, per dataset, the one-off build time (parse + checks + preprocessing + cache write, when
the cache was cold), then the median/min/max of repeated cache loads inside one process, and the
median wall time of a fresh ``kernreg``-importing process doing one load (what a user waits for).

    python -m reproduce.bench.bench_data_load covtype_binary --repeats 5
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

import psutil
from threadpoolctl import threadpool_info

from kernreg.datasets import is_cached, load_dataset


def _timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["covtype_binary"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    threads = {i["internal_api"]: i["num_threads"] for i in threadpool_info()}
    print(f"BLAS/OpenMP threads: {threads}; CPUs: {psutil.cpu_count()}")
    for name in args.names:
        if not is_cached(name):
            build = _timed(lambda n=name: load_dataset(n))
            print(f"{name}: built cache in {build:.2f} s")
        warm = [_timed(lambda n=name: load_dataset(n)) for _ in range(args.repeats)]
        code = f"from kernreg.datasets import load_dataset; load_dataset({name!r})"
        cold = [_timed(lambda c=code: subprocess.run([sys.executable, "-c", c], check=True))
                for _ in range(args.repeats)]
        print(f"{name}: cache load in-process median {statistics.median(warm):.3f} s "
              f"(min {min(warm):.3f}, max {max(warm):.3f}, n={len(warm)}); "
              f"fresh process incl. imports median {statistics.median(cold):.3f} s "
              f"(min {min(cold):.3f}, max {max(cold):.3f}); "
              f"peak RSS of this process {_peak_rss_gib():.2f} GiB")


if __name__ == "__main__":
    main()
