"""Bach 2013, Figure 3: the rank sufficient for 1%-worse generalization over the degrees of
freedom on pumadyn-32fh, -32nh and -32nm, random columns and pivoted Cholesky.

Per dataset (kernreg registry: 4096 training rows, 4096 test rows, the authors' feature scaling),
Gaussian kernel. For each training size n (a seeded subset of the training rows) the λ* of
full KRLS on a validation set (1024 other training rows; Bach: "λ by cross-validation"), its
test MSE, ``d = n‖diag K(K + nλ*I)⁻¹‖_∞`` and ``d_ave = tr K²(K + nλ*I)⁻²``; then the smallest
rank p whose column-sampling predictor (ridge regression on the first p columns of a pivoted
Cholesky factor, i.e. Nyström KRLS with those centers, at λ*) has a test MSE at most 1% above
full KRLS's. Plain: random columns (mean over ``--draws``), dashed: greedy pivoting, dotted:
randomly pivoted Cholesky (not in Bach).

Bach gives no kernel, σ, split or n: Gaussian kernel, σ chosen once per dataset by validation
MSE at n = 1024 over ``SIGMAS``; the x axis is n. Every number goes to the JSON beside the PNG.

    python -m reproduce.bach.bach_fig3 -o results/figures/bach_fig3.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import scipy.linalg as la

from kernreg.datasets import load_dataset
from kernreg.kernels import GaussianKernel
from kernreg.solvers.blocks.dof import exact_degrees_of_freedom
from kernreg.solvers.blocks.pivoted_cholesky import kernel_partial_cholesky
from kernreg.theory.column_sampling import prefix_test_mse, sufficient_rank

DATASETS = ("pumadyn32fh", "pumadyn32nh", "pumadyn32nm")
SIGMAS = (1.0, 2.0, 3.0, 4.0, 6.0)
LAMBDAS = np.logspace(-10, 0, 41)
N_VAL = 1024


def krls_path(K: np.ndarray, K_other: list[np.ndarray], y: np.ndarray
              ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Eigendecomposition of K and the predictions on other sets for every λ: (s, preds)."""
    n = K.shape[0]
    s, V = la.eigh(K, check_finite=False, driver="evd")
    s = np.clip(s, 0.0, None)
    c = V.T @ y
    coef = V @ (c[:, None] / (s[:, None] + n * LAMBDAS[None, :]))  # (n, L)
    return s, [Ko @ coef for Ko in K_other]


def one_n(X: np.ndarray, y: np.ndarray, Xv: np.ndarray, yv: np.ndarray, Xt: np.ndarray,
          yt: np.ndarray, sigma: float, draws: int, seed: int) -> dict:
    kernel = GaussianKernel(sigma)
    K = kernel(X)
    n = K.shape[0]
    _, (pv, pt) = krls_path(K, [kernel(Xv, X), kernel(Xt, X)], y)
    val = ((pv - yv[:, None]) ** 2).mean(axis=0)
    j = int(np.argmin(val))
    lam = float(LAMBDAS[j])
    full = float(((pt[:, j] - yt) ** 2).mean())
    dof = exact_degrees_of_freedom(K, [lam])
    d, d_ave = float(dof.d_max[0]), float(dof.d_ave[0])

    def rank(rule: str, draw: int) -> int | None:
        limit = min(n, max(64, int(4 * d)))
        while True:
            chol = kernel_partial_cholesky(X, kernel, limit, rule=rule, rng=seed + draw)
            F, piv = chol.factor, chol.pivots
            r = F.shape[1]
            # test rows of the factor: K_tI F_I⁻ᵀ, F_I lower triangular in pivot order; a
            # random column already in the span (a zero column) stays zero
            live = np.flatnonzero(np.abs(F[piv, np.arange(r)]) > 0)
            Ft = np.zeros((Xt.shape[0], r))
            Ft[:, live] = la.solve_triangular(F[piv[live]][:, live], kernel(Xt, X[piv[live]]).T,
                                              lower=True, check_finite=False).T
            p = sufficient_rank(lambda ranks, F=F, Ft=Ft, r=r: prefix_test_mse(
                F, Ft, y, yt, lam, np.minimum(ranks, r)), full, r)
            if p is not None or limit >= n:
                return p
            limit = min(n, 2 * limit)

    return {"n": n, "lambda": lam, "test_mse": full, "d": d, "d_ave": d_ave,
            "rank_random": [rank("uniform", k) for k in range(draws)],
            "rank_rpcholesky": [rank("random", k) for k in range(draws)],
            "rank_greedy": rank("greedy", 0)}


def choose_sigma(X: np.ndarray, y: np.ndarray, Xv: np.ndarray, yv: np.ndarray) -> float:
    best = (np.inf, SIGMAS[0])
    for sigma in SIGMAS:
        kernel = GaussianKernel(sigma)
        _, (pv,) = krls_path(kernel(X), [kernel(Xv, X)], y)
        best = min(best, (float(((pv - yv[:, None]) ** 2).mean(axis=0).min()), sigma))
    return best[1]


def _mean(values: list) -> float:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else float("nan")


def draw(results: dict, out: Path) -> None:
    fig, axes = plt.subplots(1, len(results), figsize=(5.2 * len(results), 4.4), sharey=True)
    for ax, (name, res) in zip(np.atleast_1d(axes), results.items(), strict=True):
        rows = res["rows"]
        n = np.array([r["n"] for r in rows])
        d = np.array([r["d"] for r in rows])
        d_ave = np.array([r["d_ave"] for r in rows])
        rand = np.array([_mean(r["rank_random"]) for r in rows])
        rp = np.array([_mean(r["rank_rpcholesky"]) for r in rows])
        greedy = np.array([r["rank_greedy"] or np.nan for r in rows], dtype=float)
        ax.semilogx(n, rand / d, "C0-o", label="random / d")
        ax.semilogx(n, rand / d_ave, "C1-s", mfc="none", label="random / d_ave")
        ax.semilogx(n, greedy / d, "C0--o", label="pivoted / d")
        ax.semilogx(n, greedy / d_ave, "C1--s", mfc="none", label="pivoted / d_ave")
        ax.semilogx(n, rp / d, "C2:", label="RPCholesky / d")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set(xlabel="n (training points)", title=f"{name} (σ = {res['sigma']:g})")
        ax.legend(fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel("sufficient rank / degrees of freedom")
    fig.suptitle("Bach 2013 Figure 3: rank for ≤ 1% worse test MSE over d and d_ave "
                 "(Gaussian kernel, λ by validation)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=Path("results/figures/bach_fig3.png"))
    parser.add_argument("--n-max", type=int, default=2048)
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-json", type=Path, help="redraw from a previous run's JSON")
    args = parser.parse_args()
    if args.from_json:
        draw(json.loads(args.from_json.read_text()), args.out)
        return
    results = {}
    for name in DATASETS:
        ds = load_dataset(name)
        rng = np.random.default_rng(args.seed)
        order = rng.permutation(ds.X_train.shape[0])
        val, pool = order[:N_VAL], order[N_VAL:]
        Xv, yv = ds.X_train[val], ds.y_train[val]
        sub = pool[:1024]
        sigma = choose_sigma(ds.X_train[sub], ds.y_train[sub], Xv, yv)
        rows = []
        for n in 2 ** np.arange(8, int(np.log2(args.n_max)) + 1):
            idx = pool[:n]
            rows.append(one_n(ds.X_train[idx], ds.y_train[idx], Xv, yv, ds.X_test, ds.y_test,
                              sigma, args.draws, args.seed))
            r = rows[-1]
            print(f"{name} σ={sigma} n={n} λ*={r['lambda']:.2g} d={r['d']:.1f} "
                  f"d_ave={r['d_ave']:.1f} p random {_mean(r['rank_random']):.1f} "
                  f"rp {_mean(r['rank_rpcholesky']):.1f} greedy {r['rank_greedy']}", flush=True)
        results[name] = {"sigma": sigma, "rows": rows}
    draw(results, args.out)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
