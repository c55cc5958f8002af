"""Pivoted partial Cholesky of a kernel matrix, and the two Nyström center samplers built on it.

``K ≈ F Fᵀ`` with ``F`` of shape ``(n, r)`` built one pivot column at a time: at step ``t`` the
pivot ``p`` is chosen from the diagonal of the residual ``K − F Fᵀ``, the column
``K[:, p] − F F[p]ᵀ`` is scaled by ``1/√residual_pp`` and appended. ``F Fᵀ`` equals the Nyström
approximation ``K[:, I] K[I, I]⁺ K[I, :]`` of the pivots ``I`` chosen so far, so the pivots are
Nyström centers. Only the pivot columns of ``K`` are ever evaluated: ``O(n·r·(r + d))`` time,
``O(n·r)`` memory.

- **greedy** (incomplete Cholesky with column pivoting; Fine & Scheinberg 2001, the sampler of
  Bach 2013's figures): the pivot is the largest residual diagonal entry.
- **randomly pivoted** (RPCholesky; Chen, Epperly, Tropp & Webber 2023): the pivot is drawn with
  probability proportional to the residual diagonal. Its expected trace error after
  ``k ≥ r/ε + r·log(1/(ε·η))`` steps is at most ``(1 + ε)`` times the best rank-``r`` error, where
  ``η`` is the best rank-``r`` relative trace error (their Theorem 3.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernreg._validation import check_int, check_random_state
from kernreg.kernels import Kernel
from kernreg.solvers.blocks.centers import SAMPLERS, CenterSampler

__all__ = [
    "PIVOTING_RULES",
    "PartialCholesky",
    "PivotedCholeskySampler",
    "RPCholeskySampler",
    "kernel_partial_cholesky",
    "matrix_partial_cholesky",
    "partial_cholesky",
]

#: How the next pivot is chosen from the residual diagonal.
PIVOTING_RULES = ("greedy", "random", "uniform")


@dataclass(frozen=True)
class PartialCholesky:
    """A rank-``r`` partial Cholesky factor ``K ≈ F Fᵀ``.

    Attributes
    ----------
    factor : ndarray of shape (n, r)
        ``F``; lower triangular in pivot order (``F[pivots[s], t] = 0`` for ``s < t``).
    pivots : ndarray of shape (r,), int64
        The pivot rows in the order chosen (the first ``t`` of them give ``F[:, :t]``).
    residual_trace : ndarray of shape (r + 1,)
        ``tr(K − F[:, :t] F[:, :t]ᵀ)`` for ``t = 0 … r``.
    """

    factor: np.ndarray
    pivots: np.ndarray
    residual_trace: np.ndarray


def partial_cholesky(column: Callable[[int], np.ndarray], diag: np.ndarray, rank: int, *,
                     rule: str = "greedy", rng: Any = None, tol: float = 0.0,
                     order: Any = None) -> PartialCholesky:
    """Pivoted partial Cholesky from a column oracle.

    Parameters
    ----------
    column : callable
        ``column(j)`` returns ``K[:, j]`` (float64, shape ``(n,)``).
    diag : ndarray of shape (n,)
        ``diag(K)``.
    rank : int
        Maximal number of pivots.
    rule : {"greedy", "random", "uniform"}
        Pivot choice: largest residual diagonal, draw proportional to it (RPCholesky), or a
        uniform draw among the points not yet chosen (random columns, Bach 2013's baseline; a
        drawn point already in the span, to rounding, gets a zero column).
    rng : None, int or Generator
        Randomness of the ``random`` and ``uniform`` rules.
    tol : float, default 0
        Stop early once the residual trace is at most ``tol · tr K`` (and always once it is 0:
        the rank of ``K`` is exhausted).
    order : array of int, optional
        Pivots in a given order instead of a rule (e.g. another sampler's centers), at most
        ``rank`` of them; like the uniform rule, a point already in the span gets a zero
        column. This is the Cholesky factor of ``K[:, order]``'s Nyström approximations.

    Returns
    -------
    PartialCholesky
        With ``r ≤ rank`` columns (fewer when it stopped early).
    """
    if rule not in PIVOTING_RULES:
        raise ValueError(f"rule must be one of {PIVOTING_RULES}, got {rule!r}")
    if order is not None:
        order = np.asarray(order, dtype=np.int64)
        rank = min(int(rank), order.size)
    residual = np.array(diag, dtype=np.float64, copy=True)
    n = residual.shape[0]
    rank = check_int(rank, "rank", minimum=0)
    rank = min(rank, n)
    rng = check_random_state(rng, "rng")
    F = np.zeros((n, rank))
    pivots = np.empty(rank, dtype=np.int64)
    chosen = np.zeros(n, dtype=bool)
    trace0 = float(residual.sum())
    scale = max(float(np.max(diag, initial=0.0)), 0.0)
    traces = [trace0]
    r = 0
    while r < rank:
        residual[chosen] = 0.0  # a pivot's residual is 0 in exact arithmetic
        np.clip(residual, 0.0, None, out=residual)  # rounding can dip below 0
        total = float(residual.sum())
        # relative to diag's scale: below it the residual is rounding noise, not rank
        if total <= max(tol * trace0, 1e-14 * n * scale):
            break
        if order is not None:
            p = int(order[r])
            if residual[p] <= 1e-12 * scale:  # in the span already: a zero column
                chosen[p] = True
                pivots[r] = p
                r += 1
                traces.append(total)
                continue
        elif rule == "greedy":
            p = int(np.argmax(residual))
        elif rule == "random":
            p = int(rng.choice(n, p=residual / total))
        else:
            free = np.flatnonzero(~chosen)
            if free.size == 0:
                break
            p = int(free[rng.integers(free.size)])
            if residual[p] <= 1e-12 * scale:
                # already in the span (to rounding): the draw counts but adds a zero column
                # (dividing by √residual would only amplify rounding noise)
                chosen[p] = True
                pivots[r] = p
                r += 1
                traces.append(total)
                continue
        g = np.asarray(column(p), dtype=np.float64) - F[:, :r] @ F[p, :r]
        F[:, r] = g / np.sqrt(residual[p])
        residual -= F[:, r] ** 2
        chosen[p] = True
        pivots[r] = p
        r += 1
        traces.append(float(np.clip(residual, 0.0, None)[~chosen].sum()))
    return PartialCholesky(F[:, :r], pivots[:r], np.asarray(traces))


def matrix_partial_cholesky(K: np.ndarray, rank: int, **kwargs: Any) -> PartialCholesky:
    """:func:`partial_cholesky` of an explicit PSD matrix ``K``."""
    K = np.asarray(K, dtype=np.float64)
    return partial_cholesky(lambda j: K[:, j], np.diag(K), rank, **kwargs)


def kernel_partial_cholesky(X: Any, kernel: Kernel, rank: int, **kwargs: Any) -> PartialCholesky:
    """:func:`partial_cholesky` of ``kernel(X)``, evaluating only the pivot columns."""
    return partial_cholesky(lambda j: np.asarray(kernel(X, X[j:j + 1]), np.float64)[:, 0],
                            kernel.diag(X), rank, **kwargs)


class _CholeskySampler(CenterSampler):
    rule = "greedy"

    def _select(self, X: Any, m: int, rng: np.random.Generator,
                kernel: Kernel | None) -> np.ndarray:
        if kernel is None:
            raise ValueError(f"the {self.name} sampler needs the solver's kernel")
        pivots = kernel_partial_cholesky(X, kernel, m, rule=self.rule, rng=rng).pivots
        if pivots.size < m:  # K has rank < m: any further point adds nothing; fill uniformly
            rest = np.setdiff1d(np.arange(X.shape[0]), pivots)
            pivots = np.concatenate([pivots, rng.choice(rest, size=m - pivots.size,
                                                        replace=False)])
        return pivots


class PivotedCholeskySampler(_CholeskySampler):
    """Centers = the pivots of incomplete Cholesky with greedy column pivoting (largest residual
    diagonal first; deterministic up to ties). Costs ``O(n·m·(m + d))``: ``m`` kernel columns."""

    name = "pivoted_cholesky"
    rule = "greedy"


class RPCholeskySampler(_CholeskySampler):
    """Centers = the pivots of randomly pivoted Cholesky (Chen, Epperly, Tropp & Webber): each
    pivot drawn with probability proportional to the residual diagonal. ``O(n·m·(m + d))``."""

    name = "rpcholesky"
    rule = "random"


SAMPLERS[PivotedCholeskySampler.name] = PivotedCholeskySampler
SAMPLERS[RPCholeskySampler.name] = RPCholeskySampler
