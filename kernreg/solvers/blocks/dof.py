"""Degrees of freedom of kernel ridge regression at regularization λ, three definitions.

With ``S(λ) = K (K + nλI)⁻¹`` (the smoother) and its diagonal ``l_i(λ)`` (the λ-ridge leverage
scores):

- ``d_eff = tr S = Σ_i l_i`` — the effective dimension of LiM and NYTRO;
- ``d = n·max_i l_i`` — Bach 2013's maximal marginal degrees of freedom (eq. 5), NYTRO's ``d̃``:
  uniform column sampling needs a rank proportional to it (Bach's Theorem 1);
- ``d_ave = tr S² = tr K²(K + nλI)⁻²`` — the classical degrees of freedom of the variance term
  (Bach §4.1), ``d_ave ≤ d_eff ≤ d``.

:func:`exact_degrees_of_freedom` needs ``K`` (one eigendecomposition serves a λ grid);
:func:`estimated_degrees_of_freedom` sees only ``rank`` columns of ``K`` (randomly pivoted
Cholesky): ``d_eff`` and ``d_ave`` of the Nyström approximation ``L ≼ K`` are lower bounds that
converge to the exact values as the rank grows; ``d`` comes with a lower bound (from ``L``) and an
upper bound (``L``'s scores plus the Cholesky residual's share), tight once the residual trace is
small against ``nλ``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg.kernels import Kernel
from kernreg.solvers.blocks.pivoted_cholesky import kernel_partial_cholesky

__all__ = ["DegreesOfFreedom", "estimated_degrees_of_freedom", "exact_degrees_of_freedom",
           "spectrum_degrees_of_freedom"]


@dataclass(frozen=True)
class DegreesOfFreedom:
    """``d_eff``, ``d`` (= ``d_max``) and ``d_ave`` on a λ grid (arrays of the grid's shape).

    ``d_max_upper``: an upper bound on ``d`` where ``d_max`` is only a lower bound (estimates);
    equal to ``d_max`` when exact.
    """

    lambdas: np.ndarray
    d_eff: np.ndarray
    d_max: np.ndarray
    d_ave: np.ndarray
    d_max_upper: np.ndarray


def _grid(lambdas: Any) -> np.ndarray:
    lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    if lambdas.ndim != 1 or not np.all(np.isfinite(lambdas)) or np.any(lambdas <= 0):
        raise ValueError("lambdas must be positive finite numbers")
    return lambdas


def _from_eigen(s: np.ndarray, U: np.ndarray, n: int, lambdas: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d_eff, n·max_i l_i and d_ave of ``U diag(s) Uᵀ`` (``U`` with orthonormal columns)."""
    w = s[:, None] / (s[:, None] + n * lambdas[None, :])  # (r, L)
    return w.sum(axis=0), n * ((U * U) @ w).max(axis=0), (w * w).sum(axis=0)


def spectrum_degrees_of_freedom(eigenvalues: Any, lambdas: Any, n: int
                                ) -> tuple[np.ndarray, np.ndarray]:
    """``d_eff`` and ``d_ave`` from the eigenvalues of ``K`` alone (for matrices whose spectrum
    is known in closed form, e.g. circulant ones, where ``d = d_eff``)."""
    s = np.clip(np.asarray(eigenvalues, dtype=np.float64), 0.0, None)
    w = s[:, None] / (s[:, None] + n * _grid(lambdas)[None, :])
    return w.sum(axis=0), (w * w).sum(axis=0)


def exact_degrees_of_freedom(K: Any, lambdas: Any) -> DegreesOfFreedom:
    """All three degrees of freedom of a full kernel matrix (``O(n³)`` once, ``O(n²)`` per λ)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    lambdas = _grid(lambdas)
    s, V = la.eigh((K + K.T) / 2.0, check_finite=False, driver="evd")
    d_eff, d_max, d_ave = _from_eigen(np.clip(s, 0.0, None), V, K.shape[0], lambdas)
    return DegreesOfFreedom(lambdas, d_eff, d_max, d_ave, d_max)


def estimated_degrees_of_freedom(X: Any, kernel: Kernel, lambdas: Any, rank: int,
                                 rng: Any = None) -> DegreesOfFreedom:
    """Degrees of freedom from ``rank`` randomly pivoted Cholesky columns of ``kernel(X)``.

    ``O(n·rank·(rank + d))`` time, ``O(n·rank)`` memory. ``d_eff``, ``d_max``, ``d_ave`` are
    those of the rank-``rank`` Nyström approximation ``L`` (lower bounds); ``d_max_upper`` is
    ``n·max_i min(1, l_i(L) + 2(tr E·l_i(L) + E_ii)/(λn))`` with ``E = K − L`` (an upper bound).
    """
    lambdas = _grid(lambdas)
    chol = kernel_partial_cholesky(X, kernel, rank, rule="random", rng=rng)
    F, n = chol.factor, X.shape[0]
    s, W = la.eigh(F.T @ F, check_finite=False)
    s = np.clip(s, 0.0, None)
    keep = s > 1e-12 * max(float(s.max(initial=0.0)), 1e-300)
    U = (F @ W[:, keep]) / np.sqrt(s[keep])
    d_eff, d_max, d_ave = _from_eigen(s[keep], U, n, lambdas)
    # upper bound: with K = L + E (E ≽ 0 the Cholesky residual), the variational form
    # l_i = min_y ‖Φᵀy − φ_i‖²/(λn) + ‖y‖² (K = ΦΦᵀ) at L's minimizer y gives
    # l_i(K) ≤ l_i(L) + 2(yᵀEy + E_ii)/(λn), with yᵀEy ≤ ‖E‖₂‖y‖² ≤ tr E · l_i(L)
    residual = np.clip(kernel.diag(X) - (F * F).sum(axis=1), 0.0, None)
    w = s[keep][:, None] / (s[keep][:, None] + n * lambdas[None, :])
    scores = (U * U) @ w  # l_i(L), (n, L)
    slack = 2.0 * (residual.sum() * scores + residual[:, None]) / (n * lambdas[None, :])
    upper = n * np.minimum(scores + slack, 1.0).max(axis=0)
    return DegreesOfFreedom(lambdas, d_eff, d_max, d_ave, np.maximum(upper, d_max))
