"""A kernel's fused products on a device (PyTorch: a GPU, or torch on the CPU).

The same products as :class:`~kernreg.kernels.base.Kernel`'s host path — ``K_nm v``,
``K_nmᵀu``, ``K_nmᵀ(K_nm v − y)``, ``(BᵀB, Bᵀy)`` — written once against the array namespace
of the kernel's device. The rows ``X`` are host arrays (dense or CSR: a row block is densified
and sent when it is used) or arrays already on the device (kept there by a caller that reuses
them); the centers go to the device once per call. Each kernel block of at most
``memory_budget`` bytes is evaluated on the device by the kernel's ``_fill_xp`` and used there;
results come back as float64 host arrays, accumulated in float64 as on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

#: A :class:`~kernreg.kernels.base.Kernel` (not imported: the base class imports this module)
Kernel = Any

__all__ = ["blocks", "full", "gram_products", "matvec", "normal_matvec", "rmatvec",
           "to_device_rows"]


def to_device_rows(kernel: Kernel, X: Any, start: int = 0, stop: int | None = None) -> Any:
    """Rows ``start:stop`` of ``X`` (host dense or CSR, or a device array) on the kernel's
    device in its dtype."""
    Xb = X[start:stop]
    if sp.issparse(Xb):
        Xb = Xb.toarray()
    return kernel.device.asarray(Xb, kernel.dtype)


def _n_rows(X: Any) -> int:
    return int(X.shape[0])


def blocks(kernel: Kernel, X: Any, C: Any, *, block_rows: int | None = None,
           row_scale: np.ndarray | None = None) -> Iterator[tuple[slice, Any]]:
    """Yield ``(row_slice, K[row_slice, :])`` as device arrays, covering the rows of ``X``."""
    device, xp = kernel.device, kernel.device.xp
    Y = to_device_rows(kernel, C)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has shape {tuple(X.shape)} and C {tuple(Y.shape)}: the numbers of "
                         "features differ (shape mismatch)")
    aux = kernel._prepare_xp(xp, Y)
    n = _n_rows(X)
    rows = block_rows or kernel.block_rows(Y.shape[0], n_rows=max(n, 1))
    scale = None
    if row_scale is not None:
        scale = device.asarray(np.asarray(row_scale, dtype=np.float64), kernel.dtype)
        if scale.shape != (n,):
            raise ValueError(f"row_scale must have shape ({n},), got {tuple(scale.shape)} "
                             "(shape mismatch)")
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        Kb = kernel._fill_xp(xp, to_device_rows(kernel, X, start, stop), Y, aux)
        if scale is not None:
            Kb = Kb * scale[start:stop, None]
        yield slice(start, stop), Kb


def full(kernel: Kernel, X: Any, Y: Any) -> Any:
    """``K(X, Y)`` as one device array in the kernel's dtype, filled block by block (the
    result and one block at a time: no concatenation of parts)."""
    out = kernel.device.zeros((_n_rows(X), _n_rows(Y)), kernel.dtype)
    for sl, Kb in blocks(kernel, X, Y):
        out[sl] = Kb
    return out


def _host_vector(a: Any, name: str, rows: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim not in (1, 2) or a.shape[0] != rows:
        raise ValueError(f"{name} has shape {a.shape}, expected ({rows},) or ({rows}, k) "
                         "(shape mismatch)")
    return a


def matvec(kernel: Kernel, X: Any, C: Any, v: Any, *, block_rows: int | None = None,
           row_scale: np.ndarray | None = None) -> np.ndarray:
    """``K(X, C) @ v`` (float64 host array)."""
    device = kernel.device
    v = _host_vector(v, "v", _n_rows(C))
    vd = device.asarray(v, kernel.dtype)
    out = [Kb @ vd for _, Kb in blocks(kernel, X, C, block_rows=block_rows,
                                        row_scale=row_scale)]
    if not out:
        return np.zeros((0, *v.shape[1:]))
    return device.to_numpy(device.xp.concat(out, axis=0))


def rmatvec(kernel: Kernel, X: Any, C: Any, u: Any, *, block_rows: int | None = None,
            row_scale: np.ndarray | None = None) -> np.ndarray:
    """``K(X, C)ᵀ @ u`` (float64 host array, summed over the row blocks in float64)."""
    device = kernel.device
    u = _host_vector(u, "u", _n_rows(X))
    ud = device.asarray(u, kernel.dtype)
    acc = device.zeros((_n_rows(C), *u.shape[1:]))
    for sl, Kb in blocks(kernel, X, C, block_rows=block_rows, row_scale=row_scale):
        acc += device.asarray(Kb.T @ ud[sl])
    return device.to_numpy(acc)


def normal_matvec(kernel: Kernel, X: Any, C: Any, v: Any, y: Any, *,
                  block_rows: int | None = None, row_scale: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(K_nmᵀ(K_nm v − y), K_nm v − y)`` in one pass over the blocks (float64 host arrays;
    the residual is formed in float64 before it goes back through the block)."""
    device = kernel.device
    v = _host_vector(v, "v", _n_rows(C))
    y = np.asarray(y, dtype=np.float64)
    n = _n_rows(X)
    if y.shape[0] != n or (y.ndim == 2 and (v.ndim == 1 or y.shape[1] != v.shape[1])):
        raise ValueError(f"y has shape {y.shape}, expected ({n},)"
                         + ("" if v.ndim == 1 else f" or ({n}, {v.shape[1]})")
                         + " (shape mismatch)")
    vd, yd = device.asarray(v, kernel.dtype), device.asarray(y)
    if v.ndim == 2 and y.ndim == 1:
        yd = yd[:, None]
    grad = device.zeros(v.shape)
    resid = []
    for sl, Kb in blocks(kernel, X, C, block_rows=block_rows, row_scale=row_scale):
        r = device.asarray(Kb @ vd) - yd[sl]
        grad += device.asarray(Kb.T @ device.xp.astype(r, Kb.dtype))
        resid.append(r)
    r_all = device.xp.concat(resid, axis=0) if resid else device.zeros((0, *v.shape[1:]))
    return device.to_numpy(grad), device.to_numpy(r_all)


def gram_products(kernel: Kernel, X: Any, C: Any, y: Any = None, *,
                  right: Callable[[Any], Any] | None = None, block_rows: int | None = None,
                  row_scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``(BᵀB, Bᵀy)`` with ``B = K(X, C)`` or ``right(K(X, C))`` (``right`` takes and returns
    device arrays), as float64 host arrays; ``BᵀB`` exactly symmetric."""
    device, xp = kernel.device, kernel.device.xp
    G = b = yd = None
    if y is not None:
        y = _host_vector(y, "y", _n_rows(X))
        yd = device.asarray(y)
    for sl, Kb in blocks(kernel, X, C, block_rows=block_rows, row_scale=row_scale):
        if right is not None:
            Kb = right(Kb)
        part = device.asarray(Kb.T @ Kb)
        G = part if G is None else G + part
        if yd is not None:
            bb = device.asarray(Kb.T @ xp.astype(yd[sl], Kb.dtype))
            b = bb if b is None else b + bb
    m = _n_rows(C)
    if G is None:
        G = device.zeros((m, m))
        b = None if y is None else device.zeros((m, *y.shape[1:]))
    G = 0.5 * (G + G.T)
    return device.to_numpy(G), (None if b is None else device.to_numpy(b))
