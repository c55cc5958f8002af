"""The spectral path in the kernel's own memory (one tridiagonalization, the tridiagonal's
eigenvectors a chunk at a time) gives eigh's answers: the KRLS λ path and KOLS's minimum-norm
solve, to the rounding that separates LAPACK's own two eigh drivers."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.linalg as la

from kernreg import KOLS, KRLS, NystromKRLS
from kernreg.solvers.blocks.lambda_path import eigen_path_coefs
from kernreg.solvers.blocks.memory import full_kernel_memory
from kernreg.solvers.blocks.min_norm import default_rcond, eigh_min_norm
from kernreg.solvers.blocks.tridiagonal import (
    _dstemr,
    tridiagonal_min_norm,
    tridiagonal_min_norm_cutoffs,
    tridiagonal_path_coefs,
    tridiagonalize,
)
from kernreg.solvers.registry import MemoryProblem


def _kernel(n: int = 500, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    return K, np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n), rng.standard_normal((n, 3))


def _relative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest difference of each column over its largest value."""
    return np.abs(a - b).max(axis=0) / np.abs(b).max(axis=0)


def test_mrrr_gives_any_index_range_of_eigenpairs() -> None:
    rng = np.random.default_rng(1)
    d, e = rng.standard_normal(60), rng.standard_normal(59)
    T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    w, S = _dstemr(d, e, 12, 40)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(T)[12:40], atol=1e-12)
    np.testing.assert_allclose(T @ S, S * w, atol=1e-12)
    np.testing.assert_allclose(S.T @ S, np.eye(28), atol=1e-12)


def test_the_reflectors_rebuild_the_kernel() -> None:
    K, _, Y = _kernel(300)
    tri = tridiagonalize(K.copy())
    T = np.diag(tri.d) + np.diag(tri.e, 1) + np.diag(tri.e, -1)
    Q = tri.apply_q(np.eye(300))
    np.testing.assert_allclose(Q @ T @ Q.T, K, atol=1e-12)
    np.testing.assert_allclose(tri.apply_q(tri.apply_q(Y, transpose=True)), Y, atol=1e-12)


def test_the_lambda_path_is_eigh_s_to_its_drivers_rounding() -> None:
    """Every λ's predictions as eigh's (evd): no further apart than eigh's other driver (evr)
    is, and to 1e-8 wherever λn is above 1e-7 of the largest eigenvalue."""
    K, y, Y = _kernel()
    n = K.shape[0]
    shifts = np.logspace(-12, 0, 13) * n
    tri = tridiagonalize(K.copy())
    for target in (y, Y):
        reference = [K @ eigen_path_coefs(*la.eigh(K, driver=driver), target, shifts)
                     .reshape(n, -1) for driver in ("evd", "evr")]
        ours = K @ tridiagonal_path_coefs(tri, target, shifts, chunk=128).reshape(n, -1)
        drivers = _relative(reference[1], reference[0])
        assert np.all(_relative(ours, reference[0]) <= 10 * drivers + 1e-13)
        moderate = np.repeat(shifts, 1 if target.ndim == 1 else 3) > 1e-7 * np.linalg.norm(K, 2)
        assert np.all(_relative(ours, reference[0])[moderate] < 1e-8)


def test_the_minimum_norm_solve_keeps_eigh_s_eigenvalues() -> None:
    K, y, _ = _kernel()
    rcond = default_rcond(K.shape[0])
    alpha, rank, cutoff = tridiagonal_min_norm(tridiagonalize(K.copy()), y, rcond, chunk=100)
    reference = eigh_min_norm(K.copy(), y, rcond)
    assert rank == reference.rank and rank < K.shape[0]  # a cut-off that drops some
    np.testing.assert_allclose(cutoff, reference.cutoff, rtol=1e-10)
    s, U = la.eigh(K, driver="evr")
    keep = np.abs(s) > rcond * np.abs(s).max()
    evr = U[:, keep] @ ((U[:, keep].T @ y) / s[keep])
    drivers = _relative(K @ evr, K @ reference.alpha)
    assert _relative(K @ alpha, K @ reference.alpha) <= 10 * drivers


def test_several_cut_offs_from_one_tridiagonalization_are_each_one_s_solve() -> None:
    K, y, Y = _kernel()
    rconds = [1e-6, default_rcond(K.shape[0]), 0.0]
    tri = tridiagonalize(K.copy())
    alphas, ranks, cutoffs = tridiagonal_min_norm_cutoffs(tri, y, rconds, chunk=100)
    assert alphas.shape == (K.shape[0], 3) and ranks[0] < ranks[1] < ranks[2] == K.shape[0]
    for column, rcond in enumerate(rconds):
        alone, rank, cutoff = tridiagonal_min_norm(tri, y, rcond, chunk=100)
        # the same weights; only the BLAS products' shapes differ
        assert _relative(alphas[:, column], alone) < 1e-12
        assert (rank, cutoff) == (ranks[column], cutoffs[column])
    # k outputs: (n, L, k), each output's own column
    many, _, _ = tridiagonal_min_norm_cutoffs(tri, Y, rconds[:2], chunk=100)
    assert many.shape == (K.shape[0], 2, 3)
    np.testing.assert_allclose(many[:, 1, 2], tridiagonal_min_norm(tri, Y[:, 2], rconds[1])[0],
                               rtol=1e-10, atol=1e-12 * np.abs(many[:, 1, 2]).max())


def test_krls_takes_the_tridiagonal_path_where_eigh_does_not_fit(caplog) -> None:
    rng = np.random.default_rng(3)
    X, X_val = rng.standard_normal((400, 3)), rng.standard_normal((100, 3))
    y, y_val = np.sin(X[:, 0]), np.sin(X_val[:, 0])
    lambdas = np.logspace(-8, 0, 9)
    eigh = KRLS(sigma=1.0, lambdas=lambdas, path_method="eigh").fit(X, y, X_val, y_val)
    with caplog.at_level(logging.INFO, logger="kernreg.solvers.blocks.tridiagonal"):
        small = KRLS(sigma=1.0, lambdas=lambdas, max_memory=2 * 400 * 400 * 8 - 1).fit(
            X, y, X_val, y_val)
    assert "the tridiagonal path in the kernel's own memory" in caplog.text
    assert small.best_lambda_ == eigh.best_lambda_
    np.testing.assert_allclose(small.path_["val_rmse"], eigh.path_["val_rmse"], rtol=1e-8)
    np.testing.assert_allclose(small.predict(X_val), eigh.predict(X_val), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="path_method must be one of"):
        KRLS(path_method="qr").fit(X, y)


def test_nkrls_path_by_tridiagonal_reduction_is_eigh_s() -> None:
    """NKRLS's m × m λ path (and its multi-output form) by one tridiagonal reduction: the same
    selection and predictions as its eigendecomposition, to 1e-8 relative where λn is above
    1e-7 of AᵀA's largest eigenvalue (the grid's small λ amplify rounding, as for KRLS)."""
    rng = np.random.default_rng(4)
    X, X_val = rng.standard_normal((500, 3)), rng.standard_normal((120, 3))
    Y, Y_val = np.c_[np.sin(X[:, 0]), np.cos(X[:, 1])], np.c_[np.sin(X_val[:, 0]),
                                                              np.cos(X_val[:, 1])]
    lambdas = np.logspace(-6, 0, 13)
    for y, y_val in ((Y[:, 0], Y_val[:, 0]), (Y, Y_val)):
        fits = [NystromKRLS(sigma=1.0, m=150, lambdas=lambdas, path_method=method,
                            random_state=0).fit(X, y, X_val, y_val)
                for method in ("eigh", "tridiagonal")]
        assert fits[0].best_lambda_ == fits[1].best_lambda_
        np.testing.assert_allclose(fits[1].path_["val_rmse"], fits[0].path_["val_rmse"],
                                   rtol=1e-8)
        ours, reference = (f.predict_path(X_val).reshape(len(X_val), len(lambdas), -1)
                           for f in fits)
        scale = np.abs(reference).max(axis=0)
        assert np.all(np.abs(ours - reference).max(axis=0) <= 1e-8 * scale)
    with pytest.raises(ValueError, match="runs on the host"):
        NystromKRLS(path_method="tridiagonal", device="torch").fit(X, Y[:, 0])


def test_kols_falls_back_to_the_tridiagonal_rule_where_eigh_does_not_fit(caplog) -> None:
    """An uncertified pivoted Cholesky (a smooth spectrum through the cut-off) falls back to
    the eigenvalue rule: eigh's where it fits, the tridiagonal path's in K's memory else."""
    rng = np.random.default_rng(0)
    X, X_val = rng.uniform(-1, 1, (500, 2)), rng.uniform(-1, 1, (50, 2))
    y = np.sin(3 * X[:, 0])
    fits = KOLS(sigma=0.7).fit(X, y)
    with caplog.at_level(logging.INFO, logger="kernreg.solvers.blocks"):
        tight = KOLS(sigma=0.7, max_memory=2 * 500 * 500 * 8 - 1).fit(X, y)
    assert "cannot certify the cut-off's rank" in caplog.text
    assert "the eigenvalue rule by tridiagonal" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="kernreg.solvers.blocks"):  # certified: no word
        certified = KOLS(sigma=0.05, max_memory=2 * 500 * 500 * 8 - 1).fit(X, y)
    assert certified.factorization_ == "pivoted_cholesky" and "tridiagonal" not in caplog.text
    assert fits.factorization_ == "eigh" and tight.factorization_ == "tridiagonal"
    assert tight.rank_ == fits.rank_
    explicit = KOLS(sigma=0.7, solver="tridiagonal").fit(X, y)
    assert explicit.factorization_ == "tridiagonal"
    np.testing.assert_allclose(explicit.predict(X_val), tight.predict(X_val), rtol=0, atol=0)


@pytest.mark.parametrize("params, tridiagonal", [
    ({"lambdas": None}, True), ({"lambdas": None, "path_method": "eigh"}, False),
    ({"solver": "pivoted_cholesky"}, True), ({"solver": "tridiagonal"}, True)])
def test_the_memory_plan_follows_the_method_the_fit_takes(params, tridiagonal) -> None:
    n = 40000
    problem = MemoryProblem(n, 10000, 10000, 22, 2**28, 20 * 2**30)
    parts = full_kernel_memory(params, problem)
    assert ("K (tridiagonalized in place)" in parts) == tridiagonal
    assert sum(parts.values()) < 20 * 2**30 or not tridiagonal
