"""The products of an iterative Nyström solver with its rows, as a K_nm strategy dictates.

NYTRO's gradient ``α ↦ K_nmᵀ(K_nm α − y)``, the validation RMSE of its iterates and the rows'
normal products (for the step size) come from a stored ``K_nm``, from block-wise
re-evaluation, from ``m × m`` Gram matrices formed once, or from rows spread over a Dask
cluster (see :mod:`kernreg.solvers.blocks.strategy` and :mod:`kernreg.solvers.blocks.dask_rows`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kernreg.kernels import Kernel
from kernreg.solvers.blocks.dask_rows import DistributedRows
from kernreg.solvers.blocks.distinct import merged_rows
from kernreg.solvers.blocks.iterative import VALIDATION_CHUNK, prediction_rmse
from kernreg.solvers.blocks.knm import NormalProduct, knm_normal_product, make_knm

__all__ = ["RowProducts"]


class RowProducts:
    """Products with the rows of one fit, for the strategy each set of rows is given.

    Parameters
    ----------
    kernel : Kernel
    backend : {"local", "dask"}
        Here, or over the rows spread on the running Dask client's workers.
    hold : callable
        Called with each opened strategy's ``close``, to be run when the fit ends (a stored
        ``K_nm`` goes to the next fit; a cluster's parts leave the workers).
    """

    def __init__(self, kernel: Kernel, backend: str, hold: Callable[[Callable[[], Any]], None]
                 ) -> None:
        self.kernel, self.backend, self.hold = kernel, backend, hold

    def gram_kernel(self) -> Kernel:
        """The kernel for the gram strategy, always float64: G is used through R⁻¹ (up to
        ``1/√ε`` = 1e5 per side), which turns float32 rounding of G (~1e-7) into a top
        eigenvalue off by orders of magnitude, a step size ~0 and iterates that never move
        (adult: test RMSE 0.999 instead of 0.670). float32 pays off for stored K_nm only."""
        return self.kernel.with_dtype(np.float64)

    def gram(self, X: Any, y: np.ndarray, C: Any, row_scale: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """``(K_nmᵀK_nm, K_nmᵀy)`` in float64, here (``K_nm = diag(row_scale) K(X, C)``) or
        summed over a Dask cluster's parts."""
        if self.backend == "dask":
            rows = DistributedRows(self.gram_kernel(), X, y, C, "blocked", row_scale=row_scale)
            try:
                return rows.gram_products()
            finally:
                rows.close()
        G, b = self.gram_kernel().gram_products(X, C, y, row_scale=row_scale)
        return G, b

    def _open(self, rows: Any) -> Any:
        self.hold(rows.close)
        return rows

    def training(self, X: Any, y: np.ndarray, C: Any, strategy: str
                 ) -> tuple[Callable[[np.ndarray], np.ndarray], NormalProduct]:
        """The gradient ``α ↦ K_nmᵀ(K_nm α − y)`` on (X, y) with centers C, computed as the
        strategy dictates, and the rows' normal product (for the step size). Repeated rows are
        merged first, here or on a cluster: the same products from u rows instead of n
        (:func:`~kernreg.solvers.blocks.distinct.merged_rows`)."""
        X, y, scale = merged_rows(X, y)
        if strategy == "gram":
            # K_nmᵀ(K_nm α − y) = Gα − b with G = K_nmᵀK_nm, b = K_nmᵀy formed once. AᵀA =
            # R⁻ᵀGR⁻¹ is not formed: NKRLS needs it accurate for its tiny λ (see
            # nystrom_products), a gradient step only needs these products.
            G, b = self.gram(X, y, C, scale)
            return (lambda alpha: G @ alpha - b), (lambda u: G @ u)
        if self.backend == "dask":
            rows = self._open(DistributedRows(self.kernel, X, y, C, strategy, row_scale=scale))
            return rows.gradient, rows.normal
        knm = self._open(make_knm(strategy, self.kernel, X, C, scale))
        return knm.gradient(y), knm_normal_product(knm)

    def validation(self, X_val: Any, y_val: np.ndarray, C: Any, strategy: str
                   ) -> tuple[Callable[[np.ndarray], np.ndarray], int, NormalProduct]:
        """Validation RMSE of coefficient columns, computed as the strategy dictates, the
        number of iterates to score together (see
        :func:`~kernreg.solvers.blocks.iterative.run_validated`), and the rows' normal
        product."""
        if strategy == "gram":
            # ‖K_vm α − y_v‖² = αᵀG_vα − 2αᵀb_v + y_vᵀy_v: O(m²) per iterate, no K_vm kept.
            G_v, b_v = self.gram(X_val, y_val, C)
            yy, n_val = float(y_val @ y_val), y_val.shape[0]

            def quadratic(alphas: np.ndarray) -> np.ndarray:
                # one read of G_v for every column (a GEMM), not one GEMV per iterate
                sq = np.einsum("ij,ij->j", alphas, G_v @ alphas) - 2.0 * (b_v @ alphas) + yy
                return np.sqrt(np.maximum(sq, 0.0) / n_val)

            return quadratic, VALIDATION_CHUNK, (lambda u: G_v @ u)
        if self.backend == "dask":
            rows = self._open(DistributedRows(self.kernel, X_val, y_val, C, strategy))
            return rows.rmse, VALIDATION_CHUNK, rows.normal
        knm = self._open(make_knm(strategy, self.kernel, X_val, C))
        return prediction_rmse(knm.matvec, y_val), VALIDATION_CHUNK, knm_normal_product(knm)
