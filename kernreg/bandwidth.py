"""The median heuristic for a Gaussian kernel's width: what a data file's run, ``kernreg data
inspect`` and the estimators' ``sigma="median"`` take where no σ is given."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist

from kernreg._validation import is_int

__all__ = ["MEDIAN_SAMPLE", "median_sigma"]

#: The most rows the heuristic's pairwise distances are taken over.
MEDIAN_SAMPLE = 1000


def median_sigma(X: np.ndarray | sp.spmatrix, seed: int, sample: int = MEDIAN_SAMPLE) -> float:
    """The median heuristic for a Gaussian kernel's width: the median Euclidean distance
    between two distinct rows of ``X``.

    Over all rows when there are at most ``sample``; else over ``sample`` rows drawn without
    replacement by ``numpy.random.default_rng(seed).choice(n_rows, sample, replace=False)``.
    Each pair of distinct rows counts once (the zero distance of a row to itself is left out).

    Parameters
    ----------
    X : array or sparse matrix of shape (n_rows, n_features)
        Training rows, ``n_rows ≥ 2``.
    seed : int
        Seeds the sample of rows.
    sample : int
        Most rows used (at least 2); the cost grows with its square.

    Returns
    -------
    float
        The median distance (0 when most sampled rows coincide).

    Raises
    ------
    ValueError
        ``X`` is not 2-D with at least 2 rows, or ``sample`` is not an integer ≥ 2.
    """
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"median_sigma: X must be 2-D with at least 2 rows, got shape {X.shape}")
    if not is_int(sample) or sample < 2:
        raise ValueError(f"median_sigma: sample must be an integer ≥ 2, got {sample!r}")
    n = X.shape[0]
    rows = X
    if n > sample:
        rows = X[np.sort(np.random.default_rng(seed).choice(n, sample, replace=False))]
    rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
    return float(np.median(pdist(rows.astype(np.float64, copy=False))))
