"""Profile one fit: where a timed cell spends its seconds, by function.

Fits one algorithm of a config on trial 0's split (the protocol's hold-out split, the config's
BLAS threads) once under cProfile and prints the fit's wall time, the functions with the most
time of their own (numpy, BLAS and LAPACK calls appear as the Python functions that make them),
and the host's GEMM rate before and after. ``--warmup`` fits first without profiling (into
fresh memory: the first fit of a process also pays for first touch and compilation).

    python -m reproduce.bench.profile_fit configs/adult_all.yaml nkrls
    python -m reproduce.bench.profile_fit configs/covtype_nytro.yaml nytro --top 25
    python -m reproduce.bench.profile_fit configs/adult_nytro.yaml nytro --dtype float32 --warmup \
        --param strategy=memory --param validation_strategy=memory
    python -m reproduce.bench.profile_fit configs/adult_all.yaml nkrls --smoke  # seconds
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

from kernreg.config import load_experiment
from kernreg.experiment import (
    blas_description,
    make_estimator,
    prepare_data,
    resolve_blas_threads,
    trial_split,
)
from reproduce.bench.record import add_param_option, params_of
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("algorithm", help="an algorithm name (or label) of the config")
    parser.add_argument("--dtype", choices=["float64", "float32"],
                        help="override the config's kernel dtype")
    parser.add_argument("--top", type=int, default=15, help="functions printed")
    parser.add_argument("--warmup", action="store_true", help="one unprofiled fit first")
    add_param_option(parser, "a parameter of the algorithm, e.g. strategy=memory")
    add_smoke_option(parser)
    args = parser.parse_args()
    params = params_of(parser, args)
    exp = load_experiment(args.config, {"dataset": {"dtype": args.dtype}} if args.dtype else None,
                          smoke=args.smoke)
    matches = [a for a in exp.algorithms if args.algorithm in (a.name, a.label)]
    if not matches:
        parser.error(f"{args.config} has no algorithm {args.algorithm!r}")
    algo = matches[0]
    algo.params.update(params)
    threads = resolve_blas_threads(exp.budget["blas_threads"])
    with smoke_run(args.smoke), Bench("reproduce/bench/profile_fit.py", threads=threads,
                                      rates=False):
        data = prepare_data(exp)
        seed, split = trial_split(exp, data, 0)
        before = host_gemm()
        if args.warmup:
            make_estimator(algo, exp, seed).fit(*split)
        est = make_estimator(algo, exp, seed)
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.runcall(est.fit, *split)
        seconds = time.perf_counter() - start
        after = host_gemm()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.top)
    print(f"{exp.name} {algo.label} ({exp.dataset['dtype']}, n = {len(split[1])}, "
          f"n_val = {len(split[3])}): fit {seconds:.2f} s under cProfile; BLAS "
          f"{blas_description()}; host GEMM {before:.0f} GF/s before, {after:.0f} after")
    print(out.getvalue())


if __name__ == "__main__":
    main()
