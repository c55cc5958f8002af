"""Degrees of freedom d_eff, d (Bach's maximal marginal) and d_ave: exact and estimated."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.kernels import GaussianKernel, LinearKernel
from kernreg.solvers.blocks.dof import (
    estimated_degrees_of_freedom,
    exact_degrees_of_freedom,
    spectrum_degrees_of_freedom,
)

LAMBDAS = np.logspace(-6, -1, 6)


def test_exact_values_match_their_definitions() -> None:
    X = np.random.default_rng(0).uniform(size=(80, 2))
    K = GaussianKernel(0.3)(X)
    n = K.shape[0]
    dof = exact_degrees_of_freedom(K, LAMBDAS)
    for j, lam in enumerate(LAMBDAS):
        S = np.linalg.solve(K + n * lam * np.eye(n), K).T  # K (K + nλI)⁻¹
        assert dof.d_eff[j] == pytest.approx(np.trace(S), rel=1e-8)
        assert dof.d_max[j] == pytest.approx(n * np.diag(S).max(), rel=1e-8)
        assert dof.d_ave[j] == pytest.approx(np.trace(S @ S), rel=1e-8)
    assert np.all(dof.d_ave <= dof.d_eff) and np.all(dof.d_eff <= dof.d_max)
    assert np.all(np.diff(dof.d_eff) < 0)  # more regularization, fewer degrees of freedom
    d_eff, d_ave = spectrum_degrees_of_freedom(np.linalg.eigvalsh(K), LAMBDAS, n)
    np.testing.assert_allclose(d_eff, dof.d_eff, rtol=1e-9)
    np.testing.assert_allclose(d_ave, dof.d_ave, rtol=1e-9)


def test_estimates_bracket_and_approach_the_exact_values() -> None:
    rng = np.random.default_rng(1)
    X = np.vstack([rng.uniform(size=(1100, 2)), 4 + rng.uniform(size=(100, 2))])
    kernel = GaussianKernel(0.2)
    exact = exact_degrees_of_freedom(kernel(X), LAMBDAS)
    est = estimated_degrees_of_freedom(X, kernel, LAMBDAS, rank=100, rng=2)
    assert np.all(est.d_eff <= exact.d_eff * (1 + 1e-9))  # L ≼ K: lower bounds
    assert np.all(est.d_ave <= exact.d_ave * (1 + 1e-9))
    assert np.all(est.d_max <= exact.d_max * (1 + 1e-9))
    assert np.all(est.d_max_upper >= exact.d_max * (1 - 1e-9))
    # where the rank exceeds d_eff three times over, the lower bounds are within 3%
    ok = exact.d_eff < 100 / 3
    assert ok.sum() == 2
    np.testing.assert_allclose(est.d_eff[ok], exact.d_eff[ok], rtol=0.01)
    np.testing.assert_allclose(est.d_ave[ok], exact.d_ave[ok], rtol=0.01)
    np.testing.assert_allclose(est.d_max[ok], exact.d_max[ok], rtol=0.03)
    # at a rank where the Cholesky residual is negligible against nλ, everything is exact
    fine = estimated_degrees_of_freedom(X, kernel, LAMBDAS, rank=300, rng=2)
    for name in ("d_eff", "d_max", "d_ave"):
        np.testing.assert_allclose(getattr(fine, name), getattr(exact, name), rtol=1e-3)
    np.testing.assert_allclose(fine.d_max_upper, exact.d_max, rtol=1e-3)
    # a small rank cannot reach the exact values: the check above can fail
    few = estimated_degrees_of_freedom(X, kernel, LAMBDAS, rank=10, rng=2)
    assert few.d_eff[0] < 0.5 * exact.d_eff[0]


def test_estimates_are_exact_at_the_rank_of_k() -> None:
    X = np.random.default_rng(3).standard_normal((200, 5))
    exact = exact_degrees_of_freedom(LinearKernel()(X), LAMBDAS)
    est = estimated_degrees_of_freedom(X, LinearKernel(), LAMBDAS, rank=5, rng=4)
    for name in ("d_eff", "d_max", "d_ave", "d_max_upper"):
        np.testing.assert_allclose(getattr(est, name), exact.d_max if name == "d_max_upper"
                                   else getattr(exact, name), rtol=1e-8)


def test_bad_lambdas_are_refused() -> None:
    with pytest.raises(ValueError, match="lambdas"):
        exact_degrees_of_freedom(np.eye(3), [0.0])
