"""Thesis Figure 7.1: Bayes boundaries of the standard and rebalanced losses for two Gaussian
classes (μ₁ = (−1, 0), σ₁ = 1; μ₋₁ = (1, 0), σ₋₁ = 0.3), γ = ρ(y = 1) from 0.5 to 0.9.

    python -m reproduce.thesis_ch7.thesis_fig7_1 -o results/figures/thesis_fig7_1.png

The smoke run draws two panels (``--gammas 0.5 0.9``) into its own folder::

    python -m reproduce.thesis_ch7.thesis_fig7_1 -o /tmp/smoke/figures/thesis_fig7_1.png \\
        --gammas 0.5 0.9
"""

from __future__ import annotations

import argparse

from kernreg.protocols.class_incremental.bayes import plot_bayes_boundaries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default="results/figures/thesis_fig7_1.png")
    parser.add_argument("--gammas", type=float, nargs="+", default=[0.5, 0.6, 0.7, 0.8, 0.9])
    args = parser.parse_args()
    print(f"wrote {plot_bayes_boundaries(args.output, args.gammas)}")


if __name__ == "__main__":
    main()
