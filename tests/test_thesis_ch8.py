"""Thesis Chapter 8: recursive RLS equals batch ridge at every step; the semiparametric stack's
limits; the simulated iCub wrench (two paths agree); the Figure 8.4 smoke run."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.solvers.blocks.recursive_rls import RecursiveRidge, batch_ridge
from kernreg.solvers.online import ParametricRLS, RandomFeaturesRLS, SemiparametricRLS


@pytest.mark.parametrize("form", ["cholesky", "inverse"])
@pytest.mark.parametrize("rows_per_step", [1, 3])
def test_recursive_ridge_equals_batch_after_every_update(form: str, rows_per_step: int) -> None:
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((60, 8)), rng.standard_normal((60, 3))
    prior = rng.standard_normal((8, 3))
    rls = RecursiveRidge(8, 3, 0.7, form=form, prior=prior)
    for t in range(rows_per_step, 61, rows_per_step):
        rls.update(A[t - rows_per_step:t], B[t - rows_per_step:t])
        np.testing.assert_allclose(rls.coef, batch_ridge(A[:t], B[:t], 0.7, prior),
                                   rtol=0, atol=1e-8)


def _linear_regressor(X: np.ndarray) -> np.ndarray:
    """A known (k = 2) × (p = 3) regressor of 2-d inputs, nonlinear in x."""
    X = np.atleast_2d(X)
    return np.stack([np.stack([X[:, 0], np.sin(X[:, 1]), np.ones(len(X))], 1),
                     np.stack([X[:, 1] ** 2, X[:, 0] * X[:, 1], np.cos(X[:, 0])], 1)], 1)


def test_parametric_rls_equals_batch_at_every_step() -> None:
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((40, 2)), rng.standard_normal((40, 2))
    est = ParametricRLS(_linear_regressor, lam=0.3)
    Y = _linear_regressor(X)
    for t in range(40):
        est.partial_fit(X[t:t + 1], y[t:t + 1])
        ref = batch_ridge(Y[:t + 1].reshape(-1, 3), y[:t + 1].reshape(-1), 0.3)[:, 0]
        np.testing.assert_allclose(est.coef_, ref, rtol=0, atol=1e-8)


def test_random_features_rls_equals_batch_at_every_step() -> None:
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((50, 4)), rng.standard_normal((50, 3))
    est = RandomFeaturesRLS(30, sigma=1.5, lam=0.2, form="cholesky", random_state=0)
    preds = est.predict_update(X, y)
    Z = est.features(X)
    np.testing.assert_allclose(est.coef_, batch_ridge(Z, y, 0.2), rtol=0, atol=1e-8)
    for t in (1, 10, 49):  # each prediction used the ridge fit of the samples before it
        np.testing.assert_allclose(preds[t], Z[t] @ batch_ridge(Z[:t], y[:t], 0.2),
                                   rtol=0, atol=1e-8)
    block = RandomFeaturesRLS(30, sigma=1.5, lam=0.2, random_state=0).fit(X, y)
    np.testing.assert_allclose(block.coef_, est.coef_, rtol=0, atol=1e-8)


def test_semiparametric_without_random_features_is_parametric() -> None:
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((30, 2)), rng.standard_normal((30, 2))
    p = ParametricRLS(_linear_regressor, lam=0.5).predict_update(X, y)
    sp = SemiparametricRLS(_linear_regressor, lam_parametric=0.5, nonparametric=False)
    np.testing.assert_array_equal(sp.predict_update(X, y), p)


def test_semiparametric_learns_no_residual_on_parametric_data() -> None:
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 2))
    pi = np.array([0.5, -1.0, 2.0])
    y = _linear_regressor(X) @ pi
    sp = SemiparametricRLS(_linear_regressor, n_components=20, prior=pi, random_state=0)
    pred = sp.predict_update(X, y)
    np.testing.assert_allclose(sp.nonparametric_.coef_, 0.0, atol=1e-12)
    np.testing.assert_allclose(pred, y, atol=1e-12)
    np.testing.assert_allclose(sp.parametric_.coef_, pi, atol=1e-12)


# ---------------------------------------------------------------------- the simulated robot
def test_regressor_wrench_equals_idyntree_inverse_dynamics() -> None:
    pytest.importorskip("idyntree")
    pytest.importorskip("icub_models")
    from reproduce.thesis_ch8.simulate import ArmModel, RobotDeviation

    model = ArmModel()
    rng = np.random.default_rng(5)
    X = np.concatenate([rng.uniform(-0.5, 1.5, (6, 4)), rng.standard_normal((6, 4)),
                        5 * rng.standard_normal((6, 4))], axis=1)
    true = RobotDeviation.draw(model.cad_parameters, rng).true_parameters
    for parameters in (model.cad_parameters, true):
        np.testing.assert_allclose(model.regressor(X) @ parameters,
                                   model.idyntree_wrench(X, parameters), rtol=0, atol=1e-9)


def test_fig8_4_smoke_writes_csv_and_png(tmp_path) -> None:
    pytest.importorskip("idyntree")
    pytest.importorskip("icub_models")
    pytest.importorskip("matplotlib")
    from reproduce.thesis_ch8 import thesis_fig8_4

    csv_path, png = tmp_path / "fig.csv", tmp_path / "figures" / "fig.png"
    thesis_fig8_4.main(["--smoke", "--csv", str(csv_path), "-o", str(png)])
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "estimator,group,part,sample,rmse"
    assert len(lines) == 1 + 3 * 2 * 3 * 100  # estimators × groups × parts × samples
    assert png.stat().st_size > 0
