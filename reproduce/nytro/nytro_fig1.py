"""NYTRO Figure 1 as published: the regime map SNR × d̃ with the paper's curves, regions and
colours on both sides of SNR = 1, and the Table 2 datasets placed on it.

Top: the map at n = 10⁴ and n = 10⁶ (the paper does not give its n; two values show its claim
that NYTRO's region on SNR > 1 grows with n while c1 flattens). Regions (§3.3): c1 =
n/|log(n·SNR)| separates subsampling (below) from the exact methods, c2 = SNR/|log SNR| the
iterative methods (above) from Tikhonov (below): purple NYTRO, blue early stopping, orange KRLS
(the thin spike at SNR ≈ 1 where c2 diverges, with d near n), yellow NKRLS. The two curves
also give KRLS the top-right corner beyond the SNR where c2 crosses c1 (about n/2): the paper's
text names only the spike, so its axis presumably stops before that crossing (its n and range are
not given); the right ends of these axes are 10³·n.

Bottom: each Table 2 dataset on the map at its own n (the training part of the hold-out
split): ● at (SNR, d_eff), ■ at (SNR, d̃), from `kernreg advise` (results/advise/*.json: λ*
from an NKRLS validation path, SNR = 1/λ*, d_eff and d̃ from a subsample); the dashed line is
SNR = 1/λ* with the paper's NKRLS λ* (Table 2). YearPrediction is not in the mirror: only
its paper line is drawn, on the map at its n.

    python -m reproduce.nytro.nytro_fig1 \\
        --advice-dir results/advise -o results/figures/nytro_fig1.png
    python -m reproduce.nytro.nytro_fig1 --smoke --advice-dir DIR -o OUT.png  # seconds

``--smoke`` draws the same panels on grids of 40 points a side at 40 dpi (a check that the
figure is drawn, e.g. from the advice of ``python -m reproduce.advise_all --smoke``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from kernreg.advise import predict_fastest
from kernreg.advise.figure import SNR_MIN, draw_regions
from kernreg.results.tables import paper_file

DATASETS = {"insurance": 4657, "adult": 26048, "ijcnn1": 39992, "covtype_binary": 418328,
            "yearprediction": 370972}  # n of the 80% training part (NA advice: Table 1's n·0.8)
TITLES = {"insurance": "Insurance", "adult": "Adult", "ijcnn1": "Ijcnn1",
          "covtype_binary": "CovertypeBinary", "yearprediction": "YearPrediction"}
#: (points of the top maps' SNR and d grids, of the dataset panels' grids, dpi): full, --smoke.
RESOLUTION = {False: (500, 400, 300, 100), True: (40, 40, 40, 40)}


def snr_grid(high: float, count: int = 500) -> np.ndarray:
    """Log grid from SNR_MIN to ``high``, dense near SNR = 1 where c2 diverges (KRLS spike)."""
    base = np.logspace(math.log10(SNR_MIN), math.log10(high), count)
    spike = 1.0 + np.concatenate([-np.logspace(-6, -1, 60), np.logspace(-6, -1, 60)])
    return np.unique(np.concatenate([base, spike]))


def paper_lambdas() -> dict[str, float]:
    with paper_file("nytro_table2.csv").open() as fh:
        return {row["dataset"]: float(row["mean"]) for row in csv.DictReader(fh)
                if row["algorithm"] == "nkrls" and row["quantity"] == "par"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--advice-dir", type=Path, default=Path("results/advise"))
    parser.add_argument("-o", "--out", type=Path, default=Path("results/figures/nytro_fig1.png"))
    parser.add_argument("--smoke", action="store_true",
                        help="coarse grids and a low dpi: the same figure in seconds")
    args = parser.parse_args()
    snr_points, dof_points, panel_points, dpi = RESOLUTION[args.smoke]
    paper = paper_lambdas()
    fig = plt.figure(figsize=(16, 9.5))
    top = [fig.add_subplot(2, 3, k) for k in (1, 2)]
    for ax, n in zip(top, (10 ** 4, 10 ** 6), strict=True):
        draw_regions(ax, n, snr_grid(1e3 * n, snr_points),
                     np.logspace(0, math.log10(n), dof_points))
        ax.axvline(1.0, color="grey", lw=0.6)
        ax.set(xlabel="SNR", ylabel="d̃", title=f"NYTRO Figure 1 regions, n = {n:.0e}")
    top[0].legend(loc="lower right", fontsize=8)
    legend_ax = fig.add_subplot(2, 3, 3)
    legend_ax.axis("off")
    lines = ["Table 2 datasets: (SNR, d) and the map's answer", ""]
    for k, (name, n_train) in enumerate(DATASETS.items()):
        ax = fig.add_subplot(2, 5, 6 + k)
        path = args.advice_dir / f"{name}.json"
        advice = json.loads(path.read_text()) if path.exists() else None
        n = int(advice["n"]) if advice else n_train
        snr_paper = 1.0 / paper[name] if name in paper else None
        high = max(1e3 * n, 100 * (snr_paper or 1.0),
                   100.0 / advice["lam_star"] if advice else 1.0)
        draw_regions(ax, n, snr_grid(high, panel_points),
                     np.logspace(0, math.log10(n), panel_points),
                     labels=False)
        if snr_paper:
            ax.axvline(snr_paper, color="k", ls=":", lw=1.2)
        verdict = f"paper λ* {paper.get(name, float('nan')):.2g}"
        if advice:
            snr = 1.0 / advice["lam_star"]
            ax.plot(snr, advice["d_eff"], "o", color="C3", ms=8)
            ax.plot(snr, advice["d_max"], "s", color="k", mfc="none", ms=8, mew=1.6)
            eff, worst = (str(predict_fastest(snr, advice[key], n)).upper()
                          for key in ("d_eff", "d_max"))
            verdict = (f"SNR {snr:.2g}: d_eff {advice['d_eff']:.3g} → {eff}, "
                       f"d̃ {advice['d_max']:.3g} → {worst}")
            if snr_paper:
                verdict += (f"; d̃ at the paper's SNR {snr_paper:.2g}: "
                            f"{str(predict_fastest(snr_paper, advice['d_max'], n)).upper()}")
        else:
            verdict += ": no data here (not in the mirror)"
        lines.append(f"{TITLES[name]} (n = {n}): {verdict}")
        ax.set(xlabel="SNR", title=f"{TITLES[name]}, n = {n}")
        if k == 0:
            ax.set_ylabel("d")
    lines += ["", "● (SNR, d_eff)   □ (SNR, d̃)   ⋯ SNR = 1/λ* of the paper's NKRLS",
              "colours: purple NYTRO, blue ES, orange KRLS, yellow NKRLS"]
    legend_ax.text(0.0, 1.0, "\n".join(lines),
        va="top", fontsize=8, wrap=True)
    fig.suptitle("NYTRO (Camoriano et al. 2016) Figure 1: fastest method at the accuracy of "
                 "KRLS with λ* = 1/SNR")
    fig.subplots_adjust(left=0.05, right=0.98, top=0.91, bottom=0.07, hspace=0.32, wspace=0.32)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=dpi)
    plt.close(fig)  # run repeatedly in one interpreter (the smoke tests): no figure left open
    print("\n".join(lines))


if __name__ == "__main__":
    main()
