"""Incremental Nyström KRLS (LiM Algorithm 1) and the Cholesky up/down-dates it rests on."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg as la

from kernreg.solvers import IncrementalNystromKRLS, NystromKRLS, get_algorithm
from kernreg.solvers.algorithms.incremental import incremental_nkrls_path
from kernreg.solvers.blocks.centers import CenterSampler
from kernreg.solvers.blocks.cholupdate import (
    cholesky_append_bordered,
    cholesky_append_rank_one,
    cholesky_update,
)
from kernreg.solvers.blocks.lambda_path import check_m_levels, default_m_levels
from kernreg.solvers.blocks.linalg import NystromFactor

LAMBDAS = np.logspace(-9, -1, 5)
LEVELS = [1, 7, 20, 33, 60]


def _spd(rng: np.random.Generator, t: int, cond: float = 1e3) -> np.ndarray:
    Q, _ = np.linalg.qr(rng.standard_normal((t, t)))
    return (Q * np.logspace(0, np.log10(cond), t)) @ Q.T


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


@pytest.mark.parametrize("t", [1, 2, 9, 40])
def test_update_and_downdate_match_fresh_factors(t: int) -> None:
    rng = np.random.default_rng(t)
    M, x = _spd(rng, t), rng.standard_normal(t)
    up = cholesky_update(la.cholesky(M), x)
    assert _rel(up, la.cholesky(M + np.outer(x, x))) < 1e-12
    down = cholesky_update(la.cholesky(M + np.outer(x, x)), x, downdate=True)
    assert _rel(down, la.cholesky(M)) < 1e-10
    assert np.allclose(np.tril(up, -1), 0.0) and np.all(np.diag(up) > 0)


def test_batched_update_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(1)
    Ms = np.stack([_spd(rng, 12) for _ in range(4)])
    X = rng.standard_normal((4, 12))
    batch = cholesky_update(np.stack([la.cholesky(M) for M in Ms]), X)
    for R, M, x in zip(batch, Ms, X, strict=True):
        assert _rel(R, la.cholesky(M + np.outer(x, x))) < 1e-12


def test_downdate_that_breaks_definiteness_raises() -> None:
    M = np.eye(3)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky_update(la.cholesky(M), np.array([0.0, 2.0, 0.0]), downdate=True)


@pytest.mark.parametrize("append", ["rank_one", "bordered"])
def test_appending_centers_builds_the_batch_factor(append: str) -> None:
    rng = np.random.default_rng(2)
    m = 25
    M = _spd(rng, m, cond=1e6)
    R = np.zeros((m, m))
    bounds = [0, 1, 2, 9, 10, 25]
    for s, e in itertools.pairwise(bounds):
        if append == "bordered":
            cholesky_append_bordered(R, M[:s, s:e], M[s:e, s:e], s)
        else:
            for t in range(s, e):
                cholesky_append_rank_one(R[: t + 1, : t + 1], M[:t, t], M[t, t])
        assert _rel(R[:e, :e], la.cholesky(M[:e, :e])) < 1e-9


@pytest.mark.parametrize("update", ["block", "rank_one"])
def test_path_keeps_the_levels_before_definiteness_is_lost(update: str) -> None:
    # H is positive definite on its first 9 rows and indefinite from row 10 on (a negative
    # direction added there): levels 4 and 9 are solved, 15 and 20 are NaN, λ flagged failed
    rng = np.random.default_rng(5)
    m, n = 20, 50
    H = _spd(rng, m, cond=1e2)
    H[9:, 9:] -= 5.0 * np.eye(m - 9)
    Aty = rng.standard_normal(m)
    levels = np.array([4, 9, 15, 20])
    factor = NystromFactor(np.eye(m), 0.0, 0.0, 0)  # K_mm = I: α is R⁻¹w itself
    lambdas = np.array([1e-3, 1.0])  # the second shift (λn = 50) keeps every level definite
    coefs, failed = incremental_nkrls_path(H, Aty, factor, lambdas, n, levels, update=update)
    assert failed.tolist() == [True, False]
    for k, level in enumerate(levels):
        for j, lam in enumerate(lambdas):
            if j == 0 and level > 9:
                assert np.isnan(coefs[:, j, k]).all()
                continue
            ref = la.solve(H[:level, :level] + lam * n * np.eye(level), Aty[:level])
            assert _rel(coefs[:level, j, k], ref) < 1e-10, (level, lam)
            assert not coefs[level:, j, k].any()


class _Fixed(CenterSampler):
    """The first m of a fixed index list: batch NKRLS on an incremental fit's first m'."""

    name = "fixed"

    def __init__(self, indices: np.ndarray) -> None:
        self.indices = indices

    def _select(self, X: object, m: int, rng: np.random.Generator,
                kernel: object) -> np.ndarray:
        return self.indices[:m]


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(240, 4))
    f = lambda Z: np.sin(4 * Z[:, 0]) + Z[:, 1] * Z[:, 2]  # noqa: E731
    y = f(X) + 0.1 * rng.standard_normal(240)
    X_val = rng.uniform(size=(90, 4))
    return X, y, X_val, f(X_val) + 0.1 * rng.standard_normal(90)


@pytest.mark.parametrize("update", ["block", "rank_one"])
def test_every_level_equals_batch_nkrls_on_its_first_centers(problem, update: str) -> None:
    X, y, X_val, y_val = problem
    inc = IncrementalNystromKRLS(sigma=0.5, m=60, lambdas=LAMBDAS, m_values=LEVELS,
                                 update=update, random_state=3).fit(X, y, X_val, y_val)
    sampler = _Fixed(inc.center_indices_)
    for k, level in enumerate(LEVELS):
        batch = NystromKRLS(sigma=0.5, m=level, lambdas=LAMBDAS, sampler=sampler)
        batch.fit(X, y, X_val, y_val)
        for lam in LAMBDAS:
            ref = NystromKRLS(sigma=0.5, m=level, lam=lam, sampler=sampler).fit(X, y)
            one = IncrementalNystromKRLS(sigma=0.5, m=level, lam=lam, update=update,
                                         sampler=sampler).fit(X, y)
            assert _rel(one.alpha_, ref.alpha_) < 1e-8, (level, lam)
        np.testing.assert_allclose(inc.path_["val_rmse"][:, k], batch.path_["val_rmse"],
                                   rtol=1e-8)


def test_identity_penalty_levels_equal_batch_identity_nkrls(problem) -> None:
    X, y, X_val, y_val = problem
    inc = IncrementalNystromKRLS(sigma=0.5, m=60, lambdas=LAMBDAS, m_values=LEVELS,
                                 penalty="identity", random_state=3).fit(X, y, X_val, y_val)
    sampler = _Fixed(inc.center_indices_)
    for k, level in enumerate(LEVELS):
        batch = NystromKRLS(sigma=0.5, m=level, lambdas=LAMBDAS, sampler=sampler,
                            penalty="identity").fit(X, y, X_val, y_val)
        np.testing.assert_allclose(inc.path_["val_rmse"][:, k], batch.path_["val_rmse"],
                                   rtol=1e-8)


def test_selection_refit_and_prediction(problem) -> None:
    X, y, X_val, y_val = problem
    est = IncrementalNystromKRLS(fit_intercept=False,
                                 sigma=0.5, m=60, lambdas=LAMBDAS, m_values=LEVELS,
                                 random_state=3).fit(X, y, X_val, y_val)
    val = est.path_["val_rmse"]
    assert val.shape == (len(LAMBDAS), len(LEVELS))
    j, k = np.unravel_index(np.nanargmin(val), val.shape)
    assert (est.best_lambda_, est.best_m_) == (LAMBDAS[j], LEVELS[k])
    assert est.centers_.shape == (est.best_m_, 4)
    # the selected model predicts with the validation error recorded for its grid point
    pred = est.predict(X_val)
    assert np.sqrt(np.mean((pred - y_val) ** 2)) == pytest.approx(val[j, k], rel=1e-10)
    refit = IncrementalNystromKRLS(fit_intercept=False,
                                   sigma=0.5, m=60, lambdas=LAMBDAS, m_values=LEVELS,
                                   random_state=3, refit=True).fit(X, y, X_val, y_val)
    ref = NystromKRLS(fit_intercept=False, sigma=0.5, m=est.best_m_, lam=est.best_lambda_,
                      sampler=_Fixed(est.center_indices_)).fit(np.vstack([X, X_val]),
                                                               np.concatenate([y, y_val]))
    assert _rel(refit.alpha_, ref.alpha_) < 1e-8


def test_levels_and_bad_parameters() -> None:
    assert default_m_levels(1000)[-1] == 1000 and len(default_m_levels(1000)) == 50
    assert list(default_m_levels(3)) == [1, 2, 3]
    assert list(check_m_levels([5, 2, 5], 10)) == [2, 5]
    with pytest.raises(ValueError, match=r"m_values must lie in \[1, m\]"):
        check_m_levels([0, 4], 10)
    X, y = np.random.default_rng(0).uniform(size=(30, 2)), np.zeros(30)
    with pytest.raises(ValueError, match="update must be one of"):
        IncrementalNystromKRLS(m=5, update="qr").fit(X, y, X, y)
    assert get_algorithm("inkrls") is IncrementalNystromKRLS
