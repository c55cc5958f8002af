"""Rank-one modifications of Cholesky factors, and appending a row/column to a factored matrix.

scipy has QR up/down-dates but no Cholesky ones. :func:`cholesky_update` is the classical
LINPACK ``dchud``/``dchdd`` sweep of Givens-like rotations (``O(t²)``), vectorised over any
leading batch dimensions so that one sweep updates the factors of many λ at once.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la

__all__ = ["cholesky_append_bordered", "cholesky_append_rank_one", "cholesky_update"]


def cholesky_update(R: np.ndarray, x: np.ndarray, *, downdate: bool = False) -> np.ndarray:
    """Replace upper-triangular ``R`` (``RᵀR = M``) in place by the factor of ``M ± xxᵀ``.

    Parameters
    ----------
    R : ndarray of shape (..., t, t), float64
        Upper Cholesky factors with a non-negative diagonal; overwritten. A zero diagonal entry
        is allowed in the last row only (the LiM append starts from ``[[R, 0], [0, 0]]``).
    x : ndarray of shape (..., t)
        Not modified.
    downdate : bool, default False
        ``M − xxᵀ`` instead of ``M + xxᵀ``.

    Returns
    -------
    R : the same array, updated

    Raises
    ------
    numpy.linalg.LinAlgError
        A downdate would leave ``M − xxᵀ`` not positive definite.
    """
    x = np.array(x, dtype=np.float64)  # own copy: the sweep overwrites it
    t = R.shape[-1]
    sign = -1.0 if downdate else 1.0
    for k in range(t):
        rkk = R[..., k, k]
        xk = x[..., k]
        r2 = rkk * rkk + sign * xk * xk
        if downdate and np.any(r2 <= 0.0):
            raise np.linalg.LinAlgError(
                f"Cholesky downdate: the matrix is not positive definite at row {k}"
            )
        r = np.sqrt(r2)
        if k + 1 < t:
            c = (r / rkk)[..., None]
            s = (xk / rkk)[..., None]
            row = R[..., k, k + 1 :]
            row += sign * s * x[..., k + 1 :]
            row /= c
            x[..., k + 1 :] *= c
            x[..., k + 1 :] -= s * row
        R[..., k, k] = r
    return R


def cholesky_append_rank_one(R: np.ndarray, c: np.ndarray, gamma: np.ndarray | float) -> None:
    """Factor ``[[M, c], [cᵀ, γ]]`` from the factor of ``M`` by one update and one downdate.

    This is LiM Algorithm 1: with ``g = √(1 + γ)``, ``u = (c/(1+g), g)`` and
    ``v = (c/(1+g), −1)``, ``[[RᵀR, 0], [0, 0]] + uuᵀ − vvᵀ = [[M, c], [cᵀ, γ]]``.

    Parameters
    ----------
    R : ndarray of shape (..., t + 1, t + 1)
        Its leading ``t × t`` block holds the factor of ``M``; the last row and column are
        overwritten with the factor of the bordered matrix.
    c : ndarray of shape (..., t)
    gamma : float or ndarray of shape (...)
    """
    t = R.shape[-1] - 1
    g = np.sqrt(1.0 + np.asarray(gamma, dtype=np.float64))
    u = np.empty((*R.shape[:-2], t + 1))
    u[..., :t] = c / (1.0 + g)[..., None]
    v = u.copy()
    u[..., t] = g
    v[..., t] = -1.0
    R[..., t, :] = 0.0
    R[..., :, t] = 0.0
    cholesky_update(R, u)
    cholesky_update(R, v, downdate=True)


def cholesky_append_bordered(R: np.ndarray, C: np.ndarray, D: np.ndarray, s: int) -> None:
    """Extend the factor of ``M[:s, :s]`` (in ``R[:s, :s]``) to ``M[:e, :e]`` in place.

    Block form of the same append (``e = s + b`` for ``b`` new centers): ``R₁₂ = R₁₁⁻ᵀ C`` and
    ``R₂₂ = chol(D − R₁₂ᵀR₁₂)`` with ``C = M[:s, s:e]`` and ``D = M[s:e, s:e]``. One triangular
    solve and one small Cholesky, both in LAPACK, instead of ``2b`` rotation sweeps.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``M[:e, :e]`` is not numerically positive definite.
    """
    e = s + D.shape[0]
    if s:
        R12 = la.solve_triangular(R[:s, :s], C, trans="T", lower=False, check_finite=False)
        R[:s, s:e] = R12
        D = D - R12.T @ R12
    R[s:e, s:e] = la.cholesky(D, lower=False, check_finite=False)
    R[s:e, :s] = 0.0
