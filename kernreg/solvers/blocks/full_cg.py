"""Conjugate gradient on the full KRLS system ``(K + λn·I) α = y`` with a low-rank
preconditioner ``P_λ = F Fᵀ + λn·I`` (``K ≈ F Fᵀ``, rank r): exact KRLS without ``K``'s
factorization.

``P_λ⁻¹ v = (v − F (λn·I + FᵀF)⁻¹ Fᵀ v) / (λn)`` (Woodbury), every λ from one
eigendecomposition of the ``r × r`` ``FᵀF``: ``O(nr)`` per application. ``K`` enters only
through ``v ↦ K v`` (a stored ``K``, or its blocks re-evaluated per product when ``n²`` does not
fit the budget). Díaz, Epperly, Frangella, Tropp & Webber (2023, "Robust, randomized
preconditioning for kernel ridge regression") take ``F`` from randomly pivoted Cholesky: when
K's eigenvalues decay fast enough that few exceed λn, the preconditioned system is well
conditioned and CG converges in tens of iterations, where plain CG needs thousands.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg as la

__all__ = ["FullCG", "LowRankPreconditioner"]


class LowRankPreconditioner:
    """``P_μ = F Fᵀ + μI`` for every shift ``μ`` from one eigendecomposition of ``FᵀF``."""

    def __init__(self, F: np.ndarray) -> None:
        self.F = np.asarray(F, dtype=np.float64)
        s, self.V = la.eigh(self.F.T @ self.F, check_finite=False)
        self.s = np.maximum(s, 0.0)

    def solve(self, v: np.ndarray, mu: float) -> np.ndarray:
        """``P_μ⁻¹ v``."""
        inner = self.V @ ((self.V.T @ (self.F.T @ v)) / (mu + self.s))
        return (v - self.F @ inner) / mu


class FullCG:
    """Preconditioned CG on ``(K + μI) α = y`` from ``alpha`` (a warm start): :meth:`step`
    one iteration (one product with ``K``), :meth:`converged` the relative residual at
    ``tol`` (the interface of :func:`~kernreg.solvers.blocks.cg.walk_lambdas`)."""

    def __init__(self, matvec: Callable[[np.ndarray], np.ndarray], y: np.ndarray,
                 pre: LowRankPreconditioner, mu: float, alpha: np.ndarray, tol: float) -> None:
        self.matvec, self.pre, self.mu = matvec, pre, mu
        self.alpha = np.array(alpha, dtype=np.float64, copy=True)
        self.r = y - self._system(self.alpha)
        self.z = pre.solve(self.r, mu)
        self.p = self.z.copy()
        self.rz = float(self.r @ self.z)
        self.stop_at = tol * float(np.linalg.norm(y))

    def _system(self, v: np.ndarray) -> np.ndarray:
        return self.matvec(v) + self.mu * v

    def converged(self) -> bool:
        """Whether ``‖y − (K + μI)α‖ ≤ tol·‖y‖``."""
        return bool(np.linalg.norm(self.r) <= self.stop_at)

    def step(self) -> np.ndarray:
        """One iteration; the new α."""
        Ap = self._system(self.p)
        step = self.rz / float(self.p @ Ap)
        self.alpha = self.alpha + step * self.p
        self.r = self.r - step * Ap
        self.z = self.pre.solve(self.r, self.mu)
        rz = float(self.r @ self.z)
        self.p = self.z + (rz / self.rz) * self.p
        self.rz = rz
        return self.alpha

    def raveled_step(self) -> np.ndarray:
        """:meth:`step` (α is a vector: already the iteration loop's column)."""
        return self.step()
