"""Random Fourier features (Rahimi & Recht 2007) of the Gaussian and the Matérn kernels.

``ψ_j(x) = √2 cos(w_jᵀx + b_j)`` with ``b_j ~ U[0, 2π)`` and ``w_j`` from the kernel's spectral
density: ``N(0, σ⁻²I)`` for the Gaussian kernel (``E[ψ_j(x)ψ_j(x')] = exp(−‖x − x'‖²/(2σ²))``),
the multivariate Student t with ``2ν`` degrees of freedom and scale ``σ⁻²I`` for the Matérn
kernel of smoothness ν and length scale σ. Frequencies, phases (and the Matérn radial factors)
come from separate seeded streams, drawn feature by feature (row-major ``W``), so a draw is
prefix-consistent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_positive
from kernreg.features.base import FeatureMap, matern_radial_scales
from kernreg.features.registry import FeatureMapSpec, register
from kernreg.kernels.base import Data
from kernreg.kernels.registry import POSITIVE

__all__ = ["MaternFourierFeatures", "RandomFourierFeatures"]


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


class MaternFourierFeatures(RandomFourierFeatures):
    """Random Fourier features ``√2 cos(Wx + b)`` of the Matérn kernel.

    Parameters
    ----------
    n_features : int
        Number of features ``D``.
    sigma : float, default 1.0
        Length scale σ > 0 of the Matérn kernel approximated.
    nu : float, default 1.5
        Smoothness ν > 0.
    random_state : None, int or numpy.random.Generator
        Seed of the draw.

    Attributes
    ----------
    frequencies_ : ndarray of shape (D, d)
        ``W``, rows ``w_j = z_j √(2ν/g_j)/σ``, ``z_j ~ N(0, I)``, ``g_j ~ χ²(2ν)``.
    phases_ : ndarray of shape (D,)
        ``b``, entries ``~ U[0, 2π)``.
    """

    def __init__(self, n_features: int, sigma: float = 1.0, nu: float = 1.5, *,
                 random_state: Any = None):
        super().__init__(n_features, sigma, random_state=random_state)
        self.nu = check_positive(nu, "nu")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        seeds = rng.integers(0, 2**63, size=3)
        radial = matern_radial_scales(np.random.default_rng(seeds[2]), self.nu, self.n_features)
        self.frequencies_ = (np.random.default_rng(seeds[0]).standard_normal((self.n_features, d))
                             * (radial / self.sigma)[:, None])
        self.phases_ = np.random.default_rng(seeds[1]).uniform(0.0, 2.0 * np.pi, self.n_features)

    def _params(self) -> dict[str, Any]:
        return {"nu": self.nu, **super()._params()}


register(FeatureMapSpec(
    name="rff",
    feature_map=RandomFourierFeatures,
    kernel="gaussian",
    schema={"sigma": POSITIVE},
    summary="random Fourier features √2 cos(wᵀx + b), w ~ N(0, σ⁻²I), b ~ U[0, 2π)",
))
register(FeatureMapSpec(
    name="rff_matern",
    feature_map=MaternFourierFeatures,
    kernel="matern",
    schema={"sigma": POSITIVE, "nu": POSITIVE},
    defaults={"nu": 1.5},
    summary="random Fourier features √2 cos(wᵀx + b), w from the Matérn spectral density "
            "(Student t with 2ν degrees of freedom)",
))
