"""λ-ridge leverage scores (LiM Definition 1): exact, and a blocked uniform-subsample estimate.

``l_i(λ) = (K (K + λnI)⁻¹)_ii``. Sampling Nyström centers with probabilities proportional to
(approximate) leverage scores lets m scale with the effective dimension ``Σ_i l_i(λ)`` instead
of the worst-case ``max_i l_i`` (LiM Theorem 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_positive, check_random_state
from kernreg.kernels import Kernel
from kernreg.solvers.blocks.linalg import sym

__all__ = ["approximate_leverage_scores", "exact_leverage_scores"]


def exact_leverage_scores(K: np.ndarray, lam: float) -> np.ndarray:
    """``diag(K (K + λnI)⁻¹)`` of a full ``n × n`` kernel matrix (``O(n³)``; for checks)."""
    n = K.shape[0]
    lam = check_positive(lam, "lam")
    cf = la.cho_factor(sym(K) + lam * n * np.eye(n), check_finite=False)
    # K (K + λnI)⁻¹ = I − λn (K + λnI)⁻¹: its diagonal needs the inverse's diagonal only
    inv = la.cho_solve(cf, np.eye(n), check_finite=False)
    return 1.0 - lam * n * np.diag(inv)


def approximate_leverage_scores(X: Any, kernel: Kernel, lam: float, subsample: int,
                                rng: Any = None) -> np.ndarray:
    """Leverage scores estimated from ``subsample`` uniformly drawn columns ``S``.

    ``l̃_i = (k(x_i, x_i) − k_iSᵀ (K_SS + λnI)⁻¹ k_iS) / (λn)``: the exact score when ``S`` is
    every point (then it equals ``(K(K + λnI)⁻¹)_ii``), and an over-estimate by at most the
    Nyström error of ``S`` otherwise. Blocked over rows: ``O(n·s·(s + d))`` time,
    ``O(s² + block)`` memory.
    """
    n = X.shape[0]
    lam = check_positive(lam, "lam")
    s = min(int(subsample), n)
    idx = np.sort(check_random_state(rng, "rng").choice(n, size=s, replace=False))
    C = X[idx]
    K_ss = np.asarray(kernel(C), dtype=np.float64)
    R = la.cholesky(sym(K_ss) + lam * n * np.eye(s), lower=False, check_finite=False)
    diag = kernel.diag(X)
    scores = np.empty(n)
    for rows, Kb in kernel.blocks(X, C, reuse_buffer=True):
        B = la.solve_triangular(R, np.asarray(Kb, dtype=np.float64).T, trans="T",
                                check_finite=False)  # R⁻ᵀ k_iS for the block's rows
        scores[rows] = (diag[rows] - np.einsum("ij,ij->j", B, B)) / (lam * n)
    return np.clip(scores, np.finfo(np.float64).tiny, None)  # rounding can dip below 0
