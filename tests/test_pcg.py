"""Falkon's preconditioned conjugate gradient (``pcg``): NKRLS at convergence, the same
iterates for every K_nm strategy, few iterations thanks to the preconditioner, a λ path with
warm starts and validation after every iteration."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.solvers import NystromKRLS, NystromPCG, rmse
from kernreg.solvers.algorithms.pcg import FalkonPreconditioner, NystromPreconditioner
from kernreg.solvers.blocks.linalg import nystrom_factor


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(11)
    X, X_val, X_test = (rng.uniform(-1, 1, size=(n, 3)) for n in (600, 200, 150))
    f = lambda Z: np.sin(3 * Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2  # noqa: E731
    y, y_val = f(X) + 0.1 * rng.standard_normal(600), f(X_val) + 0.1 * rng.standard_normal(200)
    return X, y, X_val, y_val, X_test


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


@pytest.mark.parametrize("preconditioner", ["falkon", "nystrom"])
@pytest.mark.parametrize("lam", [1e-2, 1e-4, 1e-6])
def test_converged_pcg_equals_nkrls(problem, lam: float, preconditioner: str) -> None:
    X, y, _, _, X_test = problem
    kw = {"sigma": 0.8, "m": 60, "lam": lam, "random_state": 4}
    pcg = NystromPCG(max_iter=300, tol=1e-14, preconditioner=preconditioner, **kw).fit(X, y)
    nkrls = NystromKRLS(**kw).fit(X, y)
    assert _rel(pcg.predict(X_test), nkrls.predict(X_test)) < 1e-8


def _plain_cg_iterations(H: np.ndarray, b: np.ndarray, tol: float) -> int:
    x, r = np.zeros_like(b), b.copy()
    p, rr = r.copy(), float(r @ r)
    for k in range(1, 20001):
        Hp = H @ p
        step = rr / float(p @ Hp)
        x, r = x + step * p, r - step * Hp
        rr, rr_old = float(r @ r), rr
        if np.sqrt(rr) <= tol * np.linalg.norm(b):
            return k
        p = r + rr / rr_old * p
    return 20000


def test_the_preconditioner_cuts_the_iterations(problem) -> None:
    X, y, _, _, X_test = problem
    lam, tol = 1e-3, 1e-8
    pcg = NystromPCG(sigma=0.8, m=60, lam=lam, random_state=4, tol=tol, max_iter=2000)
    pcg.fit(X, y)
    reference = NystromKRLS(sigma=0.8, m=60, lam=lam, random_state=4).fit(X, y)
    assert _rel(pcg.predict(X_test), reference.predict(X_test)) < 1e-6
    # the same system without the preconditioner: (K_nmᵀK_nm + λn(K_mm + εI)) α = K_nmᵀy
    K = np.exp(-((X[:, None, :] - X[None, pcg.center_indices_, :]) ** 2).sum(-1) / 1.28)
    R = nystrom_factor(K[pcg.center_indices_], 1e-10).R
    H = K.T @ K + lam * len(y) * (R.T @ R)
    plain = _plain_cg_iterations(H, K.T @ y, tol)
    assert pcg.n_iter_ * 5 < plain, (pcg.n_iter_, plain)


@pytest.mark.parametrize("kind", [FalkonPreconditioner, NystromPreconditioner])
def test_preconditioner_maps_back_and_forth(kind) -> None:
    rng = np.random.default_rng(0)
    M = rng.standard_normal((30, 30))
    factor = nystrom_factor(M @ M.T + 30 * np.eye(30))
    pre = kind(factor, n=500)
    v = rng.standard_normal(30)
    for lam in (1e-6, 1e-2):
        np.testing.assert_allclose(pre.inverse(pre.apply(v, lam), lam), v, rtol=1e-9)
        B = np.column_stack([pre.apply(e, lam) for e in np.eye(30)])
        Bt = np.column_stack([pre.apply_t(e, lam) for e in np.eye(30)])
        np.testing.assert_allclose(Bt, B.T, rtol=1e-10, atol=1e-14)


def test_strategies_give_the_same_path(problem) -> None:
    """Stored and re-evaluated K_nm give the same iterates; the Gram strategy's G = K_nmᵀK_nm,
    formed once, rounds differently, and CG stopped 15 iterations short of convergence on this
    near-singular K_mm carries that to ~2e-6 of the validation error."""
    X, y, X_val, y_val, X_test = problem
    fits = {s: NystromPCG(sigma=0.8, m=60, lambdas=np.logspace(-4, -1, 4), max_iter=15,
                          strategy=s, random_state=2, memory_budget=4096).fit(X, y, X_val, y_val)
            for s in ("memory", "blocked", "gram")}
    # a stored K_nm beside a re-evaluated K_vm (when both do not fit together)
    fits["memory/blocked"] = NystromPCG(
        sigma=0.8, m=60, lambdas=np.logspace(-4, -1, 4), max_iter=15, strategy="memory",
        validation_strategy="blocked", random_state=2, memory_budget=4096,
    ).fit(X, y, X_val, y_val)
    ref = fits["memory"]
    for strategy, est in fits.items():
        close = 1e-8 if strategy != "gram" else 1e-5
        np.testing.assert_allclose(est.path_["val_rmse"], ref.path_["val_rmse"], rtol=close)
        assert (est.best_lambda_, est.best_iter_) == (ref.best_lambda_, ref.best_iter_)
        assert _rel(est.predict(X_test), ref.predict(X_test)) < close


def test_validated_path_selects_the_lowest_error(problem) -> None:
    X, y, X_val, y_val, _ = problem
    lambdas = np.logspace(-8, 0, 7)
    est = NystromPCG(sigma=0.8, m=60, lambdas=lambdas, max_iter=25, stopping_rule="none",
                     random_state=2).fit(X, y, X_val, y_val)
    np.testing.assert_allclose(est.path_["lambdas"], lambdas)
    best = int(np.argmin(est.path_["val_rmse"]))
    assert est.best_lambda_ == lambdas[best]
    assert rmse(y_val, est.predict(X_val)) == pytest.approx(est.path_["val_rmse"][best],
                                                           rel=1e-10)
    chosen = est.selection()
    assert chosen.param_name == "lambda" and chosen.info["t_selected"] == est.best_iter_


def test_iterations_regularize_at_lambda_near_zero(problem) -> None:
    """λ → 0 with a stopping rule: CG's early iterations are the regularized models, as
    NYTRO's are; the rule ends the iterations once the validation error turns."""
    X, y, X_val, y_val, _ = problem
    est = NystromPCG(sigma=0.3, m=200, lambdas=[1e-14], max_iter=60, tol=1e-15,
                     stopping_rule="window_simple", window=3, random_state=2)
    est.fit(X, y, X_val, y_val)
    assert est.path_["iterations"][0] < 60  # the rule stopped it
    assert est.best_iter_ <= est.path_["iterations"][0]


@pytest.mark.parametrize("preconditioner", ["falkon", "nystrom"])
def test_iterates_minimize_the_objective_over_the_krylov_space(
        problem, preconditioner: str) -> None:
    """CG's t-th iterate from α = 0 is the α of least NKRLS objective
    ‖K_nm α − y‖² + λn‖Rα‖² in span{(P H)^j P K_nmᵀy, j < t}: H = K_nmᵀK_nm + λnRᵀR and
    P = BBᵀ the preconditioner's metric, (RᵀR RᵀR/m + λRᵀR)⁻¹ for Falkon's, (RᵀR)⁻¹ for
    NYTRO's."""
    X, y, _, _, _ = problem
    lam, m, n = 1e-7, 30, len(y)
    kw = {"sigma": 0.5, "m": m, "lam": lam, "random_state": 3, "tol": 1e-15,
          "stopping_rule": "none", "preconditioner": preconditioner}
    ref = NystromPCG(fit_intercept=False, max_iter=1, **kw).fit(X, y)
    C = X[ref.center_indices_]
    K = np.exp(-((X[:, None, :] - C[None, :, :]) ** 2).sum(-1) / (2 * 0.5**2))
    R = nystrom_factor(K[ref.center_indices_], 1e-10).R
    Kmm = R.T @ R
    P = (np.linalg.inv(Kmm @ Kmm / m + lam * Kmm) if preconditioner == "falkon"
         else np.linalg.inv(Kmm))
    H = K.T @ K + lam * n * Kmm
    design, target = np.vstack([K, np.sqrt(lam * n) * R]), np.concatenate([y, np.zeros(m)])
    basis = [P @ (K.T @ y)]
    for t in range(1, 6):
        est = NystromPCG(fit_intercept=False, max_iter=t, **kw).fit(X, y)
        V = np.linalg.qr(np.column_stack(basis))[0]
        best = V @ np.linalg.lstsq(design @ V, target, rcond=None)[0]
        assert _rel(K @ est.alpha_, K @ best) < 1e-8, t
        basis.append(P @ (H @ basis[-1]))


def test_nystrom_preconditioned_iterations_regularize(problem) -> None:
    """At λ ≈ 0 NYTRO's preconditioner keeps CG's early iterates smooth: an early iterate
    comes within 10% of NKRLS's best validation error before later ones overfit, while
    Falkon's preconditioner, built for that λ, jumps to a large-norm α in its first step."""
    X, y, X_val, y_val, _ = problem
    kw = {"sigma": 0.3, "m": 200, "lambdas": [1e-14], "max_iter": 40, "tol": 1e-15,
          "stopping_rule": "none", "random_state": 2}
    fits = {p: NystromPCG(preconditioner=p, **kw).fit(X, y, X_val, y_val)
            for p in ("nystrom", "falkon")}
    firsts = {p: NystromPCG(preconditioner=p, **{**kw, "max_iter": 1}).fit(X, y, X_val, y_val)
              for p in ("nystrom", "falkon")}
    nkrls = NystromKRLS(sigma=0.3, m=200, random_state=2).fit(X, y, X_val, y_val)
    best_ridge = float(np.min(nkrls.path_["val_rmse"]))
    assert fits["nystrom"].path_["val_rmse"][0] < 1.1 * best_ridge
    assert 1 < fits["nystrom"].best_iter_ < 40  # an early iterate, not the last one
    assert np.linalg.norm(firsts["falkon"].alpha_) > 20 * np.linalg.norm(
        firsts["nystrom"].alpha_)
