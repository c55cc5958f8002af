"""Explicit finite-dimensional feature maps for linear estimators (the kernel extension of
the incremental RLSC of thesis Chapter 7).

A linear model on :class:`NystromFeatures` is Nyström KRLS (``φ(x) = R⁻ᵀ k(C, x)`` with
``K_mm = RᵀR``, so ``φ(x)ᵀφ(x') = k(x, C) K_mm⁻¹ k(C, x')``); on :class:`FourierFeatures` it is
random-features KRLS. Both are fixed once drawn, so recursive least squares runs on them as
on raw inputs. (To move to ``kernreg/features/`` when that package lands.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la
from sklearn.utils import check_random_state

from kernreg.kernels import make_kernel

__all__ = ["FourierFeatures", "NystromFeatures", "make_feature_map"]


class NystromFeatures:
    """``φ(x) = R⁻ᵀ k(C, x)`` for ``m`` centers ``C`` drawn uniformly from the rows given to
    :meth:`fit` (``K_mm + jitter·I = RᵀR``; the jitter keeps the factor defined when centers
    repeat)."""

    def __init__(self, m: int, sigma: float, *, kernel: str = "gaussian",
                 jitter: float = 1e-10, random_state: Any = None):
        self.m, self.sigma, self.kernel = m, sigma, kernel
        self.jitter, self.random_state = jitter, random_state

    def fit(self, X: np.ndarray) -> NystromFeatures:
        rng = check_random_state(self.random_state)
        if self.m > X.shape[0]:
            raise ValueError(f"m = {self.m} exceeds the {X.shape[0]} rows to draw centers from")
        self.kernel_ = make_kernel(self.kernel, self.sigma)
        self.centers_ = np.array(X[rng.choice(X.shape[0], self.m, replace=False)])
        K_mm = self.kernel_(self.centers_)
        K_mm[np.diag_indices_from(K_mm)] += self.jitter * max(1.0, float(np.trace(K_mm)) / self.m)
        self.R_ = la.cholesky(K_mm, lower=False)
        return self

    @property
    def n_features(self) -> int:
        return self.m

    def transform(self, X: np.ndarray) -> np.ndarray:
        K_nm = self.kernel_(np.atleast_2d(X), self.centers_)
        return la.solve_triangular(self.R_, K_nm.T, trans="T", lower=False).T


class FourierFeatures:
    """Random Fourier features of the Gaussian kernel:
    ``φ(x) = √(2/D)·cos(Wx + b)``, ``W ~ N(0, σ⁻²I)``, ``b ~ U[0, 2π)``."""

    def __init__(self, n_features: int, sigma: float, *, random_state: Any = None):
        self.n_features, self.sigma, self.random_state = n_features, sigma, random_state

    def fit(self, X: np.ndarray) -> FourierFeatures:
        rng = check_random_state(self.random_state)
        self.W_ = rng.standard_normal((self.n_features, X.shape[1])) / self.sigma
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, self.n_features)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        proj = np.atleast_2d(X) @ self.W_.T
        proj += self.b_
        np.cos(proj, out=proj)
        proj *= np.sqrt(2.0 / self.n_features)
        return proj


def make_feature_map(kind: str, size: int, sigma: float, random_state: Any = None
                     ) -> NystromFeatures | FourierFeatures:
    """``kind``: ``"nystrom"`` (``size`` = m centers) or ``"fourier"`` (``size`` = D)."""
    if kind == "nystrom":
        return NystromFeatures(size, sigma, random_state=random_state)
    if kind == "fourier":
        return FourierFeatures(size, sigma, random_state=random_state)
    raise ValueError(f"feature map must be 'nystrom' or 'fourier', got {kind!r}")
