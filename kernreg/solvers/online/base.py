"""What the online regressors of thesis Chapter 8 share: rows as float arrays, ``fit`` from
scratch, ``partial_fit`` and ``predict_update`` (test-then-update) sample by sample."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

__all__ = ["CHUNK", "OnlineRegressor", "as_rows"]

#: Rows per Woodbury block when many samples arrive at once (bounds the r × r solve).
CHUNK = 256


def as_rows(X: Any, y: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``X`` as float64 rows (n, d) and ``y`` (when given) as (n, k)."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    if y is None:
        return X, None
    y = np.asarray(y, dtype=np.float64)
    return X, y.reshape(X.shape[0], -1)


class OnlineRegressor(RegressorMixin, BaseEstimator):
    """What the three share: ``fit`` from scratch, ``predict_update`` sample by sample.

    A subclass implements ``_start(X, y)`` (the state before the first sample, from the first
    rows' shapes) and ``_step(x, y)`` (predict the single sample ``x`` (1, d), learn ``y``
    (k,), return the prediction).
    """

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        raise NotImplementedError

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Predict the single sample ``x`` (1, d), learn ``y`` (k,), return the prediction."""
        raise NotImplementedError

    def partial_fit(self, X: Any, y: Any) -> OnlineRegressor:
        """Learn the samples ``X`` (n, d) with targets ``y`` (n, k) in order."""
        self.predict_update(X, y)
        return self

    def fit(self, X: Any, y: Any) -> OnlineRegressor:
        """Forget what was learned, then :meth:`partial_fit`."""
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("_")]:
            delattr(self, name)
        return self.partial_fit(X, y)

    def predict_update(self, X: Any, y: Any) -> np.ndarray:
        """Predict each sample with the model of the samples before it, then learn it.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n, k)

        Returns
        -------
        predictions : ndarray of shape (n, k)
        """
        X, y = as_rows(X, y)
        if not hasattr(self, "n_samples_seen_"):
            self._start(X, y)
            self.n_samples_seen_ = 0
        out = np.empty_like(y)
        for i in range(X.shape[0]):
            out[i] = self._step(X[i:i + 1], y[i])
            self.n_samples_seen_ += 1
        return out
