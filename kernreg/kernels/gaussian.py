"""The Gaussian kernel ``exp(−‖x − x'‖² / (2σ²))``."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg.kernels.base import Data, DistanceKernel, cross, row_sq_norms
from kernreg.kernels.compiled import GAUSSIAN, distance_exp, jit_enabled
from kernreg.kernels.registry import POSITIVE, KernelSpec, register

__all__ = ["GaussianKernel"]


class GaussianKernel(DistanceKernel):
    """Gaussian kernel ``k(x, x') = exp(−||x − x'||² / (2σ²))``.

    Parameters
    ----------
    sigma : float, default 1.0
        Bandwidth σ > 0 (scikit-learn's ``gamma`` is ``1 / (2σ²)``).
    dtype, memory_budget
        See :class:`~kernreg.kernels.base.Kernel`.
    """

    name = "gaussian"

    def _prepare(self, Y: Data) -> tuple[np.ndarray, np.ndarray | None]:
        yy = row_sq_norms(Y)
        if sp.issparse(Y):
            return yy, None
        # [y, 1, −‖y‖²/(2σ²)]: with [x/σ², −‖x‖²/(2σ²), 1] one GEMM gives −‖x−y‖²/(2σ²)
        Y_aug = np.empty((Y.shape[0], Y.shape[1] + 2), dtype=Y.dtype)
        Y_aug[:, :-2], Y_aug[:, -2], Y_aug[:, -1] = Y, 1.0, -yy / (2.0 * self.sigma**2)
        return yy, Y_aug

    def _fill(self, Xb: Data, Y: Data, aux: tuple[np.ndarray, np.ndarray | None],
              out: np.ndarray) -> np.ndarray:
        yy, Y_aug = aux
        if jit_enabled():
            # compiled: the GEMM's cross products, then one multithreaded pass for the distance
            # expansion, the clamp and the exponential (kernreg.kernels.compiled)
            cross(Xb, Y, out)
            return distance_exp(out, row_sq_norms(Xb), yy, GAUSSIAN, 0.5 / self.sigma**2)
        if Y_aug is None or sp.issparse(Xb):
            self._sq_dist(Xb, Y, yy, out)
            out *= -1.0 / (2.0 * self.sigma**2)
        else:
            # The norms ride in the GEMM (two extra columns): the exponent comes out of one
            # product and only the clamp and exp touch the block again, where the expansion
            # −2xy + ‖x‖² + ‖y‖², scaled, took five elementwise passes (1.7× slower on Covertype's
            # float32 K_vm, 104582 × 10000).
            inv = 1.0 / self.sigma**2
            X_aug = np.empty((Xb.shape[0], Xb.shape[1] + 2), dtype=Y_aug.dtype)
            X_aug[:, :-2] = Xb
            X_aug[:, :-2] *= inv
            X_aug[:, -2], X_aug[:, -1] = -0.5 * inv * row_sq_norms(Xb), 1.0
            np.matmul(X_aug, Y_aug.T, out=out)
            np.minimum(out, 0.0, out=out)  # rounding can make −‖x−y‖² slightly positive
        np.exp(out, out=out)
        return out

    def _prepare_xp(self, xp: Any, Y: Any) -> Any:
        # [y, 1, −‖y‖²/(2σ²)], as on the host: the exponent comes out of one GEMM and only the
        # clamp and exp pass over the block again (a device block is memory-bound)
        yy = xp.sum(Y * Y, axis=1)
        ones = xp.ones_like(yy)
        return xp.concat([Y, ones[:, None], (yy * (-0.5 / self.sigma**2))[:, None]], axis=1)

    def _fill_xp(self, xp: Any, Xb: Any, Y: Any, aux: Any) -> Any:
        inv = 1.0 / self.sigma**2
        xx = xp.sum(Xb * Xb, axis=1)
        X_aug = xp.concat([Xb * inv, (xx * (-0.5 * inv))[:, None], xp.ones_like(xx)[:, None]],
                          axis=1)
        exponent = X_aug @ aux.T
        return xp.exp(xp.minimum(exponent, xp.zeros_like(exponent[:1, :1])))


register(KernelSpec(
    name="gaussian",
    kernel=GaussianKernel,
    schema={"sigma": POSITIVE},
    summary="exp(−‖x − x'‖² / (2σ²)); σ defaults to the dataset's paper value",
))
