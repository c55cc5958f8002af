"""Hold-out split of the training set used by the model-selection protocol, and the rows a
refit after selection uses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg._validation import check_data, check_random_state, check_targets

__all__ = ["centers_problem", "fit_rows", "holdout_split", "refit_rows", "stack_rows"]


def fit_rows(n: int, validation_fraction: float) -> int:
    """Rows left for fitting after the hold-out split of ``n`` rows: the validation part has
    ``ceil(validation_fraction · n)`` rows, at least 1, at most ``n − 1`` (the one rounding of
    :func:`holdout_split` and of the config checks of m against these rows)."""
    return n - min(n - 1, max(1, math.ceil(validation_fraction * n)))


def centers_problem(m: int, n_fit: int) -> str | None:
    """What is wrong with ``m`` Nyström centers drawn from the ``n_fit`` rows left for fitting
    (``None``: nothing). An estimator clamps an m above its rows, with a warning
    (:func:`~kernreg.solvers.blocks.centers.clamp_centers`); a run refuses it before it starts,
    in these words (the config check and the run's preflight), since a table cell labelled
    with m must use m centers."""
    if m > n_fit:
        return f"{m} exceeds the {n_fit} rows left for fitting after the validation split"
    return None


def holdout_split(
    X: Any, y: Any, val_fraction: float = 0.2, random_state: Any = None
) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """Shuffle the rows and split them into a fit part and a validation part.

    The validation part has ``ceil(val_fraction · n)`` rows (at least 1, at most ``n − 1``).

    Returns
    -------
    X_fit, y_fit, X_val, y_val
    """
    X = check_data(X, "X")
    y = check_targets(y, X.shape[0], "y", multi_output=True)
    if not (isinstance(val_fraction, float | int) and 0.0 < val_fraction < 1.0):
        raise ValueError(f"val_fraction must be a number in (0, 1), got {val_fraction!r}")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"X needs at least 2 rows to be split, got {n}")
    n_fit = fit_rows(n, val_fraction)
    perm = check_random_state(random_state).permutation(n)
    fit_idx, val_idx = perm[:n_fit], perm[n_fit:]
    return X[fit_idx], y[fit_idx], X[val_idx], y[val_idx]


def refit_rows(X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray) -> tuple[Any, np.ndarray]:
    """Training rows followed by validation rows (dense or CSR, as the inputs), for a refit
    after selection."""
    return stack_rows(X, X_val), np.concatenate([y, y_val])


def stack_rows(X: Any, X_val: Any) -> Any:
    """Rows of ``X`` followed by rows of ``X_val`` (dense or CSR, as the inputs)."""
    if sp.issparse(X) or sp.issparse(X_val):
        return sp.vstack([sp.csr_matrix(X), sp.csr_matrix(X_val)], format="csr")
    return np.vstack([X, X_val])
