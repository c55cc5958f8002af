"""Online regressors of the thesis's Chapter 8: parametric, nonparametric and semiparametric
recursive regularized least squares (RRLS), for multi-output targets such as a wrench.

* :class:`ParametricRLS` (P): ``y ≈ Y(x) π`` with a known regressor ``Y(x)`` (k outputs × p
  parameters, e.g. the rigid-body-dynamics regressor of a force/torque sensor) and the
  parameters ``π`` learned by RRLS towards a prior ``π₀`` (zero by default).
* :class:`RandomFeaturesRLS` (NP): ``y ≈ Wᵀ z(x)`` with Gaussian random Fourier features
  ``z(x) = ψ(x)/√D`` (:class:`~kernreg.features.RandomFourierFeatures`) and ``W`` learned by RRLS.
* :class:`SemiparametricRLS` (SP): P, then NP on P's residual ``y − Y(x)π`` (π after its
  update on the same sample), predicting the sum.

Each keeps the exact ridge solution of the samples seen so far
(:class:`~kernreg.solvers.blocks.recursive_rls.RecursiveRidge`): ``partial_fit`` adds samples,
``predict_update`` predicts each sample before learning from it (the test-then-update protocol)
and ``fit`` starts over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from kernreg.features import RandomFourierFeatures
from kernreg.solvers.blocks.recursive_rls import RecursiveRidge

__all__ = ["ParametricRLS", "RandomFeaturesRLS", "SemiparametricRLS"]

#: Rows per Woodbury block when many samples arrive at once (bounds the r × r solve).
_CHUNK = 256


def _as_rows(X: Any, y: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    if y is None:
        return X, None
    y = np.asarray(y, dtype=np.float64)
    return X, y.reshape(X.shape[0], -1)


class _OnlineRegressor(RegressorMixin, BaseEstimator):
    """What the three share: ``fit`` from scratch, ``predict_update`` sample by sample."""

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        raise NotImplementedError

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Predict the single sample ``x`` (1, d), learn ``y`` (k,), return the prediction."""
        raise NotImplementedError

    def partial_fit(self, X: Any, y: Any) -> _OnlineRegressor:
        """Learn the samples ``X`` (n, d) with targets ``y`` (n, k) in order."""
        self.predict_update(X, y)
        return self

    def fit(self, X: Any, y: Any) -> _OnlineRegressor:
        """Forget what was learned, then :meth:`partial_fit`."""
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("_")]:
            delattr(self, name)
        return self.partial_fit(X, y)

    def predict_update(self, X: Any, y: Any) -> np.ndarray:
        """Predict each sample with the model of the samples before it, then learn it.

        Returns
        -------
        predictions : ndarray of shape (n, k)
        """
        X, y = _as_rows(X, y)
        if not hasattr(self, "n_samples_seen_"):
            self._start(X, y)
            self.n_samples_seen_ = 0
        out = np.empty_like(y)
        for i in range(X.shape[0]):
            out[i] = self._step(X[i:i + 1], y[i])
            self.n_samples_seen_ += 1
        return out


class ParametricRLS(_OnlineRegressor):
    """Recursive ridge regression on a known regressor: ``y ≈ Y(x) π`` (model P).

    Parameters
    ----------
    regressor : callable
        ``regressor(X)`` for inputs ``X`` (n, d) returns ``Y`` (n, k, p): k outputs, p
        parameters (the rigid-body-dynamics regressor of a force/torque sensor, for example).
    lam : float, default 1.0
        λ of ``‖Yπ − y‖² + λ‖π − π₀‖²`` summed over the samples seen.
    prior : array-like of shape (p,), optional
        ``π₀`` (e.g. a CAD model's inertial parameters); zero when left out.
    form : {"cholesky", "inverse"}, default "cholesky"
        :class:`~kernreg.solvers.blocks.recursive_rls.RecursiveRidge`'s form: the Cholesky form
        stays exact at the small λ a few well-determined parameters want (a sample's k rows are
        one QR update).

    Attributes
    ----------
    coef_ : ndarray of shape (p,)
        ``π`` after the samples seen.
    n_samples_seen_ : int
    """

    def __init__(self, regressor: Callable[[np.ndarray], np.ndarray], lam: float = 1.0, *,
                 prior: Any = None, form: str = "cholesky"):
        self.regressor = regressor
        self.lam = lam
        self.prior = prior
        self.form = form

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        p = np.asarray(self.regressor(X[:1])).shape[-1]
        prior = None if self.prior is None else np.asarray(self.prior, dtype=np.float64)
        self.rls_ = RecursiveRidge(p, 1, self.lam, form=self.form, prior=prior)

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        Y = np.asarray(self.regressor(x), dtype=np.float64)[0]
        prediction = (Y @ self.rls_.coef)[:, 0]
        self.rls_.update(Y, y[:, None])
        return prediction

    @property
    def coef_(self) -> np.ndarray:
        return self.rls_.coef[:, 0]

    def predict(self, X: Any) -> np.ndarray:
        """``Y(X) π`` (n, k)."""
        X, _ = _as_rows(X)
        return np.asarray(self.regressor(X), dtype=np.float64) @ self.coef_


class RandomFeaturesRLS(_OnlineRegressor):
    """Recursive ridge regression on Gaussian random Fourier features (model NP).

    Parameters
    ----------
    n_components : int, default 500
        Number of features ``D``.
    sigma : float, default 1.0
        Bandwidth of the Gaussian kernel the features approximate.
    lam : float, default 1.0
        λ of ``‖ZW − y‖² + λ‖W‖²`` with ``Z = ψ(X)/√D`` (so ``ZZᵀ ≈ K``), summed over the
        samples seen.
    form : {"cholesky", "inverse"}, default "inverse"
    random_state : None, int or numpy.random.Generator
        Seed of the features' draw.

    Attributes
    ----------
    feature_map_ : RandomFourierFeatures
    coef_ : ndarray of shape (D, k)
    n_samples_seen_ : int
    """

    def __init__(self, n_components: int = 500, sigma: float = 1.0, lam: float = 1.0, *,
                 form: str = "inverse", random_state: Any = None):
        self.n_components = n_components
        self.sigma = sigma
        self.lam = lam
        self.form = form
        self.random_state = random_state

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        self.feature_map_ = RandomFourierFeatures(
            self.n_components, self.sigma, random_state=self.random_state).draw(X.shape[1])
        self.rls_ = RecursiveRidge(self.n_components, y.shape[1], self.lam, form=self.form)

    def features(self, X: Any) -> np.ndarray:
        """``Z = ψ(X)/√D`` (n, D)."""
        X, _ = _as_rows(X)
        return self.feature_map_.transform(X) * self.feature_map_.scale

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = self.features(x)
        prediction = (z @ self.rls_.coef)[0]
        self.rls_.update(z, y[None])
        return prediction

    def partial_fit(self, X: Any, y: Any) -> RandomFeaturesRLS:
        """Learn ``X`` (n, d), ``y`` (n, k) by blocks of rows (the same solution as one by one)."""
        X, y = _as_rows(X, y)
        if not hasattr(self, "n_samples_seen_"):
            self._start(X, y)
            self.n_samples_seen_ = 0
        for start in range(0, X.shape[0], _CHUNK):
            self.rls_.update(self.features(X[start:start + _CHUNK]), y[start:start + _CHUNK])
        self.n_samples_seen_ += X.shape[0]
        return self

    @property
    def coef_(self) -> np.ndarray:
        return self.rls_.coef

    def predict(self, X: Any) -> np.ndarray:
        """``Z(X) W`` (n, k)."""
        return self.features(X) @ self.coef_


class SemiparametricRLS(_OnlineRegressor):
    """P plus NP on P's residual (model SP): ``y ≈ Y(x)π + Wᵀz(x)``.

    Each sample first updates π (as :class:`ParametricRLS`), then ``W`` on the residual
    ``y − Y(x)π`` of the updated π (as :class:`RandomFeaturesRLS`).

    Parameters
    ----------
    regressor : callable
        As :class:`ParametricRLS`.
    n_components : int, default 500
    sigma : float, default 1.0
    lam_parametric : float, default 1.0
        λ of the parametric part.
    lam : float, default 1.0
        λ of the random-features part.
    prior : array-like of shape (p,), optional
        ``π₀`` of the parametric part.
    nonparametric : bool, default True
        False leaves the random-features part out (then SP is P).
    form_parametric : {"cholesky", "inverse"}, default "cholesky"
        The parametric part's form.
    form : {"cholesky", "inverse"}, default "inverse"
        The random-features part's form.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    parametric_ : ParametricRLS
    nonparametric_ : RandomFeaturesRLS or None
    n_samples_seen_ : int
    """

    def __init__(self, regressor: Callable[[np.ndarray], np.ndarray], n_components: int = 500,
                 sigma: float = 1.0, lam_parametric: float = 1.0, lam: float = 1.0, *,
                 prior: Any = None, nonparametric: bool = True, form_parametric: str = "cholesky",
                 form: str = "inverse", random_state: Any = None):
        self.regressor = regressor
        self.n_components = n_components
        self.sigma = sigma
        self.lam_parametric = lam_parametric
        self.lam = lam
        self.prior = prior
        self.nonparametric = nonparametric
        self.form_parametric = form_parametric
        self.form = form
        self.random_state = random_state

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        self.parametric_ = ParametricRLS(self.regressor, self.lam_parametric, prior=self.prior,
                                         form=self.form_parametric)
        self.parametric_._start(X, y)
        self.parametric_.n_samples_seen_ = 0
        self.nonparametric_ = None
        if self.nonparametric:
            self.nonparametric_ = RandomFeaturesRLS(self.n_components, self.sigma, self.lam,
                                                    form=self.form,
                                                    random_state=self.random_state)
            self.nonparametric_._start(X, y)
            self.nonparametric_.n_samples_seen_ = 0

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        P = self.parametric_
        Y = np.asarray(P.regressor(x), dtype=np.float64)[0]
        prediction = (Y @ P.rls_.coef)[:, 0]
        P.rls_.update(Y, y[:, None])
        P.n_samples_seen_ += 1
        if self.nonparametric_ is not None:
            residual = y - (Y @ P.rls_.coef)[:, 0]
            prediction = prediction + self.nonparametric_._step(x, residual)
            self.nonparametric_.n_samples_seen_ += 1
        return prediction

    def predict(self, X: Any) -> np.ndarray:
        """``Y(X)π + Z(X)W`` (n, k)."""
        out = self.parametric_.predict(X)
        if self.nonparametric_ is not None:
            out = out + self.nonparametric_.predict(X)
        return out
