"""Summarize a run per label and m into a committed CSV (mean and std over trials).

Reads a run folder's tidy table (``kernreg.results.store.load_run``) and writes one row per
(label, m): trials, mean and std (population) of the test RMSE and of the model-selection
time. ``make samplers`` writes results/samplers_cpusmall.csv with it, the source of the
samplers table in docs/solvers.md (``make docs``). The output keeps the ``#`` comment lines of
an existing file at that path.

    python -m reproduce.beyond.run_summary \\
        results/samplers_cpusmall -o results/samplers_cpusmall.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kernreg.errors import KernregError
from kernreg.results.store import load_run
from reproduce.bench.record import record_row, today_source

KEY = ["label", "m"]
COLUMNS = [*KEY, "trials", "test_rmse_mean", "test_rmse_std", "time_s_mean", "time_s_std",
           "host_gemm_gflops", "source"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder (kernreg run output)")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    try:
        table = load_run(args.run).table
    except KernregError as err:
        print(f"run_summary: {err}", file=sys.stderr)
        return 2
    source = today_source(f"{args.run.name} (reproduce/beyond/run_summary.py)")
    for (label, m), group in table.groupby(["label", "m"], sort=False):
        record_row(args.output, {
            # an m sweep labels its runs "<label>_m<m>": the label of the config is the column
            "label": str(label).removesuffix(f"_m{int(m)}"), "m": int(m), "trials": len(group),
            "test_rmse_mean": f"{group['test_rmse'].mean():.4g}",
            "test_rmse_std": f"{group['test_rmse'].std(ddof=0):.3g}",
            "time_s_mean": f"{group['model_selection_time'].mean():.3g}",
            "time_s_std": f"{group['model_selection_time'].std(ddof=0):.3g}",
            "host_gemm_gflops": f"{group['gemm_gflops'].median():.0f}",
            "source": source}, KEY, COLUMNS)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
