"""Benchmark: time to load prepared datasets from the binary (HDF5) cache.

Prints, per dataset, the one-off build time (parse + checks + preprocessing + cache write, when
the cache was cold), then the median/min/max of repeated cache loads inside one process, and the
median wall time of a fresh ``kernreg``-importing process doing one load (what a user waits for).

    python -m reproduce.bench.bench_data_load covtype_binary --repeats 5
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys

import psutil
from threadpoolctl import threadpool_info

from kernreg.datasets import is_cached, load_dataset
from reproduce.bench.skeleton import Bench


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
            build = Bench.time(lambda n=name: load_dataset(n), 1, warmup=0)
            print(f"{name}: built cache in {build.median:.2f} s")
        warm = Bench.time(lambda n=name: load_dataset(n), args.repeats, warmup=0)
        code = f"from kernreg.datasets import load_dataset; load_dataset({name!r})"
        cold = Bench.time(lambda c=code: subprocess.run([sys.executable, "-c", c], check=True),
                          args.repeats, warmup=0)
        print(f"{name}: cache load in-process median {warm.median:.3f} s "
              f"(min {warm.min:.3f}, max {warm.max:.3f}, n={len(warm.seconds)}); "
              f"fresh process incl. imports median {cold.median:.3f} s "
              f"(min {cold.min:.3f}, max {cold.max:.3f}); "
              f"peak RSS of this process {_peak_rss_gib():.2f} GiB")


if __name__ == "__main__":
    main()
