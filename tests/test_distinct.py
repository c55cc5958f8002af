"""Repeated training rows merged (kernreg/solvers/blocks/distinct.py): KOLS, ES, NKRLS and
NYTRO on the distinct rows answer as on the whole rows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from kernreg.kernels import GaussianKernel
from kernreg.solvers import KOLS, KernelLandweber, NystromKRLS, Nytro
from kernreg.solvers.blocks import mixed_precision
from kernreg.solvers.blocks.distinct import distinct_rows, merged_rows, merging
from kernreg.solvers.blocks.linalg import nystrom_factor
from kernreg.solvers.blocks.nystrom import nystrom_products
from kernreg.solvers.blocks.strategy import STRATEGIES

EPS = float(np.finfo(np.float64).eps)
SIGMA = 0.8


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _gauss(X: np.ndarray, Y: np.ndarray, sigma: float = SIGMA) -> np.ndarray:
    return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))


@pytest.fixture(scope="module")
def repeated():
    """200 training rows of which 60 repeat others (with their own noisy targets)."""
    rng = np.random.default_rng(42)
    X = rng.uniform(size=(200, 5))
    X[140:] = X[rng.integers(0, 70, size=60)]
    f = lambda Z: np.sin(3 * Z.sum(axis=1)) + Z[:, 0] ** 2  # noqa: E731
    y = f(X) + 0.1 * rng.standard_normal(200)
    X_val = rng.uniform(size=(80, 5))
    y_val = f(X_val) + 0.1 * rng.standard_normal(80)
    return X, y, X_val, y_val, rng.uniform(size=(60, 5))


def test_distinct_rows_dense_and_sparse_agree() -> None:
    rng = np.random.default_rng(0)
    base = (rng.uniform(size=(20, 6)) < 0.3) * rng.integers(1, 4, size=(20, 6)).astype(float)
    X = base[rng.integers(0, 20, size=70)]
    dense = distinct_rows(X)
    sparse = distinct_rows(sp.csr_matrix(X))
    for a, b in ((dense.first, sparse.first), (dense.inverse, sparse.inverse),
                 (dense.counts, sparse.counts)):
        np.testing.assert_array_equal(a, b)
    assert np.all(np.diff(dense.first) > 0)
    np.testing.assert_array_equal(X[dense.first][dense.inverse], X)
    assert dense.counts.sum() == 70 and dense.n_distinct == np.unique(X, axis=0).shape[0]
    # Q = P C^{-1/2} has orthonormal columns: reduce(expand(z)) = z
    z = rng.normal(size=dense.n_distinct)
    np.testing.assert_allclose(dense.reduce(dense.expand(z)), z, rtol=1e-12)
    # and K = Q M Qᵀ
    X_u = X[dense.first]
    M = dense.scale_kernel(_gauss(X_u, X_u))
    v = rng.normal(size=70)
    np.testing.assert_allclose(dense.expand(M @ dense.reduce(v)), _gauss(X, X) @ v, rtol=1e-12)


def test_distinct_rows_when_different_rows_project_alike(monkeypatch) -> None:
    """A projection that puts different rows in one group: the rows are then sorted whole."""
    import kernreg.solvers.blocks.distinct as distinct

    rng = np.random.default_rng(3)
    base = rng.integers(0, 3, size=(15, 4)).astype(float)
    X = base[rng.integers(0, 15, size=50)]
    X[X == 0] = -0.0 * (rng.uniform(size=(X == 0).sum()) < 0.5)  # 0.0 and -0.0 are equal rows
    expected = distinct_rows(X)
    monkeypatch.setattr(distinct, "_direction", lambda d: np.zeros(d))
    got = distinct_rows(X)
    for a, b in ((expected.first, got.first), (expected.inverse, got.inverse),
                 (expected.counts, got.counts)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(X[got.first][got.inverse], X)
    assert got.n_distinct == np.unique(X + 0.0, axis=0).shape[0]


def test_rows_without_repeats_are_left_alone() -> None:
    X, y = np.random.default_rng(1).uniform(size=(30, 3)), np.arange(30.0)
    X_m, y_m, scale = merged_rows(X, y)
    assert X_m is X and scale is None
    np.testing.assert_array_equal(y_m, y)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kernel_products_with_row_scale(dtype: str) -> None:
    """Every blocked product of ``diag(s) K(X, C)`` equals the dense one."""
    rng = np.random.default_rng(2)
    X, C = rng.uniform(size=(53, 4)), rng.uniform(size=(7, 4))
    s, y, v = rng.uniform(1, 3, size=53), rng.normal(size=53), rng.normal(size=(7, 2))
    kern = GaussianKernel(SIGMA, dtype=dtype, memory_budget=7 * 10 * 8)  # several blocks
    B = s[:, None] * _gauss(X, C)
    tol = 1e-12 if dtype == "float64" else 1e-5
    G, b = kern.gram_products(X, C, y, row_scale=s)
    np.testing.assert_allclose(G, B.T @ B, rtol=tol)
    np.testing.assert_allclose(b, B.T @ y, rtol=tol)
    np.testing.assert_allclose(kern.matvec(X, C, v, row_scale=s), B @ v, rtol=tol)
    np.testing.assert_allclose(kern.rmatvec(X, C, y, row_scale=s), B.T @ y, rtol=tol)
    grad, resid = kern.normal_matvec(X, C, v[:, 0], y, row_scale=s)
    np.testing.assert_allclose(resid, B @ v[:, 0] - y, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, B.T @ (B @ v[:, 0] - y), rtol=tol)
    with pytest.raises(ValueError, match="row_scale"):
        kern.matvec(X, C, v, row_scale=s[:10])


@pytest.mark.parametrize("sparse", [False, True])
def test_nystrom_products_on_repeated_rows(repeated, sparse: bool) -> None:
    """AᵀA and Aᵀy from the distinct rows equal the whole rows' (A = K_nm R⁻¹)."""
    X, y, *_ = repeated
    C = X[:30]
    kern = GaussianKernel(SIGMA)
    factor = nystrom_factor(kern(C), 1e-10)
    H, Aty = nystrom_products(kern, sp.csr_matrix(X) if sparse else X, C, y, factor)
    A = factor.right_solve(_gauss(X, C))
    np.testing.assert_allclose(H, A.T @ A, rtol=1e-10, atol=1e-10 * np.abs(A.T @ A).max())
    np.testing.assert_allclose(Aty, A.T @ y, rtol=1e-10)


@pytest.mark.parametrize("solver", ["pivoted_cholesky", "eigh"])
@pytest.mark.parametrize("copies", [1, 3])
def test_merging_repeated_rows_gives_the_same_alpha(solver: str, copies: int) -> None:
    """K = Q M Qᵀ with M on the distinct rows: the same K⁺y, rank and cut-off."""
    rng = np.random.default_rng(copies)
    base = rng.uniform(size=(60, 4))
    X = np.vstack([base] + [base[:25]] * copies)
    X = X[rng.permutation(X.shape[0])]
    y = rng.normal(size=X.shape[0])
    X_test = rng.uniform(size=(30, 4))
    merged = KOLS(fit_intercept=False, sigma=0.3, solver=solver).fit(X, y)
    whole = KOLS(fit_intercept=False, sigma=0.3, solver=solver, merge_duplicates=False).fit(X, y)
    assert merged.n_distinct_ == 60 and whole.n_distinct_ == X.shape[0]
    assert merged.rank_ == whole.rank_ == 60
    assert merged.factorization_ == whole.factorization_ == solver
    assert _rel(merged.alpha_, whole.alpha_) < 1e-10
    assert _rel(merged.alpha_, np.linalg.pinv(whole.kernel_(X)) @ y) < 1e-10
    assert _rel(merged.predict(X_test), whole.predict(X_test)) < 1e-10
    # a repeated point is fitted by the mean of its targets (least squares)
    rows = distinct_rows(X)
    means = np.bincount(rows.inverse, weights=y) / rows.counts
    np.testing.assert_allclose(merged.predict(X[rows.first]), means, atol=1e-8)


def test_merging_keeps_the_cut_off_of_all_n_rows() -> None:
    """pinv's rcond is n·eps for the n rows given, not for the u distinct ones: a spectrum with
    an eigenvalue between u·eps·λ_max and n·eps·λ_max drops it either way."""
    rng = np.random.default_rng(5)
    base = np.linspace(0.0, 1.0, 40)[:, None]  # σ = 0.15: one eigenvalue at ≈ 290 eps·λ_max
    X = np.vstack([base] * 25)  # n = 1000, u = 40
    y = rng.normal(size=X.shape[0])
    whole = KOLS(sigma=0.15, solver="eigh", merge_duplicates=False).fit(X, y)
    merged = KOLS(sigma=0.15, solver="eigh").fit(X, y)
    s = np.linalg.eigvalsh(merged.kernel_(X))
    # the test needs eigenvalues that only the n-row cut-off drops
    assert np.any((s > 40 * EPS * s.max()) & (s <= 1000 * EPS * s.max()))
    assert merged.rank_ == whole.rank_ == int(np.sum(s > 1000 * EPS * s.max()))
    assert merged.rank_ < int(np.sum(s > 40 * EPS * s.max()))
    # (predictions agree only to this K's conditioning: kept eigenvalues of 1e-11 amplify rounding)



def test_merge_duplicates_is_validated() -> None:
    with pytest.raises(ValueError, match="merge_duplicates"):
        KOLS(merge_duplicates="yes").fit(np.eye(3), np.ones(3))


@pytest.mark.parametrize("step_rule", ["norm", "n"])
def test_es_on_merged_rows_follows_the_whole_path(step_rule: str) -> None:
    """Landweber on M = C^{1/2} K_u C^{1/2} predicts as Landweber on K at every iteration."""
    rng = np.random.default_rng(7)
    base = rng.uniform(size=(70, 3))
    X = np.vstack([base, base[:30], base[:10]])
    X = X[rng.permutation(X.shape[0])]
    y = rng.normal(size=X.shape[0])
    X_val, y_val = rng.uniform(size=(40, 3)), rng.normal(size=40)
    params = dict(sigma=0.4, max_iter=60, step_rule=step_rule, stopping_rule="none")
    merged = KernelLandweber(**params).fit(X, y, X_val, y_val)
    whole = KernelLandweber(merge_duplicates=False, **params).fit(X, y, X_val, y_val)
    assert merged.centers_.shape[0] == 70 and whole.centers_.shape[0] == X.shape[0]
    assert merged.step_size_ == pytest.approx(whole.step_size_, rel=1e-10)
    np.testing.assert_allclose(merged.path_["val_rmse"], whole.path_["val_rmse"], rtol=1e-10)
    assert merged.best_iter_ == whole.best_iter_
    assert _rel(merged.predict(X_val), whole.predict(X_val)) < 1e-10
    refit = dict(params, refit=True)
    a = KernelLandweber(**refit).fit(X, y, X_val, y_val)
    b = KernelLandweber(merge_duplicates=False, **refit).fit(X, y, X_val, y_val)
    assert _rel(a.predict(X_val), b.predict(X_val)) < 1e-10


@pytest.mark.parametrize("pair", list(itertools.product(STRATEGIES, STRATEGIES)))
def test_nytro_on_repeated_rows_is_the_whole_rows_iteration(repeated, pair) -> None:
    """α_t = α − γ (K_mm+εI)⁻¹ K_nmᵀ(K_nm α − y) over all n rows, γ over fit + validation rows,
    and the validation path, for every pair of strategies."""
    X, y, X_val, y_val, X_test = repeated
    m, eps = 20, 1e-10
    ny = Nytro(fit_intercept=False,
               sigma=SIGMA, m=m, max_iter=30, epsilon=eps, random_state=11, strategy=pair[0],
               validation_strategy=pair[1], stopping_rule="none", step_rows="all",
               memory_budget=8 * m * 16).fit(X, y, X_val, y_val)
    C = X[ny.center_indices_]
    assert np.unique(C, axis=0).shape[0] == m  # distinct centers: α is well defined
    K_nm, K_vm = _gauss(X, C), _gauss(X_val, C)
    K_mm = _gauss(C, C) + eps * np.eye(m)
    R = np.linalg.cholesky(K_mm).T
    gamma = 1.0 / np.linalg.norm(np.linalg.solve(R.T, np.vstack([K_nm, K_vm]).T).T, 2) ** 2
    assert ny.step_size_ == pytest.approx(gamma, rel=1e-8)
    alpha, errors = np.zeros(m), []
    for _ in range(30):
        alpha = alpha - gamma * np.linalg.solve(K_mm, K_nm.T @ (K_nm @ alpha - y))
        errors.append(np.sqrt(np.mean((K_vm @ alpha - y_val) ** 2)))
    np.testing.assert_allclose(ny.path_["val_rmse"], errors, rtol=1e-7)
    assert _rel(ny.predict(X_test), _gauss(X_test, C) @ alpha) < 1e-6


def test_nkrls_on_repeated_rows_is_the_whole_rows_solution(repeated) -> None:
    """α(λ) = (K_nmᵀK_nm + λn K_mm)⁻¹ K_nmᵀy over all n rows (λn with n all rows), every λ of
    the path, and the refit over fit + validation rows."""
    X, y, X_val, y_val, X_test = repeated
    n, m = X.shape[0], 30
    lambdas = np.logspace(-6, -1, 6)
    est = NystromKRLS(fit_intercept=False,
                      sigma=SIGMA, m=m, lambdas=lambdas, random_state=9, epsilon=1e-10,
                      refit=True).fit(X, y, X_val, y_val)
    C = est.centers_
    assert np.unique(C, axis=0).shape[0] == m
    K_nm, K_vm = _gauss(X, C), _gauss(X_val, C)
    K_mm = _gauss(C, C) + est.factor_info_["epsilon_used"] * np.eye(m)
    errors = [np.sqrt(np.mean((K_vm @ np.linalg.solve(K_nm.T @ K_nm + lam * n * K_mm,
                                                      K_nm.T @ y) - y_val) ** 2))
              for lam in lambdas]
    np.testing.assert_allclose(est.path_["val_rmse"], errors, rtol=1e-7)
    K_all, y_all = np.vstack([K_nm, K_vm]), np.concatenate([y, y_val])
    direct = np.linalg.solve(K_all.T @ K_all + est.best_lambda_ * len(y_all) * K_mm,
                             K_all.T @ y_all)
    assert _rel(est.predict(X_test), _gauss(X_test, C) @ direct) < 1e-7


def test_mixed_precision_nkrls_on_repeated_rows(repeated) -> None:
    """``precision="mixed"`` keeps ``A`` of the u distinct rows only, and its refined path is
    the float64 whole-rows one (λ*, validation errors, predictions of the refit)."""
    X, y, X_val, y_val, X_test = repeated
    kw = {"sigma": SIGMA, "m": 30, "lambdas": np.logspace(-6, -1, 6), "random_state": 9,
          "refit": True}
    mixed = NystromKRLS(precision="mixed", **kw).fit(X, y, X_val, y_val)
    with merging(False):
        whole = NystromKRLS(precision="float64", **kw).fit(X, y, X_val, y_val)
    assert mixed.precision_info_["precision"] == "mixed"
    assert mixed.best_lambda_ == whole.best_lambda_
    np.testing.assert_allclose(mixed.path_["val_rmse"], whole.path_["val_rmse"], rtol=1e-6)
    assert _rel(mixed.predict(X_test), whole.predict(X_test)) < 1e-6


def test_mixed_system_stores_the_distinct_rows_only(repeated, monkeypatch) -> None:
    X, y = repeated[:2]
    shapes = []
    real_take = mixed_precision.take
    monkeypatch.setattr(mixed_precision, "take",
                        lambda shape, dtype: shapes.append(shape) or real_take(shape, dtype))
    kernel = GaussianKernel(sigma=SIGMA)
    C = X[:30]
    factor = nystrom_factor(_gauss(C, C), 1e-10)
    system = mixed_precision.mixed_system(kernel, X, C, y, factor)
    H, Aty = nystrom_products(kernel, X, C, y, factor)
    assert shapes == [(distinct_rows(X).n_distinct, 30)]
    np.testing.assert_allclose(system.Aty, Aty, rtol=1e-12)
    np.testing.assert_allclose(system.normal(np.eye(30)), H, rtol=1e-10, atol=1e-12 * H.max())
