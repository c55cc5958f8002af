"""The regime map of ``kernreg advise``: NYTRO Figure 1's regions with the dataset's point."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # figures are written to files, never shown
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from kernreg.advise.advisor import REGIMES, Advice, c1_curve, c2_curve, predict_fastest
from kernreg.solvers import algorithm_title

__all__ = ["REGIME_COLOURS", "regime_map_figure"]

REGIME_COLOURS = {"krls": "#d9d9d9", "es": "#fdd0a2", "nkrls": "#c6dbef", "nytro": "#c7e9c0"}


def regime_map_figure(advice: Advice, grid: int = 400) -> Figure:
    """The NYTRO Figure 1 regime map at the dataset's ``n``, with its ``(SNR, d)`` point.

    The coloured regions are :func:`~kernreg.advise.advisor.predict_fastest` evaluated on a log
    grid, so the picture and the prediction cannot disagree.
    """
    n = advice.n
    x_hi = 10 ** math.ceil(math.log10(max(advice.snr, n) * 100))
    snr = np.logspace(0.05, math.log10(x_hi), grid)
    dof = np.logspace(0, math.log10(n), grid)
    S, D = np.meshgrid(snr, dof)
    codes = np.vectorize(REGIMES.index)(predict_fastest(S, D, n))
    fig, ax = plt.subplots(figsize=(9.6, 4.8))
    ax.pcolormesh(S, D, codes, cmap=ListedColormap([REGIME_COLOURS[r] for r in REGIMES]),
                  vmin=-0.5, vmax=len(REGIMES) - 0.5, shading="auto", rasterized=True)
    for code, name in enumerate(REGIMES):  # label each region at its log-space centre
        where = codes == code
        if where.sum() > grid:
            ax.text(np.exp(np.log(S[where]).mean()), np.exp(np.log(D[where]).mean()),
                    algorithm_title(name), ha="center", va="center", fontsize=11,
                    weight="bold", alpha=0.6)
    c1, c2 = c1_curve(snr, n), c2_curve(snr)
    ax.plot(snr, np.clip(c1, 1, n), "k-", lw=1.2, label="c1 = n/|log(n·SNR)|")
    # each boundary is drawn only where it separates two regions
    ax.plot(snr, np.where(c2 < c1, c2, np.nan), "k--", lw=1.2, label="c2 = SNR/|log SNR|")
    ax.plot([n, n], [float(c1_curve(n, n)), n], "k:", lw=1.0, label="SNR = n (ES | KRLS)")
    relation = {True: "=", False: "≥"}  # ≥: a lower bound the subsample could not resolve
    ax.plot(advice.snr, advice.d_eff, "o", color="C3", ms=9,
            label=f"(SNR, d_eff {relation[advice.d_eff_converged]} {advice.d_eff:.3g})"
                  f" → {advice.predicted.upper()}")
    ax.plot(advice.snr, advice.d_max, "^" if advice.saturated else "s", mfc="none", color="C3",
            ms=9, mew=1.8, label=f"(SNR, d̃ {relation[not advice.saturated]} "
                                 f"{advice.d_max:.3g}) → {advice.predicted_worst_case.upper()}")
    if advice.nytro_iterations is not None:
        ax.plot(advice.t_measured, advice.d_eff, "D", color="C0", ms=8,
                label=f"(t = {advice.nytro_iterations} NYTRO iterations measured, d_eff) → "
                      f"{advice.predicted_measured_t.upper()}")
    else:  # no point of its own: the theory's t ≈ SNR stands
        ax.plot([], [], "D", color="C0", ms=8,
                label=f"NYTRO does not reach NKRLS in {advice.max_iter} iterations")
    ax.set(xscale="log", yscale="log", xlim=(snr[0], snr[-1]), ylim=(1, n),
           xlabel="SNR ≈ 1/λ*   (◆ at the measured NYTRO iterations t)",
           ylabel="degrees of freedom d",
           title=f"{advice.dataset}: n = {n}, σ = {advice.sigma:g}, λ* = {advice.lam_star:.2g}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


