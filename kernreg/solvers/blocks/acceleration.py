"""Update rules of the iterative Nyström solver: Landweber, or the accelerated ν-method.

Both take ``d_t = γ ∇½‖Aβ − y‖²`` at ``β_{t−1}`` (``γ = 1/‖A‖²``) and move ``β`` in place:

* Landweber: ``β_t = β_{t−1} − d_t``.
* ν-method (Brakhage; Engl, Hanke & Neubauer, *Regularization of Inverse Problems*, §6.3):
  ``β_t = β_{t−1} + μ_t (β_{t−1} − β_{t−2}) − ω_t d_t`` with the Chebyshev-like weights below.
  Its iterate ``t`` regularizes about as much as Landweber's iterate ``t²``, so early stopping
  needs roughly the square root of the iterations; ``ν ≥ 1`` is its qualification.
"""

from __future__ import annotations

import numpy as np

from kernreg._validation import check_positive

__all__ = ["ACCELERATIONS", "LandweberUpdate", "NuMethodUpdate", "make_update"]

ACCELERATIONS = ("none", "nu")


class LandweberUpdate:
    """``β ← β − d``."""

    def __call__(self, beta: np.ndarray, d: np.ndarray) -> None:
        beta -= d


class NuMethodUpdate:
    """``β ← β + μ_t (β − β_prev) − ω_t d``, counting ``t`` from 1."""

    def __init__(self, nu: float = 1.0) -> None:
        self.nu = check_positive(nu, "nu")
        self.t = 0
        self.prev: np.ndarray | None = None

    def weights(self, t: int) -> tuple[float, float]:
        """``(μ_t, ω_t)``; ``μ_1 = 0`` and ``ω_1 = (4ν + 2)/(4ν + 1)``."""
        v = self.nu
        mu = ((t - 1) * (2 * t - 3) * (2 * t + 2 * v - 1)
              / ((t + 2 * v - 1) * (2 * t + 4 * v - 1) * (2 * t + 2 * v - 3)))
        omega = 4 * (2 * t + 2 * v - 1) * (t + v - 1) / ((t + 2 * v - 1) * (2 * t + 4 * v - 1))
        return mu, omega

    def __call__(self, beta: np.ndarray, d: np.ndarray) -> None:
        self.t += 1
        mu, omega = self.weights(self.t)
        previous = beta.copy()
        if self.prev is not None and mu != 0.0:
            beta += mu * (beta - self.prev)
        beta -= omega * d
        self.prev = previous


def make_update(acceleration: str, nu: float = 1.0) -> LandweberUpdate | NuMethodUpdate:
    """A fresh update rule (the ν-method keeps state: one per path)."""
    if acceleration == "none":
        return LandweberUpdate()
    if acceleration == "nu":
        return NuMethodUpdate(nu)
    raise ValueError(f"acceleration must be one of {list(ACCELERATIONS)}, got {acceleration!r}")
