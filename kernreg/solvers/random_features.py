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
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_int, check_lambdas, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers._base import DEFAULT_LAMBDAS, KernelEstimator, stack_rows
from kernreg.solvers.incremental import best_pair, check_m_levels
from kernreg.solvers.krls import eigen_path_coefs
from kernreg.solvers.params import LAMBDAS, M_LEVELS, POSITIVE_INT, lambda_grid, level_values
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


class RandomFeaturesKRLS(KernelEstimator):
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

    path_parameter = "lambda"

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
        self._check_refit()
        self._check_lam(self.lam)
        check_random_state(self.random_state)
        if self.lambdas is not None:
            check_lambdas(self.lambdas)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> RandomFeaturesKRLS:
        """Fit at ``(lam, n_features)``, or over the ``(lambdas, d_values)`` grid.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
        X_val, y_val : optional validation data (given together)

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        D = check_int(self.n_features, "n_features", minimum=1)
        refit = self._check_refit()
        lam = self._check_lam(self.lam)
        levels = check_m_levels(self.d_values, D)
        n = X.shape[0]
        W, b = draw_features(X.shape[1], D, float(self.sigma), self.random_state)
        G, c = self._gram(X, y, W, b)
        if X_val is None:
            self._set_solution(W, b, self._level_path(G, c, D, np.array([lam * n]))[:, 0],
                               lam, D)
            self.path_ = None
            return self

        lambdas = check_lambdas(DEFAULT_LAMBDAS if self.lambdas is None else self.lambdas)
        L, M = lambdas.size, levels.size
        coefs = np.zeros((D, L, M))
        for k, level in enumerate(levels):
            coefs[:level, :, k] = self._level_path(G, c, int(level), lambdas * n)
        sq = np.zeros(L * M)
        flat = coefs.reshape(D, L * M)
        for rows, U in _feature_blocks(X_val, W, b, self.memory_budget):
            resid = U @ flat - y_val[rows, None]
            sq += np.einsum("ij,ij->j", resid, resid)
        val_rmse = np.sqrt(sq / y_val.shape[0]).reshape(L, M)
        j, k = best_pair(val_rmse)
        best_lam, best_d = float(lambdas[j]), int(levels[k])
        self.path_ = {"lambdas": lambdas, "m_values": levels, "val_rmse": val_rmse}
        w = coefs[:best_d, j, k]
        if refit:
            Xa, ya = stack_rows(X, X_val), np.concatenate([y, y_val])
            Ga, ca = self._gram(Xa, ya, W[:best_d], b[:best_d])
            w = self._level_path(Ga, ca, best_d, np.array([best_lam * Xa.shape[0]]))[:, 0]
        self._set_solution(W, b, w, best_lam, best_d)
        return self

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
    levels = len(level_values(params.get("d_values")) or range(min(D, 50)))
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
