"""Thesis Figures 6.1 and 6.2 (adult, n = 1000): the regularization paths of SIGM (test hinge
loss per epoch, fixed and decaying step) and of one-pass SGM (test error against η and θ).

Drawn from one run's records: ``configs/thesis_fig6_adult_1000.yaml`` (the subsample and trial
0's 80 % fit rows of the Table 6.2 adult-1000 row, σ = 4) records every path's test hinge loss
and test classification error (``protocol.record_test_path``); this script only reads them.
Writes ``<out>/thesis_fig6_1.png``, ``<out>/thesis_fig6_2.png`` and the curves as
``<out>/thesis_fig6_curves.csv``::

    .venv/bin/kernreg run configs/thesis_fig6_adult_1000.yaml
    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_figures \
        --run results/thesis_fig6_adult_1000 --out results/figures
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from kernreg.errors import ResultsError
from kernreg.results.record import TrialRecord
from kernreg.results.store import load_run

RUN = Path("results") / "thesis_fig6_adult_1000"


def panel_of(record: TrialRecord) -> tuple[str, str] | None:
    """(figure, panel) of a record: SIGM's epochs are Figure 6.1 (a: θ = 0, b: decaying),
    one-pass SGM's guesses Figure 6.2 (a: η over θ = 0, b: θ at η = 1/4); None otherwise."""
    if record.algorithm == "sigm":
        eta = record.info["step_size"]
        if record.info["theta"] == 0.0:
            return "6.1", f"a: η = {eta:.3g} (1/√n), θ = 0"
        return "6.1", f"b: η = {eta:.3g}, θ = {record.info['theta']:g}"
    if record.algorithm == "sgm" and record.info.get("passes", 1.0) == 1.0:
        if record.info["schedule"] == "constant":
            return "6.2", "a: θ = 0, η"
        return "6.2", f"b: η = {record.info['fixed_eta']:g}, θ"
    return None


def curves(run_dir: Path, trial: int = 0) -> pd.DataFrame:
    """Rows (figure, panel, label, x, test_hinge, test_error) of trial ``trial``'s recorded
    test paths. Raises :class:`ResultsError` when the run recorded none."""
    run = load_run(run_dir)
    rows = []
    for record in run.records:
        where = panel_of(record)
        if record.trial != trial or where is None:
            continue
        if not {"hinge", "error"} <= set(record.test_path):
            raise ResultsError(f"{run_dir}: {record.label} trial {trial} has no test hinge/error "
                               f"path; run its config with protocol.record_test_path: true")
        rows.append(pd.DataFrame({"figure": where[0], "panel": where[1], "label": record.label,
                                  "x": record.path_values,
                                  "test_hinge": record.test_path["hinge"],
                                  "test_error": record.test_path["error"]}))
    if not rows:
        raise ResultsError(f"{run_dir}: no SIGM or one-pass SGM trial {trial} to draw")
    return pd.concat(rows, ignore_index=True).sort_values(["figure", "panel"], kind="stable")


def draw(table: pd.DataFrame, figure: str, xlabel: dict[str, str], logx: bool) -> plt.Figure:
    panels = list(dict.fromkeys(table.loc[table.figure == figure, "panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(10, 3.8), constrained_layout=True)
    for ax, panel in zip(axes, panels, strict=True):
        g = table[(table.figure == figure) & (table.panel == panel)]
        ax.plot(g["x"], g["test_hinge"], "o-" if figure == "6.2" else "-", ms=3, color="C0",
                label="test hinge loss")
        ax.plot(g["x"], g["test_error"], "s--" if figure == "6.2" else "--", ms=3, color="C3",
                label="test classification error")
        best = g["test_hinge"].idxmin()
        ax.axvline(g.loc[best, "x"], color="0.6", lw=0.8)
        if figure == "6.2" and panel.startswith("a"):
            ax.set_xscale("log")
        ax.set_xlabel(xlabel[panel[0]])
        ax.set_title(f"({panel})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    what = "SIGM, test error per epoch" if figure == "6.1" else "one-pass SGM, test error"
    fig.suptitle(f"Thesis Figure {figure}: {what} (adult, 800 fit rows of a 1000 subset, σ = 4)")
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, default=RUN, help="the run's folder")
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/figures"))
    args = parser.parse_args()
    try:
        table = curves(args.run, args.trial)
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "thesis_fig6_curves.csv", index=False, float_format="%.6g")
    draw(table, "6.1", {"a": "epoch", "b": "epoch"}, False).savefig(
        args.out / "thesis_fig6_1.png", dpi=110)
    draw(table, "6.2", {"a": "η (θ = 0)", "b": "θ (η = 1/4)"}, True).savefig(
        args.out / "thesis_fig6_2.png", dpi=110)
    for (fig, panel), g in table.groupby(["figure", "panel"], sort=False):
        best = g.loc[g["test_hinge"].idxmin()]
        last = g.iloc[-1]
        print(f"Figure {fig} ({panel}): min test hinge {best.test_hinge:.4f} at x = {best.x:.3g}"
              f" (error {best.test_error:.4f}); last x = {last.x:.3g}: hinge "
              f"{last.test_hinge:.4f}, error {last.test_error:.4f}; first: hinge "
              f"{g.iloc[0].test_hinge:.4f}")


if __name__ == "__main__":
    main()
