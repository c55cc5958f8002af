"""Thesis Figure 5.1: the predicted number of random features / Nyström centers for optimal
rates, m_n ≈ n^e, as a function of the source r, the effective dimension γ and the
compatibility α.

With v = min(r, 1) and λ_n = n^(−1/(2v+γ)):

- random features (Theorem 11): m_n ≳ λ_n^(−c), c = α + (1 + γ − α)(2v − 1); α = 1 is
  Theorem 10 (c = 1 + γ(2v − 1)), α = γ the favourable case of data-dependent sampling;
- Nyström (Rudi, Camoriano & Rosasco 2015, LiM): uniform centers m_n ≳ λ_n^(−1) log n,
  leverage-score centers m_n ≳ N(λ_n) log n ≈ λ_n^(−γ) log n.

The exponent e = c/(2v + γ) (resp. 1/(2v + γ), γ/(2v + γ)) is drawn over r ∈ [1/2, 1] and
γ ∈ (0, 1]; ✕ marks Figure 5.2's two settings (r, γ) = (11/16, 1/8) and (7/8, 1/4).

    python -m reproduce.thesis_ch5.thesis_fig5_1 -o results/figures/thesis_fig5_1.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def exponents(r: np.ndarray, gamma: np.ndarray) -> dict[str, np.ndarray]:
    v = np.minimum(r, 1.0)
    denom = 2 * v + gamma

    def rf(alpha: np.ndarray) -> np.ndarray:
        return (alpha + (1 + gamma - alpha) * (2 * v - 1)) / denom

    return {"random features, α = 1 (Theorem 10)": rf(np.ones_like(r)),
            "random features, α = γ (Theorem 11)": rf(gamma),
            "Nyström, uniform centers (LiM)": 1.0 / denom,
            "Nyström, leverage-score centers (LiM)": gamma / denom}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path,
                        default=Path("results/figures/thesis_fig5_1.png"))
    args = parser.parse_args()
    r, gamma = np.meshgrid(np.linspace(0.5, 1.0, 201), np.linspace(0.005, 1.0, 200))
    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5), sharex=True, sharey=True)
    for ax, (title, e) in zip(axes.T.ravel(), exponents(r, gamma).items(), strict=True):
        mesh = ax.pcolormesh(r, gamma, e, vmin=0, vmax=1, cmap="viridis", shading="auto")
        lines = ax.contour(r, gamma, e, levels=[0.1, 0.25, 1 / 3, 0.5, 0.75, 0.9], colors="w",
                           linewidths=0.8)
        ax.clabel(lines, fmt="%.2f", fontsize=8)
        ax.set(title=f"{title}\nm_n ≈ n^e", xlabel="r (source condition)",
               ylabel="γ (effective dimension λ^(−γ))")
        for rr, gg in ((11 / 16, 1 / 8), (7 / 8, 1 / 4)):
            ee = exponents(np.array(rr), np.array(gg))[title]
            ax.plot(rr, gg, "rx", ms=9, mew=2)
            ax.annotate(f"{float(ee):.3f}", (rr, gg), textcoords="offset points",
                        xytext=(6, 4), color="r", fontsize=9)
    fig.colorbar(mesh, ax=axes, shrink=0.6, label="exponent e")
    fig.suptitle("Thesis Figure 5.1: predicted number of features/centers for optimal rates "
                 "(left: random features, right: Nyström)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)


if __name__ == "__main__":
    main()
