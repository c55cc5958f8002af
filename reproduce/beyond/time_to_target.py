"""Time to target error of each method of a side-by-side table config (``beyond_exact``).

For every dataset (one run of the table config) the target is NKRLS's test RMSE (the median
over its trials of the selected model's) plus 1 %; each trial of every label is read along
its path in the order its points became known (the model-selection clock), and its time to
target is the first moment its test RMSE is at most the target. Where a run recorded no
test path (``protocol.record_test_path`` off: a test kernel too large to evaluate at every
iterate) the same rule is read on the validation RMSE against NKRLS's selected validation
RMSE, and the table says so. A trial that never reaches the target counts as not reached;
the table gives the median time over the trials that reached it, the count, the median
model-selection time, the test RMSE of the selected models and the host's GEMM rate.

    python -m reproduce.beyond.time_to_target configs/beyond_exact.yaml \\
        -o results/beyond_exact_time_to_target.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from kernreg.errors import KernregError
from kernreg.results.numbers import format_number, mean_spread
from kernreg.results.record import TrialRecord
from kernreg.results.store import load_run
from kernreg.results.tables import load_table_config
from kernreg.solvers import algorithm_title

#: The relative margin above NKRLS's error that counts as reaching it.
MARGIN = 0.01
REFERENCE = "nkrls"


def first_time_at_most(record: TrialRecord, target: float, on_test: bool) -> float:
    """The first path time at which the trial's (test or validation) RMSE is at most
    ``target`` (NaN: never); a two-parameter path is read at every point it scored."""
    values = np.asarray(record.test_path["rmse"] if on_test else record.val_rmse, dtype=float)
    seconds = np.asarray(record.path_seconds, dtype=float)
    if seconds.shape != values.shape:
        return float("nan")
    values, seconds = values.ravel(), seconds.ravel()
    hit = np.isfinite(values) & np.isfinite(seconds) & (values <= target)
    return float(seconds[hit].min()) if hit.any() else float("nan")


def _reference_value(records: list[TrialRecord], on_test: bool) -> float:
    if on_test:
        return float(np.median([r.test_rmse for r in records]))
    return float(np.median([np.nanmin(r.val_rmse) for r in records]))


def dataset_rows(run_dir: Path) -> tuple[str, list[str]]:
    """The dataset's heading line and its table rows."""
    run = load_run(run_dir)
    references = [r for r in run.records if r.algorithm == REFERENCE]
    if not references:
        raise KernregError(f"{run_dir}: no {REFERENCE} trial to set the target")
    on_test = all("rmse" in r.test_path for r in run.records)
    target = _reference_value(references, on_test) * (1 + MARGIN)
    measure = "test" if on_test else "validation"
    heading = (f"**{run.dataset}** ({run.name}): target {measure} RMSE {target:.4g} "
               f"(NKRLS's selected {measure} RMSE, median over trials, + {MARGIN:.0%})")
    by_label: dict[str, list[TrialRecord]] = {}
    for record in run.records:
        by_label.setdefault(record.label, []).append(record)
    rows = []
    for label, records in by_label.items():
        times = np.array([first_time_at_most(r, target, on_test) for r in records])
        reached = np.isfinite(times)
        tests = np.array([r.test_rmse for r in records])
        gemm = [r.info.get("gemm_gflops") for r in records if r.info.get("gemm_gflops")]
        rows.append("| " + " | ".join([
            run.dataset, label, algorithm_title(records[0].algorithm), str(len(records)),
            format_number(float(np.median(times[reached]))) if reached.any() else "not reached",
            f"{int(reached.sum())}/{len(records)}",
            format_number(float(np.median([r.model_selection_time for r in records]))),
            mean_spread(tests),
            measure, f"{np.median(gemm):.0f}" if gemm else "",
            str(max(records[0].blas.values(), default="")),
        ]) + " |")
    return heading, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path, help="a table config naming the runs")
    parser.add_argument("--results-dir", type=Path, default=Path("results"))
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    try:
        names = [Path(run).stem for run in load_table_config(args.config)["runs"]]
        found = [args.results_dir / name for name in names
                 if (args.results_dir / name / "manifest.json").is_file()]
        sections = [dataset_rows(run_dir) for run_dir in found]
    except KernregError as err:
        print(f"time_to_target: {err}", file=sys.stderr)
        return 2
    missing = [name for name in names if args.results_dir / name not in found]
    lines = [f"# Time to target error ({args.config.name})", "",
             "Seconds of each trial's model-selection clock until its path first reaches the "
             f"target (NKRLS's RMSE + {MARGIN:.0%}); median over the trials that reached it. "
             "Host GEMM rate (GF/s, float64) and BLAS threads beside the times.", ""]
    for heading, _ in sections:
        lines.append(f"- {heading}")
    lines += ["", "| dataset | label | algorithm | trials | time to target (s) | reached | "
              "model-selection time (s) | test RMSE | read on | host GEMM GF/s | BLAS threads |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, rows in sections:
        lines += rows
    if missing:
        lines += ["", "Not run yet: " + ", ".join(missing) + "."]
    args.output.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
