"""Thesis Chapter 7 from stored streaming trials: Table 7.1, Figure 7.3; and Figure 7.1 from
the closed-form Bayes rule of two Gaussian classes.

Everything here reads what a run stored (:class:`~kernreg.results.stream_store.StreamStore`)
or computes a formula; nothing is re-fitted.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernreg.atomic import atomic_path

__all__ = ["TABLE_ROWS", "bayes_scores", "plot_bayes_boundaries", "plot_stream_accuracy",
           "render_table7", "summarize", "thesis_table7"]

#: The n_imb rows of Table 7.1.
TABLE_ROWS = (1, 5, 10, 50, 100, 500)
METHOD_TITLES = {"N": "incremental RLSC (N)", "RB": "rebalanced batch RLS (RB)",
                 "RC": "Algorithm 7.1, recoding (RC)"}
_NOT_HERE = ("iCubWorld28 (n_bal = 700) and RGB-D (n_bal = 500): NA — their CaffeNet fc7 "
             "features are not obtainable here (no copy in the offline mirror, no network).")


def summarize(trials: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Tidy table: one row per (method, n_imb, metric) with mean and std (%) over trials.

    Metrics: ``total``, ``imbalanced`` (the new class), ``balanced`` (the other classes),
    ``lambda`` and ``alpha`` (selected; not in %). Std is the population std, as 10 trials
    give it in the thesis (``ddof = 0``).
    """
    rows = []
    record_at = trials[0]["record_at"]
    methods = [k for k in ("N", "RB", "RC") if k in trials[0]]
    for method in methods:
        for metric in ("total", "imbalanced", "balanced", "lambda", "alpha"):
            values = np.stack([t[method][metric] for t in trials])
            scale = 100.0 if metric in ("total", "imbalanced", "balanced") else 1.0
            for j, n_imb in enumerate(record_at):
                column = values[:, j] * scale
                rows.append({"method": method, "n_imb": int(n_imb), "metric": metric,
                             "mean": float(np.mean(column)), "std": float(np.std(column)),
                             "median": float(np.median(column)), "trials": len(trials)})
    return pd.DataFrame(rows)


def thesis_table7() -> pd.DataFrame:
    """The MNIST rows of thesis Table 7.1 (package data)."""
    text = files("kernreg.paper").joinpath("thesis_table7_1.csv").read_text()
    return pd.read_csv(io.StringIO(text))


def _cell(summary: pd.DataFrame, method: str, n_imb: int, metric: str) -> str:
    hit = summary[(summary.method == method) & (summary.n_imb == n_imb)
                  & (summary.metric == metric)]
    if hit.empty:
        return "NA"
    return f"{hit['mean'].iloc[0]:.1f} ± {hit['std'].iloc[0]:.1f}"


def render_table7(trials: Sequence[dict[str, Any]], *, title: str = "",
                  notes: Sequence[str] = ()) -> str:
    """Markdown: Table 7.1's MNIST rows, ours / the thesis's, and the gaps beyond 3 points;
    ``notes``: lines on the run's settings, shown under the table."""
    summary = summarize(trials)
    paper = thesis_table7()
    methods = [m for m in ("N", "RB", "RC") if m in trials[0]]
    lines = [f"# {title or 'Thesis Table 7.1 (MNIST rows)'}", "",
             f"Test accuracy (%), mean ± std over {len(trials)} trials, ours / thesis. "
             "Total = all 10 digits (200 test examples each); Imbalanced = the streamed digit.",
             "", "| n_imb | " + " | ".join(f"Total {m}" for m in methods) + " | "
             + " | ".join(f"Imbalanced {m}" for m in methods) + " |",
             "|---" * (1 + 2 * len(methods)) + "|"]
    gaps = []
    for n_imb in TABLE_ROWS:
        cells = []
        for metric in ("total", "imbalanced"):
            for method in methods:
                ours = _cell(summary, method, n_imb, metric)
                ref = paper[(paper.method == method) & (paper.n_imb == n_imb)]
                theirs = (f"{ref[f'{metric}_mean'].iloc[0]:.1f} ± "
                          f"{ref[f'{metric}_std'].iloc[0]:.1f}") if not ref.empty else "NA"
                cells.append(f"{ours} / {theirs}")
                hit = summary[(summary.method == method) & (summary.n_imb == n_imb)
                              & (summary.metric == metric)]
                if not ref.empty and not hit.empty:
                    diff = hit["mean"].iloc[0] - ref[f"{metric}_mean"].iloc[0]
                    if abs(diff) > 3.0:
                        gaps.append(f"{metric} {method} at n_imb = {n_imb}: {diff:+.1f}")
        lines.append(f"| {n_imb} | " + " | ".join(cells) + " |")
    lines += ["", *(f"- {note}" for note in notes), f"- {_NOT_HERE}",
              "- Cells more than 3 points from the thesis: "
              + ("; ".join(gaps) if gaps else "none") + ".",
              "", "Selected parameters (median over trials):", "",
              "| n_imb | " + " | ".join(f"λ {m}" for m in methods) + " | α RC |",
              "|---" * (2 + len(methods)) + "|"]
    for n_imb in TABLE_ROWS:
        lam = [summary[(summary.method == m) & (summary.n_imb == n_imb)
                       & (summary.metric == "lambda")]["median"] for m in methods]
        alpha = summary[(summary.method == "RC") & (summary.n_imb == n_imb)
                        & (summary.metric == "alpha")]["median"]
        alpha_cell = f"{alpha.iloc[0]:.2g}" if not alpha.empty else "NA"
        lines.append(f"| {n_imb} | " + " | ".join(f"{v.iloc[0]:.3g}" if not v.empty else "NA"
                                                 for v in lam) + f" | {alpha_cell} |")
    imb = [t["attrs"]["imbalanced_class"] for t in trials]
    lines += ["", "Imbalanced digit per trial: " + ", ".join(f"{c:g}" for c in imb) + "."]
    return "\n".join(lines) + "\n"


def _save(fig: plt.Figure, path: str | Path) -> Path:
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_stream_accuracy(trials: Sequence[dict[str, Any]], path: str | Path,
                         *, title: str = "MNIST") -> Path:
    """Figure 7.3's panel: mean test accuracy (± std band) against n_imb of incremental RLSC
    (red) and Algorithm 7.1 (blue), on the imbalanced class (top) and the balanced ones
    (bottom); RB (grey, dashed) for reference."""
    summary = summarize(trials)
    fig, axes = plt.subplots(2, 1, figsize=(5.0, 6.4), sharex=True)
    styles = {"N": ("tab:red", "-", "RLSC (N)"), "RC": ("tab:blue", "-", "Alg. 7.1 (RC)"),
              "RB": ("0.45", "--", "RB (batch, rebalanced)")}
    for ax, metric, label in ((axes[0], "imbalanced", "imbalanced class"),
                              (axes[1], "balanced", "balanced classes")):
        for method, (color, style, name) in styles.items():
            rows = summary[(summary.method == method) & (summary.metric == metric)]
            if rows.empty:
                continue
            x, mean, std = rows.n_imb.to_numpy(), rows["mean"].to_numpy(), rows["std"].to_numpy()
            ax.plot(x, mean, style, color=color, marker="o", ms=3, label=name)
            ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.15, lw=0)
        ax.set_xscale("log")
        ax.set_ylabel(f"test accuracy, {label} (%)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title(f"{title}: {len(trials)} trials")
    axes[0].legend(loc="upper left", fontsize=8)
    axes[1].set_xlabel("n_imb (training examples of the new class)")
    return _save(fig, path)


def bayes_scores(points: np.ndarray, gamma: float, *, rebalanced: bool,
                 mu=((-1.0, 0.0), (1.0, 0.0)), sigma=(1.0, 0.3)) -> np.ndarray:
    """``log(w(1)ρ(1|x)) − log(w(−1)ρ(−1|x))`` for isotropic Gaussians ``ρ(x|y)`` in 2-D
    (the Bayes rule (7.2) assigns class 1 where it is positive; rebalanced: ``w(y) = 1/ρ(y)``,
    (7.7)–(7.8), which removes the priors). ``mu``/``sigma``: class 1 first, then class −1."""
    points = np.asarray(points, dtype=np.float64)
    logs = []
    for m, s in zip(mu, sigma, strict=True):
        sq = np.sum((points - np.asarray(m)) ** 2, axis=-1)
        logs.append(-sq / (2 * s**2) - 2 * np.log(s))  # 2-D: normalizer 1/(2π s²)
    score = logs[0] - logs[1]
    return score if rebalanced else score + np.log(gamma) - np.log1p(-gamma)


def plot_bayes_boundaries(path: str | Path, gammas: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.9)
                          ) -> Path:
    """Figure 7.1: for each γ = ρ(y = 1), the density ``γρ(x|1) + (1 − γ)ρ(x|−1)`` with the
    standard (white dashed) and rebalanced (black dashed) Bayes boundaries."""
    xs, ys = np.linspace(-4.5, 3.0, 400), np.linspace(-3.5, 3.5, 360)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1)
    fig, axes = plt.subplots(1, len(gammas), figsize=(3.0 * len(gammas), 3.2), sharey=True)
    for ax, gamma in zip(np.atleast_1d(axes), gammas, strict=True):
        dens = 0.0
        for (m, s), w in zip((((-1.0, 0.0), 1.0), ((1.0, 0.0), 0.3)), (gamma, 1 - gamma),
                             strict=True):
            sq = np.sum((grid - np.asarray(m)) ** 2, axis=-1)
            dens = dens + w * np.exp(-sq / (2 * s**2)) / (2 * np.pi * s**2)
        ax.imshow(dens, extent=(xs[0], xs[-1], ys[0], ys[-1]), origin="lower", cmap="viridis",
                  aspect="auto", vmax=np.quantile(dens, 0.995))
        ax.contour(xs, ys, bayes_scores(grid, gamma, rebalanced=False), levels=[0.0],
                   colors="white", linestyles="dashed", linewidths=1.6)
        ax.contour(xs, ys, bayes_scores(grid, gamma, rebalanced=True), levels=[0.0],
                   colors="black", linestyles="dashed", linewidths=1.6)
        ax.set_title(f"γ = {gamma:g}")
        ax.set_xlabel("x₁")
    np.atleast_1d(axes)[0].set_ylabel("x₂")
    fig.suptitle("Bayes boundaries: standard (white) vs rebalanced (black); "
                 "μ₁ = (−1, 0), σ₁ = 1; μ₋₁ = (1, 0), σ₋₁ = 0.3", fontsize=9, y=1.03)
    return _save(fig, path)
