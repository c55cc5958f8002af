"""Recursive regularized least squares: the exact ridge solution, updated one row block at a time.

After the rows ``A = [a_1; …; a_t]`` (``p`` features) with targets ``B = [b_1; …; b_t]`` (``k``
outputs) the block holds ``W_t = argmin ‖AW − B‖² + λ‖W − W₀‖²`` — the batch ridge solution of
the rows seen so far, regularized towards a prior ``W₀`` (zero by default), with no ``1/t``
scaling of λ. Two exact forms of the same recursion:

``"cholesky"``
    The upper factor ``R`` of ``AᵀA + λI`` (starting at ``√λ I``) takes a rank-one update for a
    single row (:func:`~kernreg.solvers.blocks.cholupdate.cholesky_update`, ``O(p²)`` in ``p``
    small numpy calls) or, for a block of ``r > 1`` rows, becomes the triangular factor of
    ``[R; A_r]`` (one LAPACK QR, ``O((p + r)p²)``); ``W`` is two triangular solves against
    ``AᵀB + λW₀`` when asked for. Stable at any λ.
``"inverse"``
    The inverse ``P = (AᵀA + λI)⁻¹`` and ``W`` take the Woodbury update of a block of ``r``
    rows, ``K = PAᵣᵀ(I + AᵣPAᵣᵀ)⁻¹``, ``W += K(Bᵣ − AᵣW)``, ``P −= KAᵣP`` (the classical RLS
    gain, ``O(p²r)`` in BLAS). Faster, but ``P`` starts at ``I/λ``: with a small λ and
    ill-conditioned rows its rounding accumulates (measured on the Chapter 8 simulation:
    predictions 5e-4 off the batch solution after 2000 samples at λ = 1e-6, 1e-13 for the
    Cholesky form).
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.linalg as la

from kernreg.solvers.blocks.cholupdate import cholesky_update

__all__ = ["RECURSIVE_FORMS", "RecursiveRidge", "batch_ridge"]

#: The two exact forms of the recursion.
RECURSIVE_FORMS = ("cholesky", "inverse")


def batch_ridge(A: np.ndarray, B: np.ndarray, lam: float,
                prior: np.ndarray | None = None) -> np.ndarray:
    """``argmin_W ‖AW − B‖² + λ‖W − W₀‖²`` in one solve (the reference of the recursion).

    Parameters
    ----------
    A : ndarray of shape (t, p)
    B : ndarray of shape (t, k)
    lam : float
        λ > 0.
    prior : ndarray of shape (p, k), optional
        ``W₀``; zero when left out.

    Returns
    -------
    W : ndarray of shape (p, k)
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64).reshape(A.shape[0], -1)
    rhs = A.T @ B
    if prior is not None:
        rhs = rhs + lam * np.asarray(prior, dtype=np.float64).reshape(rhs.shape)
    H = A.T @ A + lam * np.eye(A.shape[1])
    return la.solve(H, rhs, assume_a="pos")


class RecursiveRidge:
    """Ridge regression of ``k`` outputs on ``p`` features, updated by blocks of rows.

    Parameters
    ----------
    n_features : int
        ``p``.
    n_outputs : int
        ``k``.
    lam : float
        λ > 0: the penalty ``λ‖W − W₀‖²`` (not scaled by the number of rows).
    form : {"cholesky", "inverse"}, default "inverse"
        How the normal equations are kept (module docstring).
    prior : ndarray of shape (p, k), optional
        ``W₀``, the coefficients before any row; zero when left out.

    Attributes
    ----------
    n_rows_ : int
        Rows seen so far.
    """

    def __init__(self, n_features: int, n_outputs: int, lam: float, *, form: str = "inverse",
                 prior: np.ndarray | None = None):
        if form not in RECURSIVE_FORMS:
            raise ValueError(f"form must be one of {RECURSIVE_FORMS}, got {form!r}")
        if not lam > 0:
            raise ValueError(f"lam must be positive, got {lam!r}")
        self.n_features, self.n_outputs, self.lam, self.form = n_features, n_outputs, lam, form
        W0 = (np.zeros((n_features, n_outputs)) if prior is None
              else np.array(prior, dtype=np.float64).reshape(n_features, n_outputs))
        self.n_rows_ = 0
        if form == "inverse":
            self._P = np.eye(n_features) / lam
            self._W = W0
        else:
            self._R = np.sqrt(lam) * np.eye(n_features)
            self._rhs = lam * W0  # AᵀB + λW₀
            self._W = W0.copy()
            self._stale = False  # W lags the factor until the next read

    def update(self, A: np.ndarray, B: np.ndarray) -> RecursiveRidge:
        """Add the rows ``A`` (r, p) with targets ``B`` (r, k); ``r = 1`` is a rank-one step."""
        A = np.asarray(A, dtype=np.float64).reshape(-1, self.n_features)
        B = np.asarray(B, dtype=np.float64).reshape(A.shape[0], self.n_outputs)
        if self.form == "inverse":
            PAt = self._P @ A.T
            S = A @ PAt
            S[np.diag_indices_from(S)] += 1.0
            K = la.solve(S, PAt.T, assume_a="pos").T  # (p, r) gain; S is r × r
            self._W += K @ (B - A @ self._W)
            self._P -= K @ PAt.T
            self._P = 0.5 * (self._P + self._P.T)  # keep P symmetric as rounding accumulates
        elif A.shape[0] == 1:
            cholesky_update(self._R, A[0])
            self._rhs += A.T @ B
            self._stale = True
        else:  # r rows at once: the triangular factor of [R; A] (one LAPACK QR, no Python sweep)
            R = la.qr(np.vstack([self._R, A]), mode="r", check_finite=False)[0][:self.n_features]
            R *= np.where(np.diag(R) < 0, -1.0, 1.0)[:, None]  # rows' signs: keep diag ≥ 0
            self._R = R
            self._rhs += A.T @ B
            self._stale = True
        self.n_rows_ += A.shape[0]
        return self

    @property
    def coef(self) -> np.ndarray:
        """``W_t`` (p, k): the ridge solution of the rows seen so far."""
        if self.form == "cholesky" and self._stale:
            z = la.solve_triangular(self._R, self._rhs, trans="T", check_finite=False)
            self._W = la.solve_triangular(self._R, z, check_finite=False)
            self._stale = False
        return self._W

    def predict(self, A: np.ndarray) -> np.ndarray:
        """``A W_t`` for rows ``A`` (n, p): (n, k)."""
        return np.asarray(A, dtype=np.float64).reshape(-1, self.n_features) @ self.coef

    def copy(self) -> RecursiveRidge:
        """An independent copy (to run several streams on from one state)."""
        return copy.deepcopy(self)
