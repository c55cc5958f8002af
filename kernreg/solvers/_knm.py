"""Strategies that provide products with ``K_nm = K(X, C)`` to the Nyström solvers.

:class:`InMemoryKnm` computes ``K_nm`` once and keeps it (``n·m`` floats); :class:`BlockedKnm`
recomputes it block by block on every product (``O(block·m)`` memory, ``O(n·m·d)`` extra time per
product). Solvers only call the methods below, so the storage policy is a constructor choice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from kernreg.kernels import Kernel

__all__ = ["KNM_STORAGES", "BlockedKnm", "InMemoryKnm", "KnmOperator", "make_knm"]


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


class InMemoryKnm(KnmOperator):
    """``K_nm`` computed once (float64) and kept in memory."""

    def __init__(self, kernel: Kernel, X: Any, C: Any):
        self.K = np.asarray(kernel(X, C), dtype=np.float64)
        self.shape = self.K.shape

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.K @ v

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        return self.K.T @ u


class BlockedKnm(KnmOperator):
    """``K_nm`` never stored: every product re-evaluates it block-wise under the memory budget."""

    def __init__(self, kernel: Kernel, X: Any, C: Any):
        self.kernel, self.X, self.C = kernel, X, C
        self.shape = (X.shape[0], C.shape[0])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.kernel.matvec(self.X, self.C, v)

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        return self.kernel.rmatvec(self.X, self.C, u)

    def normal_matvec(self, v: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.kernel.normal_matvec(self.X, self.C, v, y)  # one pass over the blocks


#: Storage strategies by name.
KNM_STORAGES: dict[str, type[KnmOperator]] = {"memory": InMemoryKnm, "blocked": BlockedKnm}


def make_knm(storage: str, kernel: Kernel, X: Any, C: Any) -> KnmOperator:
    """Build the ``K_nm`` strategy ``storage`` (one of :data:`KNM_STORAGES`)."""
    if not isinstance(storage, str) or storage not in KNM_STORAGES:
        raise ValueError(f"knm_storage must be one of {sorted(KNM_STORAGES)}, got {storage!r}")
    return KNM_STORAGES[storage](kernel, X, C)
