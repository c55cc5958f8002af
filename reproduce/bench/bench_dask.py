"""Benchmark: NKRLS and NYTRO with their rows on a Dask LocalCluster against the local solvers.

On trial 0's split of a Table 2 dataset (its config's m, σ, dtype and NYTRO settings), fits
each solver locally and with ``backend="dask"`` on a LocalCluster of ``--workers`` processes ×
1 thread, side by side in one process, and prints: the median seconds of each, their ratio,
the bytes each iteration/product moves between the driver and the workers, and the cluster's
measured round-trip latency and transfer bandwidth — the constants of the scaling model in
docs/distributed.md. The host's GEMM rate is printed beside the times, and its rates before and
after each cell (reproduce.bench.skeleton). Each cell is also
written to ``--csv`` (default results/bench_dask.csv, the source of the table in
docs/distributed.md: ``make docs``), replacing the row of the same cell and worker count.

    python -m reproduce.bench.bench_dask covtype_binary --workers 2 --repeats 1 [--algorithms nytro]
    python -m reproduce.bench.bench_dask adult --workers 1 --smoke --csv /tmp/bench_dask.csv
        # the config at smoke size; the link measured with 5 round trips and 1 MB: seconds
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import psutil
from distributed import Client, LocalCluster

from kernreg.config import load_experiment
from kernreg.experiment import (
    make_estimator,
    prepare_data,
    resolve_blas_threads,
    trial_split,
)
from kernreg.solvers import rmse
from reproduce.bench.record import add_csv_options
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CSV = Path(__file__).resolve().parents[2] / "results" / "bench_dask.csv"
CSV_KEY = ["dataset", "algorithm", "m", "dtype", "workers"]
CSV_COLUMNS = [*CSV_KEY, "repeats", "local_s", "dask_s", "ratio", "moved_mb", "pred_rms_diff",
               "local_strategy", "dask_strategy", "host_gemm_gflops", "source"]
#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_dask.py"
DATASETS = {"covtype_binary": ("covtype_nkrls.yaml", "covtype_nytro.yaml"),
            "ijcnn1": ("ijcnn1_nkrls.yaml", "ijcnn1_nytro.yaml"),
            "adult": ("adult_all.yaml", "adult_all.yaml")}


def measure_link(client: Client, repeats: int = 50, payload_mb: int = 64
                 ) -> tuple[float, float]:
    """(round-trip seconds of an empty task, bytes/s of moving ``payload_mb`` MB to a worker
    and back)."""
    trip = Bench.time(lambda: client.submit(int, 0, pure=False).result(), repeats, warmup=1)
    payload = np.ones(payload_mb * 2**17)  # float64: 2**17 a MB
    transfer = Bench.time(lambda: client.scatter(payload, hash=False).result(), 1, warmup=0)
    assert transfer.result.shape == payload.shape
    return trip.median, 2 * payload.nbytes / transfer.median


def _fit(make, data, repeats: int) -> tuple[object, float]:
    """The last of ``repeats`` fits of ``make()`` on ``data`` and their median seconds."""
    timing = Bench.time(lambda est: est.fit(*data), repeats, warmup=0, setup=make)
    return timing.result, timing.median


def bench(name: str, workers: int, repeats: int, algorithms: list[str],
          csv: Path | None = None, smoke: bool = False) -> None:
    # as kernreg's own local:N: the workers share this machine's memory, each may use it all
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=psutil.virtual_memory().total
                      ) as cluster, Client(cluster) as client:
        latency, bandwidth = measure_link(client, 5, 1) if smoke else measure_link(client)
        print(f"cluster: {workers} workers × 1 thread; round trip {latency * 1e3:.2f} ms, "
              f"transfer {bandwidth / 1e9:.2f} GB/s", flush=True)
        for config, label in zip(DATASETS[name], ("nkrls", "nytro"), strict=True):
            if label not in algorithms:
                continue
            exp = load_experiment(CONFIGS / config, smoke=smoke)
            algo = next(a for a in exp.algorithms if a.name == label)
            data = prepare_data(exp)
            seed, split = trial_split(exp, data, 0)
            with Bench(SCRIPT, threads=resolve_blas_threads(exp.budget["blas_threads"]),
                       csv=csv, key=CSV_KEY, columns=CSV_COLUMNS) as cell:
                gflops = host_gemm()
                local, t_local = _fit(lambda a=algo, e=exp, s=seed: make_estimator(a, e, s),
                                      split, repeats)
                # the driver's own work; workers: 1 thread each
                with Bench(SCRIPT, threads=1, rates=False):
                    dask, t_dask = _fit(lambda a=algo, e=exp, s=seed: make_estimator(a, e, s)
                                        .set_params(backend="dask"), split, repeats)
            same = rmse(local.predict(data.X_test), dask.predict(data.X_test))
            m = algo.params["m"]
            moved = 8 * m * (3 * workers - 1)  # the iterate out, partial sums back (a tree)
            unit = "per iteration" if label == "nytro" else "for AᵀA (m × m per part)"
            if label == "nkrls":
                moved = 8 * m * m * (2 * workers - 1)
            strategy = {who: f"{e.strategy_}/{e.validation_strategy_}"
                        for who, e in (("local", local), ("dask", dask))
                        if hasattr(e, "strategy_")}
            plans = "".join(f", {who} strategy {plan}" for who, plan in strategy.items())
            print(f"{name} {label} m={m}: local {t_local:.1f} s, dask {t_dask:.1f} s, ratio "
                  f"{t_dask / t_local:.2f}; bytes moved {unit}: {moved / 1e6:.2f} MB; "
                  f"predictions differ by RMS {same:.1e}{plans}; host GEMM {gflops:.0f} GF/s",
                  flush=True)
            cell.record({
                "dataset": name, "algorithm": label, "m": m, "dtype": exp.dataset["dtype"],
                "workers": workers, "repeats": repeats, "local_s": round(t_local, 3),
                "dask_s": round(t_dask, 3), "ratio": round(t_dask / t_local, 3),
                "moved_mb": round(moved / 1e6, 3), "pred_rms_diff": f"{same:.2e}",
                "local_strategy": strategy.get("local"), "dask_strategy": strategy.get("dask"),
                "host_gemm_gflops": round(gflops, 1)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", choices=list(DATASETS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--algorithms", nargs="+", choices=("nkrls", "nytro"),
                        default=["nkrls", "nytro"])
    add_csv_options(parser, CSV)
    add_smoke_option(parser, "the link measured with 5 round trips and 1 MB")
    args = parser.parse_args()
    with smoke_run(args.smoke):
        for name in args.datasets:
            bench(name, args.workers, args.repeats, args.algorithms, args.csv, args.smoke)


if __name__ == "__main__":
    main()
