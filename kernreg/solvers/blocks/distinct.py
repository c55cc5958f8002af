"""Repeated training rows: a kernel system on the distinct rows that gives the same answer.

When ``u < n`` of the training inputs are distinct, ``K = P K_u Pᵀ`` with ``K_u`` the kernel of
the distinct rows and ``P`` the ``n × u`` indicator of which distinct row each row repeats
(``PᵀP = C``, the counts). ``Q = P C^{-1/2}`` has orthonormal columns, so

    K = Q M Qᵀ,   M = C^{1/2} K_u C^{1/2},

and ``K`` and ``M`` have the same non-zero eigenvalues: a rule on ``K``'s spectrum (the
pseudo-inverse's cut-off ``rcond · λ_max``) keeps the same directions on ``M``, and
``K⁺ = Q M⁺ Qᵀ`` exactly. The ``u × u`` system costs ``(u/n)³`` of the ``n × n`` one — Adult's
Table 2 fit rows hold 20558 distinct of 26048, half the factorization's flops and 63% of its
memory. :class:`DistinctRows` holds ``P`` (as the index of each row's distinct row) and maps
between the two systems: :meth:`~DistinctRows.reduce` is ``Qᵀ``, :meth:`~DistinctRows.expand`
is ``Q``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["DistinctRows", "distinct_rows", "merged_rows", "merging", "repeated_rows"]

_merging = True


@dataclass(frozen=True)
class DistinctRows:
    """Which rows of ``X`` repeat which.

    Attributes
    ----------
    first : ndarray of shape (u,)
        Index in ``X`` of each distinct row's first occurrence, increasing.
    inverse : ndarray of shape (n,)
        For each row of ``X``, the position in ``first`` of the row it equals.
    counts : ndarray of shape (u,)
        How many rows of ``X`` equal each distinct row.
    """

    first: np.ndarray
    inverse: np.ndarray
    counts: np.ndarray

    @property
    def n_distinct(self) -> int:
        return int(self.first.shape[0])

    @property
    def scale(self) -> np.ndarray:
        """``√counts``, the diagonal of ``C^{1/2}`` (float64)."""
        return np.sqrt(self.counts.astype(np.float64))

    def scale_kernel(self, K_u: np.ndarray) -> np.ndarray:
        """``M = C^{1/2} K_u C^{1/2}`` in place (``K_u`` is the distinct rows' kernel)."""
        s = self.scale.astype(K_u.dtype, copy=False)
        K_u *= s[:, None]
        K_u *= s[None, :]
        return K_u

    def reduce(self, y: Any) -> np.ndarray:
        """``Qᵀ y = C^{-1/2} Pᵀ y``: each distinct row's sum of ``y`` over its copies, over
        ``√count``."""
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2:  # one column per output
            return np.stack([self.reduce(column) for column in y.T], axis=1)
        return np.bincount(self.inverse, weights=y, minlength=self.n_distinct) / self.scale

    def expand(self, z: np.ndarray) -> np.ndarray:
        """``Q z = P C^{-1/2} z``: every copy of a distinct row gets its ``z / √count`` (a
        row of k outputs for ``z`` of shape ``(u, k)``)."""
        z = np.asarray(z, dtype=np.float64)
        scale = self.scale[:, None] if z.ndim == 2 else self.scale
        return (z / scale)[self.inverse]


def distinct_rows(X: Any) -> DistinctRows:
    """Find the repeated rows of ``X`` (dense ndarray or sparse matrix; rows equal value for
    value, sparse rows compared in canonical form).

    Dense rows are grouped by one random projection ``X r`` (a GEMV and a sort of n numbers,
    not a sort of whole rows) and every group is then checked row for row against its first
    row; should two different rows ever project to the same number, the rows are sorted
    whole instead. Rows that are equal are grouped whatever the projection's rounding.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)

    Returns
    -------
    DistinctRows
        With ``first`` in increasing order, so that ``X[first]`` keeps the rows' order.
    """
    if sp.issparse(X):
        keys = _sparse_row_keys(sp.csr_matrix(X))
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        rows = _grouped(X @ _direction(X.shape[1]))
        if np.array_equal(X[rows.first][rows.inverse], X):
            return rows
        # two different rows met in one group: sort whole rows (their bytes)
        X = np.ascontiguousarray(X) + 0.0  # -0.0 → 0.0, so that equal rows have equal bytes
        keys = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel() \
            if X.shape[1] else np.zeros(X.shape[0], dtype=np.int8)
    return _grouped(keys)


def merged_rows(X: Any, y: Any) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """``(X_u, Qᵀy, √counts)`` when rows of ``X`` repeat, else ``(X, y, None)``.

    For the Nyström solvers: ``K_nm = P K_um``, so ``K_nmᵀK_nm = K̃ᵀK̃`` and ``K_nmᵀy = K̃ᵀQᵀy``
    with ``K̃ = diag(√counts) K_um`` — every product a solver takes with its fit rows, on u rows
    instead of n (the kernel's ``row_scale``).
    """
    y = np.asarray(y, dtype=np.float64)
    rows = repeated_rows(X) if _merging else None
    if rows is None:
        return X, y, None
    return X[rows.first], rows.reduce(y), rows.scale


def repeated_rows(X: Any) -> DistinctRows | None:
    """:func:`distinct_rows` of ``X`` when some rows repeat, else None (nothing to merge)."""
    rows = distinct_rows(X)
    return rows if rows.n_distinct < X.shape[0] else None


@contextmanager
def merging(enabled: bool) -> Iterator[None]:
    """Within the block, :func:`merged_rows` merges (``True``, the default) or hands the rows
    back whole (``False``: the products over all n rows, for benchmarks and tests). Not
    thread-local."""
    global _merging
    previous, _merging = _merging, bool(enabled)
    try:
        yield
    finally:
        _merging = previous


def _direction(d: int) -> np.ndarray:
    """The projection that groups dense rows (fixed: the same rows group the same way)."""
    return np.random.default_rng(0).standard_normal(d)


def _grouped(keys: np.ndarray) -> DistinctRows:
    """Rows grouped by equal keys, numbered by first occurrence."""
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")  # np.unique orders by key
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return DistinctRows(first=first[order], inverse=rank[inverse.ravel()],
                        counts=counts[order])


def _sparse_row_keys(X: sp.csr_matrix) -> np.ndarray:
    """One bytes key per row of ``X`` (its sorted column indices and their non-zero values)."""
    X = X.copy()
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    indptr, indices, data = X.indptr, X.indices.astype(np.int64), X.data
    return np.array([indices[a:b].tobytes() + data[a:b].tobytes()
                     for a, b in pairwise(indptr)], dtype=object)
