"""KOLS by pivoted Cholesky against the eigendecomposition and numpy's pseudo-inverse
(kernreg/solvers/blocks/min_norm.py); KOLS and ES on merged repeated rows
(kernreg/solvers/blocks/distinct.py) against the whole kernel."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernreg.kernels import make_kernel
from kernreg.solvers import KOLS, KernelLandweber
from kernreg.solvers.blocks.distinct import distinct_rows
from kernreg.solvers.blocks.min_norm import (
    default_rcond,
    eigh_min_norm,
    min_norm_solve,
    pivoted_cholesky_min_norm,
)

EPS = float(np.finfo(np.float64).eps)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _pair(X: np.ndarray, y: np.ndarray, **params: object) -> tuple[KOLS, KOLS]:
    chol = KOLS(solver="pivoted_cholesky", **params).fit(X, y)
    eig = KOLS(solver="eigh", **params).fit(X, y)
    return chol, eig


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("sigma", [0.15, 0.3])
def test_full_rank_predictions_equal_the_eigendecomposition(seed: int, sigma: float) -> None:
    rng = np.random.default_rng(seed)
    X, y = rng.uniform(size=(150, 5)), rng.normal(size=150)
    X_test = rng.uniform(size=(80, 5))
    chol, eig = _pair(X, y, sigma=sigma)
    assert chol.factorization_ == "pivoted_cholesky" and eig.factorization_ == "eigh"
    assert chol.rank_ == eig.rank_ == 150
    assert _rel(chol.predict(X_test), eig.predict(X_test)) < 1e-10
    assert _rel(chol.alpha_, eig.alpha_) < 1e-10


@pytest.mark.parametrize("n,d", [(60, 5), (120, 30), (40, 39)])
def test_linear_kernel_with_d_below_n_gives_numpys_pinv(n: int, d: int) -> None:
    rng = np.random.default_rng(n + d)
    X, y = rng.normal(size=(n, d)), rng.normal(size=n)
    est = KOLS(kernel="linear", solver="pivoted_cholesky").fit(X, y)
    K = est.kernel_(X)
    assert est.factorization_ == "pivoted_cholesky"  # stopped early, certified
    assert est.rank_ == np.linalg.matrix_rank(K) == d  # numpy: σ > max(n, n)·eps·σ_max
    assert _rel(est.alpha_, np.linalg.pinv(K) @ y) < 1e-10
    assert _rel(est.alpha_, KOLS(kernel="linear", solver="eigh").fit(X, y).alpha_) < 1e-10


@pytest.mark.parametrize("duplicated", [10, 30])
def test_duplicated_rows_give_numpys_pinv(duplicated: int) -> None:
    """Exact duplicates make K rank-deficient (Adult: 20558 distinct rows of 26048)."""
    rng = np.random.default_rng(duplicated)
    base = rng.uniform(size=(50, 4))
    X = np.vstack([base, base[:duplicated]])
    X = X[rng.permutation(X.shape[0])]
    y = rng.normal(size=X.shape[0])
    est = KOLS(sigma=0.3, solver="pivoted_cholesky").fit(X, y)
    K = est.kernel_(X)
    assert est.factorization_ == "pivoted_cholesky"
    assert est.rank_ == np.linalg.matrix_rank(K) == 50
    assert _rel(est.alpha_, np.linalg.pinv(K) @ y) < 1e-10
    # the minimum-norm solution splits a duplicated point's weight equally between its copies
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    np.testing.assert_allclose(est.alpha_, est.alpha_[first][inverse.ravel()], rtol=1e-9)


def test_both_gram_branches_of_the_range_solve() -> None:
    """(n − r) ≥ r uses I + MᵀM, (n − r) < r the Woodbury form: both equal numpy's pinv."""
    rng = np.random.default_rng(5)
    for n, r in ((50, 10), (50, 40)):
        G = rng.normal(size=(n, r))
        K = G @ G.T
        y = rng.normal(size=n)
        expected = np.linalg.pinv(K) @ y
        for layout in (K.copy(), np.asfortranarray(K)):  # factored in place, or a copy
            solution = pivoted_cholesky_min_norm(layout, y, default_rcond(n))
            assert solution.certified and solution.rank == r
            assert _rel(solution.alpha, expected) < 1e-10


def test_float32_kernel_input() -> None:
    rng = np.random.default_rng(7)
    X, y = rng.uniform(size=(120, 5)), rng.normal(size=120)
    X_test = rng.uniform(size=(40, 5))
    chol, eig = _pair(X, y, sigma=0.2, dtype="float32")
    assert chol.factorization_ == "pivoted_cholesky" and chol.rank_ == eig.rank_ == 120
    assert _rel(chol.predict(X_test), eig.predict(X_test)) < 1e-10
    # the block takes a float32 matrix and solves in float64
    K32 = make_kernel("gaussian", 0.2, dtype="float32")(X)
    assert K32.dtype == np.float32
    solution = min_norm_solve(lambda: K32.copy(), y)
    expected = np.linalg.solve(K32.astype(np.float64), y)
    assert solution.factorization == "pivoted_cholesky" and _rel(solution.alpha, expected) < 1e-10


def test_no_gap_at_the_cut_off_falls_back_to_the_eigendecomposition() -> None:
    """A Gaussian kernel on 1-d points has eigenvalues decaying smoothly through τ: the two
    rank rules keep different directions, so the Cholesky answer is not used."""
    rng = np.random.default_rng(3)
    X, y = np.sort(rng.uniform(size=(200, 1)), axis=0), rng.normal(size=200)
    K = make_kernel("gaussian", 0.5)(X)
    own = pivoted_cholesky_min_norm(K.copy(), y, default_rcond(200))
    assert not own.certified and own.alpha is not None  # solved, but not certified
    assert _rel(own.alpha, eigh_min_norm(K.copy(), y, default_rcond(200)).alpha) > 1e-3
    eig_rank = int((np.linalg.eigvalsh(K) > default_rcond(200) * np.linalg.eigvalsh(K)[-1]).sum())
    chol, eig = _pair(X, y, sigma=0.5)
    assert chol.factorization_ == "eigh" and chol.rank_ == eig.rank_ == eig_rank < 200
    np.testing.assert_array_equal(chol.alpha_, eig.alpha_)  # the same computation
    skipped = pivoted_cholesky_min_norm(K.copy(), y, default_rcond(200), solve_uncertified=False)
    assert skipped.alpha is None and not skipped.certified


@pytest.mark.parametrize("seed", range(6))
def test_a_certified_rank_is_the_eigenvalue_rules_rank(seed: int) -> None:
    """The gap test's claim, against exact eigenvalues, over spectra with and without a gap."""
    rng = np.random.default_rng(seed)
    n = 120
    X = rng.uniform(size=(n, 1 + seed % 3))
    X[: seed * 5] = X[n - seed * 5:]  # some duplicated rows
    K = make_kernel("gaussian", [0.05, 0.2, 0.6][seed % 3])(X)
    s = np.linalg.eigvalsh(K)
    rcond = default_rcond(n)
    solution = pivoted_cholesky_min_norm(K.copy(), rng.normal(size=n), rcond)
    assert solution.certified == (solution.residual_trace <= solution.cutoff
                                  < solution.lambda_min_bound)
    if solution.certified:
        assert solution.rank == int((s > rcond * s[-1]).sum())
    np.testing.assert_allclose(solution.cutoff, rcond * s[-1], rtol=1e-6)


def test_zero_and_non_finite_kernels() -> None:
    y = np.arange(4.0)
    for solve in (lambda K: pivoted_cholesky_min_norm(K, y, 1e-12),
                  lambda K: eigh_min_norm(K, y, 1e-12)):
        solution = solve(np.zeros((4, 4)))
        assert solution.rank == 0 and not solution.alpha.any()
    K = np.eye(4)
    K[0, 1] = K[1, 0] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="non-finite"):
        pivoted_cholesky_min_norm(K, y, 1e-12)


def test_the_factorization_is_recorded() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(30, 3)), rng.normal(size=30)
    est = KOLS(sigma=0.2).fit(X, y, X[:5], y[:5])
    assert est.solver == "pivoted_cholesky"  # the default
    assert est.selection().info == {"rank": 30.0, "factorization": "pivoted_cholesky",
                                    "n_distinct": 30.0}


def test_bad_solver_is_refused() -> None:
    with pytest.raises(ValueError, match=r"solver must be one of \['pivoted_cholesky', 'eigh'\]"):
        KOLS(solver="qr").fit(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="solver"):
        min_norm_solve(lambda: np.eye(2), np.ones(2), solver="EIGH")


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
    merged = KOLS(sigma=0.3, solver=solver).fit(X, y)
    whole = KOLS(sigma=0.3, solver=solver, merge_duplicates=False).fit(X, y)
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


def test_distinct_rows_dense_and_sparse_agree() -> None:
    rng = np.random.default_rng(0)
    base = (rng.uniform(size=(20, 6)) < 0.3) * rng.integers(1, 4, size=(20, 6)).astype(float)
    X = base[rng.integers(0, 20, size=70)]
    dense = distinct_rows(X)
    S = sp.csr_matrix(X)
    S.data = np.append(S.data, 0.0)[:-1]  # same content
    sparse = distinct_rows(S)
    for a, b in ((dense.first, sparse.first), (dense.inverse, sparse.inverse),
                 (dense.counts, sparse.counts)):
        np.testing.assert_array_equal(a, b)
    assert np.all(np.diff(dense.first) > 0)
    np.testing.assert_array_equal(X[dense.first][dense.inverse], X)
    assert dense.counts.sum() == 70
    # Q = P C^{-1/2} has orthonormal columns: reduce(expand(z)) = z
    z = rng.normal(size=dense.n_distinct)
    np.testing.assert_allclose(dense.reduce(dense.expand(z)), z, rtol=1e-12)
    # and K = Q M Qᵀ
    K_u = np.exp(-((X[dense.first][:, None] - X[dense.first][None]) ** 2).sum(-1))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    M = dense.scale_kernel(K_u.copy())
    v = rng.normal(size=70)
    np.testing.assert_allclose(dense.expand(M @ dense.reduce(v)), K @ v, rtol=1e-12)


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
