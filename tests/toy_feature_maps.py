"""Toy feature maps shared by the tests: parts a user could register at run time without
editing kernreg (tests/test_features.py, tests/test_toy_feature_map.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.features import FeatureMap
from kernreg.kernels.base import Data

__all__ = ["GaussianProjections", "LaplacianFourierFeatures"]


class LaplacianFourierFeatures(FeatureMap):
    """``√2 cos(wᵀx + b)`` with ``w = z/(σ|g|)``, ``z ~ N(0, I)``, ``g ~ N(0, 1)``:
    ``E cos(wᵀδ) = exp(−‖δ‖/σ)``, the Laplacian kernel. Counts the blocks it maps."""

    mapped = 0

    def __init__(self, n_components: int, sigma: float = 1.0, *, random_state: Any = None):
        super().__init__(n_components, random_state=random_state)
        self.sigma = sigma

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        # one stream per kind of parameter, each drawn feature by feature: prefix-consistent
        z_rng, g_rng, b_rng = (np.random.default_rng(s) for s in rng.integers(2**63, size=3))
        z = z_rng.standard_normal((self.n_components, d))
        g = np.abs(g_rng.standard_normal(self.n_components))
        self.W_ = z / (self.sigma * g[:, None])
        self.b_ = b_rng.uniform(0, 2 * np.pi, self.n_components)

    def _features(self, Xb: Data) -> np.ndarray:
        type(self).mapped += 1
        return np.sqrt(2.0) * np.cos(np.asarray(Xb @ self.W_.T) + self.b_)

    def _prefix(self, n_components: int) -> None:
        self.W_, self.b_ = self.W_[:n_components], self.b_[:n_components]


class GaussianProjections(FeatureMap):
    """``ψ_j(x) = g_jᵀx``, ``g_j ~ N(0, I)``: ``E ψ_j(x)ψ_j(x') = xᵀx'``, the linear kernel
    (no parameter besides ``n_components``)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.G_ = np.random.default_rng(rng.integers(2**63)).standard_normal((self.n_components, d))

    def _features(self, Xb: Data) -> np.ndarray:
        return np.asarray(Xb @ self.G_.T, dtype=np.float64)

    def _prefix(self, n_components: int) -> None:
        self.G_ = self.G_[:n_components]
