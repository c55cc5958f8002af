"""The feature-map base class: explicit random features whose products approximate a kernel.

A :class:`FeatureMap` draws its parameters for inputs of dimension ``d`` from a seed
(:meth:`~FeatureMap.draw`) and maps rows ``x`` to ``D`` features ``ψ(x)`` with

    ``k(x, x') ≈ ψ(x)·ψ(x') / D``  (each feature an unbiased one-feature estimate of ``k``).

:meth:`~FeatureMap.transform` returns these *unscaled* features; multiplied by
:attr:`~FeatureMap.scale` (``1/√D``) they are the usual ``Z`` with ``ZZᵀ ≈ K``. Unscaled, a map
is prefix-consistent: feature ``j`` depends only on the ``j``-th drawn parameters, so the first
``D'`` features of a ``D``-feature map are a ``D'``-feature map from the same seed, and one pass
over the data serves every number of features ``D' ≤ D`` of a path. (The drawn parameters are
equal bit for bit; the features to the rounding of the matrix product, whose BLAS code path can
depend on ``D``.)
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

import numpy as np

from kernreg._validation import check_int, check_random_state
from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, Data, as_2d

__all__ = ["FeatureMap", "matern_radial_scales"]


def matern_radial_scales(rng: np.random.Generator, nu: float, size: Any) -> np.ndarray:
    """Factors ``√(2ν/g)``, ``g ~ χ²(2ν)``, that turn ``N(0, σ⁻²I)`` frequencies into the
    Matérn kernel's spectral density.

    The Matérn kernel of smoothness ν and length scale σ has the spectral density of a
    multivariate Student t with ``2ν`` degrees of freedom and scale ``σ⁻²I``, the Gaussian scale
    mixture ``z·√(2ν/g)/σ`` with ``z ~ N(0, I)`` and ``g ~ χ²(2ν)`` independent.
    """
    return np.sqrt(2.0 * nu / rng.chisquare(2.0 * nu, size))


class FeatureMap(ABC):
    """Base class: ``D`` random features ``ψ(x)`` with ``ψ(x)·ψ(x')/D ≈ k(x, x')``.

    Parameters
    ----------
    n_features : int
        Number of features ``D``.
    random_state : None, int or numpy.random.Generator
        Seed of the draw. An int (or None's fresh entropy, once drawn) fixes the features; a
        Generator is consumed by :meth:`draw`.

    Attributes
    ----------
    n_features_in_ : int
        Input dimension ``d`` the parameters were drawn for (after :meth:`draw`).

    Notes
    -----
    Subclasses take their own parameters as keyword arguments after ``n_features`` and
    implement :meth:`_draw` (draw the parameters, feature by feature, so that the draw is
    prefix-consistent), :meth:`_features` (the unscaled features of a row block) and
    :meth:`_prefix` (keep the parameters of the first features).
    """

    def __init__(self, n_features: int, *, random_state: Any = None):
        self.n_features = check_int(n_features, "n_features", minimum=1)
        self.random_state = random_state

    # ----------------------------------------------------------------- subclass interface
    @abstractmethod
    def _draw(self, d: int, rng: np.random.Generator) -> None:
        """Draw the parameters of ``n_features`` features for inputs of dimension ``d``."""

    @abstractmethod
    def _features(self, Xb: Data) -> np.ndarray:
        """The unscaled features of the rows ``Xb`` (float64, shape ``(rows, D)``)."""

    @abstractmethod
    def _prefix(self, n_features: int) -> None:
        """Keep only the parameters of the first ``n_features`` features."""

    # ----------------------------------------------------------------- public interface
    def draw(self, d: int) -> FeatureMap:
        """Draw the parameters for inputs of dimension ``d`` from ``random_state``.

        Returns
        -------
        self
        """
        self.n_features_in_ = check_int(d, "d", minimum=1)
        self._draw(self.n_features_in_, check_random_state(self.random_state))
        return self

    @property
    def scale(self) -> float:
        """``1/√D``: ``scale · transform(X)`` are features ``Z`` with ``ZZᵀ ≈ K``."""
        return 1.0 / np.sqrt(self.n_features)

    def prefix(self, n_features: int) -> FeatureMap:
        """A copy keeping the first ``n_features`` features (equal to a map of that many
        features drawn from the same seed)."""
        self._check_drawn()
        n = check_int(n_features, "n_features", minimum=1)
        if n > self.n_features:
            raise ValueError(f"n_features must be at most {self.n_features}, got {n}")
        new = copy.copy(self)
        new.n_features = n
        new._prefix(n)
        return new

    def blocks(self, X: Any, memory_budget: int = DEFAULT_MEMORY_BUDGET
               ) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(row_slice, ψ(X[row_slice]))`` covering the rows of ``X`` in order, each
        block at most ``memory_budget`` bytes (at least one row)."""
        X = self._check_X(X)
        rows = max(1, check_int(memory_budget, "memory_budget", minimum=1)
                   // (8 * self.n_features))
        for start in range(0, X.shape[0], rows):
            Xb = X[start:start + rows]
            yield slice(start, start + Xb.shape[0]), self._features(Xb)

    def transform(self, X: Any) -> np.ndarray:
        """The unscaled features ``ψ(X)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)

        Returns
        -------
        features : ndarray of shape (n, n_features), float64
        """
        X = self._check_X(X)
        return self._features(X)

    def kernel(self, X: Any, Y: Any = None) -> np.ndarray:
        """The map's empirical kernel ``ψ(X)ψ(Y)ᵀ / D`` (``Y = X`` when omitted)."""
        U = self.transform(X)
        V = U if Y is None else self.transform(Y)
        return (U @ V.T) / self.n_features

    def _check_drawn(self) -> None:
        if not hasattr(self, "n_features_in_"):
            raise ValueError(f"{type(self).__name__} has no parameters yet: call draw(d) first")

    def _check_X(self, X: Any) -> Data:
        self._check_drawn()
        X = as_2d(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the map was drawn for "
                             f"{self.n_features_in_} (shape mismatch)")
        return X

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict[str, Any]:
        return {"n_features": self.n_features, "random_state": self.random_state}
