"""SGM's iteration budget on thesis Table 6.2's small rows: one pass (the thesis's statement)
against up to P cyclic passes per step-size guess (the best (guess, pass) on the hold-out
kept, as Enitor's ``SsubGD`` runs more than n iterations), each row's 10 trials re-fitted with
the runner's splits and seeds, scored on the whole test set; one CSV row per (row, schedule,
P): the selected model's test hinge loss and error, mean and std over the trials, and the
pass the hold-out picked::

    python -m reproduce.thesis_ch6.sgm_pass_budget -o results/thesis_table6_sgm_passes.csv

A setting the table could adopt must reproduce ijcnn1's SGM cells and leave adult's and
breastCancer's in place. ``--smoke``: the configs at smoke size, 1 trial, P ≤ 2 (seconds; its
numbers mean nothing).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from kernreg.kernels import make_kernel
from kernreg.solvers import OnePassSGM
from reproduce.thesis_ch6.thesis_ch6_checks import error_rates, hinge_losses, row_trials

ROWS = ("breast_cancer", "adult_1000", "ijcnn1_1000")
PASSES = (1, 2, 5, 10, 20, 40)
#: the configs' schedules: C tunes η (θ = 0), D tunes θ at η = 1/4
SCHEDULES = {"SGM_C": {"schedule": "constant"}, "SGM_D": {"schedule": "decaying", "eta": 0.25}}


def sweep(row: str, passes: tuple[int, ...], smoke: bool = False) -> list[dict]:
    """The rows of the CSV for one Table 6.2 row: every schedule and pass budget."""
    found: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    for sigma, data, seed, (X, y, X_val, y_val) in row_trials(row, smoke):
        K_test = make_kernel("gaussian", sigma)(data.X_test, X)
        for label, params in SCHEDULES.items():
            for most in passes:
                est = OnePassSGM(sigma=sigma, passes=most, random_state=seed, **params)
                f = (K_test @ est.fit(X, y, X_val, y_val).alpha_)[:, None]
                found.setdefault((label, most), []).append(
                    (float(hinge_losses(data.y_test, f)[0]),
                     float(error_rates(data.y_test, f)[0]), est.best_pass_))
    out = []
    for (label, most), values in found.items():
        hinge, error, best = np.array(values).T
        out.append({"row": row, "label": label, "passes": most, "trials": len(values),
                    "test_hinge": hinge.mean(), "test_hinge_std": hinge.std(),
                    "test_error_pct": 100 * error.mean(), "test_error_pct_std": 100 * error.std(),
                    "selected_pass_median": float(np.median(best))})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    passes = tuple(p for p in PASSES if p <= 2) if args.smoke else PASSES
    with threadpool_limits(limits=1):
        rows = [r for row in ROWS for r in sweep(row, passes, args.smoke)]
    table = pd.DataFrame(rows)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.output, index=False, float_format="%.6g")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
