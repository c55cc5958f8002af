"""Figures of a run: regularization paths, (m, λ) validation heat maps, time against m, error
against elapsed time.

Every figure is built from what a run stored (``results.h5`` trial records and the tidy CSV), so
it can be redrawn at any time without recomputing anything. Every trial is drawn: trials whose
paths end at different points (an early-stopping rule firing at another iteration) or cover
other grid points are aligned on the union of their grids, and a statistic at a point is over
the trials with a value there — the figure and its caption say how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")  # files only: no display on servers and CI

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from kernreg.atomic import atomic_path
from kernreg.losses import get_measure
from kernreg.results.numbers import format_number
from kernreg.results.record import TrialRecord
from kernreg.results.store import RunData, load_run
from kernreg.solvers import algorithm_names, algorithm_title

__all__ = ["FORMATS", "CaptionedFigure", "captioned_figures", "error_vs_time_figure",
           "figures_of_run", "loglog_slope", "path_figure", "plan_figures", "save_figure",
           "save_figures", "test_path_figure"]

FORMATS = ("png", "pdf")
#: An m sweep with more one-parameter paths than this gets time-vs-m curves instead of one
#: path figure per label (a run of that many algorithms, no sweep, gets every path figure).
MAX_PATH_FIGURES = 6
PARAM_AXIS = {"lambda": "λ (regularization)", "iterations": "iteration t"}
#: The symbol of a path parameter in legends and captions.
PARAM_SYMBOL = {"lambda": "λ", "iterations": "t"}
#: Grid values closer than this (relative) are one point: a λ grid recomputed per trial.
GRID_RTOL = 1e-9


class CaptionedFigure(NamedTuple):
    """A figure and the sentence that says what it shows (the HTML report's caption)."""

    figure: Figure
    caption: str


def loglog_slope(m: np.ndarray, seconds: np.ndarray) -> float:
    """Least-squares slope of log(time) against log(m) over the upper half of the m range,
    where fixed costs no longer dominate (1 = linear, 2 = quadratic)."""
    keep = m >= np.median(m)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(m[keep]), np.log(seconds[keep]), 1)[0])


def _title(run: RunData, what: str) -> str:
    return f"{run.dataset}: {what} ({run.name})"


def _measure_title(name: str) -> str:
    """A measure's title ("RMSE"), its name where it is not registered (a plugin's)."""
    try:
        return get_measure(name).title
    except ValueError:
        return name


def _trials(n: int) -> str:
    return f"{n} trial{'s' if n != 1 else ''}"


# ----------------------------------------------------------------------- aligning trials
def _union(grids: Sequence[np.ndarray]) -> np.ndarray:
    """The sorted union of ``grids``; values within :data:`GRID_RTOL` of each other are one
    point (the smallest stands for them)."""
    values = np.sort(np.concatenate([np.asarray(g, dtype=float).ravel() for g in grids]))
    keep = np.ones(values.size, dtype=bool)
    keep[1:] = ~np.isclose(values[1:], values[:-1], rtol=GRID_RTOL, atol=0.0)
    return values[keep]


def _positions(union: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The index in ``union`` of each value of ``grid`` (a value of ``_union``'s input)."""
    return np.searchsorted(union, np.asarray(grid, dtype=float), side="right") - 1


def _align(values: Sequence[np.ndarray], rows: Sequence[np.ndarray],
           cols: Sequence[np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Trials' arrays on the union of their grids: ``(row grid, column grid or None, stacked)``
    with ``stacked[k]`` trial k's values and NaN where it has no point (a path that ended)."""
    row_union = _union(rows)
    col_union = None if cols is None else _union(cols)
    shape = (len(values), row_union.size, *(() if col_union is None else (col_union.size,)))
    stacked = np.full(shape, np.nan)
    for k, value in enumerate(values):
        i = _positions(row_union, rows[k])
        if cols is None or col_union is None:
            stacked[k, i] = value
        else:
            stacked[k][np.ix_(i, _positions(col_union, cols[k]))] = value
    return row_union, col_union, stacked


def _counts(stacked: np.ndarray) -> np.ndarray:
    """Trials with a finite value at each point."""
    return np.isfinite(stacked).sum(axis=0)


def _nan_stat(stacked: np.ndarray, stat: str) -> np.ndarray:
    """``stat`` (median, mean, std, min, max) over trials at each point where one has a value;
    NaN where none has (computed only there: no all-NaN warnings)."""
    out = np.full(stacked.shape[1:], np.nan)
    have = _counts(stacked) > 0
    out[have] = getattr(np, f"nan{stat}")(stacked[:, have], axis=0)
    return out


class _Paths(NamedTuple):
    """The validation paths of one label's trials, aligned (:func:`_align`)."""

    records: list[TrialRecord]
    x: np.ndarray
    values: np.ndarray  # (trials, points)
    param: str

    @property
    def counts(self) -> np.ndarray:
        return _counts(self.values)

    @property
    def even(self) -> bool:
        """Every trial has a value at every point (trials of one grid, none stopped early)."""
        return bool((self.counts == len(self.records)).all())

    @property
    def symbol(self) -> str:
        return PARAM_SYMBOL.get(self.param, self.param)

    def where(self) -> str:
        """Which trials a statistic at a point is over."""
        if self.even:
            return _trials(len(self.records))
        if self.param == "iterations":
            return f"the trials reaching each {self.symbol}"
        return f"the trials with a value at each {self.symbol}"

    def coverage(self) -> str:
        """How many trials there are and, when they end apart, how many reach the end."""
        n = len(self.records)
        if self.even:
            return _trials(n)
        counts = self.counts
        if self.param == "iterations":
            # where each trial's path ends: its last finite value (a stopped path may be NaN on)
            ends = [r.path_values[np.isfinite(r.val_rmse)].max(initial=-np.inf)
                    for r in self.records]
            reach = "reaches" if counts[-1] == 1 else "reach"
            return (f"{_trials(n)}; {counts[-1]} {reach} {self.symbol} = {self.x[-1]:g}, the "
                    f"shortest ends at {self.symbol} = {min(ends):g}")
        return (f"{_trials(n)}; {counts.min()} to {counts.max()} with a value at each "
                f"{self.symbol}")


def _path_records(run: RunData, label: str) -> _Paths | None:
    recs = [r for r in run.records if r.label == label and r.val_rmse.ndim == 1
            and r.val_rmse.size > 1]
    if not recs:
        return None
    x, _, values = _align([r.val_rmse for r in recs], [r.path_values for r in recs])
    return _Paths(recs, x, values, recs[0].param_name or "lambda")


def _selected_points(recs: Sequence[TrialRecord]) -> tuple[np.ndarray, np.ndarray]:
    """Each trial's selected point on its own path (trials without one are left out)."""
    xs, ys = [], []
    for r in recs:
        if not np.isfinite(r.selected):
            continue
        i = int(np.argmin(np.abs(r.path_values - r.selected)))
        if np.isfinite(r.val_rmse[i]):
            xs.append(r.path_values[i])
            ys.append(r.val_rmse[i])
    return np.array(xs), np.array(ys)


def _draw_path(run: RunData, label: str) -> CaptionedFigure | None:
    paths = _path_records(run, label)
    if paths is None:
        return None
    recs, x, values = paths.records, paths.x, paths.values
    measure = recs[0].val_measure
    title = _measure_title(measure)
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    if not paths.even:  # each trial to its own end: the band alone hides where they stop
        for k, r in enumerate(recs):
            ax.plot(r.path_values, r.val_rmse, color="C0", lw=0.7, alpha=0.45,
                    label="each trial's own path" if k == 0 else None)
    ax.plot(x, _nan_stat(values, "median"), color="C0",
            label=f"validation {title} (median)" if paths.even
            else f"validation {title}: median over {paths.where()}")
    if len(recs) > 1:
        ax.fill_between(x, _nan_stat(values, "min"), _nan_stat(values, "max"), color="C0",
                        alpha=0.2, label=f"min–max over {paths.where()}")
    sel_x, sel_y = _selected_points(recs)
    test = np.array([r.measures.get(measure, r.test_rmse) for r in recs], dtype=float)
    spread = float(test.std()) if len(test) > 1 else None  # one rounding rule (numbers.py)
    ax.plot(sel_x, sel_y, "v", color="C3", ms=8,
            label=f"selected (test {title} {format_number(float(test.mean()), spread)})")
    if paths.param == "lambda":
        ax.set_xscale("log")
    ax.set_xlabel(PARAM_AXIS.get(paths.param, paths.param))
    ax.set_ylabel(f"validation {title} (target units)" if measure == "rmse"
                  else f"validation {title}")
    ax.set_title(_title(run, f"{algorithm_title(recs[0].algorithm)} path"), fontsize=10)
    ax.legend(fontsize=8, title=None if paths.even else paths.coverage(), title_fontsize=8)
    sym = paths.symbol
    caption = (
        f"Validation {title} of {algorithm_title(recs[0].algorithm)} (label {label}) against "
        f"{PARAM_AXIS.get(paths.param, paths.param)}, on the validation split "
        f"({recs[0].n_val} rows held out of the training set), {paths.coverage()}: the line is "
        f"the median and the band the min–max over {paths.where()}"
        + ("" if paths.even else ", each trial's own path is drawn thin")
        + f"; ▼ marks each trial's selected {sym}* on its own path, and the legend gives the "
        f"test {title} of the selected models (mean ± std over trials).")
    return CaptionedFigure(fig, caption)


def path_figure(run: RunData, label: str) -> Figure | None:
    """Validation error along the path of ``label``: every trial's path to its own end, the
    median and min–max band over the trials with a value at each point (their number in the
    legend when trials end apart), each trial's selected point marked on its own path and the
    test error of the selected models in the legend."""
    drawn = _draw_path(run, label)
    return None if drawn is None else drawn.figure


def _heatmap_measure(name: str) -> str:
    """What a heat map's colour and caption call the validation measure ``name``: the
    classification error in words (the papers' colour bars say so), else its title."""
    return "classification error" if name == "error" else _measure_title(name)


def _draw_heatmap(run: RunData, label: str) -> CaptionedFigure | None:
    """Mean validation error over the (m', λ) grid of an incremental run, selections marked.

    The colour is the trials' validation measure (``TrialRecord.val_measure``: RMSE for
    kernreg's square-loss runs; the classification error where the records' validation paths
    hold it, e.g. reproduce/lim/lim_fig1_heatmaps.py's re-scored trials)."""
    recs = [r for r in run.records if r.label == label and r.m_values.size]
    if not recs:
        return None
    lambdas, levels, stacked = _align([r.val_rmse for r in recs], [r.path_values for r in recs],
                                      [r.m_values for r in recs])
    assert levels is not None  # aligned on the m levels too
    grid = _nan_stat(stacked, "mean")  # (L, M)
    counts = _counts(stacked)
    title = _heatmap_measure(recs[0].val_measure)
    over = (f"mean of {_trials(len(recs))}" if (counts == len(recs)).all() else
            f"mean over the trials with a value in each cell ({_trials(len(recs))}, "
            f"{counts.min()} to {counts.max()} per cell)")
    fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
    lo, hi = np.nanmin(grid), np.nanmax(grid)
    # large λ dominate a linear colour scale and hide the valley where (m, λ) is selected
    norm = LogNorm(lo, hi) if lo > 0 and hi / lo > 3 else None
    mesh = ax.pcolormesh(_edges(levels, log=False), _edges(lambdas, log=True), grid,
                         shading="flat", cmap="viridis", norm=norm)
    ax.set_yscale("log")
    fig.colorbar(mesh, ax=ax, label=f"validation {title}, {over}")
    picks = [(r.info.get("m_selected"), r.selected) for r in recs]
    ax.plot(*zip(*picks, strict=True), "o", mfc="none", mec="red", ms=9,
            label="selected (m*, λ*) per trial")
    kind = "random features D" if recs[0].algorithm == "rf" else "Nyström centers m"
    ax.set_xlabel(f"number of {kind}")
    ax.set_ylabel("λ")
    ax.set_title(_title(run, "validation error over (m, λ)"), fontsize=10)
    # where the fewest circles are: selections at the grid's top right (λ* at the range's top
    # and m* at its end, as on cpuSmall) stay visible
    ax.legend(fontsize=8, loc="best")
    caption = (f"Validation {title} of {algorithm_title(recs[0].algorithm)} (label {label}) over "
               f"the grid of the number of {kind} and λ, on the validation split "
               f"({recs[0].n_val} rows held out of the training set): the colour is the "
               f"{over}; ○ marks each trial's selected (m*, λ*).")
    return CaptionedFigure(fig, caption)


def heatmap_figure(run: RunData, label: str) -> Figure | None:
    """Mean validation error over the (m', λ) grid of an incremental run, selections marked."""
    drawn = _draw_heatmap(run, label)
    return None if drawn is None else drawn.figure


#: Curves per label of a test-path figure at most (one per λ); beyond, the λ selected most often.
MAX_TEST_CURVES = 4


def _draw_test_path(run: RunData) -> CaptionedFigure | None:
    recs = [r for r in run.records if r.test_path and r.m_values.size]
    if not recs:
        return None
    measure = "error" if all("error" in r.test_path for r in recs) else "rmse"
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    i = 0
    counts_text = []
    for label in dict.fromkeys(r.label for r in recs):
        group = [r for r in recs if r.label == label]
        lambdas, levels, grids = _align([r.test_path[measure] for r in group],
                                        [r.path_values for r in group],
                                        [r.m_values for r in group])
        assert levels is not None  # aligned on the m levels too
        counts = _counts(grids)
        counts_text.append(f"{label} {_trials(len(group))}" if (counts == len(group)).all()
                           else f"{label} {_trials(len(group))}, {counts.min()} to "
                                f"{counts.max()} at each (m, λ)")
        rows = range(lambdas.size)
        if lambdas.size > MAX_TEST_CURVES:
            picks = [int(np.argmin(np.abs(lambdas - r.selected))) for r in group]
            rows = [max(set(picks), key=picks.count)]
        kind = "random features" if group[0].algorithm == "rf" else "Nyström"
        for j in rows:
            mean, std = _nan_stat(grids[:, j], "mean"), _nan_stat(grids[:, j], "std")
            ax.plot(levels, mean, marker="o", ms=2.5, color=f"C{i}",
                    label=f"{kind} ({label}), λ = {lambdas[j]:.3g}")
            ax.fill_between(levels, mean - std, mean + std, color=f"C{i}", alpha=0.2)
            i += 1
    what = "classification error" if measure == "error" else "RMSE"
    ax.set_xlabel("number of random features / Nyström centers m")
    ax.set_ylabel(f"test {what}")
    ax.set_title(f"{run.dataset}: test {measure} against m (mean ± std over trials)",
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    caption = (f"Test {what} on the test split ({recs[0].n_test} rows) against the number of "
               f"random features or Nyström centers m, of the models fitted on the fit rows "
               f"along each recorded path: per label and λ (the λ selected most often when the "
               f"grid has more than {MAX_TEST_CURVES}), the line is the mean and the band ± one "
               f"std over the trials ({'; '.join(counts_text)}).")
    return CaptionedFigure(fig, caption)


def test_path_figure(run: RunData) -> Figure | None:
    """Test error against the number of centers or features m (thesis Figure 5.3): for every
    label whose trials recorded a test path (``protocol.record_test_path``) over levels m', the
    mean over trials of the test measure (classification error where the task records one,
    else RMSE) at each λ of the grid (the λ selected most often when the grid is long), with a
    ± std band; trials over other levels are aligned on the union of the levels."""
    drawn = _draw_test_path(run)
    return None if drawn is None else drawn.figure


def _edges(centers: np.ndarray, *, log: bool) -> np.ndarray:
    """Cell edges around grid points (geometric midpoints on a log axis)."""
    centers = np.asarray(centers, dtype=float)
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


def _draw_time_vs_m(run: RunData) -> CaptionedFigure | None:
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
    batch_note = ""
    if "inkrls" in per_algo and "nkrls" in per_algo:
        batch = per_algo["nkrls"]
        at = per_algo["inkrls"]["m"].to_numpy(float)
        cumulative = [batch.loc[batch["m"] <= m, "mean"].sum() for m in at]
        ax.plot(at, cumulative, "s--", ms=3, color="C7",
                label="batch NKRLS over the same m-path (sum of NKRLS times up to m)")
        batch_note = ("; the dashed line is the batch cost of incremental NKRLS's m-path (the "
                      "sum of the mean NKRLS times at every m up to it)")
    ax.set_xlabel("number of Nyström centers m")
    ax.set_ylabel("model-selection time (s)")
    ax.set_title(_title(run, "time against m"), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    counts = pd.concat(list(per_algo.values()))["count"]
    per_point = (_trials(int(counts.min())) if counts.min() == counts.max()
                 else f"{counts.min()} to {counts.max()} trials")
    caption = (f"Model-selection time (seconds, validation path included) against the number "
               f"of Nyström centers m, for each algorithm run at two or more m: the mean and "
               f"± one std over the trials at each m ({per_point} per point); the legend gives "
               f"the log-log slope over the upper half of the m range{batch_note}.")
    return CaptionedFigure(fig, caption)


def time_vs_m_figure(run: RunData) -> Figure | None:
    """Model-selection time against m (mean ± std over repetitions), one curve per algorithm
    with its log-log slope. With incremental NKRLS beside an NKRLS sweep, the batch cost of
    the same m-path (the sum of NKRLS times over all levels up to m) is drawn too."""
    drawn = _draw_time_vs_m(run)
    return None if drawn is None else drawn.figure


# ------------------------------------------------------------------- error against time
class _TimedPath(NamedTuple):
    """One trial's path as points reached in time: grid values, the validation error, the
    seconds at which it was known, the test measure (NaN where none recorded) and the index
    of the selected point (None where it is not on the path)."""

    grid: np.ndarray
    val: np.ndarray
    seconds: np.ndarray
    test: np.ndarray
    selected: int | None


def _timed_path(r: TrialRecord, test_measure: str | None) -> _TimedPath:
    """``r``'s path against time; a path over levels (m' or D') as each level's best λ (the
    model a selection stopped at that level would take)."""
    val, secs = np.asarray(r.val_rmse, dtype=float), np.asarray(r.path_seconds, dtype=float)
    test = np.asarray(r.test_path[test_measure], dtype=float) if test_measure in r.test_path \
        else np.full(val.shape, np.nan)
    if val.ndim == 1:
        selected = None
        if np.isfinite(r.selected) and r.path_values.size == val.size:
            selected = int(np.argmin(np.abs(r.path_values - r.selected)))
        return _TimedPath(np.asarray(r.path_values, dtype=float), val, secs, test, selected)
    levels = np.flatnonzero(np.isfinite(val).any(axis=0))
    best = [int(np.nanargmin(val[:, k])) for k in levels]
    selected = None
    m_selected = r.info.get("m_selected")
    if m_selected in set(r.m_values[levels].tolist()):
        selected = int(np.flatnonzero(r.m_values[levels] == m_selected)[0])
    return _TimedPath(np.asarray(r.m_values[levels], dtype=float), val[best, levels],
                      secs[best, levels], test[best, levels], selected)


def _timed_records(run: RunData) -> tuple[dict[str, list[TrialRecord]], str | None]:
    """The trials with recorded path times by label (those of the run's most common
    validation measure: one y axis), and that measure."""
    timed = [r for r in run.records if r.path_seconds.size
             and r.path_seconds.shape == r.val_rmse.shape]
    if not timed:
        return {}, None
    measures = [r.val_measure for r in timed]
    measure = max(dict.fromkeys(measures), key=measures.count)
    by_label: dict[str, list[TrialRecord]] = {}
    for r in timed:
        if r.val_measure == measure:
            by_label.setdefault(r.label, []).append(r)
    return by_label, measure


def _algorithm_colours(algorithms: dict[str, str]) -> dict[str, int]:
    """A colour index per label: its algorithm's place in the registry, so that NYTRO, NKRLS,
    ES... keep their colours from one run's figure to the next; a second label of the same
    algorithm takes the next free index."""
    order = list(algorithm_names())
    taken: set[int] = set()
    out = {}
    for label, algorithm in algorithms.items():
        i = order.index(algorithm) % 10 if algorithm in order else 0
        while i in taken and len(taken) < 10:
            i = (i + 1) % 10
        taken.add(i)
        out[label] = i
    return out


def _draw_error_vs_time(run: RunData) -> CaptionedFigure | None:
    by_label, measure = _timed_records(run)
    if not by_label or measure is None:
        return None
    title = _measure_title(measure)
    everyone = [r for recs in by_label.values() for r in recs]
    with_test = [r for r in everyone if r.test_path]  # the labels that evaluate a test path
    test_measure = next((name for name in (measure, "error", "rmse")
                         if with_test and all(name in r.test_path for r in with_test)), None)
    fig, axes = plt.subplots(1, 2 if test_measure else 1, figsize=(11 if test_measure else 6, 4),
                             layout="constrained", squeeze=False)
    ax_val = axes[0, 0]
    counts, times = [], []
    colours = _algorithm_colours({label: recs[0].algorithm for label, recs in by_label.items()})
    for label, recs in by_label.items():
        i = colours[label]
        test = np.array([r.measures.get(measure, r.test_rmse) for r in recs], dtype=float)
        spread = float(test.std()) if len(test) > 1 else None
        legend = (f"{label} ({algorithm_title(recs[0].algorithm)}): test {title} "
                  f"{format_number(float(test.mean()), spread)}")
        with_test = bool(test_measure) and all(test_measure in r.test_path for r in recs)
        for k, p in enumerate(_timed_path(r, test_measure) for r in recs):
            # each trial its own curve, in the order its points became known (a walk over λ
            # may run backwards in λ): never a median re-sorted into a shape no trial had
            keep = np.flatnonzero(np.isfinite(p.seconds) & (p.seconds > 0) & np.isfinite(p.val))
            keep = keep[np.argsort(p.seconds[keep], kind="stable")]
            times += p.seconds[keep].tolist()
            ax_val.plot(p.seconds[keep], p.val[keep], marker="o", ms=1.5, lw=0.9, alpha=0.75,
                        color=f"C{i}", label=legend if k == 0 else None)
            if p.selected is not None and p.selected in keep:
                ax_val.scatter([p.seconds[p.selected]], [p.val[p.selected]], marker="v", s=40,
                               color=f"C{i}", edgecolors="black", linewidths=0.5, zorder=3)
            if with_test:
                axes[0, 1].plot(p.seconds[keep], p.test[keep], marker="o", ms=1.5, lw=0.9,
                                alpha=0.75, color=f"C{i}", label=label if k == 0 else None)
        counts.append(f"{label} {_trials(len(recs))}")
    # a log axis where the times span a decade or more; a narrow range reads best linear
    logarithmic = bool(times) and max(times) >= 10 * min(times)
    for ax in axes[0]:
        ax.set_xscale("log" if logarithmic else "linear")
        ax.set_xlabel("seconds since the start of the fit (model-selection clock)")
        ax.grid(alpha=0.3, which="both" if logarithmic else "major")
    ax_val.set_ylabel(f"validation {title}")
    ax_val.set_title(_title(run, "validation error against time"), fontsize=10)
    ax_val.legend(fontsize=7, title=f"▼ selected; test {title} of the selected models",
                  title_fontsize=7)
    test_note = ""
    if test_measure:
        what = _measure_title(test_measure)
        axes[0, 1].set_ylabel(f"test {what}")
        axes[0, 1].set_title(f"{run.dataset}: test {what} along the path", fontsize=10)
        axes[0, 1].legend(fontsize=7)
        test_note = (f" Right: the test {what} (test split, {everyone[0].n_test} rows) of the "
                     f"same models, fitted on the fit rows, at the same times (the labels that "
                     f"recorded a test path).")
    untimed = sorted({r.label for r in run.records} - set(by_label))
    caption = (
        f"Validation {title} against the time at which it was known, in seconds from the start "
        f"of the fit (the model-selection clock; {'log' if logarithmic else 'linear'} scale): "
        f"one curve per trial, coloured by label ({'; '.join(counts)}), its points in the "
        f"order they became known. Points solved and scored together share one time (every λ "
        f"of one eigendecomposition: a vertical line; an iteration path scored in chunks: "
        f"steps); a path over levels (m' or D') is drawn as each level's best λ. ▼ marks each "
        f"trial's selected point on its own curve; the legend gives the test {title} of the "
        f"selected models (mean ± std over trials)." + test_note
        + (f" Not drawn (no recorded times or another validation measure): "
           f"{', '.join(untimed)}." if untimed else ""))
    return CaptionedFigure(fig, caption)


def error_vs_time_figure(run: RunData) -> Figure | None:
    """Validation error against the elapsed time of the fit at which it was known, for every
    label whose trials recorded path times (``TrialRecord.path_seconds``): one curve per
    trial (log-x where the times span a decade), each trial's selected point marked on it and
    the test error of the selected models in the legend; beside it, the test error along the
    path where the run recorded one (``protocol.record_test_path``)."""
    drawn = _draw_error_vs_time(run)
    return None if drawn is None else drawn.figure


def captioned_figures(run: RunData) -> tuple[dict[str, CaptionedFigure], dict[str, str]]:
    """Every figure the run's contents allow with its caption, by file stem, and for what it
    cannot draw the reason why (``kernreg plot`` and the HTML report say both). The time
    against m is drawn where the run swept m and is not missed where it did not."""
    figures: dict[str, CaptionedFigure] = {}
    skipped: dict[str, str] = {}
    time_fig = _draw_time_vs_m(run)
    if time_fig is not None:
        figures["time_vs_m"] = time_fig
    labels = list(dict.fromkeys(r.label for r in run.records))
    test_fig = _draw_test_path(run)
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
        heatmap = _draw_heatmap(run, label)
        assert heatmap is not None  # the label has trials over m
        figures[f"heatmap_{label}"] = heatmap
    one_d = [lb for lb in labels if lb not in over_m]
    if len(one_d) > MAX_PATH_FIGURES and time_fig is not None:  # a sweep, not many algorithms
        skipped["path_*"] = (f"{len(one_d)} one-parameter paths (an m sweep): the time against "
                             f"m figure stands for them")
        one_d = []
    for label in one_d:
        drawn = _draw_path(run, label)
        if drawn is None:
            skipped[f"path_{label}"] = (f"{label} has no path to draw: one model per trial "
                                        f"(a single λ, or no regularization parameter as "
                                        f"KOLS)")
        else:
            figures[f"path_{label}"] = drawn
    over_time = _draw_error_vs_time(run)  # last: the figures before it keep their places
    if over_time is None:
        skipped["error_vs_time"] = ("no trial recorded when its path points were reached "
                                    "(path_seconds: runs written before they were recorded, "
                                    "σ selections and estimators without a path have none)")
    else:
        figures["error_vs_time"] = over_time
    return figures, skipped


def plan_figures(run: RunData) -> tuple[dict[str, Figure], dict[str, str]]:
    """Every figure the run's contents allow, by file stem, and for what it cannot draw the
    reason why (``kernreg plot`` says both)."""
    figures, skipped = captioned_figures(run)
    return {stem: drawn.figure for stem, drawn in figures.items()}, skipped


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
