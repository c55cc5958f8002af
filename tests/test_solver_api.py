"""Estimator API: sklearn conventions, registry, input validation, paths, refit, helpers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from kernreg.solvers import (
    DEFAULT_LAMBDAS,
    KOLS,
    KRLS,
    ASkotch,
    EigenPro,
    FeatureSGM,
    IncrementalNystromKRLS,
    KernelLandweber,
    LibSVM,
    MultiPassSGM,
    NystromKRLS,
    NystromPCG,
    Nytro,
    OnePassSGM,
    RandomFeaturesKRLS,
    RPCholeskyPCG,
    algorithm_names,
    algorithm_specs,
    get_algorithm,
    holdout_split,
    misclassification_rate,
    rmse,
)
from kernreg.solvers.blocks.stopping import StoppingRule, select_iteration

ALL = [KOLS, KRLS, KernelLandweber, NystromKRLS, Nytro, IncrementalNystromKRLS,
       RandomFeaturesKRLS, EigenPro, ASkotch]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 4))
    y = np.cos(4 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(120)
    X_val = rng.uniform(size=(40, 4))
    y_val = np.cos(4 * X_val[:, 0]) + X_val[:, 1]
    return X, y, X_val, y_val


def _small(cls, **kw):
    params = {"sigma": 0.7}
    if cls in (NystromKRLS, Nytro, IncrementalNystromKRLS):
        params["m"] = 20
        params["random_state"] = 0
    if cls is RandomFeaturesKRLS:
        params["n_components"] = 20
        params["random_state"] = 0
    if cls in (KernelLandweber, Nytro, EigenPro, ASkotch):
        params["max_iter"] = 30
    if cls in (EigenPro, ASkotch):
        params["random_state"] = 0
    params.update(kw)
    return cls(**params)


def test_registry():
    assert {s.name: s.estimator for s in algorithm_specs()} == {
        "kols": KOLS,
        "krls": KRLS,
        "es": KernelLandweber,
        "nkrls": NystromKRLS,
        "nytro": Nytro,
        "inkrls": IncrementalNystromKRLS,
        "rf": RandomFeaturesKRLS,
        "pcg": NystromPCG,
        "rpcholesky_pcg": RPCholeskyPCG,
        "eigenpro": EigenPro,
        "askotch": ASkotch,
        "sgm": OnePassSGM,
        "sigm": MultiPassSGM,
        "sgm_rf": FeatureSGM,
        "libsvm": LibSVM,
    }
    assert algorithm_names() == ["kols", "krls", "es", "nkrls", "nytro", "inkrls", "rf", "pcg",
                                 "rpcholesky_pcg", "eigenpro", "askotch", "sgm", "sigm",
                                 "sgm_rf", "libsvm"]
    assert get_algorithm("NYTRO") is Nytro
    with pytest.raises(ValueError,
                       match=r"unknown algorithm 'falkon'; registered: askotch, eigenpro, es"):
        get_algorithm("falkon")


@pytest.mark.parametrize("cls", ALL)
def test_sklearn_conventions(cls, data):
    X, y, X_val, y_val = data
    est = _small(cls)
    params = est.get_params()
    twin = clone(est)
    assert twin.get_params() == params and twin is not est
    assert cls(**params).get_params() == params
    est.set_params(sigma=0.5)
    assert est.get_params()["sigma"] == 0.5
    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, y)
    assert est.predict(X).shape == (120,)
    assert np.isfinite(est.score(X_val, y_val))  # RegressorMixin R²
    # fit stores nothing in the parameters: a clone of a fitted estimator is unfitted
    with pytest.raises(NotFittedError):
        clone(est).predict(X)


@pytest.mark.parametrize("cls", ALL)
def test_fit_with_validation_records_path(cls, data):
    X, y, X_val, y_val = data
    est = _small(cls).fit(X, y, X_val, y_val)
    if cls is KOLS:
        assert est.path_["val_rmse"].shape == (1,)
        return
    errors = est.path_["val_rmse"]
    if cls in (KRLS, NystromKRLS):
        np.testing.assert_array_equal(est.path_["lambdas"], DEFAULT_LAMBDAS)
        assert errors.shape == (100,)
        assert est.best_lambda_ == DEFAULT_LAMBDAS[np.argmin(errors)]
    elif cls in (IncrementalNystromKRLS, RandomFeaturesKRLS):
        assert errors.shape == (100, 20) and list(est.path_["m_values"]) == list(range(1, 21))
        j, k = np.unravel_index(np.nanargmin(errors), errors.shape)
        assert (est.best_lambda_, est.selection().info["m_selected"]) == (DEFAULT_LAMBDAS[j],
                                                                        k + 1)
        errors = errors[np.isfinite(errors)]
    else:
        rule = StoppingRule(est.stopping_rule, est.window, est.threshold)
        t_star, t_stop, fired = select_iteration(errors, rule)
        assert (est.best_iter_, est.n_iter_, est.path_["stopped"]) == (t_star, t_stop, fired)
        np.testing.assert_array_equal(est.path_["iterations"], np.arange(1, est.n_iter_ + 1))
    # the stored model is the one at the selected path point
    assert rmse(y_val, est.predict(X_val)) == pytest.approx(errors.min(), rel=1e-10)


def test_iterative_paths_stop_early_when_validation_error_rises(data):
    X, y, X_val, y_val = data
    # tiny steps: the validation error keeps decreasing, no rule fires before max_iter
    est = KernelLandweber(sigma=0.7, max_iter=50, stopping_rule="window_simple", window=2)
    est.set_params(step_size=1e-6).fit(X, y, X_val, y_val)
    assert not est.path_["stopped"] and est.n_iter_ == 50 and est.best_iter_ == 50
    # a narrow kernel overfits: the validation error turns up and the rule fires
    rule = StoppingRule("window_simple", 5, 0.0)
    for est in (
        KernelLandweber(sigma=0.05, max_iter=500, stopping_rule="window_simple", window=5),
        Nytro(sigma=0.05, m=40, random_state=0, stopping_rule="window_simple", window=5),
    ):
        est.fit(X, y, X_val, y_val)
        assert est.path_["stopped"] and est.n_iter_ < 500
        assert est.best_iter_ <= est.n_iter_ - 1
        t_star, t_stop, fired = select_iteration(est.path_["val_rmse"], rule)
        assert (est.best_iter_, est.n_iter_, est.path_["stopped"]) == (t_star, t_stop, fired)


def test_divergent_step_is_detected(data):
    X, y, X_val, y_val = data
    est = KernelLandweber(sigma=0.7, max_iter=5000, step_size=10.0, stopping_rule="none")
    with pytest.warns(RuntimeWarning, match="non-finite"):
        est.fit(X, y, X_val, y_val)
    assert est.path_["diverged"] and est.n_iter_ < 5000
    assert np.isfinite(est.alpha_).all() and est.best_iter_ == 1


def test_refit_uses_training_plus_validation(data):
    X, y, X_val, y_val = data
    Xa, ya = np.vstack([X, X_val]), np.concatenate([y, y_val])
    lambdas = np.logspace(-6, 0, 7)
    est = KRLS(fit_intercept=False, sigma=0.7, lambdas=lambdas, refit=True).fit(X, y, X_val, y_val)
    ref = KRLS(fit_intercept=False, sigma=0.7, lam=est.best_lambda_).fit(Xa, ya)
    np.testing.assert_allclose(est.predict(X_val), ref.predict(X_val), rtol=1e-8)
    es = KernelLandweber(fit_intercept=False,
                         sigma=0.7, max_iter=40, refit=True).fit(X, y, X_val, y_val)
    ref = KernelLandweber(fit_intercept=False, sigma=0.7, max_iter=es.best_iter_).fit(Xa, ya)
    np.testing.assert_allclose(es.predict(X_val), ref.predict(X_val), rtol=1e-8)
    for cls in (NystromKRLS, Nytro):
        plain = _small(cls, lambdas=lambdas) if cls is NystromKRLS else _small(cls)
        plain.fit(X, y, X_val, y_val)
        refit = clone(plain).set_params(refit=True).fit(X, y, X_val, y_val)
        np.testing.assert_array_equal(refit.center_indices_, plain.center_indices_)
        assert not np.allclose(refit.alpha_, plain.alpha_)


def test_nystrom_seed_reproducible(data):
    X, y, _, _ = data
    a = NystromKRLS(sigma=0.7, m=20, random_state=4).fit(X, y)
    b = NystromKRLS(sigma=0.7, m=20, random_state=4).fit(X, y)
    c = NystromKRLS(sigma=0.7, m=20, random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.center_indices_, b.center_indices_)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert not np.array_equal(a.center_indices_, c.center_indices_)


def test_singular_kmm_handled(data):
    X, y, _, _ = data
    Xdup = np.vstack([X[:30], X[:30]])  # every center appears twice: K_mm exactly singular
    ydup = np.concatenate([y[:30], y[:30]])
    nk = NystromKRLS(sigma=0.7, m=60, lam=1e-3, epsilon=0.0, random_state=0).fit(Xdup, ydup)
    assert nk.factor_info_["epsilon_used"] > 0 and nk.factor_info_["retries"] >= 1
    assert np.isfinite(nk.predict(X)).all()
    ny = Nytro(sigma=0.7, m=60, max_iter=20, random_state=0).fit(Xdup, ydup)
    assert ny.factor_info_["epsilon_used"] >= 1e-10 and np.isfinite(ny.predict(X)).all()


# ---------------------------------------------------------------- input validation
BAD_PARAMS = [
    (KRLS, {"sigma": 0.0}, "sigma"),
    (KRLS, {"sigma": -1.0}, "sigma"),
    (KRLS, {"lam": 0.0}, "lam"),
    (KRLS, {"lam": -1e-3}, "lam"),
    (NystromKRLS, {"lam": float("nan")}, "lam"),
    (KernelLandweber, {"max_iter": 0}, "max_iter"),
    (Nytro, {"max_iter": 2.5}, "max_iter"),
    (Nytro, {"stopping_rule": "patience"}, "stopping_rule"),
    (KernelLandweber, {"stopping_rule": "window_foo"}, "stopping_rule"),
    (Nytro, {"window": 0}, "window"),
    (Nytro, {"threshold": float("inf")}, "threshold"),
    (Nytro, {"m": 0}, "m"),
    (NystromKRLS, {"path_method": "qr"}, "path_method"),
    (NystromKRLS, {"epsilon": -1.0}, "epsilon"),
    (Nytro, {"strategy": "disk"}, "strategy"),
    (Nytro, {"max_memory": -1}, "max_memory"),
    (Nytro, {"step_size": 0.0}, "step_size"),
    (KernelLandweber, {"step_size": -1.0}, "step_size"),
    (KernelLandweber, {"step_rule": "lipschitz"}, "step_rule"),
    (Nytro, {"step_rows": "val"}, "step_rows"),
    (Nytro, {"select": "last"}, "select"),
    (NystromKRLS, {"penalty": "ridge"}, "penalty"),
    (KRLS, {"kernel": "rbf"}, "kernel"),
    (KOLS, {"dtype": "float16"}, "dtype"),
    (KOLS, {"memory_budget": 0}, "memory_budget"),
    (KOLS, {"rcond": -1.0}, "rcond"),
    (KOLS, {"rcond": "tiny"}, "rcond"),
    (KOLS, {"solver": "qr"}, "solver"),
    (KRLS, {"refit": "yes"}, "refit"),
    (NystromKRLS, {"sampler": "kmeans"}, "sampler"),
    (NystromKRLS, {"sampler": {"name": "leverage", "lam": -1.0}}, "lam"),
    (Nytro, {"random_state": -3}, "random_state"),
]


@pytest.mark.parametrize("cls,params,name", BAD_PARAMS)
def test_bad_parameter_raises_naming_it(cls, params, name, data):
    X, y, X_val, y_val = data
    with pytest.raises(ValueError, match=name):
        _small(cls, **params).fit(X, y, X_val, y_val)


def test_bad_lambdas_raise(data):
    X, y, X_val, y_val = data
    for lambdas in ([1e-3, 0.0], [], [np.nan], [[1e-3, 1e-2]]):
        with pytest.raises(ValueError, match="lambdas"):
            KRLS(lambdas=lambdas).fit(X, y, X_val, y_val)


@pytest.mark.parametrize("cls", ALL)
def test_bad_data_raises_naming_it(cls, data):
    X, y, X_val, y_val = data
    est = _small(cls)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    y_inf = y.copy()
    y_inf[0] = np.inf
    cases = [
        ((X_nan, y), "X contains NaN"),
        ((X, y_inf), "y contains NaN or Inf"),
        ((X, y[:-1]), "y has 119 entries.*shape mismatch"),
        ((X[:, 0], y), "X must be 2-D"),
        ((X, y, X_val[:, :3], y_val), "X_val has 3 features.*shape mismatch"),
        ((X, y, X_val, y_val[:5]), "y_val has 5 entries.*shape mismatch"),
        ((X, y, X_val, None), "X_val and y_val"),
        ((X, y, np.where(X_val > 0.5, np.inf, X_val), y_val), "X_val contains NaN"),
    ]
    for args, msg in cases:
        with pytest.raises(ValueError, match=msg):
            est.fit(*args)
    est.fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 4 features"):
        est.predict(X[:, :3])


# ---------------------------------------------------------------- helpers
def test_metrics():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    pred = np.array([0.5, -2.0, -0.1, 0.0])
    assert rmse(y, pred) == pytest.approx(np.sqrt((0.25 + 1 + 1.21 + 1) / 4))
    assert misclassification_rate(y, pred) == 0.5  # -0.1 wrong, 0 counts as +1: wrong
    P = np.column_stack([pred, y])
    np.testing.assert_allclose(rmse(y, P), [rmse(y, pred), 0.0])
    np.testing.assert_allclose(misclassification_rate(y, P), [0.5, 0.0])
    with pytest.raises(ValueError, match="shape mismatch"):
        rmse(y, pred[:3])


def test_classification_targets_as_regression(data):
    X, _, X_val, _ = data
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    y_val = np.where(X_val[:, 0] > 0.5, 1.0, -1.0)
    est = Nytro(sigma=0.5, m=40, random_state=0).fit(X, y, X_val, y_val)
    assert misclassification_rate(y_val, est.predict(X_val)) < 0.2


def test_holdout_split():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10.0)
    Xf, yf, Xv, yv = holdout_split(X, y, 0.2, random_state=0)
    assert Xf.shape == (8, 2) and Xv.shape == (2, 2)
    assert sorted(np.concatenate([yf, yv]).tolist()) == y.tolist()
    np.testing.assert_array_equal(Xf[:, 0] / 2, yf)
    again = holdout_split(X, y, 0.2, random_state=0)
    np.testing.assert_array_equal(again[1], yf)
    with pytest.raises(ValueError, match="val_fraction"):
        holdout_split(X, y, 1.0)
