"""Nyström center selection: which training points become the m centers.

A sampler only chooses row indices; the solver gathers the rows. New samplers subclass
:class:`CenterSampler` and register in :data:`SAMPLERS`.
"""

from __future__ import annotations

import inspect
import warnings
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from kernreg._validation import check_int, check_positive, check_random_state
from kernreg.kernels import Kernel
from kernreg.solvers.blocks.leverage import approximate_leverage_scores

__all__ = [
    "SAMPLERS",
    "CenterSampler",
    "LeverageScoreSampler",
    "UniformSampler",
    "clamp_centers",
    "get_sampler",
]


def clamp_centers(m: int, n: int, *, stacklevel: int = 2) -> int:
    """The number of centers an estimator uses with ``m`` asked for and ``n`` training points.

    ``min(m, n)``: more centers than points cannot be drawn without replacement, so, as
    scikit-learn's ``Nystroem`` does with ``n_components``, ``m > n`` uses every training point
    as a center and warns (the Nyström approximation of ``K`` is then exact up to the factor's
    ε, at the Nyström methods' cost). The experiment runner refuses ``m`` above the rows left
    for fitting before a run starts (config check: a table cell labelled with m must use m
    centers), so a run never reaches this clamp.

    Parameters
    ----------
    m, n : int
        Centers asked for (``>= 1``) and training points.
    stacklevel : int
        Of the warning (``warnings.warn``'s), so that it names the user's call.

    Warns
    -----
    UserWarning
        When ``m > n``.
    """
    if m > n:
        warnings.warn(
            f"m (={m}) exceeds the number of training points n (={n}): using m = n = {n} "
            "centers (every training point)",
            UserWarning,
            stacklevel=stacklevel,
        )
        return n
    return m


class CenterSampler(ABC):
    """Chooses ``m`` distinct row indices of ``X`` to use as Nyström centers."""

    name: ClassVar[str] = ""

    def select(self, X: Any, m: int, rng: Any = None, kernel: Kernel | None = None
               ) -> np.ndarray:
        """Return ``m`` distinct indices into the rows of ``X``.

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (n, d)
        m : int
            Number of centers, ``1 <= m <= n``.
        rng : None, int or numpy.random.Generator
            Source of randomness (an int is a seed).
        kernel : Kernel, optional
            The solver's kernel, for samplers that look at it (leverage scores).

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
        idx = np.asarray(self._select(X, m, check_random_state(rng, "rng"), kernel),
                         dtype=np.int64)
        if idx.shape != (m,) or np.unique(idx).size != m or idx.min() < 0 or idx.max() >= n:
            raise RuntimeError(f"{type(self).__name__} returned an invalid index set")
        return idx

    @abstractmethod
    def _select(self, X: Any, m: int, rng: np.random.Generator,
                kernel: Kernel | None) -> np.ndarray:
        """Return ``m`` distinct row indices (arguments already checked)."""


class UniformSampler(CenterSampler):
    """Uniform sampling of ``m`` rows without replacement (the NYTRO / LiM choice)."""

    name = "uniform"

    def _select(self, X: Any, m: int, rng: np.random.Generator,
                kernel: Kernel | None) -> np.ndarray:
        return rng.choice(X.shape[0], size=m, replace=False)


class LeverageScoreSampler(CenterSampler):
    """Sampling proportional to approximate λ-ridge leverage scores (LiM Definition 1).

    Scores come from :func:`~kernreg.solvers.blocks.leverage.approximate_leverage_scores` on
    ``subsample`` uniformly drawn points (default ``min(n, max(2m, 1000))``); centers are then
    drawn without replacement with probabilities proportional to them, in draw order.

    Parameters
    ----------
    lam : float, default 1e-6
        The λ of the scores; ideally near the λ the model will use.
    subsample : int, optional
    """

    name = "leverage"

    def __init__(self, lam: float = 1e-6, subsample: int | None = None) -> None:
        self.lam = check_positive(lam, "lam")  # a sampler is checked where it is made
        self.subsample = check_int(subsample, "subsample", minimum=1, allow_none=True)

    def _select(self, X: Any, m: int, rng: np.random.Generator,
                kernel: Kernel | None) -> np.ndarray:
        if kernel is None:
            raise ValueError("the leverage sampler needs the solver's kernel")
        s = self.subsample or max(2 * m, 1000)
        s = check_int(s, "subsample", minimum=1)
        scores = approximate_leverage_scores(X, kernel, self.lam, s, rng)
        return rng.choice(X.shape[0], size=m, replace=False, p=scores / scores.sum())


#: Center samplers by name.
SAMPLERS: dict[str, type[CenterSampler]] = {"uniform": UniformSampler,
                                            "leverage": LeverageScoreSampler}


def get_sampler(name: str | dict[str, Any] | CenterSampler) -> CenterSampler:
    """A sampler instance: by name (one of :data:`SAMPLERS`), from ``{"name": ..., **params}``,
    or passed through."""
    if isinstance(name, CenterSampler):
        return name
    params: dict[str, Any] = {}
    if isinstance(name, dict):
        params = {k: v for k, v in name.items() if k != "name"}
        name = name.get("name")
    if not isinstance(name, str) or name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {sorted(SAMPLERS)}, got {name!r}")
    accepted = set(inspect.signature(SAMPLERS[name]).parameters)
    unknown = sorted(set(params) - accepted)
    if unknown:
        takes = ", ".join(sorted(accepted)) or "no parameters"
        raise ValueError(f"sampler {name!r} does not take {', '.join(unknown)} (it takes {takes})")
    return SAMPLERS[name](**params)
