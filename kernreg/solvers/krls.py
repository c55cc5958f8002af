"""Kernel regularized least squares (Tikhonov), with a λ path from one eigendecomposition."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_lambdas
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers._base import DEFAULT_LAMBDAS, KernelEstimator, stack_rows
from kernreg.solvers._linalg import eigh_inplace, sym_inplace
from kernreg.solvers._metrics import rmse
from kernreg.solvers.kols import full_kernel_memory
from kernreg.solvers.params import LAMBDAS
from kernreg.solvers.registry import AlgorithmSpec, register
from kernreg.solvers.stopping import best_iteration

__all__ = ["KRLS", "eigen_path_coefs"]


def eigen_path_coefs(
    s: np.ndarray, U: np.ndarray, rhs: np.ndarray, shifts: np.ndarray
) -> np.ndarray:
    """Columns ``U diag(1/(s + shift)) Uᵀ rhs`` for every shift (one column per shift).

    ``s`` are eigenvalues of a PSD matrix; rounding can make some slightly negative, so they
    are clipped at 0 first (the exact matrix has none).
    """
    s = np.maximum(s, 0.0)
    c = U.T @ rhs
    return U @ (c[:, None] / (s[:, None] + shifts[None, :]))


def _solve_shifted(K: np.ndarray, y: np.ndarray, shift: float) -> np.ndarray:
    """``(K + shift·I)⁻¹ y`` by Cholesky; eigendecomposition if Cholesky fails."""
    A = K.copy()
    A.flat[:: K.shape[0] + 1] += shift  # no n × n identity
    try:
        return la.cho_solve(la.cho_factor(A, check_finite=False), y, check_finite=False)
    except la.LinAlgError:
        s, U = la.eigh(K, check_finite=False)
        return eigen_path_coefs(s, U, y, np.array([shift]))[:, 0]


class KRLS(KernelEstimator):
    """Kernel regularized least squares, ``α(λ) = (K + λnI)⁻¹ y``.

    With validation data, ``fit`` computes one eigendecomposition ``K = U diag(s) Uᵀ`` and gets
    every λ of the grid as ``α(λ) = U diag(1/(s + λn)) Uᵀ y`` (``O(n³ + n²·|Λ|)``); validation
    predictions of all λ come from one blocked product ``K(X_val, X) @ [α(λ_1) … α(λ_L)]``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float, default 1.0
        Kernel bandwidth (ignored by the linear kernel).
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data.
    lambdas : array-like, optional
        λ grid searched when ``fit`` gets validation data; default 100 values log-spaced in
        ``[1e-15, 1]``.
    refit : bool, default False
        After selecting λ*, refit on training + validation rows (else keep the model fitted on
        the training rows, as the authors' package does by default).
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (the linear algebra runs in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
    centers_ : the rows the model expands on (training rows, plus validation rows if refit)
    best_lambda_ : float
        Selected λ (``lam`` without validation data).
    path_ : dict or None
        ``{"lambdas": (L,), "val_rmse": (L,)}`` with validation data, else None.
    """

    path_parameter = "lambda"

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        lam: float = 1e-6,
        lambdas: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.lam = lam
        self.lambdas = lambdas
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget

    def check_params(self) -> None:
        super().check_params()
        self._check_refit()
        self._check_lam(self.lam)
        if self.lambdas is not None:
            check_lambdas(self.lambdas)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> KRLS:
        """Fit at ``lam``, or over the ``lambdas`` path selecting λ on validation data.

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
        refit = self._check_refit()
        lam = self._check_lam(self.lam)
        n = X.shape[0]
        if X_val is None:
            K = sym_inplace(np.asarray(self.kernel_(X), dtype=np.float64))
            self.alpha_, self.centers_ = _solve_shifted(K, y, lam * n), X
            self.best_lambda_, self.path_ = lam, None
            return self

        lambdas = check_lambdas(DEFAULT_LAMBDAS if self.lambdas is None else self.lambdas)
        K = sym_inplace(np.asarray(self.kernel_(X), dtype=np.float64))
        s, U = eigh_inplace(K)
        del K
        alphas = eigen_path_coefs(s, U, y, lambdas * n)
        del U
        val_rmse = rmse(y_val, self.kernel_.matvec(X_val, X, alphas))
        best = best_iteration(val_rmse) - 1
        self.best_lambda_ = float(lambdas[best])
        self.path_ = {"lambdas": lambdas, "val_rmse": val_rmse}
        if refit:
            Xa, ya = stack_rows(X, X_val), np.concatenate([y, y_val])
            Ka = sym_inplace(np.asarray(self.kernel_(Xa), dtype=np.float64))
            self.alpha_ = _solve_shifted(Ka, ya, self.best_lambda_ * Xa.shape[0])
            self.centers_ = Xa
        else:
            self.alpha_, self.centers_ = alphas[:, best].copy(), X
        return self


register(AlgorithmSpec(
    name="krls",
    estimator=KRLS,
    title="KRLS",
    order=20,
    schema={"lambdas": LAMBDAS},
    config_defaults=("lambdas",),
    memory=full_kernel_memory,
    summary="α = (K + λnI)⁻¹y for every λ of the grid from one eigendecomposition",
))
