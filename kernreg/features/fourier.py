"""Random Fourier features (Rahimi & Recht 2007) of the Gaussian and the Matérn kernels.

``ψ_j(x) = √2 cos(w_jᵀx + b_j)`` with ``b_j ~ U[0, 2π)`` and ``w_j`` from the kernel's spectral
density: ``N(0, σ⁻²I)`` for the Gaussian kernel (``E[ψ_j(x)ψ_j(x')] = exp(−‖x − x'‖²/(2σ²))``),
the multivariate Student t with ``2ν`` degrees of freedom and scale ``σ⁻²I`` for the Matérn
kernel of smoothness ν and length scale σ. Frequencies, phases (and the Matérn radial factors)
come from separate seeded streams, drawn feature by feature (row-major ``W``), so a draw is
prefix-consistent.

The map ``φ`` is written once against the array namespace of its operands
(:func:`fourier_features`): numpy on the host, a device's torch arrays on a device
(:meth:`~kernreg.features.base.FeatureMap.to`), from the same ``W`` and ``b`` drawn on the host.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from array_api_compat import array_namespace

from kernreg._validation import check_positive
from kernreg.features.base import FeatureMap, matern_radial_scales
from kernreg.features.registry import FeatureMapSpec, register
from kernreg.kernels.base import Data
from kernreg.kernels.registry import POSITIVE

__all__ = ["MaternFourierFeatures", "RandomFourierFeatures", "fourier_features"]


def fourier_features(proj: Any, phases: Any) -> Any:
    """``√2 cos(proj + b)`` for the projections ``proj = XWᵀ`` ``(rows, D)`` (overwritten) and
    the phases ``b`` ``(D,)``: float64 arrays of one namespace (numpy, or a device's torch)."""
    xp = array_namespace(proj, phases)
    proj += phases
    proj = xp.cos(proj)  # one temporary block: the array API has no in-place cos
    proj *= math.sqrt(2.0)
    return proj


class RandomFourierFeatures(FeatureMap):
    """Random Fourier features ``√2 cos(Wx + b)`` of the Gaussian kernel of bandwidth σ.

    Parameters
    ----------
    n_components : int
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

    def __init__(self, n_components: int, sigma: float = 1.0, *, random_state: Any = None):
        super().__init__(n_components, random_state=random_state)
        self.sigma = check_positive(sigma, "sigma")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        seeds = rng.integers(0, 2**63, size=2)
        self.frequencies_ = (np.random.default_rng(seeds[0]).standard_normal((self.n_components, d))
                             / self.sigma)
        self.phases_ = np.random.default_rng(seeds[1]).uniform(0.0, 2.0 * np.pi, self.n_components)

    def _features(self, Xb: Data) -> np.ndarray:
        proj = np.asarray(Xb @ self.frequencies_.T, dtype=np.float64)  # sparse @ dense is dense
        return fourier_features(proj, self.phases_)

    def _device_params(self) -> tuple[np.ndarray, ...]:
        return self.frequencies_, self.phases_

    def _features_xp(self, Xb: Any, params: tuple[Any, ...]) -> Any:
        W, b = params
        return fourier_features(Xb @ W.T, b)

    def _prefix(self, n_components: int) -> None:
        self.frequencies_ = self.frequencies_[:n_components]
        self.phases_ = self.phases_[:n_components]

    def _params(self) -> dict[str, Any]:
        return {"sigma": self.sigma, **super()._params()}


class MaternFourierFeatures(RandomFourierFeatures):
    """Random Fourier features ``√2 cos(Wx + b)`` of the Matérn kernel.

    Parameters
    ----------
    n_components : int
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

    def __init__(self, n_components: int, sigma: float = 1.0, nu: float = 1.5, *,
                 random_state: Any = None):
        super().__init__(n_components, sigma, random_state=random_state)
        self.nu = check_positive(nu, "nu")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        seeds = rng.integers(0, 2**63, size=3)
        radial = matern_radial_scales(np.random.default_rng(seeds[2]), self.nu, self.n_components)
        self.frequencies_ = (np.random.default_rng(seeds[0]).standard_normal((self.n_components, d))
                             * (radial / self.sigma)[:, None])
        self.phases_ = np.random.default_rng(seeds[1]).uniform(0.0, 2.0 * np.pi, self.n_components)

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
