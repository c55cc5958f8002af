"""Error measures: RMSE on raw predictions and misclassification rate of their sign."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["misclassification_rate", "rmse"]


def _pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    y_true = np.asarray(y_true, dtype=np.float64)
    y_pred = np.asarray(y_pred, dtype=np.float64)
    if y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y_true.shape}")
    if y_pred.shape[0] != y_true.shape[0]:
        raise ValueError(
            f"y_pred has {y_pred.shape[0]} rows but y_true has {y_true.shape[0]} (shape mismatch)"
        )
    if y_pred.ndim == 2:
        y_true = y_true[:, None]
    return y_true, y_pred


def rmse(y_true: Any, y_pred: Any) -> float | np.ndarray:
    """Root mean squared error ``sqrt(mean((y_pred − y_true)²))``.

    ``y_pred`` may be 2-D ``(n, L)`` (one column per path point); the result is then ``(L,)``.
    """
    y_true, y_pred = _pair(y_true, y_pred)
    out = np.sqrt(np.mean((y_pred - y_true) ** 2, axis=0))
    return float(out) if out.ndim == 0 else out


def misclassification_rate(y_true: Any, y_pred: Any, codes: tuple[float, float] = (-1.0, 1.0)
                           ) -> float | np.ndarray:
    """Fraction of points whose prediction is nearer the other class's code.

    ``codes`` are the (negative, positive) target codes: ``sign(y_pred)`` for the default ±1,
    ``y_pred >= 0.5`` for {0, 1}. A prediction exactly at the midpoint counts as positive.
    ``y_pred`` may be 2-D ``(n, L)`` as in :func:`rmse`.
    """
    y_true, y_pred = _pair(y_true, y_pred)
    negative, positive = codes
    labels = np.where(y_pred >= (negative + positive) / 2.0, positive, negative)
    out = np.mean(labels != y_true, axis=0)
    return float(out) if out.ndim == 0 else out
