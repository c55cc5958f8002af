"""The linear kernel ``x·x'``."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.kernels.base import (
    DEFAULT_MEMORY_BUDGET,
    Data,
    Kernel,
    as_2d,
    cast,
    cross,
    row_sq_norms,
)
from kernreg.kernels.registry import KernelSpec, register

__all__ = ["LinearKernel"]


class LinearKernel(Kernel):
    """Linear kernel ``k(x, x') = x·x'``.

    Parameters
    ----------
    sigma : float, optional
        Ignored; accepted so that every kernel can be built from the same arguments.
    dtype, memory_budget
        See :class:`~kernreg.kernels.base.Kernel`.
    """

    name = "linear"

    def __init__(
        self,
        sigma: float | None = None,
        *,
        dtype: Any = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ):
        super().__init__(dtype=dtype, memory_budget=memory_budget)

    def _fill(self, Xb: Data, Y: Data, aux: Any, out: np.ndarray) -> np.ndarray:
        return cross(Xb, Y, out)

    def _fill_xp(self, xp: Any, Xb: Any, Y: Any, aux: Any) -> Any:
        return Xb @ Y.T

    def diag(self, X: Any) -> np.ndarray:
        return row_sq_norms(cast(as_2d(X, "X"), np.float64))


register(KernelSpec(
    name="linear",
    kernel=LinearKernel,
    summary="x·x' (no parameters)",
))
