"""Strategies that provide products with ``K_nm = K(X, C)`` to the Nyström solvers.

:class:`InMemoryKnm` computes ``K_nm`` once and keeps it (``n·m`` floats); :class:`BlockedKnm`
recomputes it block by block on every product (``O(block·m)`` memory, ``O(n·m·d)`` extra time per
product). Solvers only call the methods below, so the storage policy is a constructor choice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from kernreg.kernels import Kernel, normal_pass
from kernreg.kernels.device_products import to_device_rows
from kernreg.solvers.blocks.buffers import release, take

__all__ = ["KNM_STORAGES", "BlockedKnm", "DeviceBlockedKnm", "DeviceStoredKnm", "InMemoryKnm",
           "KnmOperator", "NormalProduct", "block_matvec", "knm_normal_product", "make_knm",
           "quarter_rows", "validation_knm", "validation_stored"]


class KnmOperator(ABC):
    """Products with the ``n × m`` kernel matrix between data rows and centers."""

    shape: tuple[int, int]

    @abstractmethod
    def matvec(self, v: np.ndarray) -> np.ndarray:
        """``K_nm @ v`` for ``v`` of shape ``(m,)`` or ``(m, k)``."""

    @abstractmethod
    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        """``K_nmᵀ @ u`` for ``u`` of shape ``(n,)`` or ``(n, k)``."""

    def normal_matvec(self, v: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(K_nmᵀ (K_nm v − y), K_nm v − y)``."""
        r = self.matvec(v) - y
        return self.rmatvec(r), r

    def gradient(self, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """``v ↦ K_nmᵀ(K_nm v − y)`` (a device strategy keeps ``y`` there and sends back only
        the ``m``-vector)."""
        return lambda v: self.normal_matvec(v, y)[0]

    def close(self) -> None:  # noqa: B027 (only stored strategies have something to hand on)
        """End of use: stored kernel values go to the next fit of the same shape (see
        :mod:`kernreg.solvers.blocks.buffers`); no product may follow."""


class InMemoryKnm(KnmOperator):
    """``K_nm`` computed once and kept in memory, in the kernel's dtype.

    In float32 it takes half the memory and each product streams half the bytes (these products
    are bandwidth-bound); products are returned in float64. :meth:`normal_matvec` is
    :func:`~kernreg.kernels.compiled.normal_pass`: each row of ``K`` read once for both
    products, accumulated in float64 (the compiled path widens a float32 ``K`` in registers; the
    numpy fallback multiplies it in float32 and sums its row blocks in float64).
    """

    def __init__(self, kernel: Kernel, X: Any, C: Any, row_scale: np.ndarray | None = None):
        # written into the previous trial's K_nm when one of this shape was released
        self.K = kernel(X, C, out=take((X.shape[0], C.shape[0]), kernel.dtype))
        if row_scale is not None:
            self.K *= np.asarray(row_scale, dtype=self.K.dtype)[:, None]
        self.shape = self.K.shape

    def close(self) -> None:
        release(self.K)
        self.K = None

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return np.asarray(self.K @ v.astype(self.K.dtype, copy=False), dtype=np.float64)

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(self.K.T @ u.astype(self.K.dtype, copy=False), dtype=np.float64)

    def normal_matvec(self, v: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # one read of K for both products (kernreg.kernels.compiled: compiled, or numpy by
        # cache-sized row blocks); several columns of v ride the same read
        return normal_pass(self.K, v, y)


class BlockedKnm(KnmOperator):
    """``K_nm`` never stored: every product re-evaluates it block-wise under the memory budget."""

    def __init__(self, kernel: Kernel, X: Any, C: Any, row_scale: np.ndarray | None = None):
        self.kernel, self.X, self.C, self.row_scale = kernel, X, C, row_scale
        self.shape = (X.shape[0], C.shape[0])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.kernel.matvec(self.X, self.C, v, row_scale=self.row_scale)

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        return self.kernel.rmatvec(self.X, self.C, u, row_scale=self.row_scale)

    def normal_matvec(self, v: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # one pass over the blocks
        return self.kernel.normal_matvec(self.X, self.C, v, y, row_scale=self.row_scale)


class DeviceStoredKnm(KnmOperator):
    """``K_nm`` computed once on the kernel's device and kept there (the ``memory`` strategy
    on a device); products take and return float64 host arrays, only ``m``- and ``n``-vectors
    cross. The residual is formed in float64 before it goes back through ``K_nm``."""

    def __init__(self, kernel: Kernel, X: Any, C: Any, row_scale: np.ndarray | None = None):
        self.device = kernel.device
        self.K = kernel.on_device(X, C)
        if row_scale is not None:
            self.K *= self.device.asarray(row_scale, kernel.dtype)[:, None]
        self.shape = (int(self.K.shape[0]), int(self.K.shape[1]))

    def close(self) -> None:
        self.K = None  # the device memory goes back to torch's allocator

    def _times(self, M: Any, a: np.ndarray) -> np.ndarray:
        xp = self.device.xp
        return self.device.to_numpy(M @ xp.astype(self.device.asarray(a), self.K.dtype))

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self._times(self.K, v)

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        return self._times(self.K.T, u)

    def _normal(self, v: np.ndarray, yd: Any) -> tuple[Any, Any]:
        device, xp = self.device, self.device.xp
        Kv = device.asarray(self.K @ xp.astype(device.asarray(v), self.K.dtype))
        r = Kv - (yd[:, None] if Kv.ndim == 2 and yd.ndim == 1 else yd)
        return device.asarray(self.K.T @ xp.astype(r, self.K.dtype)), r

    def normal_matvec(self, v: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad, r = self._normal(v, self.device.asarray(y))
        return self.device.to_numpy(grad), self.device.to_numpy(r)

    def gradient(self, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        yd = self.device.asarray(y)  # sent once, not every iteration
        return lambda v: self.device.to_numpy(self._normal(v, yd)[0])


class DeviceBlockedKnm(BlockedKnm):
    """``K_nm`` re-evaluated on the kernel's device every product (the ``blocked`` strategy on a
    device): the rows stay on the device when they take at most a quarter of its memory
    budget, else each row block is sent from host memory per product (out of core)."""

    def __init__(self, kernel: Kernel, X: Any, C: Any, row_scale: np.ndarray | None = None):
        device = kernel.device
        rows_bytes = X.shape[0] * X.shape[1] * kernel.itemsize
        if rows_bytes <= device.memory_budget() // 4:
            X = to_device_rows(kernel, X)
        super().__init__(kernel, X, C, row_scale)


#: Storage strategies by name (host, device).
KNM_STORAGES: dict[str, tuple[type[KnmOperator], type[KnmOperator]]] = {
    "memory": (InMemoryKnm, DeviceStoredKnm), "blocked": (BlockedKnm, DeviceBlockedKnm)}


def make_knm(storage: str, kernel: Kernel, X: Any, C: Any,
             row_scale: np.ndarray | None = None) -> KnmOperator:
    """Build the ``K_nm`` strategy ``storage`` (one of :data:`KNM_STORAGES`) on the kernel's
    device (``memory`` becomes ``blocked`` there when ``K_nm`` exceeds the device's
    :meth:`~kernreg.backend.Device.memory_budget`); with ``row_scale`` its matrix is
    ``diag(row_scale) K(X, C)`` (repeated rows merged, see
    :func:`~kernreg.solvers.blocks.distinct.merged_rows`)."""
    if not isinstance(storage, str) or storage not in KNM_STORAGES:
        raise ValueError(f"knm_storage must be one of {sorted(KNM_STORAGES)}, got {storage!r}")
    host, device = KNM_STORAGES[storage]
    if kernel.device.is_numpy:
        return host(kernel, X, C, row_scale)
    if storage == "memory" and X.shape[0] * C.shape[0] * kernel.itemsize \
            > kernel.device.memory_budget():
        # a device's memory is a wall, never an out-of-memory error mid-fit: a K_nm that does
        # not fit is re-evaluated there block by block instead
        device = DeviceBlockedKnm
    return device(kernel, X, C, row_scale)


def validation_knm(kernel: Kernel, X_val: Any, X: Any, max_memory: float | None) -> KnmOperator:
    """``K(X_val, X)`` for a path's validation error: stored where it takes at most a quarter
    of ``max_memory`` (``None``: no limit), else re-evaluated block by block per product."""
    stored = validation_stored(X_val.shape[0], X.shape[0], max_memory)
    return make_knm("memory" if stored else "blocked", kernel, X_val, X)


def validation_stored(n_val: int, n: int, max_memory: float | None) -> bool:
    """Whether :func:`validation_knm` stores ``K(X_val, X)`` (its memory estimate's rule)."""
    return max_memory is None or n_val <= quarter_rows(n, max_memory)


def block_matvec(K_block: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``K_block @ v`` in the block's precision, as float64: a float32 block is read as it is
    (``@`` with a float64 ``v`` would first copy it to float64, twice its size, every step)."""
    return (K_block @ v.astype(K_block.dtype, copy=False)).astype(np.float64, copy=False)


def quarter_rows(n_cols: int, max_memory: float) -> int:
    """The float64 rows of ``n_cols`` columns that fit a quarter of ``max_memory`` (at least
    one): the bound of a kernel block held beside the rest of a fit."""
    return max(1, int(max_memory) // (4 * n_cols * 8))


#: ``u ↦ K_rmᵀK_rm u`` for one set of rows ``r`` (``u`` of shape ``(m,)`` or ``(m, k)``).
NormalProduct = Callable[[np.ndarray], np.ndarray]


def knm_normal_product(knm: KnmOperator) -> NormalProduct:
    """``u ↦ K_nmᵀK_nm u`` through ``knm``: one fused pass over ``K_nm`` for all columns
    (a stored ``K_nm`` straight through :func:`~kernreg.kernels.compiled.normal_pass`, with
    no target to subtract)."""
    if isinstance(knm, InMemoryKnm):
        return lambda u: normal_pass(knm.K, u)[0]  # knm.K read at call time: None once closed
    return knm.gradient(np.zeros(knm.shape[0]))  # K_nmᵀ(K_nm u − 0)
