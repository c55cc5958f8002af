"""Thesis Figure 7.1: the closed-form Bayes rule of two Gaussian classes, standard and
rebalanced, the picture behind the stream's rebalancing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kernreg.atomic import atomic_path

__all__ = ["bayes_scores", "plot_bayes_boundaries"]


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
    import matplotlib

    matplotlib.use("Agg")  # files only
    import matplotlib.pyplot as plt

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
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path
