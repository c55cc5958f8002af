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

On a device (:meth:`FeatureMap.to`, a map with a device path: the Fourier features) the blocks
``ψ(X_b)``, their products :meth:`~FeatureMap.gram`, :meth:`~FeatureMap.matvec` and the errors
:meth:`~FeatureMap.column_rmse` are computed where the device is, from the parameters drawn on
the host and sent once per pass; the results come back as float64 host arrays.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg._validation import check_int, check_random_state
from kernreg.backend import CPU, Device, get_device
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
    n_components : int
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
    Subclasses take their own parameters as keyword arguments after ``n_components`` and
    implement :meth:`_draw` (draw the parameters, feature by feature, so that the draw is
    prefix-consistent), :meth:`_features` (the unscaled features of a row block) and
    :meth:`_prefix` (keep the parameters of the first features); a map that runs on a device
    also implements :meth:`_device_params` and :meth:`_features_xp`.
    """

    #: Where :meth:`gram`, :meth:`matvec` and :meth:`column_rmse` compute (:meth:`to`).
    device: Device = CPU

    def __init__(self, n_components: int, *, random_state: Any = None):
        self.n_components = check_int(n_components, "n_components", minimum=1)
        self.random_state = random_state

    # ----------------------------------------------------------------- subclass interface
    @abstractmethod
    def _draw(self, d: int, rng: np.random.Generator) -> None:
        """Draw the parameters of ``n_components`` features for inputs of dimension ``d``."""

    @abstractmethod
    def _features(self, Xb: Data) -> np.ndarray:
        """The unscaled features of the rows ``Xb`` (float64, shape ``(rows, D)``)."""

    @abstractmethod
    def _prefix(self, n_components: int) -> None:
        """Keep only the parameters of the first ``n_components`` features."""

    def _device_params(self) -> tuple[np.ndarray, ...]:
        """The drawn parameters :meth:`_features_xp` takes, as float64 host arrays (sent to the
        device once per pass over the rows)."""
        raise NotImplementedError

    def _features_xp(self, Xb: Any, params: tuple[Any, ...]) -> Any:
        """The unscaled features of the device rows ``Xb`` (float64), written against their
        array namespace; ``params``: :meth:`_device_params` on the device. Maps without one are
        refused on a device (:meth:`to`)."""
        raise NotImplementedError

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
        return 1.0 / np.sqrt(self.n_components)

    def prefix(self, n_components: int) -> FeatureMap:
        """A copy keeping the first ``n_components`` features (equal to a map of that many
        features drawn from the same seed)."""
        self._check_drawn()
        n = check_int(n_components, "n_components", minimum=1)
        if n > self.n_components:
            raise ValueError(f"n_components must be at most {self.n_components}, got {n}")
        new = copy.copy(self)
        new.n_components = n
        new._prefix(n)
        return new

    def to(self, device: Any) -> FeatureMap:
        """A copy of this map whose :meth:`gram`, :meth:`matvec` and :meth:`column_rmse` run on
        ``device`` (a :class:`~kernreg.backend.Device` or its name; the drawn parameters stay
        host arrays, sent to the device by each pass).

        Raises
        ------
        ValueError
            Naming the map and the device, for a map without a device path.
        """
        device = get_device(device)
        if not device.is_numpy and type(self)._features_xp is FeatureMap._features_xp:
            raise ValueError(f"feature map {type(self).__name__} has no device path "
                             f"(device={device.name!r}): only the Fourier feature maps (rff, "
                             "rff_matern) run on a device; use device='cpu'")
        new = copy.copy(self)
        new.device = device
        return new

    def _block_rows(self, memory_budget: int) -> int:
        return max(1, check_int(memory_budget, "memory_budget", minimum=1)
                   // (8 * self.n_components))

    def blocks(self, X: Any, memory_budget: int = DEFAULT_MEMORY_BUDGET
               ) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(row_slice, ψ(X[row_slice]))`` covering the rows of ``X`` in order, each
        block at most ``memory_budget`` bytes (at least one row)."""
        X = self._check_X(X)
        rows = self._block_rows(memory_budget)
        for start in range(0, X.shape[0], rows):
            Xb = X[start:start + rows]
            yield slice(start, start + Xb.shape[0]), self._features(Xb)

    def device_blocks(self, X: Any, memory_budget: int = DEFAULT_MEMORY_BUDGET
                      ) -> Iterator[tuple[slice, Any]]:
        """:meth:`blocks` as float64 arrays of the map's device (numpy on ``cpu``): each row
        block of ``X`` (densified when sparse) is sent and its features are formed there."""
        X = self._check_X(X)
        if self.device.is_numpy:
            yield from self.blocks(X, memory_budget)
            return
        params = tuple(self.device.asarray(p) for p in self._device_params())
        rows = self._block_rows(memory_budget)
        for start in range(0, X.shape[0], rows):
            Xb = X[start:start + rows]
            Xb = Xb.toarray() if sp.issparse(Xb) else Xb
            yield (slice(start, start + Xb.shape[0]),
                   self._features_xp(self.device.asarray(Xb), params))

    def gram(self, X: Any, y: Any, memory_budget: int = DEFAULT_MEMORY_BUDGET
             ) -> tuple[np.ndarray, np.ndarray]:
        """``(UᵀU, Uᵀy)`` of the unscaled features ``U = ψ(X)``, block-wise on the map's device
        (float64 host arrays, ``UᵀU`` exactly symmetric)."""
        y = np.asarray(y, dtype=np.float64)
        D = self.n_components
        if self.device.is_numpy:
            G, c = np.zeros((D, D)), np.zeros((D, *y.shape[1:]))
            for rows, U in self.blocks(X, memory_budget):
                G += U.T @ U
                c += U.T @ y[rows]
            return 0.5 * (G + G.T), c
        device = self.device
        yd = device.asarray(y)
        G, c = device.zeros((D, D)), device.zeros((D, *y.shape[1:]))
        for rows, U in self.device_blocks(X, memory_budget):
            G += U.T @ U
            c += U.T @ yd[rows]
        return device.to_numpy(0.5 * (G + G.T)), device.to_numpy(c)

    def matvec(self, X: Any, coef: Any, memory_budget: int = DEFAULT_MEMORY_BUDGET
               ) -> np.ndarray:
        """``ψ(X) @ coef`` (float64 host array, ``(n,)`` or ``(n, k)``), block-wise on the map's
        device."""
        coef = np.asarray(coef, dtype=np.float64)
        n = self._check_X(X).shape[0]
        out = np.empty((n, *coef.shape[1:]))
        cd = self.device.asarray(coef)
        for rows, U in self.device_blocks(X, memory_budget):
            out[rows] = self.device.to_numpy(U @ cd)
        return out

    def column_rmse(self, X: Any, coefs: Any, y: Any,
                    memory_budget: int = DEFAULT_MEMORY_BUDGET) -> np.ndarray:
        """RMSE against ``y`` of ``ψ(X) @ coefs[:, j]`` for every column ``j``, block-wise on the
        map's device (the ``n × columns`` predictions never stored; NaN columns stay NaN)."""
        device, xp = self.device, self.device.xp
        coefs = np.asarray(coefs, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        bad = np.isnan(coefs).any(axis=0)
        cd, yd = device.asarray(np.where(bad, 0.0, coefs)), device.asarray(y)
        sq = device.zeros((coefs.shape[1],))
        for rows, U in self.device_blocks(X, memory_budget):
            resid = U @ cd - yd[rows, None]
            sq += xp.sum(resid * resid, axis=0)
        out = np.sqrt(device.to_numpy(sq) / y.shape[0])
        out[bad] = np.nan
        return out

    def transform(self, X: Any) -> np.ndarray:
        """The unscaled features ``ψ(X)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)

        Returns
        -------
        features : ndarray of shape (n, n_components), float64
        """
        X = self._check_X(X)
        return self._features(X)

    def kernel(self, X: Any, Y: Any = None) -> np.ndarray:
        """The map's empirical kernel ``ψ(X)ψ(Y)ᵀ / D`` (``Y = X`` when omitted)."""
        U = self.transform(X)
        V = U if Y is None else self.transform(Y)
        return (U @ V.T) / self.n_components

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
        params = {"n_components": self.n_components, "random_state": self.random_state}
        if not self.device.is_numpy:
            params["device"] = self.device.name
        return params
