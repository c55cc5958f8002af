"""Data-parallel Nyström products on a Dask cluster (``backend="dask"`` of NKRLS and NYTRO).

The rows ``(X, y)`` are cut into contiguous parts, one or more per worker, and sent once. Each
part lives on its worker with its kernel block against the centers — kept there (``memory``,
the in-memory strategy spread over the cluster) or re-evaluated per product (``blocked``) — and
every product the solvers need is computed where the part lives and summed by a tree of
additions on the workers: only ``m``-sized vectors (NYTRO's iterate out, the gradient back) or
one ``m × m`` matrix per part (NKRLS's ``AᵀA``) travel. The numbers equal the local ones up to
the order of the sums (float64: about 1e-13 relative). Dask (``distributed``) is imported only
here, when a solver asks for it.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernreg.kernels import Kernel
from kernreg.solvers.blocks.knm import KnmOperator, knm_normal_product, make_knm
from kernreg.solvers.blocks.linalg import NystromFactor
from kernreg.solvers.blocks.metrics import rmse

__all__ = ["BACKENDS", "DistributedRows", "current_client", "path_rmse", "worker_memory_limit"]

#: Where a data-parallel solver computes its products.
BACKENDS = ("local", "dask")


def worker_memory_limit(client: Any, driver_available: int) -> tuple[int, int]:
    """``(workers, bytes one worker may use)``: the smallest Dask ``memory_limit`` of the
    workers, and where several workers share the driver's host (a LocalCluster), no more than
    the host's ``driver_available`` bytes split among them — they share one memory."""
    import socket

    info = client.scheduler_info(n_workers=-1)["workers"].values()
    limits = [w.get("memory_limit") or driver_available for w in info]
    local_hosts = {"127.0.0.1", "localhost", socket.gethostname()}
    try:
        local_hosts.add(socket.gethostbyname(socket.gethostname()))
    except OSError:  # a host name that does not resolve: the loopback names still count
        pass
    on_host = sum(1 for w in info if w.get("host") in local_hosts)
    limit = min(limits, default=driver_available)
    if on_host:
        limit = min(limit, driver_available // on_host)
    return max(1, len(limits)), int(limit)


def current_client() -> Any:
    """The Dask client of this process (``kernreg run --scheduler``, or the caller's own).

    Raises
    ------
    ValueError
        Dask is not installed, or no client is running.
    """
    try:
        from distributed import get_client
    except ImportError:
        raise ValueError("backend='dask' needs Dask: pip install 'kernreg[dask]'") from None
    try:
        return get_client()
    except ValueError:
        raise ValueError("backend='dask' needs a running Dask client (distributed.Client(...) "
                         "or kernreg run --scheduler)") from None


@dataclass
class _Part:
    """One part of the rows on its worker, with its kernel block operator."""

    rows: Any
    y: np.ndarray
    knm: KnmOperator
    kernel: Kernel
    centers: Any
    scale: np.ndarray | None = None

    @staticmethod
    def build(rows: Any, y: np.ndarray, kernel: Kernel, centers: Any, strategy: str,
              scale: np.ndarray | None = None) -> _Part:
        return _Part(rows, y, make_knm(strategy, kernel, rows, centers, scale), kernel, centers,
                     scale)

    def gradient(self, alpha: np.ndarray) -> np.ndarray:
        return self.knm.normal_matvec(alpha, self.y)[0]  # K_bᵀ(K_b α − y_b)

    def normal(self, U: np.ndarray) -> np.ndarray:
        return knm_normal_product(self.knm)(U)  # K_bᵀK_b U, one read of a stored block

    def squared_residuals(self, A: np.ndarray) -> np.ndarray:
        r = self.knm.matvec(A) - self.y[:, None]
        return np.einsum("ij,ij->j", r, r)

    def gram_products(self, factor: NystromFactor | None) -> tuple[np.ndarray, np.ndarray]:
        right = None if factor is None else factor.right_solve
        G, b = self.kernel.gram_products(self.rows, self.centers, self.y, right=right,
                                         row_scale=self.scale)
        return G, b


def _call(part: _Part, method: str, *args: Any) -> Any:
    return getattr(part, method)(*args)


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(map(operator.add, a, b))
    return a + b


class DistributedRows:
    """Rows ``(X, y)`` and their kernel blocks with centers ``C``, spread over a cluster.

    Parameters
    ----------
    kernel : Kernel
    X : array of shape (n, d), y : array of shape (n,)
    C : array of shape (m, d)
        The centers (sent once to every worker).
    strategy : {"memory", "blocked"}
        Keep each part's kernel block on its worker, or re-evaluate it per product.
    client : distributed.Client, optional
        Default: :func:`current_client`.
    parts : int, optional
        Number of parts (default: one per worker).
    row_scale : array of shape (n,), optional
        The kernel block of the rows is ``diag(row_scale) K(X, C)`` (repeated rows merged, see
        :func:`~kernreg.solvers.blocks.distinct.merged_rows`) in the gradient, normal and Gram
        products; :meth:`rmse` is for rows given without it (validation rows).
    """

    def __init__(self, kernel: Kernel, X: Any, y: np.ndarray, C: Any, strategy: str = "memory",
                 client: Any = None, parts: int | None = None,
                 row_scale: np.ndarray | None = None) -> None:
        self.client = client or current_client()
        workers = list(self.client.scheduler_info(n_workers=-1)["workers"])
        count = max(1, min(parts or len(workers), X.shape[0]))
        bounds = np.linspace(0, X.shape[0], count + 1).astype(int)
        self.n, self.m = X.shape[0], C.shape[0]
        centers = self.client.scatter(C, broadcast=True, hash=False)
        self._parts = []
        for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            where = [workers[k % len(workers)]]  # round robin: parts spread over the workers
            scale = None if row_scale is None else row_scale[lo:hi]
            rows, ys = self.client.scatter([X[lo:hi], np.asarray(y[lo:hi], dtype=np.float64)],
                                           workers=where, hash=False)
            self._parts.append(self.client.submit(_Part.build, rows, ys, kernel, centers,
                                                  strategy, scale, workers=where, pure=False))
        from distributed import wait  # the optional extra, present once a client exists

        wait(self._parts)

    def _sum(self, method: str, *args: Any) -> Any:
        """``Σ_parts part.method(*args)``, added pairwise on the workers; the total gathered."""
        level = [self.client.submit(_call, p, method, *args, pure=False) for p in self._parts]
        while len(level) > 1:
            pairs = [self.client.submit(_add, a, b, pure=False)
                     for a, b in zip(level[::2], level[1::2], strict=False)]
            level = pairs + ([level[-1]] if len(level) % 2 else [])
        return level[0].result()

    def gradient(self, alpha: np.ndarray) -> np.ndarray:
        """``K_nmᵀ(K_nm α − y)``: the iterate goes out, m floats per part come back."""
        return self._sum("gradient", np.asarray(alpha, dtype=np.float64))

    def normal(self, U: np.ndarray) -> np.ndarray:
        """``K_nmᵀK_nm U``."""
        return self._sum("normal", np.asarray(U, dtype=np.float64))

    def rmse(self, A: np.ndarray) -> np.ndarray:
        """RMSE of ``K_nm A`` against ``y`` for every column of ``A`` (validation errors)."""
        return np.sqrt(self._sum("squared_residuals", np.asarray(A, dtype=np.float64)) / self.n)

    def gram_products(self, factor: NystromFactor | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(BᵀB, Bᵀy)`` with ``B = K_nm R⁻¹`` (``K_nm`` without a factor), one ``m × m``
        matrix per part reduced on the workers."""
        shared = None
        if factor is not None:
            shared = self.client.scatter(factor, broadcast=True, hash=False)
        G, b = self._sum("gram_products", shared)
        return 0.5 * (G + G.T), b

    def bytes_per_product(self, columns: int = 1) -> int:
        """Bytes sent and received per product with ``columns`` vectors (the iterate to every
        part, one m-vector per part and per tree addition back)."""
        parts = len(self._parts)
        return 8 * self.m * columns * (parts + parts + max(parts - 1, 0))

    def close(self) -> None:
        """Release the parts on the workers."""
        self.client.cancel(self._parts)
        self._parts = []


def path_rmse(kernel: Kernel, X: Any, y: np.ndarray, C: Any, alphas: np.ndarray,
              backend: str = "local") -> np.ndarray:
    """RMSE on ``(X, y)`` of every column of ``alphas`` (coefficients on the centers ``C``):
    one blocked product here, or summed over the rows spread on the Dask workers."""
    if backend != "dask":
        return rmse(y, kernel.matvec(X, C, alphas))
    rows = DistributedRows(kernel, X, y, C, "blocked")
    try:
        return rows.rmse(alphas)
    finally:
        rows.close()
