"""LIBSVM's cost on the full Table 6.2 rows (adult 32562, ijcnn1 49990), one C at a time: the
LIBSVM cell of ``configs/thesis_table6_<row>.yaml`` trains one SVM per C of its grid
(:data:`kernreg.solvers.algorithms.libsvm.DEFAULT_CS`, 13 values) on the 80 % fit rows; on a full
row one trial is the sum of those fits. This times them in the grid's (ascending) order on
trial 0's split (the runner's seed and split), each with its validation error and number of
support vectors, and stops starting new fits once ``--budget-s`` seconds are spent, so the
trial's cost is measured where it cannot be run::

    .venv/bin/python scripts/thesis_ch6_libsvm_full.py adult --budget-s 1200 \\
        --csv results/thesis_table6_libsvm_full.csv
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import gemm_gflops
from kernreg.solvers import LibSVM
from kernreg.solvers.algorithms.libsvm import DEFAULT_CS

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("row", choices=["adult", "ijcnn1"])
    parser.add_argument("--budget-s", type=float, default=1200.0,
                        help="no new fit starts after this many seconds")
    parser.add_argument("--cs", type=float, nargs="*", default=list(DEFAULT_CS))
    parser.add_argument("--csv", type=Path, default=None, help="append the rows here")
    args = parser.parse_args()
    exp = load_experiment(CONFIGS / f"thesis_table6_{args.row}.yaml")
    data = prepare_data(exp)
    _, (X, y, X_val, y_val) = trial_split(exp, data, 0)
    sigma = float(exp.kernel["sigma"])
    rate = gemm_gflops()
    print(f"{args.row}: {X.shape[0]} fit rows, {X_val.shape[0]} validation, σ = {sigma}; "
          f"host GEMM {rate:.1f} GF/s (1 thread; a loaded host: timings are not speed claims)")
    rows, spent = [], 0.0
    for C in sorted(args.cs):
        if spent > args.budget_s:
            print(f"C = {C:g}: not started ({spent:.0f} s spent > budget {args.budget_s:g} s)")
            continue
        est = LibSVM(sigma=sigma, Cs=[C])
        start = time.perf_counter()
        svc = est._svc(C).fit(X, y)
        fit_s = time.perf_counter() - start
        f = svc.decision_function(X_val)
        total_s = time.perf_counter() - start
        spent += total_s
        error = float(np.mean(np.where(f >= 0, 1.0, -1.0) != y_val))
        hinge = float(np.mean(np.maximum(0.0, 1.0 - y_val * f)))
        rows.append({"row": args.row, "n_fit": X.shape[0], "C": C, "fit_s": fit_s,
                     "fit_and_validate_s": total_s, "n_support": int(svc.n_support_.sum()),
                     "val_error": error, "val_hinge": hinge, "host_gemm_gflops": rate})
        print(f"C = {C:g}: fit {fit_s:.1f} s (+ validation {total_s - fit_s:.1f} s), "
              f"{rows[-1]['n_support']} support vectors, validation error {error:.4f}, "
              f"hinge {hinge:.4f}", flush=True)
    if args.csv is not None and rows:
        table = pd.DataFrame(rows)
        if args.csv.exists():
            old = pd.read_csv(args.csv)
            table = pd.concat([old[old["row"] != args.row], table], ignore_index=True)
        table.to_csv(args.csv, index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
