"""The measurements behind the † notes of results/lim_fig1_points.md (LiM Figure 1's point values).

Three checks, each on the trials of the configs/lim_fig1_points_*.yaml runs (same splits, same
seeds, same centers):

``conditioning``  cpuSmall, one trial, m = 5000, λ = 1e-12, σ = 0.1, on the refit rows (fit +
    validation): spectra of K_mm, K_nmᵀK_nm and kernreg's AᵀA (A = K_nm R⁻¹, RᵀR = K_mm + εI),
    and the test RMSE of every factorization of the question — kernreg's shared eigh and one
    Cholesky of AᵀA + λnI (the K_mm penalty), the authors' direct Cholesky of
    K_nmᵀK_nm + λn·K_mm (NystromCoRe), the identity penalty λn·I (eigh and Cholesky), and
    least squares on the eigenvectors of K_nmᵀK_nm above a relative cut-off.
``selected``  breast cancer, the selection the authors' June 2015 Figure 1 script reports a
    test number for: batch Nyström with the identity penalty over 20 λ in logspace(-3, -12) ×
    20 m in round(linspace(5, 300, 20)), models of the 80% fit rows, (λ, m) chosen on the
    validation classification error (the first minimum with m ascending and λ descending, the
    order of their loops), test error of that model; 20 trials, {0, 1} targets.
``single_lambda``  the time of one λ solved through the shared eigendecomposition (before) and
    by one Cholesky (now), side by side in one process on the same AᵀA, with the host's GEMM
    rate before and after (a loaded host gives ratios, not speeds).

    python -m reproduce.lim.lim_fig1_points_checks conditioning --trial 0
    python -m reproduce.lim.lim_fig1_points_checks selected
    python -m reproduce.lim.lim_fig1_points_checks single_lambda --m 5000

Smoke (``--smoke``: the configs at smoke size, 400 training and 200 test rows; ``--grid-points``:
the λ values and m levels of ``selected``, 20; ``--gemm-n``: the yardstick GEMM's size, 2000):

    python -m reproduce.lim.lim_fig1_points_checks conditioning --smoke --m 40
    python -m reproduce.lim.lim_fig1_points_checks selected --smoke --trials 1 --grid-points 3
    python -m reproduce.lim.lim_fig1_points_checks single_lambda --smoke --m 40 --repeats 1 \\
        --gemm-n 200
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.linalg as la

from kernreg.config import load_experiment, make_estimator
from kernreg.experiment.trial import prepare_data, trial_split
from kernreg.solvers.algorithms.incremental import IncrementalNystromKRLS
from kernreg.solvers.blocks.holdout import refit_rows
from kernreg.solvers.blocks.lambda_path import eigen_path_coefs, nkrls_path
from kernreg.solvers.blocks.nystrom import nystrom_products, nystrom_setup

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _cpusmall_trial(trial: int, m: int, smoke: bool = False):
    """cpuSmall's data, trial ``trial``'s split, its kernel and the run's centers at ``m``
    (``smoke``: the config at smoke size)."""
    exp = load_experiment(CONFIGS / "lim_fig1_points_cpusmall.yaml", smoke=smoke)
    data = prepare_data(exp)
    seed, split = trial_split(exp, data, trial)
    est = make_estimator(exp.algorithms[0], exp, random_state=seed)
    est.check_params()
    kern = est._make_kernel()
    setup = nystrom_setup(split[0], m, kern, sampler="uniform", random_state=seed,
                          epsilon=est.epsilon)
    return data, split, kern, setup


def conditioning(trial: int, m: int, lam: float, smoke: bool = False) -> None:
    data, (Xf, yf, Xv, yv), kern, setup = _cpusmall_trial(trial, m, smoke)
    X, y = refit_rows(Xf, yf, Xv, yv)
    n, C = len(y), setup.centers
    K_nm, K_mm, K_tm = kern(X, C), kern(C), kern(data.X_test, C)

    def test_rmse(alpha: np.ndarray) -> float:
        return float(np.sqrt(np.mean((K_tm @ alpha - data.y_test) ** 2)))

    eps = np.finfo(np.float64).eps
    print(f"cpuSmall trial {trial}: n = {n} refit rows, m = {m}, λ = {lam:g}, λn = {lam * n:.3g}")
    w = la.eigvalsh(K_mm)
    print(f"K_mm: eigenvalues {w.min():.3g} … {w.max():.4g}; numerical rank (tolerance "
          f"m·eps·max) {np.sum(w > m * eps * w.max())}; above 1e-8·max {np.sum(w > 1e-8 * w.max())}"
          f", above 1e-4·max {np.sum(w > 1e-4 * w.max())}")
    G, b = K_nm.T @ K_nm, K_nm.T @ y
    g, U = la.eigh(G, driver="evd")
    print(f"K_nmᵀK_nm: eigenvalues {g.min():.3g} … {g.max():.4g}; numerical rank "
          f"{np.sum(g > m * eps * g.max())}; below λn: {np.sum(g < lam * n)}")
    R = setup.factor.R
    A = la.solve_triangular(R, K_nm.T, trans="T").T
    H, Aty = A.T @ A, A.T @ y
    H = 0.5 * (H + H.T)
    s = la.eigvalsh(H)
    print(f"AᵀA (ε = {setup.factor.epsilon:g}): eigenvalues {s.min():.3g} … {s.max():.4g}; "
          f"below λn: {np.sum(s < lam * n)}")
    rows: list[tuple[str, str]] = []
    shared, _ = nkrls_path(H, Aty, setup.factor, np.array([lam, 2 * lam]), n, "eigh")
    single, _ = nkrls_path(H, Aty, setup.factor, np.array([lam]), n, "eigh")
    rows.append(("K_mm penalty, shared eigh (before)", f"{test_rmse(shared[:, 0]):.4f}"))
    rows.append(("K_mm penalty, one Cholesky of AᵀA + λnI (now)", f"{test_rmse(single[:, 0]):.4f}"))
    try:
        direct = la.cho_solve(la.cho_factor(G + lam * n * K_mm), b)
        rows.append(("K_mm penalty, Cholesky of K_nmᵀK_nm + λn·K_mm", f"{test_rmse(direct):.4f}"))
    except la.LinAlgError as exc:
        rows.append(("K_mm penalty, Cholesky of K_nmᵀK_nm + λn·K_mm", f"fails: {exc}"))
    rows.append(("identity penalty, eigh",
                 f"{test_rmse(eigen_path_coefs(g, U, b, np.array([lam * n]))[:, 0]):.4f}"))
    try:
        ident = la.cho_solve(la.cho_factor(G + lam * n * np.eye(m)), b)
        rows.append(("identity penalty, Cholesky", f"{test_rmse(ident):.4f}"))
    except la.LinAlgError as exc:
        rows.append(("identity penalty, Cholesky", f"fails: {exc}"))
    for cut in (1e-14, 1e-12, 1e-10, 1e-8, 1e-6):
        keep = g > cut * g.max()
        alpha = U[:, keep] @ ((U[:, keep].T @ b) / g[keep])
        rows.append((f"least squares, eigenvalues above {cut:g}·max (rank {keep.sum()})",
                     f"{test_rmse(alpha):.4f}"))
    for name, value in rows:
        print(f"  {name:58s} test RMSE {value}")


def selected(trials: int, points: int = 20, smoke: bool = False) -> None:
    exp = load_experiment(CONFIGS / "lim_fig1_points_breast_cancer_fitrows.yaml", smoke=smoke)
    data = prepare_data(exp)
    low, high = data.codes
    lambdas = np.logspace(-12, -3, points)
    levels = np.round(np.linspace(5, 300, points)).astype(int)
    # the grid's cell nearest λ = 4.28e-6 at m = 300 (λ index 14 of the authors' 20 points)
    near = int(np.argmin(np.abs(np.log10(lambdas / 4.28e-6))))
    cell_name = f"λ = {lambdas[near]:.3g}, m = {levels[-1]}".replace("e-0", "e-")
    chosen, cell = [], []
    for t in range(trials):
        seed, (Xf, yf, Xv, yv) = trial_split(exp, data, t)
        est = IncrementalNystromKRLS(sigma=exp.kernel["sigma"], m=300, m_values=levels,
                                     lambdas=lambdas, penalty="identity", random_state=seed)
        est.fit(Xf, yf, Xv, yv, X_eval=np.vstack([Xv, data.X_test]))
        classes = np.where(est.eval_outputs_ > (low + high) / 2, high, low)  # (L, M, rows)
        n_val = len(yv)
        val = (classes[:, :, :n_val] != yv).mean(axis=2)
        test = (classes[:, :, n_val:] != data.y_test).mean(axis=2)
        best, pick = np.inf, (0, 0)
        for k in range(levels.size):  # their loops: m ascending, λ from 1e-3 down, strict <
            for j in reversed(range(lambdas.size)):
                if val[j, k] < best:
                    best, pick = val[j, k], (j, k)
        chosen.append(test[pick])
        cell.append(test[near, -1])
        print(f"trial {t}: λ* {lambdas[pick[0]]:.3g}, m* {levels[pick[1]]}, validation error "
              f"{best:.4f}, test error {test[pick]:.4f}")
    spread = f" ± {np.std(chosen, ddof=1):.4f}" if trials > 1 else ""
    print(f"selected model: test error {np.mean(chosen):.4f}{spread} ({trials} trials); the "
          f"grid cell {cell_name}: {np.mean(cell):.4f}")


def single_lambda(m: int, lam: float, repeats: int, gemm_n: int = 2000,
                  smoke: bool = False) -> None:
    _, (Xf, yf, _, _), kern, setup = _cpusmall_trial(0, m, smoke)
    H, Aty = nystrom_products(kern, Xf, setup.centers, yf, setup.factor)
    n = len(yf)

    def gemm() -> float:
        M = np.random.default_rng(0).random((gemm_n, gemm_n))
        start = time.perf_counter()
        M @ M
        return 2 * gemm_n**3 / (time.perf_counter() - start) / 1e9

    for rep in range(repeats):
        before_rate = gemm()
        start = time.perf_counter()
        s, V = la.eigh(H, check_finite=False, driver="evd")
        old = setup.factor.solve(eigen_path_coefs(s, V, Aty, np.array([lam * n])))
        t_old = time.perf_counter() - start
        start = time.perf_counter()
        new, _ = nkrls_path(H, Aty, setup.factor, np.array([lam]), n)
        t_new = time.perf_counter() - start
        rel = np.linalg.norm(new - old) / np.linalg.norm(old)
        print(f"m = {m}, repeat {rep}: host GEMM {before_rate:.1f} / {gemm():.1f} GF/s; "
              f"eigendecomposition {t_old:.2f} s, Cholesky {t_new:.2f} s, ratio "
              f"{t_old / t_new:.1f}; coefficients differ by {rel:.1e} (relative)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("check", choices=["conditioning", "selected", "single_lambda"])
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--m", type=int, default=5000)
    parser.add_argument("--lam", type=float, default=1e-12)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--grid-points", type=int, default=20,
                        help="selected: λ values and m levels of the authors' grid")
    parser.add_argument("--gemm-n", type=int, default=2000,
                        help="size of the square GEMM that measures the host's rate")
    parser.add_argument("--smoke", action="store_true",
                        help="the configs at smoke size (400 training, 200 test rows)")
    args = parser.parse_args()
    if args.check == "conditioning":
        conditioning(args.trial, args.m, args.lam, args.smoke)
    elif args.check == "selected":
        selected(args.trials, args.grid_points, args.smoke)
    else:
        single_lambda(args.m, args.lam, args.repeats, args.gemm_n, args.smoke)


if __name__ == "__main__":
    main()
