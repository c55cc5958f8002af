"""Regenerate tests/reference/ci_cpusmall.csv, the committed reference of the CI run.

Run it only when a change is meant to change results, and say why in the commit message:

    python -m reproduce.nytro.make_ci_reference
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from kernreg.config import load_experiment
from kernreg.experiment import run_experiment

REPO = Path(__file__).resolve().parents[2]
COLUMNS = ["label", "trial", "selected", "test_rmse", "test_error", "n_path_points"]


def main() -> None:
    exp = load_experiment(REPO / "configs" / "ci_cpusmall.yaml")
    with tempfile.TemporaryDirectory() as out:
        table = run_experiment(exp, out, progress=False)
    target = REPO / "tests" / "reference" / "ci_cpusmall.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    table.sort_values(["label", "trial"])[COLUMNS].to_csv(target, index=False,
                                                          float_format="%.10g")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
