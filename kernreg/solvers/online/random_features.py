"""Model NP of thesis Chapter 8: recursive ridge regression on Gaussian random Fourier
features, ``y ≈ Wᵀ z(x)``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kernreg.features import RandomFourierFeatures
from kernreg.solvers.blocks.params import POSITIVE, POSITIVE_INT
from kernreg.solvers.blocks.recursive_rls import RecursiveRidge
from kernreg.solvers.online.base import CHUNK, OnlineRegressor, as_rows
from kernreg.solvers.online.registry import OnlineSpec, Regressor, register
from kernreg.solvers.online.selection import HoldoutSelection

__all__ = ["RANDOM_FEATURES_SCHEMA", "RandomFeaturesRLS"]

#: The config parameters of a random-features part: σ, λ, D and the features' seed.
RANDOM_FEATURES_SCHEMA: dict[str, Any] = {
    "sigma": POSITIVE, "lam": POSITIVE, "n_components": POSITIVE_INT,
    "seed": {"type": "integer", "minimum": 0}}


class RandomFeaturesRLS(OnlineRegressor):
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
        X, _ = as_rows(X)
        return self.feature_map_.transform(X) * self.feature_map_.scale

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = self.features(x)
        prediction = (z @ self.rls_.coef)[0]
        self.rls_.update(z, y[None])
        return prediction

    def partial_fit(self, X: Any, y: Any) -> RandomFeaturesRLS:
        """Learn ``X`` (n, d), ``y`` (n, k) by blocks of rows (the same solution as one by one)."""
        X, y = as_rows(X, y)
        if not hasattr(self, "n_samples_seen_"):
            self._start(X, y)
            self.n_samples_seen_ = 0
        for start in range(0, X.shape[0], CHUNK):
            self.rls_.update(self.features(X[start:start + CHUNK]), y[start:start + CHUNK])
        self.n_samples_seen_ += X.shape[0]
        return self

    @property
    def coef_(self) -> np.ndarray:
        return self.rls_.coef

    def predict(self, X: Any) -> np.ndarray:
        """``Z(X) W`` (n, k)."""
        return self.features(X) @ self.coef_


def _select(candidates: Mapping[str, Sequence[float]], holdout: HoldoutSelection,
            params: Mapping[str, Any]) -> dict[str, float]:
    sigma, lam = holdout.best_features(params["n_components"], params["seed"],
                                       candidates["sigma"], candidates["lam"])
    return {"sigma": sigma, "lam": lam}


def _build(params: Mapping[str, Any], regressor: Regressor | None) -> RandomFeaturesRLS:
    return RandomFeaturesRLS(params["n_components"], params["sigma"], params["lam"],
                             random_state=params["seed"])


register(OnlineSpec(
    name="random_features", estimator=RandomFeaturesRLS, label="NP", order=20,
    title="NP: recursive ridge on random Fourier features",
    schema=RANDOM_FEATURES_SCHEMA, defaults={"n_components": 500},
    selected={"sigma": "sigmas", "lam": "lambdas"},
    select=_select, build=_build,
    summary="RRLS on D Gaussian random Fourier features of the standardized inputs"))
