"""Figures of a run: regularization paths, (m, λ) validation heat maps, time against m.

Every figure is built from what a run stored (``results.h5`` trial records and the tidy CSV), so
it can be redrawn at any time without recomputing anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display on servers and CI

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from kernreg.atomic import atomic_path
from kernreg.results.store import RunData, load_run
from kernreg.solvers import algorithm_title

__all__ = ["FORMATS", "figures_of_run", "loglog_slope", "plan_figures", "save_figure",
           "save_figures", "test_path_figure"]

FORMATS = ("png", "pdf")
#: A run with more one-parameter paths than this (an m sweep) gets time-vs-m curves instead
#: of one path figure per label.
MAX_PATH_FIGURES = 6
PARAM_AXIS = {"lambda": "λ (regularization)", "iterations": "iteration t"}


def loglog_slope(m: np.ndarray, seconds: np.ndarray) -> float:
    """Least-squares slope of log(time) against log(m) over the upper half of the m range,
    where fixed costs no longer dominate (1 = linear, 2 = quadratic)."""
    keep = m >= np.median(m)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(m[keep]), np.log(seconds[keep]), 1)[0])


def _title(run: RunData, what: str) -> str:
    return f"{run.dataset}: {what} ({run.name})"


def path_figure(run: RunData, label: str) -> Figure | None:
    """Validation RMSE along the path of ``label``: median over trials, min–max band, each
    trial's selected point marked and the test RMSE of the selected models in the legend."""
    recs = [r for r in run.records if r.label == label and r.val_rmse.ndim == 1
            and r.val_rmse.size > 1]
    if not recs:
        return None
    x = recs[0].path_values
    curves = np.array([r.val_rmse for r in recs if r.val_rmse.shape == x.shape])
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    ax.plot(x, np.median(curves, axis=0), color="C0", label="validation RMSE (median)")
    if len(curves) > 1:
        ax.fill_between(x, curves.min(axis=0), curves.max(axis=0), color="C0", alpha=0.2,
                        label=f"min–max over {len(curves)} trials")
    sel = np.array([r.selected for r in recs])
    at = np.array([r.val_rmse[np.argmin(np.abs(r.path_values - r.selected))] for r in recs])
    test = np.array([r.test_rmse for r in recs])
    ax.plot(sel, at, "v", color="C3", ms=8,
            label=f"selected (test RMSE {test.mean():.4g} ± {test.std():.2g})")
    param = recs[0].param_name or "lambda"
    if param == "lambda":
        ax.set_xscale("log")
    ax.set_xlabel(PARAM_AXIS.get(param, param))
    ax.set_ylabel("validation RMSE (target units)")
    ax.set_title(_title(run, f"{algorithm_title(recs[0].algorithm)} path"),
                 fontsize=10)
    ax.legend(fontsize=8)
    return fig


def heatmap_figure(run: RunData, label: str) -> Figure | None:
    """Mean validation RMSE over the (m', λ) grid of an incremental run, selections marked."""
    recs = [r for r in run.records if r.label == label and r.m_values.size]
    if not recs:
        return None
    lambdas, levels = recs[0].path_values, recs[0].m_values
    grid = np.nanmean(np.array([r.val_rmse for r in recs]), axis=0)  # (L, M)
    fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
    lo, hi = np.nanmin(grid), np.nanmax(grid)
    # large λ dominate a linear colour scale and hide the valley where (m, λ) is selected
    norm = LogNorm(lo, hi) if lo > 0 and hi / lo > 3 else None
    mesh = ax.pcolormesh(_edges(levels.astype(float), log=False),
                         _edges(lambdas, log=True), grid, shading="flat", cmap="viridis",
                         norm=norm)
    ax.set_yscale("log")
    fig.colorbar(mesh, ax=ax, label=f"validation RMSE, mean of {len(recs)} trials")
    picks = [(r.info.get("m_selected"), r.selected) for r in recs]
    ax.plot(*zip(*picks, strict=True), "o", mfc="none", mec="red", ms=9,
            label="selected (m*, λ*) per trial")
    ax.set_xlabel("number of random features D" if recs[0].algorithm == "rf"
                  else "number of Nyström centers m")
    ax.set_ylabel("λ")
    ax.set_title(_title(run, "validation error over (m, λ)"), fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    return fig


#: Curves per label of a test-path figure at most (one per λ); beyond, the λ selected most often.
MAX_TEST_CURVES = 4


def test_path_figure(run: RunData) -> Figure | None:
    """Test error against the number of centers or features m (thesis Figure 5.3): for every
    label whose trials recorded a test path (``protocol.record_test_path``) over levels m', the
    mean over trials of the test measure (classification error where the task records one,
    else RMSE) at each λ of the grid (the λ selected most often when the grid is long), with a
    ± std band."""
    recs = [r for r in run.records if r.test_path and r.m_values.size]
    if not recs:
        return None
    measure = "error" if all("error" in r.test_path for r in recs) else "rmse"
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    i = 0
    for label in dict.fromkeys(r.label for r in recs):
        group = [r for r in recs if r.label == label]
        lambdas, levels = group[0].path_values, group[0].m_values
        grids = np.array([r.test_path[measure] for r in group
                          if r.test_path[measure].shape == (lambdas.size, levels.size)])
        rows = range(lambdas.size)
        if lambdas.size > MAX_TEST_CURVES:
            picks = [int(np.argmin(np.abs(lambdas - r.selected))) for r in group]
            rows = [max(set(picks), key=picks.count)]
        kind = "random features" if group[0].algorithm == "rf" else "Nyström"
        for j in rows:
            mean, std = np.nanmean(grids[:, j], axis=0), np.nanstd(grids[:, j], axis=0)
            ax.plot(levels, mean, marker="o", ms=2.5, color=f"C{i}",
                    label=f"{kind} ({label}), λ = {lambdas[j]:.3g}")
            ax.fill_between(levels, mean - std, mean + std, color=f"C{i}", alpha=0.2)
            i += 1
    ax.set_xlabel("number of random features / Nyström centers m")
    ax.set_ylabel(f"test {'classification error' if measure == 'error' else 'RMSE'}")
    ax.set_title(f"{run.dataset}: test {measure} against m (mean ± std over trials)",
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def _edges(centers: np.ndarray, *, log: bool) -> np.ndarray:
    """Cell edges around grid points (geometric midpoints on a log axis)."""
    v = np.log(centers) if log else centers
    if v.size == 1:
        mid = np.array([v[0] - 0.5, v[0] + 0.5])
    else:
        inner = (v[1:] + v[:-1]) / 2
        mid = np.concatenate([[2 * v[0] - inner[0]], inner, [2 * v[-1] - inner[-1]]])
    return np.exp(mid) if log else mid


def time_table(run: RunData) -> pd.DataFrame:
    """Model-selection time per (algorithm, m): mean, std and number of repetitions."""
    t = run.table.dropna(subset=["m"])
    return (t.groupby(["algorithm", "m"])["model_selection_time"]
            .agg(["mean", "std", "count"]).reset_index().sort_values(["algorithm", "m"]))


def time_vs_m_figure(run: RunData) -> Figure | None:
    """Model-selection time against m (mean ± std over repetitions), one curve per algorithm
    with its log-log slope. With incremental NKRLS beside an NKRLS sweep, the batch cost of
    the same m-path (the sum of NKRLS times over all levels up to m) is drawn too."""
    times = time_table(run)
    per_algo = {a: g for a, g in times.groupby("algorithm") if g["m"].nunique() > 1}
    if not per_algo:
        return None
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    for i, (algo, g) in enumerate(sorted(per_algo.items())):
        m, mean = g["m"].to_numpy(float), g["mean"].to_numpy()
        slope = loglog_slope(m, mean)
        ax.errorbar(m, mean, yerr=g["std"].fillna(0).to_numpy(), marker="o", ms=3, capsize=2,
                    color=f"C{i}", label=f"{algorithm_title(algo)} "
                    f"(log-log slope {slope:.2f})")
    if "inkrls" in per_algo and "nkrls" in per_algo:
        batch = per_algo["nkrls"]
        at = per_algo["inkrls"]["m"].to_numpy(float)
        cumulative = [batch.loc[batch["m"] <= m, "mean"].sum() for m in at]
        ax.plot(at, cumulative, "s--", ms=3, color="C7",
                label="batch NKRLS over the same m-path (sum of NKRLS times up to m)")
    ax.set_xlabel("number of Nyström centers m")
    ax.set_ylabel("model-selection time (s)")
    ax.set_title(_title(run, "time against m"), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def plan_figures(run: RunData) -> tuple[dict[str, Figure], dict[str, str]]:
    """Every figure the run's contents allow, by file stem, and for what it cannot draw the
    reason why (``kernreg plot`` says both)."""
    figures: dict[str, Figure] = {}
    skipped: dict[str, str] = {}
    time_fig = time_vs_m_figure(run)
    if time_fig is None:
        skipped["time_vs_m"] = "no algorithm ran at two or more values of m"
    else:
        figures["time_vs_m"] = time_fig
    labels = list(dict.fromkeys(r.label for r in run.records))
    test_fig = test_path_figure(run)
    if test_fig is not None:
        figures["test_vs_m"] = test_fig
    # a path over m' at one λ is a curve, not a grid: the test-path figure draws it
    over_m = [lb for lb in labels if any(r.label == lb and r.m_values.size
                                         for r in run.records)]
    incremental = [lb for lb in over_m if any(r.label == lb and r.path_values.size > 1
                                              for r in run.records)]
    for label in over_m:
        if label not in incremental and test_fig is None:
            skipped[f"path_{label}"] = (f"{label} has a path over m at one λ: record it on the "
                                        f"test rows (protocol.record_test_path) to draw the "
                                        f"test error against m")
    if incremental:  # of an m sweep, the largest m holds the whole grid
        label = max(incremental, key=lambda lb: max(int(r.m_values.max()) for r in run.records
                                                    if r.label == lb))
        figures[f"heatmap_{label}"] = heatmap_figure(run, label)
    one_d = [lb for lb in labels if lb not in over_m]
    if len(one_d) > MAX_PATH_FIGURES:
        skipped["path_*"] = (f"{len(one_d)} one-parameter paths (an m sweep): the time against "
                             f"m figure stands for them")
        one_d = []
    for label in one_d:
        fig = path_figure(run, label)
        if fig is None:
            skipped[f"path_{label}"] = (f"{label} has no path to draw (one model, no "
                                        f"regularization parameter: e.g. KOLS)")
        else:
            figures[f"path_{label}"] = fig
    return figures, skipped


def figures_of_run(run: RunData) -> dict[str, Figure]:
    """Every figure the run's contents allow, by file stem."""
    return plan_figures(run)[0]


def save_figure(fig: Figure, paths: Sequence[str | Path]) -> list[Path]:
    """Save ``fig`` to each path (format from the suffix) and close it. Writes are atomic: a
    killed process leaves no half-written figure."""
    written = []
    for path in map(Path, paths):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lstrip("."), dpi=150)
        written.append(path)
    plt.close(fig)
    return written


def save_figures(run_dir: str | Path, out_dir: str | Path | None = None,
                 formats: Sequence[str] = FORMATS) -> tuple[list[Path], dict[str, str]]:
    """Draw every figure of a run into ``out_dir`` (default ``<run>/figures``); return the
    files written and, for each figure that could not be drawn, why."""
    run = load_run(run_dir)
    out = Path(out_dir) if out_dir else run.run_dir / "figures"
    figures, skipped = plan_figures(run)
    written: list[Path] = []
    for stem, fig in figures.items():
        written += save_figure(fig, [out / f"{stem}.{fmt}" for fmt in formats])
    return written, skipped
