"""Bach 2013, Figure 2: λ* and prediction performance against n for three kernel smoothnesses,
and the rank sufficient for 1%-worse prediction over the degrees of freedom.

Model: periodic spline kernels ``μ_i = i^(−2β)``, ``β ∈ {1, 4, 8}``, signal ``ν_i = i^(−2δ)``,
``δ = 8``, i.i.d. Gaussian noise ``σ``.

- Left and middle (equispaced design ``x_j = (j − 1)/n``): the best λ and the in-sample
  prediction error ``(1/n) E‖ẑ − z‖²`` at it. Lines: exact, from the closed-form circulant
  spectrum (kernreg.theory.FixedDesignModel; no linear system, any λ). Markers: the same
  computed the way a solver would, in float64 from the kernel matrix (``numpy.linalg.eigh`` of
  ``K``, the smoother ``V diag(s/(s + nλ)) Vᵀ`` with the computed eigenvalues ``s``), for
  ``n ≤ --n-max-matrix``. Crosses: the same float64 computation with the kernel scaled as Bach's
  Appendix D writes it, ``B_2β(t)/(2β)!`` = this kernel / ``(2π)^(2β)`` (up to sign), and λ kept
  ≥ machine epsilon: λ* (in that scale) then falls below epsilon for β = 8 and saturates there,
  Bach's observation. Dotted: Table 1's rates through the last exact point.
- Right (uniform random design, seeded): the smallest rank ``p`` whose column-sampling
  predictor ``L(L + nλI)⁻¹y`` (λ = λ* of the full matrix) has an in-sample error at most 1% above
  the full matrix's, over ``d = n‖diag K(K + nλI)⁻¹‖_∞`` and over
  ``d_ave = tr K²(K + nλI)⁻²``; plain: random columns (mean over ``--draws`` draws), dashed:
  incomplete Cholesky with greedy pivoting, dotted: randomly pivoted Cholesky (Chen et al.;
  not in Bach, mean over the same draws).

Bach gives neither the noise nor the range of n: σ = ``--noise`` (default 0.1) and the n grids
below; the script's JSON output records every number, and ``--noise 1`` reruns it at another
noise level (docs/bach.md compares both).

    python -m reproduce.bach.bach_fig2 -o results/figures/bach_fig2.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from kernreg.kernels.spline import PeriodicSplineKernel
from kernreg.solvers.blocks.dof import exact_degrees_of_freedom
from kernreg.solvers.blocks.pivoted_cholesky import matrix_partial_cholesky
from kernreg.theory import Decay, FixedDesignModel, spectral_risk
from kernreg.theory.column_sampling import prefix_insample_risk, sufficient_rank

BETAS = (1, 4, 8)
DELTA = 8
COLOURS = {1: "C0", 4: "C1", 8: "C2"}
GRID = np.logspace(-22, 1, 231)


EPS = float(np.finfo(np.float64).eps)


def numerical_best(K: np.ndarray, z: np.ndarray, noise: float, grid: np.ndarray = GRID
                   ) -> tuple[float, float]:
    """λ* and the error at it, computed from K's float64 eigendecomposition (eigenvalues as
    computed, rounding included)."""
    n = K.shape[0]
    s, V = np.linalg.eigh(K)
    c = V.T @ z
    g = s[:, None] / (s[:, None] + n * grid[None, :])
    risk = (((1 - g) ** 2 * (c * c)[:, None]).sum(0) + noise ** 2 * (g ** 2).sum(0)) / n
    risk[~np.isfinite(risk)] = np.inf
    j = int(np.argmin(risk))
    return float(grid[j]), float(risk[j])


def left_middle(noise: float, n_exact: np.ndarray, n_matrix: np.ndarray) -> dict:
    out: dict = {}
    for beta in BETAS:
        mu, nu = Decay("power", 2.0 * beta), Decay("power", 2.0 * DELTA)
        exact = [FixedDesignModel(int(n), mu, nu, noise).best_lambda() for n in n_exact]
        numeric, bach = [], []
        for n in n_matrix:
            model = FixedDesignModel(int(n), mu, nu, noise)
            x = model.design()
            K = PeriodicSplineKernel(beta)(x[:, None])
            z = Decay("power", float(DELTA)).cosine_series(x)
            numeric.append(numerical_best(K, z, noise))
            # Bach's Appendix D writes k = B_2β/(2β)!: this kernel over (2π)^2β (up to sign);
            # with λ kept above machine epsilon, as a solver's λ grid typically is
            bach.append(numerical_best(K / (2 * np.pi) ** (2 * beta), z, noise,
                                       GRID[GRID >= EPS]))
        out[beta] = {"n_exact": n_exact.tolist(), "exact": exact,
                     "n_matrix": n_matrix.tolist(), "numeric": numeric, "bach_scale": bach}
    return out


def rank_ratios(beta: int, n: int, noise: float, draws: int, seed: int) -> dict:
    rng = np.random.default_rng(seed + n + 1000 * beta)
    x = rng.uniform(size=n)
    K = PeriodicSplineKernel(beta)(x[:, None])
    z = Decay("power", float(DELTA)).cosine_series(x)
    s, U = np.linalg.eigh(K)
    risk = spectral_risk(s, U, z, GRID, noise).total
    lam = float(GRID[int(np.argmin(risk))])
    full = float(risk.min())
    dof = exact_degrees_of_freedom(K, [lam])
    d, d_ave = float(dof.d_max[0]), float(dof.d_ave[0])

    def rank(rule: str, draw: int) -> int | None:
        limit = min(n, max(64, int(8 * d)))
        while True:
            F = matrix_partial_cholesky(K, limit, rule=rule, rng=seed + draw).factor
            p = sufficient_rank(lambda r, F=F: prefix_insample_risk(
                F, z, lam, noise, np.minimum(r, F.shape[1])), full, F.shape[1])
            if p is not None or limit >= n:
                return p
            limit = min(n, 2 * limit)

    random = [rank("uniform", k) for k in range(draws)]
    rp = [rank("random", k) for k in range(draws)]
    greedy = rank("greedy", 0)
    return {"beta": beta, "n": n, "lambda": lam, "d": d, "d_ave": d_ave,
            "rank_random": random, "rank_rpcholesky": rp, "rank_greedy": greedy}


def _mean(values: list) -> float:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else float("nan")


def draw(lm: dict, ratios: list[dict], noise: float, out: Path) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    rates = {1: (-1 / (2 + 1 / 2), 1 / 5 - 1), 4: (-4 / DELTA, 1 / (2 * DELTA) - 1),
             8: (-8 / DELTA, 1 / (2 * DELTA) - 1)}
    for beta in BETAS:
        res, col = lm[beta], COLOURS[beta]
        ne, ex = np.array(res["n_exact"]), np.array(res["exact"])
        nm, nu = np.array(res["n_matrix"]), np.array(res["numeric"])
        bach = np.array(res["bach_scale"])
        for ax, k, rate in ((axes[0], 0, rates[beta][0]), (axes[1], 1, rates[beta][1])):
            ax.loglog(ne, ex[:, k], "-", color=col, label=f"β = {beta}: exact")
            ax.loglog(nm, nu[:, k], "o", color=col, mfc="none",
                      label=f"β = {beta}: float64 from K")
            ax.loglog(nm, bach[:, k], "x", color=col, ms=7,
                      label=f"β = {beta}: K/(2π)^{2 * beta}, λ ≥ eps")
            ax.loglog(ne, ex[-1, k] * (ne / ne[-1]) ** rate, ":", color=col, lw=1,
                      label=f"β = {beta}: n^({rate:+.3f}) (Table 1)")
    axes[0].axhline(EPS, color="k", lw=0.6, ls="--")
    axes[0].text(20, EPS * 2, "machine epsilon", fontsize=7)
    axes[0].set(xlabel="n", ylabel="λ*", title="best λ (equispaced design)")
    axes[1].set(xlabel="n", ylabel="(1/n) E‖ẑ − z‖² at λ*",
                title="prediction performance (equispaced design)")
    axes[0].legend(fontsize=6, ncol=1, loc="center left", bbox_to_anchor=(0.0, 0.42))
    ax = axes[2]
    for beta in BETAS:
        rows = [r for r in ratios if r["beta"] == beta]
        n = np.array([r["n"] for r in rows])
        rand = np.array([_mean(r["rank_random"]) for r in rows])
        rp = np.array([_mean(r["rank_rpcholesky"]) for r in rows])
        greedy = np.array([r["rank_greedy"] or np.nan for r in rows], dtype=float)
        d = np.array([r["d"] for r in rows])
        d_ave = np.array([r["d_ave"] for r in rows])
        col = COLOURS[beta]
        ax.semilogx(n, rand / d, "-", color=col, marker="o", label=f"β = {beta}: p / d")
        ax.semilogx(n, rand / d_ave, "-", color=col, marker="s", mfc="none",
                    label=f"β = {beta}: p / d_ave")
        ax.semilogx(n, greedy / d, "--", color=col, marker="o")
        ax.semilogx(n, greedy / d_ave, "--", color=col, marker="s", mfc="none")
        ax.semilogx(n, rp / d, ":", color=col, lw=1)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.plot([], [], "k-", label="random columns")
    ax.plot([], [], "k--", label="greedy pivoting")
    ax.plot([], [], "k:", label="RPCholesky (p / d)")
    ax.set(xlabel="n", ylabel="sufficient rank / degrees of freedom",
           title="rank for ≤ 1% worse prediction\nover d (●) and d_ave (□), random design")
    ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"Bach 2013 Figure 2: ν_i = i^(−{2 * DELTA}), μ_i = i^(−2β), noise σ = {noise:g}")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=Path("results/figures/bach_fig2.png"))
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--n-max-matrix", type=int, default=2048)
    parser.add_argument("--n-max-ranks", type=int, default=1024)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-json", type=Path, help="redraw from a previous run's JSON")
    args = parser.parse_args()
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        draw({int(k): v for k, v in saved["left_middle"].items()}, saved["ratios"],
             saved["noise"], args.out)
        return
    n_exact = 2 ** np.arange(4, 17)
    n_matrix = 2 ** np.arange(4, int(np.log2(args.n_max_matrix)) + 1)
    lm = left_middle(args.noise, n_exact, n_matrix)
    n_ranks = 2 ** np.arange(6, int(np.log2(args.n_max_ranks)) + 1)
    ratios = []
    for beta in BETAS:
        for n in n_ranks:
            ratios.append(rank_ratios(beta, int(n), args.noise, args.draws, args.seed))
            r = ratios[-1]
            print(f"β={beta} n={n} λ*={r['lambda']:.2g} d={r['d']:.1f} d_ave={r['d_ave']:.1f} "
                  f"p random {_mean(r['rank_random']):.1f} rp {_mean(r['rank_rpcholesky']):.1f}"
                  f" greedy {r['rank_greedy']}", flush=True)
    draw(lm, ratios, args.noise, args.out)
    args.out.with_suffix(".json").write_text(json.dumps(
        {"noise": args.noise, "left_middle": {str(k): v for k, v in lm.items()},
         "ratios": ratios}, indent=1) + "\n")


if __name__ == "__main__":
    main()
