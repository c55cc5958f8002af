"""Regenerate tests/reference/ci_cpusmall.csv, the committed reference of the CI run.

Run it only when a change is meant to change results, and say why in the commit message:

    python -m reproduce.nytro.make_ci_reference
    python -m reproduce.nytro.make_ci_reference --smoke -o SCRATCH/ci_cpusmall.csv  # seconds

``--smoke`` runs the config at ``kernreg run --smoke`` size (its numbers mean nothing) and
needs ``-o``: it never writes the committed reference.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from kernreg.config import load_experiment
from kernreg.experiment import run_experiment

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "tests" / "reference" / "ci_cpusmall.csv"
COLUMNS = ["label", "trial", "selected", "test_rmse", "test_error", "n_path_points"]


def write_reference(target: Path, smoke: bool = False) -> Path:
    """Run configs/ci_cpusmall.yaml (``smoke``: at smoke size) in a scratch folder and write
    its reference columns to ``target``."""
    exp = load_experiment(REPO / "configs" / "ci_cpusmall.yaml", smoke=smoke)
    with tempfile.TemporaryDirectory() as out:
        table = run_experiment(exp, out, progress=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    table.sort_values(["label", "trial"])[COLUMNS].to_csv(target, index=False,
                                                          float_format="%.10g")
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path,
                        help=f"where to write (default: {REFERENCE.relative_to(REPO)})")
    parser.add_argument("--smoke", action="store_true",
                        help="the config at smoke size (seconds); needs -o")
    args = parser.parse_args(argv)
    if args.smoke and args.output is None:
        parser.error("--smoke needs -o: a smoke run never overwrites the committed reference")
    print(f"wrote {write_reference(args.output or REFERENCE, args.smoke)}")


if __name__ == "__main__":
    main()
