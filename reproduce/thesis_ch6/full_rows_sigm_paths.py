"""Where the thesis's full-row SIGM values lie on our SIGM paths (Table 6.2, adult and ijcnn1).

Reads the run folders of ``make thesis-table6-full`` (no re-fit) and prints, for each SIGM
cell, the epochs its trials ran, the epoch they selected, the mean validation hinge loss at a
few epochs, and the first epoch at which each trial's validation hinge loss reaches the
thesis's test hinge loss (the validation rows are drawn from the same training file, so both
estimate the same risk)::

    .venv/bin/python -m reproduce.thesis_ch6.full_rows_sigm_paths

``--results-dir`` reads other run folders (the artifact's smoke run reads its smoke runs).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kernreg.results.store import load_run
from kernreg.results.thesis_table6 import paper_table6

ROWS = ("adult", "ijcnn1")
LABELS = ("SIGM_C", "SIGM_D")
MARKS = (10, 20, 50, 100)


def first_reaching(path: np.ndarray, epochs: np.ndarray, level: float) -> int | None:
    """The first epoch at which ``path`` is at or below ``level`` (None: never)."""
    hits = np.flatnonzero(path <= level)
    return int(epochs[hits[0]]) if hits.size else None


def _trials(count: int) -> str:
    return f"{count} trial" + ("" if count == 1 else "s")


def _spread(values: list[float]) -> str:
    if not values:
        return "none"
    return f"{np.median(values):g} ({min(values):g}-{max(values):g})"


def describe(results_dir: Path, row: str, label: str, paper: dict[str, float]) -> list[str]:
    run = load_run(results_dir / f"thesis_table6_{row}")
    records = sorted((r for r in run.records if r.label == label), key=lambda r: r.trial)
    if not records:
        return [f"{row} {label}: no trials in {run.run_dir}"]
    paths = [(np.asarray(r.path_values, dtype=int), np.asarray(r.val_rmse, dtype=float))
             for r in records]
    ran = [int(epochs[-1]) for epochs, _ in paths]
    reached = [first_reaching(path, epochs, paper["hinge"]) for epochs, path in paths]
    marks = []
    for mark in MARKS:
        at = [path[epochs == mark][0] for epochs, path in paths if mark in epochs]
        if at:
            marks.append(f"epoch {mark}: {np.mean(at):.3f} ({_trials(len(at))})")
    hit = [k for k in reached if k is not None]
    return [
        f"{row} {label}: {_trials(len(records))} ({records[0].val_measure} on the validation "
        "rows)",
        f"  epochs run {_spread(ran)}, selected {_spread([r.selected for r in records])}",
        f"  test hinge {np.mean([r.measures['hinge'] for r in records]):.3f}, error "
        f"{100 * np.mean([r.test_error for r in records]):.2f} %; the thesis's "
        f"{paper['hinge']:.3f} / {paper['error_pct']:.1f} %",
        "  mean validation hinge: " + "; ".join(marks),
        f"  first epoch at or below the thesis's hinge {paper['hinge']:.3f}: {_spread(hit)}"
        f" in {len(hit)} of {_trials(len(reached))}",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    table = paper_table6()
    for row in ROWS:
        for label in LABELS:
            paper = table.loc[(row, label)].to_dict()
            print("\n".join(describe(args.results_dir, row, label, paper)), flush=True)


if __name__ == "__main__":
    main()
