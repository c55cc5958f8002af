"""Random-features KRLS: ridge regression on random Fourier features of the Gaussian kernel.

``z(x) = √(2/D) cos(Wx + b)`` with ``W_j ~ N(0, σ⁻²I)``, ``b_j ~ U[0, 2π)`` approximates
``k(x, x') = exp(−‖x − x'‖²/(2σ²))`` by ``z(x)ᵀz(x')`` (Rahimi & Recht). The model is
``w = (ZᵀZ + λnI)⁻¹ Zᵀy``: a ``D × D`` problem. Features are drawn feature by feature from two
seeded streams, so the first ``D'`` features of a draw of ``D`` are a draw of ``D'``: one pass over
the data gives ``UᵀU`` and ``Uᵀy`` (``U = √(D)·Z`` unscaled) for every level ``D' ≤ D`` as
leading blocks, and each level's λ path comes from one eigendecomposition of its block.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_int, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.lambda_path import (
    DEFAULT_LEVELS,
    LambdaPath,
    LambdaPathEstimator,
    check_m_levels,
    column_rmse,
    eigen_path_coefs,
)
from kernreg.solvers.blocks.params import LAMBDAS, M_LEVELS, POSITIVE_INT, lambda_grid, level_values
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["RandomFeaturesKRLS", "draw_features"]


def draw_features(d: int, n_features: int, sigma: float, random_state: Any
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies ``W`` (D, d) and phases ``b`` (D,), prefix-consistent in ``D``."""
    seeds = check_random_state(random_state).integers(0, 2**63, size=2)
    W = np.random.default_rng(seeds[0]).standard_normal((n_features, d)) / sigma
    b = np.random.default_rng(seeds[1]).uniform(0.0, 2.0 * np.pi, n_features)
    return W, b


def _feature_blocks(X: Any, W: np.ndarray, b: np.ndarray, memory_budget: int
                    ) -> Iterator[tuple[slice, np.ndarray]]:
    """Row blocks of the unscaled features ``U = √2·cos(XWᵀ + b)`` within the memory budget."""
    rows = max(1, memory_budget // (8 * W.shape[0]))
    for start in range(0, X.shape[0], rows):
        Xb = X[start:start + rows]
        proj = np.asarray(Xb @ W.T, dtype=np.float64)  # sparse @ dense is dense
        proj += b
        np.cos(proj, out=proj)
        proj *= np.sqrt(2.0)
        yield slice(start, start + Xb.shape[0]), proj


@dataclass
class _Features:
    """A draw of ``D`` features and the fit rows' ``UᵀU`` and ``Uᵀy``: every level's system."""

    W: np.ndarray
    b: np.ndarray
    G: np.ndarray
    c: np.ndarray


class RandomFeaturesKRLS(LambdaPathEstimator):
    """KRLS on ``D`` random Fourier features, with a path over λ and the number of features.

    Selects the pair ``(λ, D')`` with the lowest validation RMSE (ties: the fewest features).
    Gaussian kernel only. Cost ``O(nD(D + d))`` for the data pass plus ``O(D'³)`` per level.

    Parameters
    ----------
    kernel : {"gaussian"}, default "gaussian"
    sigma : float, default 1.0
    n_features : int, default 1000
        Largest number of features ``D``.
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data (then with all ``D`` features).
    lambdas : array-like, optional
        λ grid; default 100 values log-spaced in ``[1e-15, 1]``.
    d_values : array-like of int, optional
        Levels ``D'`` validated; default 50 evenly spaced up to ``n_features``.
    random_state : None, int or numpy.random.Generator
        Seed of the features.
    refit : bool, default False
        After selection, refit on training + validation rows with the first ``D*`` features.
    dtype : {"float64"}, default "float64"
    memory_budget : int
        Bytes per feature block.

    Attributes
    ----------
    coef_ : ndarray of shape (D*,)
        Weights of the unscaled features ``√2·cos(Wx + b)`` (the ``√(1/D*)`` folded in).
    frequencies_, phases_ : the first ``D*`` rows of ``W`` and entries of ``b``
    best_lambda_ : float
    best_n_features_ : int
    path_ : dict or None
        ``{"lambdas", "m_values" (the levels D'), "val_rmse" (L, M)}`` with validation data.
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        n_features: int = 1000,
        lam: float = 1e-6,
        lambdas: Any = None,
        d_values: Any = None,
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.n_features = n_features
        self.lam = lam
        self.lambdas = lambdas
        self.d_values = d_values
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget

    def _gram(self, X: Any, y: np.ndarray, W: np.ndarray, b: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        D = W.shape[0]
        G, c = np.zeros((D, D)), np.zeros(D)
        for rows, U in _feature_blocks(X, W, b, self.memory_budget):
            G += U.T @ U
            c += U.T @ y[rows]
        return 0.5 * (G + G.T), c

    @staticmethod
    def _level_path(G: np.ndarray, c: np.ndarray, level: int, shifts: np.ndarray
                    ) -> np.ndarray:
        """Weights of the unscaled features for every shift λn at level ``D'``: with
        ``Z = U/√D'``, ``w = (ZᵀZ + λnI)⁻¹Zᵀy`` and predictions ``Zw = U (w/√D')``."""
        s, V = la.eigh(G[:level, :level] / level, check_finite=False)
        return eigen_path_coefs(s, V, c[:level] / np.sqrt(level), shifts) / np.sqrt(level)

    def _fit_info(self) -> dict[str, Any]:
        return {"m_selected": int(self.best_n_features_)}  # the selected size, as m*

    def check_params(self) -> None:
        super().check_params()
        if self.kernel != "gaussian":
            raise ValueError(f"kernel must be 'gaussian' for random Fourier features, "
                             f"got {self.kernel!r}")
        check_m_levels(self.d_values, check_int(self.n_features, "n_features", minimum=1))
        check_random_state(self.random_state)

    def _prepare(self, X: Any, y: np.ndarray) -> _Features:
        D = check_int(self.n_features, "n_features", minimum=1)
        W, b = draw_features(X.shape[1], D, float(self.sigma), self.random_state)
        return _Features(W, b, *self._gram(X, y, W, b))

    def _fit_at(self, state: _Features, X: Any, y: np.ndarray, lam: float) -> None:
        D = state.W.shape[0]
        w = self._level_path(state.G, state.c, D, np.array([lam * X.shape[0]]))[:, 0]
        self._set_solution(state.W, state.b, w, lam, D)

    def _path(self, state: _Features, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        D = state.W.shape[0]
        levels = check_m_levels(self.d_values, D)
        L, M = lambdas.size, levels.size
        coefs = np.zeros((D, L, M))
        for k, level in enumerate(levels):
            coefs[:level, :, k] = self._level_path(state.G, state.c, int(level),
                                                   lambdas * X.shape[0])
        blocks = _feature_blocks(X_val, state.W, state.b, self.memory_budget)
        val_rmse = column_rmse(blocks, coefs.reshape(D, L * M), y_val).reshape(L, M)
        return LambdaPath(lambdas, val_rmse, lambda j, k: coefs[:levels[k], j, k], levels)

    def _choose(self, state: _Features, path: LambdaPath, j: int, k: int) -> None:
        self._set_solution(state.W, state.b, path.coef(j, k), float(path.lambdas[j]),
                           int(path.levels[k]))

    def _refit(self, state: _Features, X: Any, y: np.ndarray) -> None:
        D, lam = self.best_n_features_, self.best_lambda_
        G, c = self._gram(X, y, state.W[:D], state.b[:D])
        w = self._level_path(G, c, D, np.array([lam * X.shape[0]]))[:, 0]
        self._set_solution(state.W, state.b, w, lam, D)

    def _set_solution(self, W: np.ndarray, b: np.ndarray, w: np.ndarray, lam: float,
                      n_features: int) -> None:
        self.frequencies_, self.phases_ = W[:n_features], b[:n_features]
        self.coef_ = np.ascontiguousarray(w[:n_features])
        self.best_lambda_, self.best_n_features_ = lam, n_features

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``√2·cos(XWᵀ + b) @ coef_``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features_in_)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,), float64
        """
        X = self._check_predict_data(X, "coef_")
        out = np.empty(X.shape[0])
        for rows, U in _feature_blocks(X, self.frequencies_, self.phases_, self.memory_budget):
            out[rows] = U @ self.coef_
        return out


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # the D × D Gram and its eigenvectors, coefficients of every (λ, D') pair, and the feature
    # blocks (budget-sized) with their predictions for every pair
    D, lambdas = params["n_features"], len(lambda_grid(params["lambdas"]))
    levels = len(level_values(params.get("d_values")) or range(min(D, DEFAULT_LEVELS)))
    return {"D×D matrices": 3 * D * D * F64, "path": 2 * D * lambdas * levels * F64,
            "feature blocks": 2 * problem.block_bytes}


def _check(params: dict[str, Any], kernel: str) -> list[str]:
    problems = []
    if kernel != "gaussian":
        problems.append(f"name: rf (random Fourier features) needs the gaussian kernel, not "
                        f"{kernel}")
    levels = level_values(params.get("d_values")) or []
    if levels and max(levels) > params["n_features"]:
        problems.append(f"d_values: levels up to {max(levels)} exceed n_features = "
                        f"{params['n_features']}")
    return problems


register(AlgorithmSpec(
    name="rf",
    estimator=RandomFeaturesKRLS,
    title="Random features KRLS",
    order=70,
    schema={"lambdas": LAMBDAS, "n_features": POSITIVE_INT, "d_values": M_LEVELS},
    config_defaults=("lambdas", "n_features", "d_values"),
    memory=_memory,
    check=_check,
    summary="ridge regression on D random Fourier features, paths over λ and D' ≤ D",
))
