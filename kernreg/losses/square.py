"""The square loss ``V(y, f) = (y − f)²``: its empirical risk is the MSE (RMSE² of the papers'
Table 2), the loss of every least-squares algorithm in kernreg."""

from __future__ import annotations

import numpy as np

from kernreg.losses.loss import Loss, register_loss


class SquareLoss(Loss):
    """``V(y, f) = (y − f)²``, ``∂V/∂f = 2 (f − y)``."""

    name = "square"
    description = "square loss (y − f)², the least-squares algorithms' loss"

    def pointwise(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return (y - f) ** 2

    def derivative(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return 2.0 * (f - y)


register_loss(SquareLoss())
