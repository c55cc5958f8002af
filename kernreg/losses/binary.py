"""Binary classification: classes coded by two numbers (±1 by default; {0, 1} with
``target_coding: zero_one``), an output becomes the class whose code is nearer.

Records the RMSE of the real-valued output (the NYTRO paper's Table 2 measure on ±1 targets,
the default), the classification error and the hinge loss of the output on the ±1 scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.losses.task import Task, register_task

#: The codes of the two classes when none are given: (negative, positive).
PM1 = (-1.0, 1.0)


def _codes(coding: Any) -> tuple[float, float]:
    negative, positive = PM1 if coding is None else (float(c) for c in coding)
    if not negative < positive:
        raise ValueError(f"binary codes must be (negative, positive) with negative < positive, "
                         f"got {coding!r}")
    return negative, positive


class BinaryClassification(Task):
    name = "binary"
    title = "binary classification"
    dataset_tasks = ("classification",)
    default_for = ("classification",)
    measures = ("rmse", "error", "hinge")
    default_measure = "rmse"

    def encode(self, y: Any, coding: Any = None) -> np.ndarray:
        """Labels ±1 → the codes ``(negative, positive)`` (``y`` must hold ±1)."""
        negative, positive = _codes(coding)
        y = np.asarray(y, dtype=np.float64)
        if not np.isin(y, PM1).all():
            raise ValueError(f"binary labels must be ±1, got {np.unique(y)[:5]}")
        return np.where(y > 0, positive, negative)

    def decode(self, f: Any, coding: Any = None) -> np.ndarray:
        """The code nearer ``f``; the midpoint counts as positive (``f >= 0`` for ±1)."""
        negative, positive = _codes(coding)
        f = np.asarray(f, dtype=np.float64)
        return np.where(f >= (negative + positive) / 2.0, positive, negative)

    def classes(self, coding: Any = None) -> np.ndarray:
        return np.asarray(_codes(coding))

    def margins(self, y: Any, f: Any, coding: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Codes and outputs mapped affinely onto ±1 (the identity for ±1 codes)."""
        negative, positive = _codes(coding)
        scale = lambda v: (2.0 * np.asarray(v, dtype=np.float64) - negative - positive) / (  # noqa: E731
            positive - negative)
        return scale(y), scale(f)


register_task(BinaryClassification())
