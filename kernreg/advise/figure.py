"""The regime map of ``kernreg advise``: NYTRO Figure 1's regions with the dataset's point."""

from __future__ import annotations

import math
from typing import Any

import matplotlib

matplotlib.use("Agg")  # figures are written to files, never shown
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from scipy import ndimage

from kernreg.advise.advisor import REGIMES, Advice, c1_curve, c2_curve, predict_fastest
from kernreg.solvers import algorithm_title

__all__ = ["REGIME_COLOURS", "SNR_MIN", "draw_regions", "regime_map_figure"]

#: The paper's colours: purple NYTRO, blue early stopping, orange KRLS, yellow NKRLS.
REGIME_COLOURS = {"krls": "#f4a259", "es": "#6fa8dc", "nkrls": "#ffe066", "nytro": "#9b72cf"}

#: Left end of the SNR axis: the paper's map shows the noisy side SNR < 1 too.
SNR_MIN = 1e-3


def draw_regions(ax: Any, n: int, snr: np.ndarray, dof: np.ndarray, *, labels: bool = True,
                 curves: bool = True) -> np.ndarray:
    """Fill ``ax`` with the four regions of the map at ``n`` on the grid ``snr × dof`` (log
    axes) and draw ``c1`` and ``c2``; returns the region codes (indices into REGIMES)."""
    S, D = np.meshgrid(snr, dof)
    codes = np.vectorize(REGIMES.index)(predict_fastest(S, D, n))
    ax.pcolormesh(S, D, codes, cmap=ListedColormap([REGIME_COLOURS[r] for r in REGIMES]),
                  vmin=-0.5, vmax=len(REGIMES) - 0.5, shading="auto", rasterized=True)
    if labels:
        for code, name in enumerate(REGIMES):  # each connected piece at its log-space centre
            pieces, count = ndimage.label(codes == code)
            for k in range(1, count + 1):
                where = pieces == k
                if where.sum() > 0.01 * codes.size:
                    ax.text(np.exp(np.log(S[where]).mean()), np.exp(np.log(D[where]).mean()),
                            algorithm_title(name), ha="center", va="center", fontsize=10,
                            weight="bold", alpha=0.75)
    if curves:
        with np.errstate(divide="ignore", invalid="ignore"):
            ax.plot(snr, np.clip(c1_curve(snr, n), 0.5, 2 * n), "k-", lw=1.2,
                    label="c1 = n/|log(n·SNR)|")
            ax.plot(snr, np.clip(c2_curve(snr), 0.5, 2 * n), "k--", lw=1.2,
                    label="c2 = SNR/|log SNR|")
    ax.set(xscale="log", yscale="log", xlim=(snr[0], snr[-1]), ylim=(dof[0], dof[-1]))
    return codes


def regime_map_figure(advice: Advice, grid: int = 400) -> Figure:
    """The NYTRO Figure 1 regime map at the dataset's ``n``, with its ``(SNR, d)`` point.

    The coloured regions are :func:`~kernreg.advise.advisor.predict_fastest` evaluated on a log
    grid, so the picture and the prediction cannot disagree.
    """
    n = advice.n
    x_hi = 10 ** math.ceil(math.log10(max(advice.snr, n) * 100))
    snr = np.logspace(math.log10(SNR_MIN), math.log10(x_hi), grid)
    dof = np.logspace(0, math.log10(n), grid)
    fig, ax = plt.subplots(figsize=(9.6, 4.8))
    draw_regions(ax, n, snr, dof)
    relation = {True: "=", False: "≥"}  # ≥: a lower bound the subsample could not resolve
    ax.plot(advice.snr, advice.d_eff, "o", color="C3", ms=9,
            label=f"(SNR, d_eff {relation[advice.d_eff_converged]} {advice.d_eff:.3g})"
                  f" → {advice.predicted.upper()}")
    ax.plot(advice.snr, advice.d_max, "^" if advice.saturated else "s", mfc="none", color="C3",
            ms=9, mew=1.8, label=f"(SNR, d̃ {relation[not advice.saturated]} "
                                 f"{advice.d_max:.3g}) → {advice.predicted_worst_case.upper()}")
    if advice.nytro_iterations is not None:
        ax.plot(advice.t_measured, advice.d_eff, "D", color="k", ms=8,
                label=f"(t = {advice.nytro_iterations} NYTRO iterations measured, d_eff) → "
                      f"{advice.predicted_measured_t.upper()}")
    else:  # no point of its own: the theory's t ≈ SNR stands
        ax.plot([], [], "D", color="k", ms=8,
                label=f"NYTRO does not reach NKRLS in {advice.max_iter} iterations")
    ax.set(xlabel="SNR ≈ 1/λ*   (◆ at the measured NYTRO iterations t)",
           ylabel="degrees of freedom d",
           title=f"{advice.dataset}: n = {n}, σ = {advice.sigma:g}, λ* = {advice.lam_star:.2g}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


