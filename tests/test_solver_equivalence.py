"""Numerical equivalences between the solvers and with independent references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from kernreg.kernels import GaussianKernel
from kernreg.solvers import KOLS, KRLS, KernelLandweber, NystromKRLS, Nytro, rmse
from kernreg.solvers.algorithms.nytro import nytro_step_size
from kernreg.solvers.blocks.lambda_path import eigen_path_coefs, nkrls_path
from kernreg.solvers.blocks.linalg import (
    lanczos_top_eigenvalue,
    lanczos_top_pair,
    nystrom_factor,
)
from kernreg.solvers.blocks.nystrom import nystrom_products, nystrom_setup, rounding_floor
from kernreg.solvers.blocks.strategy import STRATEGIES

SIGMA = 0.8


def _gauss(X, Y, sigma=SIGMA):
    return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))


def _rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def problem():
    """A smooth 1-D-ish regression problem in 5 dimensions with a held-out set."""
    rng = np.random.default_rng(42)
    n, d = 200, 5
    X = rng.uniform(size=(n, d))
    f = lambda Z: np.sin(3 * Z.sum(axis=1)) + Z[:, 0] ** 2  # noqa: E731
    y = f(X) + 0.1 * rng.standard_normal(n)
    X_val = rng.uniform(size=(80, d))
    y_val = f(X_val) + 0.1 * rng.standard_normal(80)
    X_test = rng.uniform(size=(60, d))
    return X, y, X_val, y_val, X_test


@pytest.mark.parametrize("lam", [1e-4, 1e-2])
def test_krls_matches_sklearn_kernel_ridge(problem, lam):
    X, y, _, _, X_test = problem
    n = X.shape[0]
    ours = KRLS(fit_intercept=False, sigma=SIGMA, lam=lam).fit(X, y).predict(X_test)
    ref = KernelRidge(alpha=lam * n, kernel="rbf", gamma=1 / (2 * SIGMA**2)).fit(X, y)
    assert _rel(ours, ref.predict(X_test)) < 1e-6


def test_krls_path_matches_per_lambda_solves(problem):
    X, y, X_val, y_val, _ = problem
    n = X.shape[0]
    lambdas = np.logspace(-5, 0, 12)
    K = _gauss(X, X)
    s, U = np.linalg.eigh(K)
    alphas = eigen_path_coefs(s, U, y, lambdas * n)
    for j, lam in enumerate(lambdas):
        direct = np.linalg.solve(K + lam * n * np.eye(n), y)
        assert _rel(alphas[:, j], direct) < 1e-6
    est = KRLS(sigma=SIGMA, lambdas=lambdas).fit(X, y, X_val, y_val)
    for j, lam in enumerate(lambdas):
        single = KRLS(sigma=SIGMA, lam=lam).fit(X, y)
        assert est.path_["val_rmse"][j] == pytest.approx(rmse(y_val, single.predict(X_val)), 1e-8)
    best = int(np.argmin(est.path_["val_rmse"]))
    assert est.best_lambda_ == lambdas[best]
    single = KRLS(sigma=SIGMA, lam=lambdas[best]).fit(X, y)
    assert _rel(est.predict(X_val), single.predict(X_val)) < 1e-6


@pytest.mark.parametrize("lam", [1e-4, 1e-2])
def test_nkrls_with_all_points_equals_krls(problem, lam):
    X, y, _, _, X_test = problem
    n = X.shape[0]
    krls = KRLS(sigma=SIGMA, lam=lam).fit(X, y).predict(X_test)
    for method in ("eigh", "cholesky"):
        nk = NystromKRLS(sigma=SIGMA, m=n, lam=lam, path_method=method, random_state=0)
        nk.fit(X, y)
        assert np.array_equal(np.sort(nk.center_indices_), np.arange(n))
        assert _rel(nk.predict(X_test), krls) < 1e-6


def test_nkrls_matches_explicit_formula(problem):
    X, y, _, _, X_test = problem
    n, m, lam = X.shape[0], 40, 1e-3
    nk = NystromKRLS(fit_intercept=False, sigma=SIGMA, m=m, lam=lam, random_state=3).fit(X, y)
    C = X[nk.center_indices_]
    K_nm, K_mm = _gauss(X, C), _gauss(C, C)
    alpha = np.linalg.pinv(K_nm.T @ K_nm + lam * n * K_mm) @ (K_nm.T @ y)
    assert _rel(nk.alpha_, alpha) < 1e-6
    assert _rel(nk.predict(X_test), _gauss(X_test, C) @ alpha) < 1e-6


def test_nkrls_shared_path_equals_fresh_per_lambda_solves(problem):
    X, y, X_val, y_val, _ = problem
    n, m = X.shape[0], 50
    lambdas = np.logspace(-6, 0, 15)
    kern = GaussianKernel(SIGMA)
    rng = np.random.default_rng(5)
    C = X[rng.choice(n, m, replace=False)]
    G, b = kern.gram_products(X, C, y)
    factor = nystrom_factor(kern(C), 1e-10)
    H, Aty = nystrom_products(kern, X, C, y, factor)
    eig, fb_eig = nkrls_path(H, Aty, factor, lambdas, n, "eigh")
    chol, fb_chol = nkrls_path(H, Aty, factor, lambdas, n, "cholesky")
    assert fb_eig == [] and fb_chol == []
    K_mm_eps = kern(C) + factor.epsilon * np.eye(m)
    for j, lam in enumerate(lambdas):
        direct = np.linalg.solve(G + lam * n * K_mm_eps, b)
        assert _rel(eig[:, j], direct) < 1e-6
        assert _rel(chol[:, j], direct) < 1e-6
        assert _rel(eig[:, j], chol[:, j]) < 1e-6
    # the estimator's validation path equals fresh single-λ fits with the same centers
    est = NystromKRLS(sigma=SIGMA, m=m, lambdas=lambdas, random_state=9).fit(X, y, X_val, y_val)
    for j in (0, 7, 14):
        single = NystromKRLS(sigma=SIGMA, m=m, lam=lambdas[j], random_state=9).fit(X, y)
        assert est.path_["val_rmse"][j] == pytest.approx(rmse(y_val, single.predict(X_val)), 1e-8)
    best = int(np.argmin(est.path_["val_rmse"]))
    assert est.best_lambda_ == lambdas[best]


def test_nkrls_single_lambda_cholesky_equals_the_shared_eigendecomposition(problem):
    """A single λ is solved by one Cholesky of AᵀA + λnI: the same coefficients as the shared
    eigendecomposition (and as a direct solve) at every λ of a wide grid."""
    X, y, _, _, _ = problem
    n, m = X.shape[0], 60
    kern = GaussianKernel(SIGMA)
    C = X[np.random.default_rng(2).choice(n, m, replace=False)]
    factor = nystrom_factor(kern(C), 1e-10)
    H, Aty = nystrom_products(kern, X, C, y, factor)
    lambdas = np.logspace(-9, 0, 10)
    shared, _ = nkrls_path(H, Aty, factor, lambdas, n, "eigh")
    G, b = kern.gram_products(X, C, y)
    K_mm_eps = kern(C) + factor.epsilon * np.eye(m)
    for j, lam in enumerate(lambdas):
        single, fallbacks = nkrls_path(H, Aty, factor, np.array([lam]), n, "eigh")
        assert single.shape == (m, 1) and fallbacks == []
        assert _rel(single[:, 0], shared[:, j]) < 1e-6
        if lam >= 1e-6:  # well conditioned: both equal the direct solve
            assert _rel(single[:, 0], np.linalg.solve(G + lam * n * K_mm_eps, b)) < 1e-6


def test_nkrls_single_lambda_falls_back_to_the_eigendecomposition():
    """When AᵀA + λnI is not numerically positive definite (a rounding-negative eigenvalue
    beyond λn), the single λ takes the eigendecomposition's answer, which clips it at 0."""
    rng = np.random.default_rng(0)
    m, n = 30, 100
    Q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    s = np.linspace(1.0, 10.0, m)
    s[:3] = -1e-9  # what rounding leaves of a rank-deficient AᵀA
    H = (Q * s) @ Q.T
    H = 0.5 * (H + H.T)
    Aty = rng.standard_normal(m)
    factor = nystrom_factor(np.eye(m), 0.0)
    lam = 1e-13  # λn = 1e-11, below the negative eigenvalues
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(H + lam * n * np.eye(m))
    single, fallbacks = nkrls_path(H, Aty, factor, np.array([lam]), n, "eigh")
    w, V = np.linalg.eigh(H)
    assert fallbacks == []  # the eigendecomposition is what "eigh" asks for, not a fallback
    np.testing.assert_allclose(single[:, 0],
                               eigen_path_coefs(w, V, Aty, np.array([lam * n]))[:, 0],
                               rtol=1e-6)
    chol, chol_fallbacks = nkrls_path(H, Aty, factor, np.array([lam]), n, "cholesky")
    assert chol_fallbacks == [lam]
    np.testing.assert_allclose(chol, single, rtol=1e-6)


@pytest.mark.parametrize("penalty", ["kmm", "identity"])
def test_nkrls_refit_equals_a_fresh_fit_on_fit_and_validation_rows(problem, penalty):
    """The refit adds the validation rows' terms to the fit rows' AᵀA and Aᵀy: the same
    coefficients as products over all rows at once, i.e. a direct solve on the stacked rows
    with the same centers."""
    X, y, X_val, y_val, _ = problem
    lambdas = np.logspace(-6, -1, 6)
    est = NystromKRLS(fit_intercept=False,
                      sigma=SIGMA, m=40, lambdas=lambdas, penalty=penalty, refit=True,
                      random_state=4).fit(X, y, X_val, y_val)
    X_all, y_all = np.vstack([X, X_val]), np.concatenate([y, y_val])
    C, n, lam = est.centers_, X_all.shape[0], est.best_lambda_
    K_nm = _gauss(X_all, C)
    M = _gauss(C, C) + est.factor_info_["epsilon_used"] * np.eye(40) if penalty == "kmm" \
        else np.eye(40)
    direct = np.linalg.solve(K_nm.T @ K_nm + lam * n * M, K_nm.T @ y_all)
    assert _rel(est.alpha_, direct) < 1e-6
    # a sparse X takes the same row slicing
    sparse = NystromKRLS(fit_intercept=False,
                         sigma=SIGMA, m=40, lambdas=lambdas, penalty=penalty, refit=True,
                         random_state=4).fit(sp.csr_matrix(X), y, sp.csr_matrix(X_val), y_val)
    assert _rel(sparse.alpha_, est.alpha_) < 1e-8


def test_nkrls_predict_path_gives_every_lambdas_model(problem):
    X, y, X_val, y_val, X_test = problem
    lambdas = np.logspace(-6, -1, 6)
    est = NystromKRLS(sigma=SIGMA, m=40, lambdas=lambdas, random_state=5).fit(X, y, X_val, y_val)
    np.testing.assert_allclose(rmse(y_val, est.predict_path(X_val)), est.path_["val_rmse"],
                               rtol=1e-12)
    paths = est.predict_path(X_test)
    assert paths.shape == (X_test.shape[0], lambdas.size)
    for j, lam in enumerate(lambdas):
        one = NystromKRLS(sigma=SIGMA, m=40, lam=lam, random_state=5).fit(X, y)
        assert _rel(paths[:, j], one.predict(X_test)) < 1e-8
    with pytest.raises(ValueError, match="validation data"):
        NystromKRLS(sigma=SIGMA, m=40, random_state=5).fit(X, y).predict_path(X_test)


def test_nystrom_products_stay_psd_when_k_mm_is_near_singular():
    # A wide kernel on many centers makes K_mm numerically singular (ε = 1e-10 decides R);
    # AᵀA must still be AᵀA of the explicit A = K_nm R⁻¹ and positive semidefinite, which
    # the shortcut R⁻ᵀ (K_nmᵀK_nm) R⁻¹ misses by orders of magnitude.
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 3))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(3000)
    kern = GaussianKernel(2.0)
    C = X[:400]
    factor = nystrom_factor(kern(C), 1e-10)
    H, Aty = nystrom_products(kern, X, C, y, factor)
    A = factor.right_solve(kern(X, C))
    assert np.abs(H - A.T @ A).max() <= 1e-10 * np.abs(H).max()
    assert np.allclose(Aty, A.T @ y, rtol=1e-10, atol=1e-10 * np.abs(Aty).max())
    lowest = np.linalg.eigvalsh(H)[0]
    G, _ = kern.gram_products(X, C)
    W = factor.solve_t(G)
    shortcut = factor.solve_t(W.T).T
    shortcut_lowest = np.linalg.eigvalsh(0.5 * (shortcut + shortcut.T))[0]
    assert lowest > -1e-9 * np.abs(H).max()
    assert shortcut_lowest < 100 * min(lowest, -1e-9 * np.abs(H).max())


@pytest.mark.parametrize("explicit_step", [True, False])
def test_nytro_with_all_points_equals_landweber(problem, explicit_step):
    """With m = n and ε → 0, NYTRO's α_t = R⁻¹β_t is Landweber's α_t for η = γ.

    In α-space NYTRO reads α_t = α_{t−1} − γ (K + εI)⁻¹ K (Kα_{t−1} − y) → α_{t−1} − γ(Kα − y),
    and ‖K R⁻¹‖₂² = λ_max(R⁻ᵀK²R⁻¹) = λ_max(K) as ε → 0, so the default steps agree as well.
    """
    X, y, _, _, X_test = problem
    n = X.shape[0]
    step = 0.5 / np.linalg.eigvalsh(_gauss(X, X))[-1] if explicit_step else None
    for t in (1, 5, 50, 200):
        es = KernelLandweber(sigma=SIGMA, max_iter=t, step_size=step).fit(X, y)
        ny = Nytro(sigma=SIGMA, m=n, max_iter=t, step_size=step, epsilon=1e-12, random_state=0)
        ny.fit(X, y)
        assert ny.step_size_ == pytest.approx(es.step_size_, rel=1e-8)
        assert _rel(ny.predict(X_test), es.predict(X_test)) < 1e-6


def test_nytro_validation_path_equals_landweber_path(problem):
    X, y, X_val, y_val, _ = problem
    n = X.shape[0]
    kw = {"sigma": SIGMA, "max_iter": 60, "stopping_rule": "none"}
    es = KernelLandweber(**kw).fit(X, y, X_val, y_val)
    ny = Nytro(m=n, epsilon=1e-12, random_state=0, **kw).fit(X, y, X_val, y_val)
    np.testing.assert_allclose(ny.path_["val_rmse"], es.path_["val_rmse"], rtol=1e-6)
    assert ny.best_iter_ == es.best_iter_


def test_landweber_matches_manual_iteration(problem):
    X, y, X_val, y_val, X_test = problem
    K = _gauss(X, X)
    eta = 1.0 / np.linalg.eigvalsh(K)[-1]
    alpha = np.zeros_like(y)
    errors = []
    for _ in range(30):
        alpha = alpha - eta * (K @ alpha - y)
        errors.append(rmse(y_val, _gauss(X_val, X) @ alpha))
    est = KernelLandweber(fit_intercept=False,
                          sigma=SIGMA, max_iter=30, stopping_rule="none").fit(X, y, X_val, y_val)
    assert est.step_size_ == pytest.approx(eta, rel=1e-8)
    np.testing.assert_allclose(est.path_["val_rmse"], errors, rtol=1e-8)
    assert est.best_iter_ == int(np.argmin(errors)) + 1
    fixed = KernelLandweber(fit_intercept=False, sigma=SIGMA, max_iter=30).fit(X, y)
    assert _rel(fixed.predict(X_test), _gauss(X_test, X) @ alpha) < 1e-8


@pytest.mark.parametrize("strategy", ["memory", "blocked", "gram"])
def test_nytro_matches_manual_alpha_iteration(problem, strategy):
    """NYTRO with m < n against α_t = α − γ (K_mm+εI)⁻¹ K_nmᵀ(K_nm α − y), γ = 1/‖K_nm R⁻¹‖²."""
    X, y, _, _, X_test = problem
    m, eps = 30, 1e-10
    ny = Nytro(fit_intercept=False,
        sigma=SIGMA,
        m=m,
        max_iter=40,
        epsilon=eps,
        random_state=2,
        strategy=strategy,
        memory_budget=8 * m * 16,
    ).fit(X, y)
    C = X[ny.center_indices_]
    K_nm, K_mm = _gauss(X, C), _gauss(C, C) + eps * np.eye(m)
    R = np.linalg.cholesky(K_mm).T
    A = np.linalg.solve(R.T, K_nm.T).T
    gamma = 1.0 / np.linalg.norm(A, 2) ** 2
    assert ny.step_size_ == pytest.approx(gamma, rel=1e-8)
    alpha = np.zeros(m)
    for _ in range(40):
        alpha = alpha - gamma * np.linalg.solve(K_mm, K_nm.T @ (K_nm @ alpha - y))
    assert _rel(ny.alpha_, alpha) < 1e-6
    assert _rel(ny.predict(X_test), _gauss(X_test, C) @ alpha) < 1e-6


def test_nytro_strategies_give_the_same_path(problem):
    """Validation path, t*, step and final model agree across the K_nm strategies."""
    X, y, X_val, y_val, X_test = problem
    fits = {
        pair: Nytro(sigma=SIGMA, m=40, max_iter=60, random_state=3, strategy=pair[0],
                    validation_strategy=pair[1], stopping_rule="window_averaged", window=6,
                    threshold=0.01, memory_budget=4096).fit(X, y, X_val, y_val)
        for pair in itertools.product(STRATEGIES, STRATEGIES)
    }
    ref = fits["memory", "memory"]
    for pair, est in fits.items():
        assert (est.strategy_, est.validation_strategy_) == pair
        assert est.best_iter_ == ref.best_iter_ and est.n_iter_ == ref.n_iter_
        assert est.step_size_ == pytest.approx(ref.step_size_, rel=1e-8)
        np.testing.assert_allclose(est.path_["val_rmse"], ref.path_["val_rmse"], rtol=1e-9)
        assert _rel(est.predict(X_test), ref.predict(X_test)) < 1e-6


@pytest.mark.parametrize("pair", list(itertools.product(STRATEGIES, STRATEGIES)))
def test_nytro_step_over_all_rows_is_the_authors(problem, pair):
    """step_rows="all": γ = 1/‖[K_nm; K_vm] R⁻¹‖² (the authors' K_nm holds every training row),
    whatever the strategies; the path is then NYTRO's with that step given explicitly."""
    X, y, X_val, y_val, _ = problem
    m, eps = 40, 1e-10
    kw = {"sigma": SIGMA, "m": m, "max_iter": 30, "random_state": 3, "epsilon": eps,
          "stopping_rule": "none", "strategy": pair[0], "validation_strategy": pair[1],
          "memory_budget": 4096}
    est = Nytro(step_rows="all", **kw).fit(X, y, X_val, y_val)
    C = X[est.center_indices_]
    R = np.linalg.cholesky(_gauss(C, C) + eps * np.eye(m)).T
    A_all = np.linalg.solve(R.T, _gauss(np.vstack([X, X_val]), C).T).T
    assert est.step_size_ == pytest.approx(1.0 / np.linalg.norm(A_all, 2) ** 2, rel=1e-8)
    fit_rows = Nytro(**kw).fit(X, y, X_val, y_val)
    A_fit = np.linalg.solve(R.T, _gauss(X, C).T).T
    assert fit_rows.step_size_ == pytest.approx(1.0 / np.linalg.norm(A_fit, 2) ** 2, rel=1e-8)
    assert est.step_size_ < fit_rows.step_size_
    given = Nytro(step_size=est.step_size_, **kw).fit(X, y, X_val, y_val)
    np.testing.assert_allclose(est.path_["val_rmse"], given.path_["val_rmse"], rtol=1e-10)


def test_landweber_authors_step_is_one_over_n(problem):
    X, y, X_val, y_val, _ = problem
    n = X.shape[0]
    est = KernelLandweber(fit_intercept=False,
                          sigma=SIGMA, max_iter=20, step_rule="n").fit(X, y, X_val, y_val)
    assert est.step_size_ == 1.0 / n
    # w ← w − 2γ(Kw − y), γ = 1/(2n): the authors' update, written out
    K, alpha, errors = _gauss(X, X), np.zeros(n), []
    for _ in range(20):
        alpha = alpha - 2 * (1 / (2 * n)) * (K @ alpha - y)
        errors.append(rmse(y_val, _gauss(X_val, X) @ alpha))
    np.testing.assert_allclose(est.path_["val_rmse"], errors, rtol=1e-8)
    norm = KernelLandweber(fit_intercept=False, sigma=SIGMA, max_iter=20).fit(X, y, X_val, y_val)
    assert norm.step_size_ > est.step_size_  # 1/‖K‖ ≥ 1/n for a kernel bounded by 1


@pytest.mark.parametrize("lam", [1e-6, 1e-3])
def test_identity_penalty_is_ridge_on_kernel_features(problem, lam):
    """penalty="identity" (the code behind LiM Table 1): (K_nmᵀK_nm + λnI)α = K_nmᵀy, i.e.
    scikit-learn's Ridge(alpha=λn, no intercept) on the features K(x, C)."""
    X, y, _, _, X_test = problem
    n = X.shape[0]
    est = NystromKRLS(fit_intercept=False,
                      sigma=SIGMA, m=50, lam=lam, penalty="identity", random_state=1).fit(X, y)
    C = X[est.center_indices_]
    ridge = Ridge(alpha=lam * n, fit_intercept=False, solver="cholesky").fit(_gauss(X, C), y)
    assert _rel(est.alpha_, ridge.coef_) < 1e-8
    assert _rel(est.predict(X_test), ridge.predict(_gauss(X_test, C))) < 1e-8
    kmm = NystromKRLS(fit_intercept=False, sigma=SIGMA, m=50, lam=lam, random_state=1).fit(X, y)
    assert _rel(kmm.predict(X_test), est.predict(X_test)) > 1e-3  # a different estimator


def test_nytro_strategies_agree_when_k_mm_is_near_singular():
    # A wide kernel makes α ill-determined along K_mm's near-null space; predictions are not.
    rng = np.random.default_rng(0)
    X, X_val, X_test = (rng.uniform(-1, 1, size=(n, 3)) for n in (2000, 400, 400))
    y, y_val = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(2000), np.sin(3 * X_val[:, 0])
    fits = {
        strategy: Nytro(sigma=2.0, m=300, max_iter=200, random_state=0, strategy=strategy,
                        validation_strategy=strategy, stopping_rule="none").fit(X, y, X_val, y_val)
        for strategy in ("memory", "blocked", "gram")
    }
    ref = fits["memory"]
    for est in fits.values():
        np.testing.assert_allclose(est.path_["val_rmse"], ref.path_["val_rmse"], rtol=1e-9)
        assert _rel(est.predict(X_test), ref.predict(X_test)) < 1e-6


def test_nytro_auto_strategy_follows_cost_model(problem):
    X, y, X_val, y_val, _ = problem
    auto = Nytro(sigma=SIGMA, m=40, max_iter=50, random_state=3).fit(X, y, X_val, y_val)
    assert auto.strategy_ == "gram"  # m² work per iteration beats n·m when m << n
    assert auto.validation_strategy_ in STRATEGIES
    assert len(auto.strategy_costs_) == len(STRATEGIES) ** 2  # every (training, validation) pair
    fixed = Nytro(sigma=SIGMA, m=40, max_iter=50, random_state=3, strategy="memory")
    np.testing.assert_allclose(fixed.fit(X, y, X_val, y_val).path_["val_rmse"],
                               auto.path_["val_rmse"], rtol=1e-9)


def test_kols_is_pseudo_inverse():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(60, 4))
    y = rng.normal(size=60)
    sigma = 0.3  # well-conditioned K: every eigenvalue is kept
    K = _gauss(X, X, sigma)
    est = KOLS(fit_intercept=False, sigma=sigma).fit(X, y)
    assert est.rank_ == 60
    assert _rel(est.alpha_, np.linalg.pinv(K) @ y) < 1e-6
    np.testing.assert_allclose(est.predict(X), y, atol=1e-8)  # it interpolates


def test_sparse_input_gives_same_model(problem):
    X, y, X_val, y_val, X_test = problem
    Xs, Xvs = sp.csr_matrix(X), sp.csr_matrix(X_val)
    for est in (
        KRLS(sigma=SIGMA, lambdas=np.logspace(-4, 0, 5)),
        NystromKRLS(sigma=SIGMA, m=30, lambdas=np.logspace(-4, 0, 5), random_state=0),
        Nytro(sigma=SIGMA, m=30, max_iter=20, random_state=0),
        KernelLandweber(sigma=SIGMA, max_iter=20),
    ):
        dense = est.fit(X, y, X_val, y_val).predict(X_test)
        sparse = est.fit(Xs, y, Xvs, y_val).predict(sp.csr_matrix(X_test))
        assert _rel(sparse, dense) < 1e-10


def test_float32_kernel_close_to_float64(problem):
    X, y, _, _, X_test = problem
    p64 = NystromKRLS(sigma=SIGMA, m=40, lam=1e-2, random_state=0).fit(X, y).predict(X_test)
    est = NystromKRLS(sigma=SIGMA, m=40, lam=1e-2, random_state=0, dtype="float32")
    p32 = est.fit(X, y).predict(X_test)
    assert _rel(p32, p64) < 1e-3


def _nytro_per_dtype(X, y, X_val, y_val, strategy, **params):
    """NYTRO fitted with float64 and float32 kernels, same strategy for both parts, no stop."""
    return {
        dtype: Nytro(random_state=0, dtype=dtype, strategy=strategy, validation_strategy=strategy,
                     stopping_rule="none", **params).fit(X, y, X_val, y_val)
        for dtype in ("float64", "float32")
    }


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_float32_nytro_close_to_float64(problem, strategy):
    X, y, X_val, y_val, X_test = problem
    fits = _nytro_per_dtype(X, y, X_val, y_val, strategy, sigma=SIGMA, m=40, max_iter=80)
    np.testing.assert_allclose(fits["float32"].path_["val_rmse"],
                               fits["float64"].path_["val_rmse"], rtol=1e-4)
    assert _rel(fits["float32"].predict(X_test), fits["float64"].predict(X_test)) < 1e-3


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_float32_nytro_with_ill_conditioned_kmm(strategy):
    """Centers so close (σ large against the data's spread) that K_mm's spectrum falls far below
    float32 rounding. The gram strategy used to form G in float32 and R⁻¹ magnified its rounding
    into a step size ~0 (adult: test RMSE 0.999 instead of 0.670); with a float64 K_mm beside
    a float32 K_nm the memory strategy's step was 7% off."""
    rng = np.random.default_rng(3)
    X, X_val = rng.uniform(size=(1500, 3)), rng.uniform(size=(300, 3))
    f = lambda Z: np.sin(4 * Z[:, 0]) + Z[:, 1]  # noqa: E731
    y, y_val = f(X), f(X_val)
    fits = _nytro_per_dtype(X, y, X_val, y_val, strategy, sigma=2.0, m=300, max_iter=100)
    info = fits["float32"].factor_info_
    assert info["epsilon_requested"] == 1e-10 and info["retries"] <= 3  # starts near 1e-7
    np.testing.assert_allclose(fits["float32"].step_size_, fits["float64"].step_size_,
                               rtol=1e-3)
    np.testing.assert_allclose(fits["float32"].path_["val_rmse"],
                               fits["float64"].path_["val_rmse"], rtol=1e-3)


@pytest.mark.parametrize("n", [60, 400])
@pytest.mark.parametrize("block", [1, 3])
def test_lanczos_top_eigenvalue_is_exact_in_few_products(n, block):
    """Lanczos on a Gaussian kernel matrix: the top eigenvalue to 1e-12 in a few products (a
    pass over K_nm / an evaluation of K_vm each), deterministically; a float32 operator stops
    when its Ritz value settles, at its own precision."""
    rng = np.random.default_rng(n)
    X = rng.uniform(size=(n, 3))
    K = _gauss(X, X)
    exact = np.linalg.eigvalsh(K)[-1]
    calls = []

    def matmat(V):
        calls.append(V.shape[1])
        return K @ V

    theta, steps = lanczos_top_eigenvalue(matmat, n, block=block)
    assert theta == pytest.approx(exact, rel=1e-12)
    assert steps == len(calls) and steps <= (1 if n <= 128 else 8)
    assert lanczos_top_eigenvalue(lambda V: K @ V, n, block=block) == (theta, steps)
    K32 = K.astype(np.float32)
    theta32, _ = lanczos_top_eigenvalue(lambda V: K32 @ V.astype(np.float32), n, block=block)
    assert theta32 == pytest.approx(exact, rel=1e-6)


def test_lanczos_top_eigenvalue_with_a_clustered_top():
    # two nearly equal top eigenvalues and a slowly decaying tail: still exact, more steps
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((300, 300)))[0]
    s = np.concatenate([[10.0, 9.999], np.linspace(5, 0.01, 298)])
    A = (Q * s) @ Q.T
    theta, steps = lanczos_top_eigenvalue(lambda V: A @ V, 300)
    assert theta == pytest.approx(10.0, rel=1e-10) and steps < 60


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nytro_step_size_warm_start(dtype):
    """Started from the fit rows' Ritz vector, Lanczos on fit + validation rows gives the same
    γ (to its stopping rule) with fewer products of the validation rows: what a re-evaluated
    K_vm costs. The Ritz pair is a unit eigenvector of the exact top eigenvalue."""
    rng = np.random.default_rng(0)
    X, X_val = rng.uniform(size=(3000, 5)), rng.uniform(size=(800, 5))
    kern = GaussianKernel(SIGMA, dtype=dtype)
    K_fit, K_val, C = kern(X, X[:300]), kern(X_val, X[:300]), X[:300]
    factor = nystrom_factor(np.asarray(kern(C), dtype=np.float64),
                            1e-10 if dtype == "float64" else 1e-5)
    A = factor.right_solve(np.vstack([K_fit, K_val]).astype(np.float64))
    exact = 1.0 / np.linalg.eigvalsh(A.T @ A)[-1]
    eps = float(np.finfo(dtype).eps)
    counts = {}

    def normal(name, K):
        def product(U):
            counts[name] = counts.get(name, 0) + 1
            return np.asarray(K.T @ (K @ U.astype(K.dtype)), dtype=np.float64)
        return product

    steps = {}
    for warm in (False, True):
        counts.clear()
        steps[warm] = nytro_step_size([normal("fit", K_fit), normal("val", K_val)], factor, 300,
                                      eps, warm_start=warm), dict(counts)
    (cold, cold_counts), (warm, warm_counts) = steps[False], steps[True]
    assert warm == pytest.approx(exact, rel=1e-10 if dtype == "float64" else 1e-5)
    assert warm == pytest.approx(cold, rel=1e-10 if dtype == "float64" else 1e-6)
    assert warm_counts["val"] < cold_counts["val"]
    theta, vector, _ = lanczos_top_pair(lambda V: A.T @ (A @ V), 300)
    assert np.linalg.norm(vector) == pytest.approx(1.0)
    assert np.linalg.norm(A.T @ (A @ vector) - theta * vector) < 1e-6 * theta


def test_float32_k_mm_is_factored_at_its_measured_rounding_in_one_attempt():
    """ε of a float32 K_mm starts at twice ‖K_mm − K_mm^(float64)‖₂: Cholesky succeeds at the
    first attempt (no 4 s retries at m = 10000) with a floor no larger than needed."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 54))  # Covertype-like norms: ‖x‖² up to 54
    k32, k64 = GaussianKernel(1.0, dtype="float32"), GaussianKernel(1.0)
    setup = nystrom_setup(X, 600, k32, sampler="uniform", random_state=0, epsilon=1e-10)
    C = X[setup.indices]
    E = np.asarray(k32(C), dtype=np.float64) - k64(C)
    rounding = np.linalg.norm(E, 2)
    assert setup.factor.retries == 0
    assert setup.factor.epsilon == pytest.approx(2 * rounding, rel=1e-3)
    assert rounding > np.finfo(np.float32).eps  # the old floor (eps · max k) was too low
    assert rounding_floor(k64(C), k64, C) == np.finfo(np.float64).eps  # float64: eps · max k
