"""λ-ridge leverage scores (LiM Definition 1) and leverage-score center sampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from kernreg.config import load_experiment
from kernreg.kernels import GaussianKernel
from kernreg.solvers import NystromKRLS
from kernreg.solvers.blocks.centers import LeverageScoreSampler, UniformSampler, get_sampler
from kernreg.solvers.blocks.leverage import approximate_leverage_scores, exact_leverage_scores

SIGMA = 0.6


@pytest.fixture(scope="module")
def points() -> np.ndarray:
    return np.random.default_rng(3).uniform(size=(150, 3))


def _K(X: np.ndarray) -> np.ndarray:
    return np.exp(-cdist(X, X, "sqeuclidean") / (2 * SIGMA**2))


@pytest.mark.parametrize("lam", [1e-6, 1e-3, 1e-1])
def test_exact_scores_match_the_definition(points: np.ndarray, lam: float) -> None:
    K, n = _K(points), len(points)
    s, U = np.linalg.eigh(K)
    s = np.clip(s, 0, None)
    definition = (U**2) @ (s / (s + lam * n))  # diag(K (K + λnI)⁻¹) through K = U S Uᵀ
    scores = exact_leverage_scores(K, lam)
    np.testing.assert_allclose(scores, definition, rtol=1e-8, atol=1e-12)
    assert np.all((scores > 0) & (scores < 1))


@pytest.mark.parametrize("lam", [1e-6, 1e-3])
def test_approximation_is_exact_with_every_point_and_an_upper_bound_otherwise(
        points: np.ndarray, lam: float) -> None:
    kernel = GaussianKernel(SIGMA)
    exact = exact_leverage_scores(_K(points), lam)
    full = approximate_leverage_scores(points, kernel, lam, len(points), rng=0)
    np.testing.assert_allclose(full, exact, rtol=1e-6)
    partial = approximate_leverage_scores(points, kernel, lam, 40, rng=0)
    assert np.all(partial >= exact * (1 - 1e-6))


def test_sampler_prefers_isolated_points() -> None:
    rng = np.random.default_rng(0)
    cluster = 0.001 * rng.standard_normal((200, 2))
    isolated = np.array([[5.0, 0], [0, 5.0], [-5.0, 0], [0, -5.0], [5.0, 5.0]])
    X = np.vstack([cluster, isolated])
    kernel = GaussianKernel(1.0)
    picked = LeverageScoreSampler(lam=1e-6).select(X, 10, 1, kernel)
    assert set(range(200, 205)) <= set(picked.tolist())
    again = get_sampler({"name": "leverage", "lam": 1e-6}).select(X, 10, 1, kernel)
    np.testing.assert_array_equal(picked, again)
    uniform = UniformSampler().select(X, 10, 1)
    assert len(set(range(200, 205)) & set(uniform.tolist())) < 5
    with pytest.raises(ValueError, match="needs the solver's kernel"):
        LeverageScoreSampler().select(X, 10, 1)
    with pytest.raises(ValueError, match="sampler 'leverage'"):
        get_sampler({"name": "leverage", "gamma": 2})


def test_nystrom_solver_and_config_accept_the_sampler(points: np.ndarray,
                                                      tmp_path: Path) -> None:
    y = np.sin(4 * points[:, 0])
    est = NystromKRLS(sigma=SIGMA, m=30, lam=1e-4, random_state=0,
                      sampler={"name": "leverage", "lam": 1e-4, "subsample": 100}).fit(points, y)
    assert est.centers_.shape == (30, 3)
    config = tmp_path / "lev.yaml"
    config.write_text("dataset: {name: cpusmall, n_train: 500}\nalgorithms:\n"
                      "  - {name: nkrls, m: 40, sampler: {name: leverage, lam: 1e-4}}\n"
                      "  - {name: inkrls, m: 40, sampler: leverage}\n")
    exp = load_experiment(config)
    assert exp.algorithms[0].params["sampler"] == {"name": "leverage", "lam": 1e-4}
