"""The hinge loss ``V(y, f) = max(0, 1 − y f)`` of targets ``y`` ∈ {−1, +1}: the loss of the
support vector machine and of the thesis' stochastic (incremental) gradient methods with the
hinge loss (Chapter 6)."""

from __future__ import annotations

import numpy as np

from kernreg.losses.loss import Loss, register_loss


class HingeLoss(Loss):
    """``V(y, f) = max(0, 1 − y f)``; targets must be coded ±1.

    Its subgradient in ``f`` is ``−y`` where the margin ``y f < 1``, ``0`` where ``y f > 1``,
    and at the kink ``y f = 1`` any value of ``[−y, 0]`` (in between for ``y = −1``);
    :meth:`derivative` returns ``0`` there, so a point exactly on the margin does not move a
    (sub)gradient step, as in Pegasos' and LIBSVM's strict ``y f < 1`` test.
    """

    name = "hinge"
    description = "hinge loss max(0, 1 − y f) of ±1 targets (SVMs, the thesis' SGM/SIGM)"

    def pointwise(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return np.maximum(0.0, 1.0 - y * f)

    def derivative(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return np.where(y * f < 1.0, -y, 0.0)


register_loss(HingeLoss())
