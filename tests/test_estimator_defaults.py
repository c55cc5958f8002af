"""Estimators that do not mislead at their defaults: σ from the data (the median heuristic), an
intercept fitted, a validation split inside ``fit`` that a Pipeline's scaling reaches, and a
warning when routed validation rows were not prepared like the fit rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernreg import (
    KRLS,
    IncrementalNystromKRLS,
    KernelLandweber,
    NystromKRLS,
    NystromPCG,
    Nytro,
    RandomFeaturesKRLS,
)
from kernreg.bandwidth import median_sigma
from kernreg.solvers.blocks.fit_inputs import validation_scale_problem

PATH_ESTIMATORS = [KRLS, KernelLandweber, NystromKRLS, Nytro, IncrementalNystromKRLS,
                   NystromPCG, RandomFeaturesKRLS]


@pytest.fixture(scope="module")
def friedman() -> tuple[np.ndarray, ...]:
    """Standardized make_friedman1 (3000 rows, noise 1) with its raw target, 70/30."""
    X, y = make_friedman1(n_samples=3000, noise=1, random_state=0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def test_nystrom_krls_at_its_defaults_fits_a_raw_target(friedman) -> None:
    X_tr, X_te, y_tr, y_te = friedman
    est = NystromKRLS(random_state=0).fit(X_tr, y_tr)
    assert est.score(X_te, y_te) > 0.8
    assert est.sigma_ == median_sigma(X_tr, 0)
    assert est.intercept_ == pytest.approx(np.mean(y_tr))
    # the papers' setting at σ = 1: the model the defaults replace, far worse on this target
    assert NystromKRLS(random_state=0, sigma=1.0, fit_intercept=False).fit(
        X_tr, y_tr).score(X_te, y_te) < 0.5


def test_the_intercept_is_the_training_mean_added_back() -> None:
    """KRLS with an intercept is KernelRidge on the centred targets, plus their mean."""
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(120, 4))
    y = 50.0 + np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(120)
    X_test = rng.uniform(size=(30, 4))
    ours = KRLS(sigma=0.8, lam=1e-3).fit(X, y)
    ridge = KernelRidge(alpha=1e-3 * 120, kernel="rbf", gamma=1 / (2 * 0.8**2)).fit(
        X, y - y.mean())
    np.testing.assert_allclose(ours.predict(X_test), ridge.predict(X_test) + y.mean(),
                               rtol=1e-8)
    # a shift of the targets shifts the predictions, nothing else
    shifted = KRLS(sigma=0.8, lam=1e-3).fit(X, y + 1000.0)
    np.testing.assert_allclose(shifted.predict(X_test), ours.predict(X_test) + 1000.0,
                               rtol=1e-10)


@pytest.mark.parametrize("estimator", PATH_ESTIMATORS, ids=lambda e: e.__name__)
def test_every_path_estimator_takes_an_intercept_and_a_validation_fraction(
        estimator, friedman) -> None:
    """The validated path on a held-out share of X; with the intercept a shift of the targets
    shifts the predictions and nothing else (the same split, σ, path and selection)."""
    X_tr, X_te, y_tr, _ = friedman
    X_tr, y_tr = X_tr[:600], y_tr[:600]
    seeded = {"random_state": 0} if "random_state" in estimator().get_params() else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an iteration path may reach its cap: not the point
        est = estimator(validation_fraction=0.25, **seeded).fit(X_tr, y_tr)
        shifted = estimator(validation_fraction=0.25, **seeded).fit(X_tr, y_tr + 1000.0)
        without = estimator(validation_fraction=0.25, fit_intercept=False, **seeded).fit(
            X_tr, y_tr)
    assert est.path_ is not None  # the held-out quarter selected along the path
    assert est.intercept_ == pytest.approx(np.mean(y_tr[_fit_rows(600, 0.25)]), rel=1e-12)
    assert without.intercept_ == 0.0
    np.testing.assert_allclose(shifted.predict(X_te), est.predict(X_te) + 1000.0, rtol=1e-9)
    assert shifted.selection().selected == est.selection().selected


def _fit_rows(n: int, fraction: float) -> np.ndarray:
    """The fit rows validation_fraction keeps with random_state 0 (or no random_state)."""
    perm = np.random.default_rng([0, 0x5A17]).permutation(n)
    return perm[: n - int(np.ceil(fraction * n))]


def test_a_pipeline_with_validation_fraction_is_the_model_on_prescaled_rows() -> None:
    X, y = make_friedman1(n_samples=3000, noise=1, random_state=0)
    X = 100.0 * X + 50.0  # features far from unit scale
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    piped = make_pipeline(StandardScaler(), NystromKRLS(validation_fraction=0.2,
                                                        random_state=0)).fit(X_tr, y_tr)
    scaler = StandardScaler().fit(X_tr)
    alone = NystromKRLS(validation_fraction=0.2, random_state=0).fit(scaler.transform(X_tr),
                                                                     y_tr)
    assert abs(piped.score(X_te, y_te) - alone.score(scaler.transform(X_te), y_te)) < 0.02
    assert piped.score(X_te, y_te) > 0.8


def test_routed_validation_rows_that_skipped_the_scaler_are_warned_about() -> None:
    X, y = make_friedman1(n_samples=1000, noise=1, random_state=0)
    X = 100.0 * X + 50.0
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2, random_state=0)
    piped = make_pipeline(StandardScaler(), NystromKRLS(random_state=0))
    with pytest.warns(UserWarning, match="X_val does not look like X.*give "
                                         "validation_fraction instead"):
        piped.fit(X_fit, y_fit, nystromkrls__X_val=X_val, nystromkrls__y_val=y_val)
    with warnings.catch_warnings():  # rows of one preparation: no warning
        warnings.simplefilter("error", UserWarning)
        NystromKRLS(random_state=0).fit(X_fit, y_fit, X_val, y_val)


def test_the_scale_check_leaves_a_plain_split_alone() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((500, 6)) * [1, 10, 100, 0.1, 5, 1]
    assert validation_scale_problem(X[:400], X[400:]) is None
    assert validation_scale_problem(X[:400], X[400:405]) is None  # too few rows to judge
    # standardized validation rows beside raw fit rows: the four features far from unit scale
    assert "4 of 6" in validation_scale_problem(X[:400], (X[400:] - X.mean(0)) / X.std(0))


def test_validation_fraction_and_routed_rows_exclude_each_other() -> None:
    X = np.random.default_rng(0).standard_normal((50, 2))
    with pytest.raises(ValueError, match="exclude each other"):
        NystromKRLS(m=10, validation_fraction=0.2).fit(X, X[:, 0], X, X[:, 0])
    with pytest.raises(ValueError, match=r"validation_fraction must be a number in \(0, 1\)"):
        NystromKRLS(m=10, validation_fraction=1.5).fit(X, X[:, 0])


def test_sigma_median_of_coinciding_rows_asks_for_a_sigma() -> None:
    X = np.ones((20, 3))
    with pytest.raises(ValueError, match="median distance between training rows is 0"):
        KRLS().fit(X, np.arange(20.0))
    with pytest.raises(ValueError, match="sigma must be a positive number or 'median'"):
        KRLS(sigma="mean").fit(np.random.default_rng(0).standard_normal((20, 3)),
                               np.arange(20.0))


@pytest.mark.parametrize("estimator", [KRLS, KernelLandweber, NystromKRLS, Nytro],
                         ids=lambda e: e.__name__)
def test_a_refit_keeps_the_fit_rows_intercept(estimator, friedman) -> None:
    """Refit on fit + validation rows: the intercept stays the fit rows' mean and the model is
    the selected one fitted on all rows' targets less it (what the Nyström systems' refit, which
    adds the validation rows' terms to the fit rows', computes)."""
    X_tr, X_te, y_tr, _ = friedman
    X, y, X_val, y_val = X_tr[:300], y_tr[:300], X_tr[300:400], y_tr[300:400]
    seeded = {"random_state": 0} if "random_state" in estimator().get_params() else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimator(sigma=2.0, refit=True, **seeded).fit(X, y, X_val, y_val)
        plain = estimator(sigma=2.0, refit=True, fit_intercept=False, **seeded).fit(
            X, y - y.mean(), X_val, y_val - y.mean())
    assert est.intercept_ == pytest.approx(np.mean(y), rel=1e-12)
    np.testing.assert_allclose(est.predict(X_te), plain.predict(X_te) + np.mean(y), rtol=1e-9)
