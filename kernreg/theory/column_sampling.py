"""Prediction with column-sampling approximations of rank p, for every prefix p of one pivoted
Cholesky factor, and the sufficient rank of Bach 2013 §5.

A pivoted partial Cholesky factor ``F`` (``n × P``) gives, for every ``p ≤ P``, the Nyström
approximation ``L_p = F_p F_pᵀ`` of its first ``p`` pivots (``F_p`` = first ``p`` columns). Ridge
regression on the features ``F_p`` (Bach's §4.4 algorithm, step 3) is Nyström KRLS with those
centers; ``G = FᵀF`` and ``Fᵀy`` computed once serve every prefix (their leading blocks).

- :func:`prefix_insample_risk`: Bach's fixed-design criterion, ``(1/n) E_ε‖ẑ_L − z‖²`` of
  ``ẑ_L = L_p(L_p + nλI)⁻¹y``, in closed form in the noise;
- :func:`prefix_test_mse`: the classical criterion (Bach's Figure 3), the test mean squared error
  of the rank-``p`` predictor, given the test rows of the factor;
- :func:`sufficient_rank`: the smallest ``p`` whose criterion is at most ``(1 + tol)`` times the
  full-rank one (the first crossing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.linalg as la

__all__ = ["prefix_insample_risk", "prefix_test_mse", "rank_grid", "sufficient_rank"]


def rank_grid(limit: int, growth: float = 1.04) -> np.ndarray:
    """Ranks ``1, 2, …`` growing by at most ``growth`` per step (every integer while small)."""
    ranks, p = [], 1
    while p <= limit:
        ranks.append(p)
        p = max(p + 1, int(np.floor(p * growth)))
    return np.asarray(ranks, dtype=np.int64)


def prefix_insample_risk(F: np.ndarray, z: np.ndarray, lam: float, noise: float,
                         ranks: Sequence[int]) -> np.ndarray:
    """``(1/n) E_ε‖L_p(L_p + nλI)⁻¹(z + ε) − z‖²`` for each ``p`` in ``ranks``
    (``ε`` i.i.d., variance ``noise²``)."""
    n = F.shape[0]
    G, b, zz = F.T @ F, F.T @ z, float(z @ z)
    out = np.empty(len(ranks))
    for j, p in enumerate(ranks):
        s, W = la.eigh(G[:p, :p], check_finite=False)
        s = np.clip(s, 0.0, None)
        keep = s > 1e-13 * max(float(s.max()), 1e-300)
        s, W = s[keep], W[:, keep]
        c = (W.T @ b[:p]) / np.sqrt(s)  # coordinates of z on L_p's eigenvectors
        shrink = s / (s + n * lam)
        bias = zz - c @ c + ((1.0 - shrink) ** 2 * c * c).sum()
        out[j] = (max(bias, 0.0) + noise ** 2 * (shrink ** 2).sum()) / n
    return out


def prefix_test_mse(F: np.ndarray, F_test: np.ndarray, y: np.ndarray, y_test: np.ndarray,
                    lam: float, ranks: Sequence[int]) -> np.ndarray:
    """Test MSE of ridge regression on the first ``p`` factor columns, ``w = (F_pᵀF_p +
    nλI)⁻¹F_pᵀy``, predictions ``F_test,p w``, for each ``p`` in ``ranks``."""
    n = F.shape[0]
    G, b = F.T @ F, F.T @ y
    out = np.empty(len(ranks))
    for j, p in enumerate(ranks):
        w = la.solve(G[:p, :p] + n * lam * np.eye(p), b[:p], assume_a="pos",
                     check_finite=False)
        out[j] = float(np.mean((F_test[:, :p] @ w - y_test) ** 2))
    return out


def sufficient_rank(criterion: Callable[[np.ndarray], np.ndarray], reference: float,
                    limit: int, tol: float = 0.01, growth: float = 1.04) -> int | None:
    """The smallest rank ``p ≤ limit`` with ``criterion([p]) ≤ (1 + tol)·reference``.

    ``criterion`` maps an array of ranks to their errors. The ranks are scanned on
    :func:`rank_grid`; between the last grid rank above the target and the first below it every
    integer is tried, so the answer is the first crossing up to the grid's monotone stretches.
    Returns ``None`` when no rank up to ``limit`` reaches the target.
    """
    grid = rank_grid(limit, growth)
    target = (1.0 + tol) * reference
    errors = criterion(grid)
    hit = np.flatnonzero(errors <= target)
    if hit.size == 0:
        return None
    j = int(hit[0])
    if j == 0 or grid[j] == grid[j - 1] + 1:
        return int(grid[j])
    between = np.arange(grid[j - 1] + 1, grid[j] + 1)
    inner = criterion(between)
    return int(between[int(np.flatnonzero(inner <= target)[0])])

