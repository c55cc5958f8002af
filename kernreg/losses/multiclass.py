"""Multiclass classification, one-vs-all: class ``c`` of ``C`` is the target column ``+1`` for
its points and ``−1`` for the others (the coding of the thesis' incremental multiclass RLSC,
Chapter 7); the predicted class is the column of largest output. ``coding`` is the sorted
array of class labels.

Records the total accuracy (the default) and the accuracy on each class's points (the
thesis' measure on MNIST's imbalanced class).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.losses.task import Task, register_task


def _classes(coding: Any) -> np.ndarray:
    if coding is None:
        raise ValueError("multiclass coding needs the class labels")
    classes = np.asarray(coding)
    if classes.ndim != 1 or len(classes) < 2 or len(np.unique(classes)) != len(classes):
        raise ValueError(f"multiclass coding must be at least two distinct labels, got "
                         f"{coding!r}")
    return np.sort(classes)


class MulticlassClassification(Task):
    name = "multiclass"
    title = "multiclass classification"
    dataset_tasks = ("multiclass",)
    default_for = ("multiclass",)
    measures = ("accuracy", "per_class_accuracy")
    default_measure = "accuracy"

    def encode(self, y: Any, coding: Any = None) -> np.ndarray:
        """Labels → the ``(n, C)`` one-vs-all targets (±1)."""
        classes = _classes(coding)
        y = np.asarray(y)
        unknown = np.setdiff1d(y, classes)
        if unknown.size:
            raise ValueError(f"labels {unknown[:5]} are not among the classes {classes}")
        return np.where(y[:, None] == classes[None, :], 1.0, -1.0)

    def decode(self, f: Any, coding: Any = None) -> np.ndarray:
        """The class of the largest output of each row (the first on ties)."""
        classes = _classes(coding)
        f = np.asarray(f, dtype=np.float64)
        if f.ndim != 2 or f.shape[1] != len(classes):
            raise ValueError(f"multiclass outputs must be (n, {len(classes)}), got {f.shape}")
        return classes[np.argmax(f, axis=1)]

    def classes(self, coding: Any = None) -> np.ndarray:
        return _classes(coding)

    def margins(self, y: Any, f: Any, coding: Any = None) -> tuple[np.ndarray, np.ndarray]:
        return self.encode(y, coding), np.asarray(f, dtype=np.float64)


register_task(MulticlassClassification())
