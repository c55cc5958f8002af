"""Benchmark: a fit alone and beside competing processes, with several BLAS thread counts.

Fits one Table 2 cell (trial 0's split of its config: Adult NYTRO by default) ``--repeats``
times alone, then while ``--competitors`` processes keep one core each busy (a BLAS GEMM loop,
one thread each: what another kernreg run or a Dask worker does), with each BLAS thread count
of ``--threads`` (``auto`` = kernreg's ``budget.blas_threads: auto``, the cores idle when the
fit starts). Prints median seconds, the slowdown under load, and the slowdown a fair share of
the cores predicts (``(competitors + threads) / cores`` when oversubscribed), side by side in
one run. The host's GEMM rate is printed beside the times, and its rates before and after the
run (reproduce.bench.skeleton). Each line is also written to
``--csv`` (default results/bench_load.csv, the source of the table in docs/speed.md: ``make
docs``), replacing the row of the same config, algorithm, competitors and thread setting.

    python -m reproduce.bench.bench_load --config configs/adult_all.yaml --algorithm nytro
    python -m reproduce.bench.bench_load --repeats 1 --competitors 1 --threads 1 auto \\
        --smoke --csv /tmp/bench_load.csv  # the config at smoke size, 0.1 s to settle
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.experiment import idle_cores, make_estimator, prepare_data, trial_split
from reproduce.bench.record import add_csv_options
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

ROOT = Path(__file__).resolve().parents[2]
CSV_KEY = ["config", "algorithm", "competitors", "threads_setting"]
CSV_COLUMNS = ["config", "algorithm", "cores", "competitors", "threads_setting", "threads",
               "median_s", "repeats", "host_gemm_gflops", "source"]


#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_load.py"
#: Seconds the competitors get to start spinning before the fits are timed (smoke: 0.1).
SETTLE_S = 1.0

def _compete(stop: mp.Event) -> None:  # type: ignore[valid-type]
    """Keep one core busy with GEMMs until told to stop."""
    with threadpool_limits(limits=1):
        a = np.random.default_rng(0).standard_normal((512, 512))
        while not stop.is_set():
            a @ a


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "adult_all.yaml"))
    parser.add_argument("--algorithm", default="nytro")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--competitors", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--threads", nargs="+", default=["2", "1", "auto"])
    add_csv_options(parser, ROOT / "results" / "bench_load.csv")
    add_smoke_option(parser, "0.1 s for the competitors to start")
    args = parser.parse_args()
    with smoke_run(args.smoke):
        _bench(args)


def _bench(args: argparse.Namespace) -> None:
    exp = load_experiment(args.config, smoke=args.smoke)
    algo = next(a for a in exp.algorithms if a.label == args.algorithm)
    data = prepare_data(exp)
    seed, split = trial_split(exp, data, 0)
    cores = len(os.sched_getaffinity(0))
    with Bench(SCRIPT, threads=cores, csv=args.csv, key=CSV_KEY, columns=CSV_COLUMNS) as bench:
        gemm = host_gemm()
        print(f"{cores} cores; host GEMM {gemm:.0f} GF/s alone", flush=True)

        def make(a=algo, e=exp, s=seed):
            return make_estimator(a, e, s)

        make().fit(*split)  # warm-up, untimed: first touch of the data, thread pools
        _loaded(bench, args, exp.name, cores, gemm, make, split)


def _loaded(bench: Bench, args: argparse.Namespace, config: str, cores: int, host_gemm: float,
            make, split) -> None:
    """Each thread setting's median fit alone, then beside each count of competitors."""
    alone: dict[str, float] = {}  # BLAS threads setting → median seconds with no competitor
    for competitors in [0, *args.competitors]:
        stop = mp.Event()
        procs = [mp.Process(target=_compete, args=(stop,), daemon=True) for _ in range(competitors)]
        for p in procs:
            p.start()
        time.sleep(0.1 if args.smoke else SETTLE_S)  # let them start spinning
        try:
            for spec in args.threads:
                threads = idle_cores() if spec == "auto" else int(spec)
                with Bench(SCRIPT, threads=threads, rates=False):
                    seconds = Bench.time(lambda est: est.fit(*split), args.repeats, warmup=0,
                                         setup=make).median
                if competitors == 0:
                    alone[spec] = seconds
                fair = max(1.0, (competitors + threads) / cores)
                versus = "" if competitors == 0 else (
                    f"; ×{seconds / alone[spec]:.2f} of alone with the same setting (a fair "
                    f"share of the cores: ×{fair:.2f}), ×{seconds / min(alone.values()):.2f} of "
                    "the fastest alone")
                print(f"{args.algorithm} {config}: {competitors} competing process(es), "
                      f"BLAS threads {spec} ({threads}): median {seconds:.3f} s "
                      f"(n={args.repeats}){versus}", flush=True)
                bench.record({
                    "config": config, "algorithm": args.algorithm, "cores": cores,
                    "competitors": competitors, "threads_setting": spec, "threads": threads,
                    "median_s": round(seconds, 4), "repeats": args.repeats,
                    "host_gemm_gflops": round(host_gemm, 1)})
        finally:
            stop.set()
            for p in procs:
                p.join()


if __name__ == "__main__":
    main()
