"""Multiclass accuracies of the incremental RLSC experiments (thesis Chapter 7).

Kept here, beside the one estimator that needs them, until a loss/task registry exists.
Accuracies are fractions in [0, 1]; a class with no example gives NaN, never 0.
"""

from __future__ import annotations

import numpy as np

__all__ = ["accuracy", "class_accuracy", "per_class_accuracy", "subset_accuracy"]


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Fraction of the examples whose predicted label equals the true one (NaN if none)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true {y_true.shape} and y_pred {y_pred.shape} differ in shape")
    return float(np.mean(y_true == y_pred)) if y_true.size else float("nan")


def subset_accuracy(y_true: np.ndarray, y_pred: np.ndarray, classes: np.ndarray) -> float:
    """Accuracy over the examples whose *true* label is in ``classes`` (predictions may be
    any label: an example of a balanced class predicted as the new class is an error)."""
    y_true = np.asarray(y_true)
    mask = np.isin(y_true, classes)
    return accuracy(y_true[mask], np.asarray(y_pred)[mask])


def class_accuracy(y_true: np.ndarray, y_pred: np.ndarray, label: float) -> float:
    """Accuracy over the examples of one class (its recall)."""
    return subset_accuracy(y_true, y_pred, np.asarray([label]))


def per_class_accuracy(y_true: np.ndarray, y_pred: np.ndarray, classes: np.ndarray
                       ) -> np.ndarray:
    """Accuracy of each class of ``classes``, in that order."""
    return np.array([class_accuracy(y_true, y_pred, c) for c in np.asarray(classes)])
