"""Adding a feature map touches its own file and its registration — nothing else.

Two toy maps (tests/toy_feature_maps.py) are registered here, at run time, without editing any
kernreg module: random Fourier features of the Laplacian kernel (a map with σ, which takes the
kernel's σ) and Gaussian random projections of the linear kernel (a map without parameters).
A config naming one on an ``rf`` entry (``features: <name>``) goes through validation (the
entry's schema reads the registered names when the config is read; the map must approximate the
config's kernel), trials that build their features from it, the run store and the tables, as
``rff`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from toy_feature_maps import GaussianProjections, LaplacianFourierFeatures

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.features import (
    FeatureMapSpec,
    feature_map_names,
    feature_maps_for,
    register,
    unregister,
)
from kernreg.kernels.registry import POSITIVE
from kernreg.results.store import load_run
from kernreg.results.tables import Collected, render_table
from kernreg.solvers import RandomFeaturesKRLS, rmse

LAPLACE = FeatureMapSpec(name="toy_laplace_rff", feature_map=LaplacianFourierFeatures,
                         kernel="laplacian", schema={"sigma": POSITIVE}, summary="a toy")
PROJECTIONS = FeatureMapSpec(name="toy_projections", feature_map=GaussianProjections,
                             kernel="linear", summary="a toy without parameters")


@pytest.fixture
def toys() -> Iterator[None]:
    register(LAPLACE)
    register(PROJECTIONS)
    yield
    unregister(LAPLACE.name)
    unregister(PROJECTIONS.name)


CONFIG = """
name: toy_feature_map_run
dataset: {name: breast_cancer}
kernel: {name: laplacian}
algorithms:
  - {name: rf, features: toy_laplace_rff, n_components: 60, d_values: [20, 40, 60],
     lambdas: {logspace: [1e-6, 1e-1, 6]}}
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, kernel: str = "laplacian", entry: str = "features: toy_laplace_rff"
            ) -> Path:
    path = tmp_path / f"c{abs(hash((kernel, entry)))}.yaml"
    path.write_text(CONFIG.replace("kernel: {name: laplacian}", f"kernel: {{name: {kernel}}}")
                    .replace("features: toy_laplace_rff", entry))
    return path


def test_a_registered_toy_map_runs_through_validation_trials_store_and_tables(
    toys: None, tmp_path: Path
) -> None:
    assert feature_map_names()[-2:] == ["toy_laplace_rff", "toy_projections"]
    exp = load_experiment(_config(tmp_path))
    assert exp.algorithms[0].params["features"] == "toy_laplace_rff"
    before = LaplacianFourierFeatures.mapped
    results = run_experiment(exp, tmp_path / "out", progress=False)
    assert LaplacianFourierFeatures.mapped > before  # the trials mapped with the toy, not rff
    assert len(results) == 4 and set(results["kernel"]) == {"laplacian"}
    rf = results[results["algorithm"] == "rf"]
    assert np.isfinite(rf["test_rmse"]).all() and set(rf["m_selected"]) <= {20, 40, 60}
    records = load_run(tmp_path / "out" / "toy_feature_map_run").records
    assert {r.algorithm for r in records} == {"rf", "nkrls"}
    assert all(r.val_rmse.shape == (6, 3) for r in records if r.algorithm == "rf")
    table = render_table("table2", Collected(results))
    assert "Random features KRLS" in table and "Breast Cancer Wisconsin" in table


def test_the_estimator_fits_with_it_like_with_rff(toys: None) -> None:
    """Its features, its prefixes along the D' path, and a map without σ."""
    rng = np.random.default_rng(0)
    X, X_val = rng.normal(size=(150, 4)), rng.normal(size=(60, 4))
    w = rng.normal(size=4)
    y, y_val = X @ w + 0.1 * rng.normal(size=150), X_val @ w
    est = RandomFeaturesKRLS(fit_intercept=False,
                             sigma=2.0, n_components=80, d_values=[20, 80], lambdas=[1e-6, 1e-3],
                             random_state=3).fit(X, y, X_val, y_val)
    assert est.frequencies_.shape == (est.best_n_components_, 4)
    est.set_params(kernel="laplacian", features="toy_laplace_rff").fit(X, y, X_val, y_val)
    fmap = est.feature_map_
    assert isinstance(fmap, LaplacianFourierFeatures) and fmap.sigma == 2.0  # the kernel's σ
    assert fmap.n_components == est.best_n_components_ == est.coef_.size
    assert not hasattr(est, "frequencies_")  # rff's aliases only for rff
    np.testing.assert_array_equal(est.predict(X_val), fmap.transform(X_val) @ est.coef_)
    one = RandomFeaturesKRLS(fit_intercept=False,
                             kernel="laplacian", features="toy_laplace_rff", sigma=2.0,
                             n_components=est.best_n_components_, lam=est.best_lambda_,
                             random_state=3).fit(X, y)
    np.testing.assert_array_equal(one.feature_map_.W_, fmap.W_)  # the path's prefix
    assert rmse(y_val, one.predict(X_val)) == pytest.approx(rmse(y_val, est.predict(X_val)),
                                                            rel=1e-8)
    # a map without σ; on a linear target, linear features fit it almost exactly
    lin = RandomFeaturesKRLS(fit_intercept=False,
                             kernel="linear", features="toy_projections", n_components=40,
                             lam=1e-10, random_state=0).fit(X, y)
    assert isinstance(lin.feature_map_, GaussianProjections)
    assert rmse(y_val, lin.predict(X_val)) < 0.05


def test_validation_reports_a_map_of_another_kernel(toys: None, tmp_path: Path) -> None:
    assert feature_maps_for("laplacian") == ["toy_laplace_rff"]
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.features: 'toy_laplace_rff' "
                                          r"approximates the laplacian kernel, not gaussian; "
                                          r"feature maps of the gaussian kernel: \['rff'"):
        load_experiment(_config(tmp_path, kernel="gaussian"))
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.features: 'rff' approximates the "
                                          r"gaussian kernel, not laplacian; feature maps of the "
                                          r"laplacian kernel: \['toy_laplace_rff'\]"):
        load_experiment(_config(tmp_path, entry="features: rff"))
    with pytest.raises(ValueError, match="features: 'toy_projections' approximates the linear"):
        RandomFeaturesKRLS(fit_intercept=False,
                           features="toy_projections").fit(np.ones((4, 2)), np.ones(4))


def test_unregistered_it_is_unknown(tmp_path: Path) -> None:
    assert "toy_laplace_rff" not in feature_map_names()
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.features: 'toy_laplace_rff' is "
                                          r"not allowed; allowed values: rff"):
        load_experiment(_config(tmp_path))
    with pytest.raises(ValueError, match=r"features must be one of \['rff'.*\], got "
                                         r"'toy_laplace_rff'"):
        RandomFeaturesKRLS(fit_intercept=False, kernel="laplacian", features="toy_laplace_rff").fit(
            np.ones((4, 2)), np.ones(4))
