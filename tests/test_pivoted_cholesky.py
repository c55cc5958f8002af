"""Pivoted partial Cholesky (greedy and randomly pivoted) and the two center samplers on it."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.kernels import GaussianKernel, LinearKernel
from kernreg.solvers import NystromKRLS
from kernreg.solvers.blocks.centers import SAMPLERS, get_sampler
from kernreg.solvers.blocks.params import SAMPLER_NAMES
from kernreg.solvers.blocks.pivoted_cholesky import (
    kernel_partial_cholesky,
    matrix_partial_cholesky,
)


def _low_rank(n: int = 50, r: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(seed).standard_normal((n, r))
    return X, X @ X.T


@pytest.mark.parametrize("rule", ["greedy", "random", "uniform"])
def test_rank_r_factor_reproduces_a_rank_r_matrix(rule: str) -> None:
    _, K = _low_rank()
    chol = matrix_partial_cholesky(K, 6, rule=rule, rng=1)
    assert chol.factor.shape == (50, 6)
    np.testing.assert_allclose(chol.factor @ chol.factor.T, K, atol=1e-9 * np.abs(K).max())
    assert chol.residual_trace[-1] <= 1e-9 * np.trace(K)
    # a seventh pivot finds nothing left: the greedy and random rules stop at the rank
    if rule != "uniform":
        assert matrix_partial_cholesky(K, 10, rule=rule, rng=1).factor.shape[1] == 6


def test_factor_is_the_nystrom_approximation_of_its_pivots() -> None:
    X = np.random.default_rng(2).standard_normal((60, 3))
    K = GaussianKernel(1.5)(X)
    chol = kernel_partial_cholesky(X, GaussianKernel(1.5), 12, rule="random", rng=3)
    idx = chol.pivots
    L = K[:, idx] @ np.linalg.solve(K[np.ix_(idx, idx)], K[idx, :])
    np.testing.assert_allclose(chol.factor @ chol.factor.T, L, atol=1e-8)
    np.testing.assert_allclose(chol.residual_trace[-1], np.trace(K - L), atol=1e-8)


@pytest.mark.parametrize("rule", ["greedy", "random", "uniform"])
def test_residual_trace_is_non_increasing(rule: str) -> None:
    X = np.random.default_rng(4).uniform(size=(200, 2))
    chol = kernel_partial_cholesky(X, GaussianKernel(0.3), 60, rule=rule, rng=5)
    steps = np.diff(chol.residual_trace)
    assert np.all(steps <= 1e-12 * chol.residual_trace[0])
    assert chol.residual_trace[0] == pytest.approx(200.0)  # tr K of a Gaussian kernel


def test_greedy_pivot_is_the_largest_residual_diagonal() -> None:
    X = np.random.default_rng(6).standard_normal((40, 4))
    K = LinearKernel()(X)  # unequal diagonal: the first greedy pivot is the longest row
    chol = matrix_partial_cholesky(K, 3, rule="greedy")
    assert chol.pivots[0] == int(np.argmax(np.diag(K)))
    R = K - np.outer(K[:, chol.pivots[0]], K[:, chol.pivots[0]]) / K[chol.pivots[0],
                                                                      chol.pivots[0]]
    assert chol.pivots[1] == int(np.argmax(np.diag(R)))


def _clustered_kernel() -> np.ndarray:
    """300 points in a tight cluster and 8 isolated ones: uniform columns miss isolated points
    (each leaves residual 1), RPCholesky finds them."""
    rng = np.random.default_rng(7)
    X = np.vstack([0.2 * rng.standard_normal((300, 2)), 10.0 * rng.standard_normal((8, 2))])
    return GaussianKernel(0.5)(X)


def test_rpcholesky_one_step_error_matches_its_exact_expectation() -> None:
    K = _clustered_kernel()
    # E tr(K − K̂₁) = tr K − Σ_i (K_ii / tr K)(‖K[:, i]‖² / K_ii) = tr K − ‖K‖_F² / tr K
    exact = np.trace(K) - np.sum(K * K) / np.trace(K)
    errors = [matrix_partial_cholesky(K, 1, rule="random", rng=s).residual_trace[-1]
              for s in range(3000)]
    se = np.std(errors) / np.sqrt(len(errors))
    assert abs(np.mean(errors) - exact) < 4 * se


def test_rpcholesky_expected_error_meets_the_bound_and_uniform_does_not() -> None:
    K = _clustered_kernel()
    eig = np.sort(np.linalg.eigvalsh(K))[::-1]
    r, eps = 14, 1.0  # r = cluster's 6 + the 8 isolated points: tail ≈ 1.25
    best = eig[r:].sum()  # tr(K − [[K]]_r)
    eta = best / eig.sum()
    k = int(np.ceil(r / eps + r * np.log(1.0 / (eps * eta))))  # Chen et al., Theorem 3.1
    bound = (1.0 + eps) * best

    def mean_and_se(rule: str) -> tuple[float, float]:
        e = np.array([matrix_partial_cholesky(K, k, rule=rule, rng=s).residual_trace[-1]
                      for s in range(120)])
        return float(e.mean()), float(e.std() / np.sqrt(e.size))

    rp_mean, rp_se = mean_and_se("random")
    uni_mean, uni_se = mean_and_se("uniform")
    assert rp_mean + 4 * rp_se <= bound  # the expectation is below the bound, confidently
    assert uni_mean - 4 * uni_se > bound  # and the case is hard enough to tell samplers apart
    greedy = matrix_partial_cholesky(K, k, rule="greedy").residual_trace[-1]
    assert greedy <= bound


def test_samplers_are_registered_and_named_by_the_schema() -> None:
    assert set(SAMPLER_NAMES) == set(SAMPLERS)
    X = np.random.default_rng(8).uniform(size=(100, 2))
    for name in ("pivoted_cholesky", "rpcholesky"):
        idx = get_sampler(name).select(X, 30, rng=0, kernel=GaussianKernel(0.2))
        assert np.unique(idx).size == 30
    with pytest.raises(ValueError, match="needs the solver's kernel"):
        get_sampler("rpcholesky").select(X, 5, rng=0)


def test_sampler_fills_beyond_the_rank_with_distinct_points() -> None:
    X, _ = _low_rank(n=30, r=3)
    idx = get_sampler("pivoted_cholesky").select(X, 10, rng=0, kernel=LinearKernel())
    assert np.unique(idx).size == 10


def test_nystrom_with_pivoted_centers_fits_better_at_small_m() -> None:
    rng = np.random.default_rng(9)
    X = np.vstack([0.05 * rng.standard_normal((300, 1)), rng.uniform(-3, 3, size=(60, 1))])
    y = np.sin(2 * X[:, 0])
    errors = {}
    for sampler in ("uniform", "pivoted_cholesky", "rpcholesky"):
        model = NystromKRLS(kernel="gaussian", sigma=0.5, m=15, lambdas=[1e-8],
                            sampler=sampler, random_state=0).fit(X, y)
        errors[sampler] = float(np.mean((model.predict(X) - y) ** 2))
    assert errors["pivoted_cholesky"] < 0.1 * errors["uniform"]
    assert errors["rpcholesky"] < 0.1 * errors["uniform"]


def test_a_config_runs_every_nystrom_algorithm_with_the_new_samplers(tmp_path) -> None:
    from kernreg.cli import main

    config = tmp_path / "samplers.yaml"
    config.write_text(
        "name: samplers\n"
        "dataset: {name: breast_cancer, n_train: 120, n_test: 60}\n"
        "algorithms:\n"
        "  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 4]}, sampler: rpcholesky}\n"
        "  - {name: nytro, m: 20, max_iter: 20, sampler: {name: pivoted_cholesky}}\n"
        "protocol: {trials: 1}\n"
        "budget: {blas_threads: 1}\n")
    main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    assert list((tmp_path / "out").rglob("*.h5"))


def test_a_given_order_factors_those_centers() -> None:
    X = np.random.default_rng(10).standard_normal((80, 3))
    K = GaussianKernel(1.0)(X)
    order = np.random.default_rng(11).permutation(80)[:15]
    chol = matrix_partial_cholesky(K, 15, order=order)
    np.testing.assert_array_equal(chol.pivots, order)
    for p in (5, 15):  # every prefix is the Nyström approximation of the first p centers
        idx = order[:p]
        L = K[:, idx] @ np.linalg.solve(K[np.ix_(idx, idx)], K[idx, :])
        np.testing.assert_allclose(chol.factor[:, :p] @ chol.factor[:, :p].T, L, atol=1e-8)
