"""Nyström center selection: which training points become the m centers.

A sampler only chooses row indices; the solver gathers the rows. New samplers (e.g. approximate
leverage scores) subclass :class:`CenterSampler` and register in :data:`SAMPLERS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from kernreg._validation import check_int, check_random_state

__all__ = ["SAMPLERS", "CenterSampler", "UniformSampler", "get_sampler"]


class CenterSampler(ABC):
    """Chooses ``m`` distinct row indices of ``X`` to use as Nyström centers."""

    name: ClassVar[str] = ""

    def select(self, X: Any, m: int, rng: Any = None) -> np.ndarray:
        """Return ``m`` distinct indices into the rows of ``X``.

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (n, d)
        m : int
            Number of centers, ``1 <= m <= n``.
        rng : None, int or numpy.random.Generator
            Source of randomness (an int is a seed).

        Returns
        -------
        indices : ndarray of shape (m,), int64
            In selection order: the first ``m'`` of them are themselves a valid selection of
            ``m'`` centers (useful for incremental Nyström).
        """
        n = X.shape[0]
        m = check_int(m, "m", minimum=1)
        if m > n:
            raise ValueError(f"m (={m}) must not exceed the number of training points n (={n})")
        idx = np.asarray(self._select(X, m, check_random_state(rng, "rng")), dtype=np.int64)
        if idx.shape != (m,) or np.unique(idx).size != m or idx.min() < 0 or idx.max() >= n:
            raise RuntimeError(f"{type(self).__name__} returned an invalid index set")
        return idx

    @abstractmethod
    def _select(self, X: Any, m: int, rng: np.random.Generator) -> np.ndarray:
        """Return ``m`` distinct row indices (arguments already checked)."""


class UniformSampler(CenterSampler):
    """Uniform sampling of ``m`` rows without replacement (the NYTRO / LiM choice)."""

    name = "uniform"

    def _select(self, X: Any, m: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(X.shape[0], size=m, replace=False)


#: Center samplers by name.
SAMPLERS: dict[str, type[CenterSampler]] = {"uniform": UniformSampler}


def get_sampler(name: str | CenterSampler) -> CenterSampler:
    """Return a sampler instance for ``name`` (one of :data:`SAMPLERS`) or pass one through."""
    if isinstance(name, CenterSampler):
        return name
    if not isinstance(name, str) or name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {sorted(SAMPLERS)}, got {name!r}")
    return SAMPLERS[name]()
