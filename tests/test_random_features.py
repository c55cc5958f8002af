"""Random-features KRLS: convergence to KRLS as D grows, and the (λ, D') path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.solvers import KRLS, RandomFeaturesKRLS, get_algorithm, rmse

SIGMA = 0.7


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(200)
    X_val = rng.uniform(size=(80, 3))
    return X, y, X_val, np.sin(3 * X_val[:, 0]) + X_val[:, 1]


def test_approaches_krls_as_features_grow(problem) -> None:
    X, y, X_test, _ = problem
    ref = KRLS(sigma=SIGMA, lam=1e-3).fit(X, y).predict(X_test)

    def gap(D: int) -> float:
        preds = [RandomFeaturesKRLS(sigma=SIGMA, n_components=D, lam=1e-3, random_state=s)
                 .fit(X, y).predict(X_test) for s in range(3)]
        return float(np.mean([np.linalg.norm(p - ref) / np.linalg.norm(ref) for p in preds]))

    small, large = gap(50), gap(800)
    # Monte Carlo rate 1/√D: 16× the features, about 4× closer (measured 0.040 → 0.0072)
    assert large < 0.02 and large < small / 3


def test_features_are_prefix_consistent(problem) -> None:
    X, y, _, _ = problem
    big = RandomFeaturesKRLS(sigma=SIGMA, n_components=100, random_state=5).fit(X, y)
    small = RandomFeaturesKRLS(sigma=SIGMA, n_components=40, random_state=5).fit(X, y)
    np.testing.assert_array_equal(big.frequencies_[:40], small.frequencies_)
    np.testing.assert_array_equal(big.phases_[:40], small.phases_)
    assert big.feature_map_.n_components == 100 and small.feature_map_.n_components == 40


def test_every_path_point_equals_a_direct_fit(problem) -> None:
    X, y, X_val, y_val = problem
    lambdas, levels = np.logspace(-7, -1, 4), [20, 60, 150]
    est = RandomFeaturesKRLS(sigma=SIGMA, n_components=150, lambdas=lambdas, d_values=levels,
                             random_state=1).fit(X, y, X_val, y_val)
    assert est.path_["val_rmse"].shape == (4, 3)
    for k, level in enumerate(levels):
        for j, lam in enumerate(lambdas):
            one = RandomFeaturesKRLS(sigma=SIGMA, n_components=level, lam=lam,
                                     random_state=1).fit(X, y)
            assert rmse(y_val, one.predict(X_val)) == pytest.approx(
                est.path_["val_rmse"][j, k], rel=1e-8)
    j, k = np.unravel_index(np.argmin(est.path_["val_rmse"]), (4, 3))
    assert (est.best_lambda_, est.best_n_components_) == (lambdas[j], levels[k])
    assert rmse(y_val, est.predict(X_val)) == pytest.approx(est.path_["val_rmse"][j, k],
                                                             rel=1e-10)


def test_registry_and_config(tmp_path: Path) -> None:
    assert get_algorithm("rf") is RandomFeaturesKRLS
    config = tmp_path / "rf.yaml"
    config.write_text("dataset: {name: cpusmall, n_train: 500}\nalgorithms:\n"
                      "  - {name: rf, n_components: 200, d_values: {linspace: [50, 200, 4]}}\n")
    assert load_experiment(config).algorithms[0].m_levels("d_values") == [50, 100, 150, 200]
    config.write_text("dataset: {name: cpusmall, n_train: 500}\nkernel: {name: laplacian, "
                      "sigma: 1}\nalgorithms:\n  - {name: rf}\n")
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.features: 'rff' approximates "
                                          r"the gaussian kernel, not laplacian; feature maps of "
                                          r"the laplacian kernel: none"):
        load_experiment(config)
    with pytest.raises(ValueError, match="features: 'rff' approximates the gaussian kernel, "
                                         "not linear"):
        RandomFeaturesKRLS(fit_intercept=False, kernel="linear").fit(np.zeros((5, 2)), np.zeros(5))
    with pytest.raises(ValueError, match=r"features must be one of \['rff'"):
        RandomFeaturesKRLS(fit_intercept=False,
                           features="no_such_map").fit(np.zeros((5, 2)), np.zeros(5))
    config.write_text("dataset: {name: cpusmall, n_train: 500}\nalgorithms:\n"
                      "  - {name: rf, features: no_such_map}\n")
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.features: 'no_such_map' is not "
                                          r"allowed; allowed values: rff, "):
        load_experiment(config)
