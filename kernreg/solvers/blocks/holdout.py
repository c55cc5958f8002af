"""Hold-out split of the training set used by the model-selection protocol, and the rows a
refit after selection uses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kernreg._validation import check_data, check_random_state, check_targets
from kernreg.solvers.blocks.base import stack_rows

__all__ = ["holdout_split", "refit_rows"]


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
    y = check_targets(y, X.shape[0], "y")
    if not (isinstance(val_fraction, float | int) and 0.0 < val_fraction < 1.0):
        raise ValueError(f"val_fraction must be a number in (0, 1), got {val_fraction!r}")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"X needs at least 2 rows to be split, got {n}")
    n_val = min(n - 1, max(1, math.ceil(val_fraction * n)))
    perm = check_random_state(random_state).permutation(n)
    fit_idx, val_idx = perm[: n - n_val], perm[n - n_val :]
    return X[fit_idx], y[fit_idx], X[val_idx], y[val_idx]


def refit_rows(X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray) -> tuple[Any, np.ndarray]:
    """Training rows followed by validation rows (dense or CSR, as the inputs), for a refit
    after selection."""
    return stack_rows(X, X_val), np.concatenate([y, y_val])
