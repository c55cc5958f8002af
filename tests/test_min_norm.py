"""KOLS by pivoted Cholesky against the eigendecomposition and numpy's pseudo-inverse
(kernreg/solvers/blocks/min_norm.py)."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.kernels import make_kernel
from kernreg.solvers import KOLS
from kernreg.solvers.blocks.min_norm import (
    default_rcond,
    eigh_min_norm,
    min_norm_solve,
    pivoted_cholesky_min_norm,
)


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
    est = KOLS(fit_intercept=False, kernel="linear", solver="pivoted_cholesky").fit(X, y)
    K = est.kernel_(X)
    assert est.factorization_ == "pivoted_cholesky"  # stopped early, certified
    assert est.rank_ == np.linalg.matrix_rank(K) == d  # numpy: σ > max(n, n)·eps·σ_max
    assert _rel(est.alpha_, np.linalg.pinv(K) @ y) < 1e-10
    assert _rel(est.alpha_, KOLS(fit_intercept=False,
                                 kernel="linear", solver="eigh").fit(X, y).alpha_) < 1e-10


@pytest.mark.parametrize("duplicated", [10, 30])
def test_duplicated_rows_give_numpys_pinv(duplicated: int) -> None:
    """Exact duplicates make K rank-deficient (Adult: 20558 distinct rows of 26048)."""
    rng = np.random.default_rng(duplicated)
    base = rng.uniform(size=(50, 4))
    X = np.vstack([base, base[:duplicated]])
    X = X[rng.permutation(X.shape[0])]
    y = rng.normal(size=X.shape[0])
    est = KOLS(fit_intercept=False, sigma=0.3, solver="pivoted_cholesky").fit(X, y)
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
    allowed = r"\['pivoted_cholesky', 'eigh', 'tridiagonal'\]"
    with pytest.raises(ValueError, match=r"solver must be one of " + allowed):
        KOLS(solver="qr").fit(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="solver"):
        min_norm_solve(lambda: np.eye(2), np.ones(2), solver="EIGH")


def test_systems_beyond_dpstrfs_known_size_take_the_fallback(monkeypatch, caplog) -> None:
    """Above DPSTRF_MAX_ROWS (where LAPACK's dpstrf was measured to end the process) the
    pivoted Cholesky is not called: the fallback's eigenvalue rule answers, logged."""
    from kernreg.solvers.blocks import min_norm

    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(60, 2)), rng.normal(size=60)
    K = make_kernel("gaussian", 0.1)(X)  # well conditioned: every solver's K⁻¹y agrees
    monkeypatch.setattr(min_norm, "DPSTRF_MAX_ROWS", 59)
    monkeypatch.setattr(min_norm, "pivoted_cholesky_min_norm", None)  # never reached
    with caplog.at_level("INFO", logger=min_norm.__name__):
        solution = min_norm_solve(lambda: K.copy(), y, fallback="tridiagonal")
    assert solution.factorization == "tridiagonal"
    assert "60 rows exceed the 59 that LAPACK's dpstrf" in caplog.text
    reference = eigh_min_norm(K.copy(), y, default_rcond(60))
    assert solution.rank == reference.rank
    assert _rel(solution.alpha, reference.alpha) < 1e-8
