"""The kernel base class: kernel values evaluated block-wise under a memory budget.

A :class:`Kernel` turns two sets of points (rows of dense arrays or CSR matrices) into kernel
values, one block of rows of the first set at a time, so that no more than ``memory_budget`` bytes
of kernel values exist at once. On top of the block generator it offers the fused products that
Nyström solvers need without ever storing ``K_nm``:

* :meth:`Kernel.gram_products` — ``K_nmᵀ K_nm`` and ``K_nmᵀ y``,
* :meth:`Kernel.matvec` / :meth:`Kernel.rmatvec` — ``K_nm v`` and ``K_nmᵀ u``,
* :meth:`Kernel.normal_matvec` — ``K_nmᵀ (K_nm v − y)`` (one pass, for gradient iterations).

Distances use the GEMM expansion ``||x||² + ||y||² − 2 x·y`` clipped at 0 (rounding can make it
slightly negative), and the exponential is taken in place.

Each kernel lives in its own module of this package (``gaussian.py``, ...) and ends with its
registration in :mod:`kernreg.kernels.registry`; the helpers here (:func:`row_sq_norms`,
:func:`cross`, :class:`DistanceKernel`) are what those modules build on.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from kernreg._validation import check_dtype, check_int, check_positive
from kernreg.backend import CPU, Device, get_device
from kernreg.kernels import device_products
from kernreg.kernels.compiled import normal_pass
from kernreg.progress import report

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "DENSIFY_DENSITY",
    "Data",
    "DistanceKernel",
    "Kernel",
    "as_2d",
    "cast",
    "cross",
    "row_block",
    "row_sq_norms",
]

#: Default bytes of kernel values held at once by the blocked routines (256 MiB).
DEFAULT_MEMORY_BUDGET = 256 * 2**20

Data = np.ndarray | sp.csr_matrix


def as_2d(X: Any, name: str) -> Data:
    """Return ``X`` as a 2-D float ndarray or CSR matrix (no finiteness scan: callers check)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "fiub":
            raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    return X


def cast(X: Data, dtype: type[np.floating]) -> Data:
    """Cast to ``dtype`` without copying when it already matches."""
    if X.dtype == dtype:
        return X
    return X.astype(dtype)


#: Density above which a sparse row block is multiplied as a dense array: a dense GEMM does ~50×
#: more useful flops per second than scipy's single-threaded sparse × dense product.
DENSIFY_DENSITY = 0.02


def row_block(X: Data, start: int, stop: int, n_cols: int, dtype: type[np.floating]) -> Data:
    """Rows ``start:stop`` of ``X`` in ``dtype``, densified when sparse but dense enough (and no
    larger than the ``(rows, n_cols)`` kernel block it produces)."""
    Xb = cast(X[start:stop], dtype)
    if (
        sp.issparse(Xb)
        and Xb.shape[1] <= n_cols
        and Xb.nnz >= DENSIFY_DENSITY * Xb.shape[0] * Xb.shape[1]
    ):
        return Xb.toarray()
    return Xb


def row_sq_norms(X: Data) -> np.ndarray:
    """Squared Euclidean norm of each row, in the dtype of ``X``."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=X.dtype).ravel()
    return np.einsum("ij,ij->i", X, X)


def _check_row_scale(row_scale: Any, n: int, dtype: Any) -> np.ndarray:
    scale = np.asarray(row_scale, dtype=dtype)
    if scale.shape != (n,):
        raise ValueError(f"row_scale must have shape ({n},), got {scale.shape} (shape mismatch)")
    return scale


def cross(Xb: Data, Y: Data, out: np.ndarray) -> np.ndarray:
    """Write ``Xb @ Y.T`` into ``out`` (dense), for any mix of dense and CSR operands."""
    if sp.issparse(Xb) or sp.issparse(Y):
        prod = Xb @ Y.T
        out[...] = prod.toarray() if sp.issparse(prod) else prod
    else:
        np.matmul(Xb, Y.T, out=out)
    return out


class Kernel(ABC):
    """Base class: a positive semi-definite kernel evaluated block-wise.

    Parameters
    ----------
    dtype : {"float64", "float32"}, default "float64"
        Precision of kernel evaluation (inputs are cast to it block by block). Accumulated
        products (:meth:`gram_products`, :meth:`matvec`, ...) are returned in float64.
    memory_budget : int, default :data:`DEFAULT_MEMORY_BUDGET`
        Bytes of kernel values that the blocked routines may hold at once. A block has
        ``block_rows(n_cols)`` rows; at least one row is always used, so a single row wider than
        the budget exceeds it.

    Notes
    -----
    Subclasses implement :meth:`_prepare` (per-``Y`` precomputation, e.g. squared norms) and
    :meth:`_fill` (kernel values of a row block written in place).
    """

    name: ClassVar[str] = ""
    #: Where the fused products run and :meth:`on_device` puts its values (:meth:`to`).
    device: Device = CPU

    def __init__(self, *, dtype: Any = "float64", memory_budget: int = DEFAULT_MEMORY_BUDGET):
        self.dtype = check_dtype(dtype, "dtype")
        self.memory_budget = check_int(memory_budget, "memory_budget", minimum=1)

    # ----------------------------------------------------------------- subclass interface
    def _prepare(self, Y: Data) -> Any:
        """Per-``Y`` data reused by every block (default: nothing)."""
        return None

    @abstractmethod
    def _fill(self, Xb: Data, Y: Data, aux: Any, out: np.ndarray) -> np.ndarray:
        """Write the kernel values between the rows of ``Xb`` and of ``Y`` into ``out``."""

    @abstractmethod
    def diag(self, X: Any) -> np.ndarray:
        """Return ``k(x_i, x_i)`` for every row ``x_i`` of ``X`` (float64, shape ``(n,)``)."""

    def _fill_xp(self, xp: Any, Xb: Any, Y: Any, aux: Any) -> Any:
        """The kernel values between the rows of the device arrays ``Xb`` and ``Y``, written
        once against the array namespace ``xp`` (the device path; see :meth:`to`). Kernels
        without one are refused on a device (:meth:`check_device`)."""
        raise NotImplementedError

    def _prepare_xp(self, xp: Any, Y: Any) -> Any:
        """Per-``Y`` data of :meth:`_fill_xp` (default: nothing)."""
        return None

    def check_device(self) -> None:
        """Raise ``ValueError`` if this kernel has no device path."""
        if type(self)._fill_xp is Kernel._fill_xp:
            raise ValueError(f"kernel {self.name!r} has no device path (device={self.device.name!r}"
                             "); it runs on device cpu")

    def to(self, device: Any) -> Kernel:
        """A copy of this kernel whose fused products run on ``device`` (a
        :class:`~kernreg.backend.Device` or its name): inputs stay host arrays and products
        come back as float64 host arrays, while the kernel blocks are evaluated and used
        where the device is (:mod:`kernreg.kernels.device_products`)."""
        new = copy.copy(self)
        new.device = get_device(device)
        if not new.device.is_numpy:
            new.check_device()
        return new

    def on_device(self, X: Any, Y: Any = None) -> Any:
        """The full kernel matrix ``K(X, Y)`` as an array of this kernel's device (numpy on
        ``cpu``), in the kernel's dtype."""
        if self.device.is_numpy:
            return self(X, Y)
        return device_products.full(self, X, X if Y is None else Y)

    # ----------------------------------------------------------------- block machinery
    def with_dtype(self, dtype: Any) -> Kernel:
        """A copy of this kernel evaluating in ``dtype`` (e.g. float64 for NYTRO's Gram)."""
        new = copy.copy(self)
        new.dtype = check_dtype(dtype, "dtype")
        return new

    @property
    def itemsize(self) -> int:
        """Bytes per kernel value."""
        return np.dtype(self.dtype).itemsize

    def block_rows(self, n_cols: int, *, n_rows: int | None = None) -> int:
        """Number of rows per kernel block with ``n_cols`` columns under the memory budget.

        ``max(1, memory_budget // (n_cols * itemsize))``, capped at ``n_rows`` when given.
        """
        rows = max(1, self.memory_budget // max(1, n_cols * self.itemsize))
        if n_rows is not None:
            rows = max(1, min(rows, n_rows))
        return int(rows)

    def _setup(self, X: Any, Y: Any) -> tuple[Data, Data, Any]:
        X = as_2d(X, "X")
        Y = as_2d(Y, "Y")
        if X.shape[1] != Y.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but Y has {Y.shape[1]} (shape mismatch)")
        Y = cast(Y, self.dtype)
        # A sparse Y (e.g. centers) is densified when that is cheap: sparse @ dense products are
        # fast and produce the dense block directly, without a sparse temporary.
        if sp.issparse(Y) and Y.shape[0] * Y.shape[1] * self.itemsize <= self.memory_budget:
            Y = Y.toarray()
        return X, Y, self._prepare(Y)

    def _rows_per_block(self, Y: Data, n_rows: int, block_rows: int | None) -> int:
        if block_rows is not None:
            return check_int(block_rows, "block_rows", minimum=1)
        rows = self.block_rows(Y.shape[0], n_rows=n_rows)
        if sp.issparse(Y):
            # sparse @ sparse makes a temporary of up to the block's size before densifying
            rows = max(1, rows // 2)
        return rows

    def blocks(
        self, X: Any, Y: Any, *, block_rows: int | None = None, reuse_buffer: bool = False,
        row_scale: np.ndarray | None = None,
    ) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(row_slice, K[row_slice, :])`` covering the rows of ``X`` in order.

        Parameters
        ----------
        X, Y : ndarray or sparse matrix of shape (n, d) and (p, d)
        block_rows : int, optional
            Rows per block; default from the memory budget (:meth:`block_rows`).
        reuse_buffer : bool, default False
            Write every block into the same buffer (no allocation per block). The yielded array
            is then only valid until the next iteration step.
        row_scale : ndarray of shape (n,), optional
            Multiply row i of ``K`` by ``row_scale[i]`` (``diag(s) K``: the repeated rows of
            ``X`` merged into one row each, see :mod:`kernreg.solvers.blocks.distinct`).

        Yields
        ------
        row_slice : slice
            Rows of ``X`` covered by the block.
        K_block : ndarray of shape (rows, p), dtype ``self.dtype``
        """
        X, Y, aux = self._setup(X, Y)
        n = X.shape[0]
        scale = None if row_scale is None else _check_row_scale(row_scale, n, self.dtype)
        rows = self._rows_per_block(Y, n, block_rows)
        buf = np.empty((rows, Y.shape[0]), dtype=self.dtype) if reuse_buffer else None
        for start in range(0, n, rows):
            stop = min(start + rows, n)
            report("kernel rows {}/{} ({} × {} blocks)", start, n, rows, Y.shape[0])
            if buf is not None:
                out = buf[: stop - start]
            else:
                out = np.empty((stop - start, Y.shape[0]), dtype=self.dtype)
            Xb = row_block(X, start, stop, Y.shape[0], self.dtype)
            block = self._fill(Xb, Y, aux, out)
            if scale is not None:
                block *= scale[start:stop, None]
            yield slice(start, stop), block

    def __call__(self, X: Any, Y: Any = None, *, out: np.ndarray | None = None) -> np.ndarray:
        """Return the full kernel matrix ``K(X, Y)`` (``Y = X`` when omitted).

        The result itself has ``n * p`` entries and is not bounded by the memory budget; the
        computation adds no temporary larger than the output. ``out``: a C-contiguous array
        of shape ``(n, p)`` and the kernel's dtype to write it into.
        """
        if Y is None:
            Y = X
        X, Y, aux = self._setup(X, Y)
        shape = (X.shape[0], Y.shape[0])
        if out is None:
            out = np.empty(shape, dtype=self.dtype)
        elif out.shape != shape or out.dtype != self.dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {self.dtype.__name__} array of shape "
                             f"{shape}, got {out.dtype} {out.shape}")
        rows = self._rows_per_block(Y, X.shape[0], None)
        for start in range(0, X.shape[0], rows):
            stop = min(start + rows, X.shape[0])
            report("kernel rows {}/{} ({} × {} blocks)", start, X.shape[0], rows, Y.shape[0])
            self._fill(row_block(X, start, stop, Y.shape[0], self.dtype), Y, aux,
                       out[start:stop])
        return out

    # ----------------------------------------------------------------- fused products
    def gram_products(
        self,
        X: Any,
        C: Any,
        y: Any = None,
        *,
        right: Callable[[np.ndarray], np.ndarray] | None = None,
        block_rows: int | None = None,
        row_scale: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Return ``(BᵀB, Bᵀy)`` with ``B = K(X, C)`` (or ``right(K(X, C))``), block-wise.

        Each block's product is formed in the block's dtype and summed into float64 outputs.
        Only one ``(block_rows, m)`` kernel block exists at a time, plus the ``(m, m)`` outputs.

        Parameters
        ----------
        X, C : ndarray or sparse matrix of shape (n, d) and (m, d)
        y : array-like of shape (n,) or (n, k), optional
        right : callable, optional
            Row-block map applied before the products, e.g. ``B ↦ B R⁻¹``. With it Nyström
            solvers get ``AᵀA`` for ``A = K_nm R⁻¹`` directly: forming ``K_nmᵀK_nm`` first and
            then ``R⁻ᵀ(·)R⁻¹`` magnifies the rounding of ``K_nmᵀK_nm`` by ``‖R⁻¹‖²`` (up to
            ``1/ε``), enough to make small eigenvalues of ``AᵀA`` negative.
        block_rows : int, optional
        row_scale : ndarray of shape (n,), optional
            ``B = diag(row_scale) K(X, C)`` (see :meth:`blocks`).

        Returns
        -------
        G : ndarray of shape (m, m), float64, symmetric
        b : ndarray of shape (m,) or (m, k), float64, or None when ``y`` is None
        """
        if not self.device.is_numpy:
            return device_products.gram_products(self, X, C, y, right=right,
                                                 block_rows=block_rows, row_scale=row_scale)
        m = as_2d(C, "C").shape[0]
        G = np.zeros((m, m))
        b = None
        if y is not None:
            y = np.asarray(y, dtype=np.float64)
            b = np.zeros((m, *y.shape[1:]))
        tmp = None
        for sl, Kb in self.blocks(X, C, block_rows=block_rows, reuse_buffer=True,
                                  row_scale=row_scale):
            if right is not None:
                Kb = right(Kb)
            if tmp is None or tmp.dtype != Kb.dtype:
                tmp = np.empty((m, m), dtype=Kb.dtype)
            np.matmul(Kb.T, Kb, out=tmp)  # numpy dispatches A.T @ A to BLAS syrk
            G += tmp
            if b is not None:
                b += Kb.T @ y[sl].astype(Kb.dtype, copy=False)
        # syrk fills one triangle and numpy mirrors it; enforce exact symmetry anyway
        G = 0.5 * (G + G.T)
        return G, b

    def matvec(self, X: Any, C: Any, v: Any, *, block_rows: int | None = None,
               row_scale: np.ndarray | None = None) -> np.ndarray:
        """Return ``K(X, C) @ v`` (float64, shape ``(n,)`` or ``(n, k)``) without storing K
        (``diag(row_scale) K(X, C) @ v`` with ``row_scale``)."""
        if not self.device.is_numpy:
            return device_products.matvec(self, X, C, v, block_rows=block_rows,
                                          row_scale=row_scale)
        v = np.asarray(v, dtype=np.float64)
        n = as_2d(X, "X").shape[0]
        m = as_2d(C, "C").shape[0]
        if v.shape[0] != m:
            raise ValueError(f"v has {v.shape[0]} rows but C has {m} (shape mismatch)")
        out = np.empty((n, *v.shape[1:]))
        vk = v.astype(self.dtype, copy=False)  # avoid upcasting a whole float32 block
        for sl, Kb in self.blocks(X, C, block_rows=block_rows, reuse_buffer=True,
                                  row_scale=row_scale):
            out[sl] = Kb @ vk
        return out

    def rmatvec(self, X: Any, C: Any, u: Any, *, block_rows: int | None = None,
                row_scale: np.ndarray | None = None) -> np.ndarray:
        """Return ``K(X, C)ᵀ @ u`` (float64, shape ``(m,)`` or ``(m, k)``) without storing K
        (``(diag(row_scale) K(X, C))ᵀ @ u`` with ``row_scale``)."""
        if not self.device.is_numpy:
            return device_products.rmatvec(self, X, C, u, block_rows=block_rows,
                                           row_scale=row_scale)
        u = np.asarray(u, dtype=np.float64)
        n = as_2d(X, "X").shape[0]
        if u.shape[0] != n:
            raise ValueError(f"u has {u.shape[0]} rows but X has {n} (shape mismatch)")
        out = np.zeros((as_2d(C, "C").shape[0], *u.shape[1:]))
        for sl, Kb in self.blocks(X, C, block_rows=block_rows, reuse_buffer=True,
                                  row_scale=row_scale):
            out += Kb.T @ u[sl].astype(self.dtype, copy=False)
        return out

    def normal_matvec(
        self, X: Any, C: Any, v: Any, y: Any, *, block_rows: int | None = None,
        row_scale: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(K_nmᵀ (K_nm v − y), K_nm v − y)`` in one pass over the blocks of ``K_nm``.

        This is the gradient of ``½||K_nm v − y||²`` together with the training residual,
        with ``K_nm`` evaluated block by block and never stored: each block is used for both
        products by :func:`kernreg.kernels.compiled.normal_pass` (compiled, or its numpy
        fallback). ``v`` of shape ``(m, k)`` carries k right-hand sides through the same
        evaluation; ``y`` is ``(n,)`` (shared by the columns) or ``(n, k)``. With
        ``row_scale``, ``K_nm`` is ``diag(row_scale) K(X, C)``.
        """
        if not self.device.is_numpy:
            return device_products.normal_matvec(self, X, C, v, y, block_rows=block_rows,
                                                 row_scale=row_scale)
        v = np.asarray(v, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        n = as_2d(X, "X").shape[0]
        m = as_2d(C, "C").shape[0]
        if v.ndim not in (1, 2) or v.shape[0] != m:
            raise ValueError(f"v must have shape ({m},) or ({m}, k), got {v.shape} "
                             "(shape mismatch)")
        k = 1 if v.ndim == 1 else v.shape[1]
        if y.shape != (n,) and (v.ndim == 1 or y.shape != (n, k)):
            raise ValueError(f"y must have shape ({n},)" + ("" if v.ndim == 1 else
                             f" or ({n}, {k})") + f", got {y.shape} (shape mismatch)")
        grad = np.zeros((m, k))
        resid = np.empty((n, k))
        v2 = v.reshape(m, k)
        for sl, Kb in self.blocks(X, C, block_rows=block_rows, reuse_buffer=True,
                                  row_scale=row_scale):
            normal_pass(Kb, v2, y[sl], grad=grad, resid=resid[sl])
        if v.ndim == 1:
            return grad[:, 0], resid[:, 0]
        return grad, resid

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict[str, Any]:
        params = {"dtype": np.dtype(self.dtype).name, "memory_budget": self.memory_budget}
        if not self.device.is_numpy:
            params["device"] = self.device.name
        return params


class DistanceKernel(Kernel):
    """Base of the kernels of the form ``f(||x − y||²)`` with bandwidth ``sigma``.

    ``_prepare`` gives the squared norms of ``Y``; a subclass's ``_fill`` gets the squared
    distances of a block from :meth:`_sq_dist` and maps them in place. ``k(x, x) = 1``.
    """

    def __init__(
        self,
        sigma: float = 1.0,
        *,
        dtype: Any = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ):
        super().__init__(dtype=dtype, memory_budget=memory_budget)
        self.sigma = check_positive(sigma, "sigma")
        if not 1e-150 <= self.sigma <= 1e150:  # σ² and 1/σ² must stay finite floats
            raise ValueError(f"sigma must lie in [1e-150, 1e150], got {self.sigma!r}")

    def _prepare(self, Y: Data) -> np.ndarray:
        return row_sq_norms(Y)

    def _sq_dist(
        self, Xb: Data, Y: Data, yy: np.ndarray, out: np.ndarray, xx: np.ndarray | None = None
    ) -> np.ndarray:
        cross(Xb, Y, out)
        out *= -2.0
        out += (row_sq_norms(Xb) if xx is None else xx)[:, None]
        out += yy[None, :]
        np.maximum(out, 0.0, out=out)  # rounding can push ||x−y||² slightly below 0
        return out

    def diag(self, X: Any) -> np.ndarray:
        return np.ones(as_2d(X, "X").shape[0])

    def _prepare_xp(self, xp: Any, Y: Any) -> Any:
        return xp.sum(Y * Y, axis=1)

    def _sq_dist_xp(self, xp: Any, Xb: Any, Y: Any, yy: Any) -> tuple[Any, Any]:
        """``(‖x − y‖², ‖x‖²)`` of a device block by the GEMM expansion, clipped at 0."""
        xx = xp.sum(Xb * Xb, axis=1)
        d2 = xx[:, None] + yy[None, :] - 2.0 * (Xb @ Y.T)
        return xp.clip(d2, 0.0, None), xx

    def _distances_xp(self, xp: Any, Xb: Any, Y: Any, yy: Any) -> Any:
        """``‖x − y‖`` of a device block, with the squared distances at the expansion's
        rounding level set to 0 (as the host path does: coincident points get ``r = 0``)."""
        d2, xx = self._sq_dist_xp(xp, Xb, Y, yy)
        eps = float(np.finfo(self.dtype).eps)
        noise = 4.0 * eps * (xp.max(xx) + xp.max(yy))
        return xp.sqrt(xp.where(d2 <= noise, xp.zeros_like(d2), d2))

    def _params(self) -> dict[str, Any]:
        return {"sigma": self.sigma, **super()._params()}
