"""Random Fourier features of the Gaussian kernel (Rahimi & Recht 2007).

``ψ_j(x) = √2 cos(w_jᵀx + b_j)`` with ``w_j ~ N(0, σ⁻²I)`` and ``b_j ~ U[0, 2π)``:
``E[ψ_j(x)ψ_j(x')] = exp(−‖x − x'‖²/(2σ²))``. Frequencies and phases come from two seeded
streams, drawn feature by feature (row-major ``W``), so a draw is prefix-consistent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_positive
from kernreg.features.base import FeatureMap
from kernreg.features.registry import FeatureMapSpec, register
from kernreg.kernels.base import Data
from kernreg.kernels.registry import POSITIVE

__all__ = ["RandomFourierFeatures"]


class RandomFourierFeatures(FeatureMap):
    """Random Fourier features ``√2 cos(Wx + b)`` of the Gaussian kernel of bandwidth σ.

    Parameters
    ----------
    n_features : int
        Number of features ``D``.
    sigma : float, default 1.0
        Bandwidth σ > 0 of the Gaussian kernel approximated.
    random_state : None, int or numpy.random.Generator
        Seed of the draw.

    Attributes
    ----------
    frequencies_ : ndarray of shape (D, d)
        ``W``, rows ``w_j ~ N(0, σ⁻²I)``.
    phases_ : ndarray of shape (D,)
        ``b``, entries ``~ U[0, 2π)``.
    """

    def __init__(self, n_features: int, sigma: float = 1.0, *, random_state: Any = None):
        super().__init__(n_features, random_state=random_state)
        self.sigma = check_positive(sigma, "sigma")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        seeds = rng.integers(0, 2**63, size=2)
        self.frequencies_ = (np.random.default_rng(seeds[0]).standard_normal((self.n_features, d))
                             / self.sigma)
        self.phases_ = np.random.default_rng(seeds[1]).uniform(0.0, 2.0 * np.pi, self.n_features)

    def _features(self, Xb: Data) -> np.ndarray:
        proj = np.asarray(Xb @ self.frequencies_.T, dtype=np.float64)  # sparse @ dense is dense
        proj += self.phases_
        np.cos(proj, out=proj)
        proj *= np.sqrt(2.0)
        return proj

    def _prefix(self, n_features: int) -> None:
        self.frequencies_ = self.frequencies_[:n_features]
        self.phases_ = self.phases_[:n_features]

    def _params(self) -> dict[str, Any]:
        return {"sigma": self.sigma, **super()._params()}


register(FeatureMapSpec(
    name="rff",
    feature_map=RandomFourierFeatures,
    kernel="gaussian",
    schema={"sigma": POSITIVE},
    summary="random Fourier features √2 cos(wᵀx + b), w ~ N(0, σ⁻²I), b ~ U[0, 2π)",
))
