"""The error curve of a test-then-update stream: the RMSE over a trailing window."""

from __future__ import annotations

import numpy as np

__all__ = ["windowed_rmse"]


def windowed_rmse(errors: np.ndarray, window: int) -> np.ndarray:
    """RMSE over the trailing ``window`` samples (fewer at the start) of (n, c) errors.

    Parameters
    ----------
    errors : ndarray of shape (n, c)
        Prediction minus target of each sample, c outputs (averaged over inside a sample).
    window : int
        Samples per window.

    Returns
    -------
    ndarray of shape (n,)
        ``sqrt(mean of the squared errors of samples max(1, i − window + 1) … i)``.
    """
    sq = np.cumsum(np.mean(errors**2, axis=1))
    n = np.arange(1, len(sq) + 1)
    lower = np.concatenate([np.zeros(window), sq[:-window]])[: len(sq)]
    return np.sqrt((sq - lower) / np.minimum(n, window))
