"""Center samplers side by side: the number of Nyström centers each needs to come within 1% of
the test error of NKRLS at m = n (= KRLS), and what choosing them costs.

Per dataset: a seeded subset of ``--n`` training rows (the registry's preprocessing and test
set), Gaussian kernel with the registry's σ, λ* of full KRLS on a validation set of 1024 other
training rows (41 λ in [1e-10, 1]). For each sampler (uniform, leverage scores at λ*, greedy
pivoted Cholesky, randomly pivoted Cholesky; the registry's ``get_sampler``), centers are drawn in
the sampler's order and the test MSE of NKRLS at λ* is evaluated for every prefix of them (one
Cholesky factor in that order); the rank is the smallest prefix within 1% of KRLS's test MSE
(mean over ``--draws`` seeds). The time is that of ``sampler.select`` for that many centers,
measured on a shared machine: compare the samplers' times with each other, not with anything
else.

    python -m reproduce.beyond.sampler_ranks -o results/sampler_ranks.md
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.linalg as la

from kernreg.atomic import write_text
from kernreg.datasets import load_dataset
from kernreg.kernels import GaussianKernel
from kernreg.solvers.blocks.centers import LeverageScoreSampler, get_sampler
from kernreg.solvers.blocks.pivoted_cholesky import kernel_partial_cholesky
from kernreg.theory.column_sampling import prefix_test_mse, sufficient_rank

DATASETS = ("pumadyn32nh", "cpusmall", "adult")
SAMPLERS = ("uniform", "leverage", "pivoted_cholesky", "rpcholesky")
LAMBDAS = np.logspace(-10, 0, 41)
N_VAL = 1024


def krls(K: np.ndarray, y: np.ndarray, K_val: np.ndarray, yv: np.ndarray, K_test: np.ndarray,
         yt: np.ndarray) -> tuple[float, float]:
    """λ* by validation and the test MSE of KRLS at it."""
    n = K.shape[0]
    s, V = la.eigh(K, check_finite=False, driver="evd")
    coef = V @ ((V.T @ y)[:, None] / (np.clip(s, 0, None)[:, None] + n * LAMBDAS[None, :]))
    j = int(np.argmin(((K_val @ coef - yv[:, None]) ** 2).mean(axis=0)))
    return float(LAMBDAS[j]), float(((K_test @ coef[:, j] - yt) ** 2).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=Path("results/sampler_ranks.md"))
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = parser.parse_args()
    lines = [
        "# Center samplers: rank to reach KRLS (= NKRLS at m = n) within 1%, and its cost",
        "",
        f"`reproduce/beyond/sampler_ranks.py`: n = {args.n} training rows per dataset "
        "(seeded subset), "
        "Gaussian kernel with the registry's σ, λ* by validation (1024 other training rows), "
        "test MSE of NKRLS at λ* for every prefix of each sampler's centers; rank = first "
        f"prefix within 1% of KRLS's test MSE, mean (min–max) over {args.draws} seeds "
        "(pivoted Cholesky is deterministic); time = `sampler.select` for that many centers "
        "(shared 2-core machine under load: compare the samplers with each other only).",
        "",
        "| dataset | n | σ | λ* | KRLS test RMSE | sampler | rank | select time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in args.datasets:
        ds = load_dataset(name)
        rng = np.random.default_rng(0)
        order = rng.permutation(ds.X_train.shape[0])
        n = min(args.n, order.size - N_VAL)
        X, y = ds.X_train[order[:n]], ds.y_train[order[:n]]
        Xv, yv = ds.X_train[order[n:n + N_VAL]], ds.y_train[order[n:n + N_VAL]]
        Xt, yt = ds.X_test, ds.y_test
        kernel = GaussianKernel(ds.sigma)
        lam, full = krls(kernel(X), y, kernel(Xv, X), yv, kernel(Xt, X), yt)
        for sampler_name in SAMPLERS:
            sampler = (LeverageScoreSampler(lam=lam) if sampler_name == "leverage"
                       else get_sampler(sampler_name))
            ranks, times = [], []
            for seed in range(1 if sampler_name == "pivoted_cholesky" else args.draws):
                limit = 256
                while True:
                    centers = sampler.select(X, limit, rng=seed, kernel=kernel)
                    chol = kernel_partial_cholesky(X, kernel, limit, order=centers)
                    F, piv = chol.factor, chol.pivots
                    r = F.shape[1]
                    live = np.flatnonzero(np.abs(F[piv, np.arange(r)]) > 0)
                    Ft = np.zeros((Xt.shape[0], r))
                    Ft[:, live] = la.solve_triangular(
                        F[piv[live]][:, live], kernel(Xt, X[piv[live]]).T, lower=True,
                        check_finite=False).T
                    p = sufficient_rank(lambda rs, F=F, Ft=Ft, r=r, y=y, yt=yt, lam=lam:
                                        prefix_test_mse(
                                            F, Ft, y, yt, lam, np.minimum(rs, r)), full, r)
                    if p is not None or limit >= n:
                        break
                    limit = min(n, 2 * limit)
                ranks.append(p if p is not None else np.nan)
                start = time.perf_counter()
                sampler.select(X, int(p if p is not None else limit), rng=seed, kernel=kernel)
                times.append(time.perf_counter() - start)
            lines.append(f"| {name} | {n} | {ds.sigma:g} | {lam:.2g} | {np.sqrt(full):.4g} "
                         f"| {sampler_name} | {np.mean(ranks):.0f} ({np.min(ranks):.0f}–"
                         f"{np.max(ranks):.0f}) | {np.mean(times):.3g} |")
            print(lines[-1], flush=True)
    write_text(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
