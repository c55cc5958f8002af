"""The Laplacian kernel ``exp(−‖x − x'‖ / σ)`` (Euclidean norm)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.kernels.base import Data, DistanceKernel, cross, row_sq_norms
from kernreg.kernels.compiled import LAPLACIAN, distance_exp, jit_enabled
from kernreg.kernels.registry import POSITIVE, KernelSpec, register

__all__ = ["LaplacianKernel"]


class LaplacianKernel(DistanceKernel):
    """Laplacian kernel ``k(x, x') = exp(−||x − x'|| / σ)`` (Euclidean norm).

    Through the GEMM expansion, distances between nearly coincident points carry an absolute
    error of about ``sqrt(eps)·||x||`` (square root of the rounding in ``||x−y||²``); exactly
    coincident points are detected and get ``k = 1``. One boolean mask of the block's shape
    (1 byte per entry) is allocated per block for that.

    Parameters
    ----------
    sigma : float, default 1.0
        Bandwidth σ > 0.
    dtype, memory_budget
        See :class:`~kernreg.kernels.base.Kernel`.
    """

    name = "laplacian"

    def _fill(self, Xb: Data, Y: Data, aux: np.ndarray, out: np.ndarray) -> np.ndarray:
        xx = row_sq_norms(Xb)
        noise = 4.0 * np.finfo(self.dtype).eps * (xx.max(initial=0.0) + aux.max(initial=0.0))
        if jit_enabled():  # one compiled pass from the cross products (kernreg.kernels.compiled)
            cross(Xb, Y, out)
            return distance_exp(out, xx, aux, LAPLACIAN, 1.0 / self.sigma, noise)
        self._sq_dist(Xb, Y, aux, out, xx)
        # The expansion leaves ~eps·||x||² of rounding in ||x−y||², which sqrt turns into an
        # error of ~sqrt(eps)·||x||; zero squared distances at that noise level so that
        # coincident points (e.g. centers drawn from X) get exactly k = 1.
        out[out <= noise] = 0.0
        np.sqrt(out, out=out)
        out *= -1.0 / self.sigma
        np.exp(out, out=out)
        return out

    def _fill_xp(self, xp: Any, Xb: Any, Y: Any, aux: Any) -> Any:
        return xp.exp(self._distances_xp(xp, Xb, Y, aux) * (-1.0 / self.sigma))


register(KernelSpec(
    name="laplacian",
    kernel=LaplacianKernel,
    schema={"sigma": POSITIVE},
    summary="exp(−‖x − x'‖ / σ); σ defaults to the dataset's paper value",
))
